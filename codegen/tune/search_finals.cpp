#include "codegen/tune/search_finals.hpp"

namespace dgmax::codegen {

bool finals_fit_budget(double elapsed, double seconds_per_check) {
  return elapsed + kFinalists * (kFinalWarmupSeconds + kFinalMeasuredSeconds + seconds_per_check) <=
         kSearchBudgetSeconds;
}

int sustained_winner(const std::vector<double>& sustained) {
  int best = 0;
  for (int i = 1; i < static_cast<int>(sustained.size()); ++i)
    if (sustained[i] * kDisplaceMargin < sustained[best]) best = i;
  return best;
}

}  // namespace dgmax::codegen
