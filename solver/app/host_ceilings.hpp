// The host's own ceilings, measured with all OpenMP threads: memory bandwidth (read + write bytes
// per second, the best of a copy and an in-place update) and fused multiply-add rate (flops per
// second, an FMA counted as 2) of code compiled as the cpu kernels are (the host JIT: the host's
// own vector instructions).
#pragma once

namespace dgmax {

struct Ceilings {
  double bandwidth;  // bytes/s
  double flops;      // flop/s
};

Ceilings measure_host_ceilings(bool single);

}  // namespace dgmax
