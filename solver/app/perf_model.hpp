// The roofline performance model: flops and fewest bytes per element and RK stage,
// and the roofline floor of a stage.
#pragma once

namespace dgmax {

struct StageCost {
  double flops;  // per element and stage
  double bytes;  // fewest bytes moved per element and stage
};

// F ≈ 36·Np² + 48·Np·Nfp + 72·Np + 240·Nfp;  B ≈ w·(24·Np + 24·Nfp + 16) + 16·Nfp
StageCost stage_cost(int N, int bytes_per_real);

// Time floor of one stage on K elements: K · max(F / peak_flops, B / bandwidth).
double stage_floor_seconds(int N, int bytes_per_real, long long K, double peak_flops, double bandwidth);

}  // namespace dgmax
