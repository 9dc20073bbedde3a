#include "codegen/emit/cuda_halo_kernels.hpp"

namespace dgmax::codegen {

std::string cuda_halo_source(bool single) {
  return std::string("// dgmax halo kernels (codegen/emit/cuda_halo_kernels.cpp)\n") + "typedef " +
         (single ? "float" : "double") + " real;  // the state's precision\n" + R"cuda(
// index: [n] state indices (k * 6 + c) * Np + i; q: [K][6][Np]; out: [n]
extern "C" __global__ void dgmax_halo_gather(long n, const int* __restrict__ index, const real* __restrict__ q,
                                             real* __restrict__ out) {
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = q[index[i]];
}

extern "C" __global__ void dgmax_halo_scatter(long n, const int* __restrict__ index, const real* __restrict__ in,
                                              real* __restrict__ q) {
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) q[index[i]] = in[i];
}
)cuda";
}

}  // namespace dgmax::codegen
