#include "solver/app/perf_model.hpp"

#include <algorithm>

namespace dgmax {

StageCost stage_cost(int N, int w) {
  const double Np = (N + 1.0) * (N + 2) * (N + 3) / 6, Nfp = (N + 1.0) * (N + 2) / 2;
  return {36 * Np * Np + 48 * Np * Nfp + 72 * Np + 240 * Nfp, w * (24 * Np + 24 * Nfp + 16) + 16 * Nfp};
}

double stage_floor_seconds(int N, int w, long long K, double peak_flops, double bandwidth) {
  const StageCost c = stage_cost(N, w);
  return static_cast<double>(K) * std::max(c.flops / peak_flops, c.bytes / bandwidth);
}

}  // namespace dgmax
