// The CUDA source of the probe and DFT-monitor kernels (compiled by NVRTC in a module of their
// own, apart from the generated stage kernels; the state layout is [K][6][Np] in `real`):
//   dgmax_probe_sample    one thread per (probe, component): out[p][c] = sum_i w[p][i] q[k_p][c][i]
//   dgmax_dft_accumulate  one thread per (frequency, node): re/im[f][m][c] += q dt (cos, -sin)(2 pi f t)
// Everything is accumulated in double, whatever `real` is.
#pragma once

#include <string>

namespace dgmax::codegen {

// `single`: the state is float (else double).
std::string cuda_monitor_source(bool single);

}  // namespace dgmax::codegen
