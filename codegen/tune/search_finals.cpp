#include "codegen/tune/search_finals.hpp"

#include <fmt/format.h>

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

std::string finals_verdict(const std::string& burst_name, double burst_sustained, const std::string& best_name,
                           double best_sustained) {
  if (best_name == burst_name)
    return fmt::format("kept: the fastest burst, {} (no finalist was {:.1f}% faster sustained)", burst_name,
                       100 * (kDisplaceMargin - 1));
  return fmt::format("displaced: the fastest burst, {}, by {} ({:.1f}% faster sustained)", burst_name, best_name,
                     100 * (burst_sustained / best_sustained - 1));
}

}  // namespace dgmax::codegen
