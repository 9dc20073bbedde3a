#include "codegen/emit/cuda_monitor_kernels.hpp"

namespace dgmax::codegen {

std::string cuda_monitor_source(bool single) {
  return std::string("// dgmax probe and DFT-monitor kernels (codegen/emit/cuda_monitor_kernels.cpp)\n") +
         "typedef " + (single ? "float" : "double") + " real;  // the state's precision\n" + R"cuda(
// out: [P][6]; elements: [P]; weights: [P][Np]; q: [K][6][Np]
extern "C" __global__ void dgmax_probe_sample(int P, int Np, const int* __restrict__ elements,
                                              const double* __restrict__ weights, const real* __restrict__ q,
                                              double* __restrict__ out) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;  // p * 6 + c
  if (id >= P * 6) return;
  const int p = id / 6, c = id % 6;
  const real* u = q + ((long)elements[p] * 6 + c) * Np;
  const double* w = weights + (long)p * Np;
  double sum = 0;
  for (int i = 0; i < Np; ++i) sum += w[i] * (double)u[i];
  out[id] = sum;
}

// nodes: [M] (k * Np + i); frequencies: [F]; re, im: [F][M][6]
extern "C" __global__ void dgmax_dft_accumulate(long M, int F, int Np, const long* __restrict__ nodes,
                                                const double* __restrict__ frequencies, const real* __restrict__ q,
                                                double t, double dt, double* __restrict__ re, double* __restrict__ im) {
  const long id = blockIdx.x * (long)blockDim.x + threadIdx.x;  // f * M + m
  if (id >= M * F) return;
  const int f = (int)(id / M);
  const long m = id % M;
  // the phase as the host computes it: (2 pi) f t, in double
  const double theta = 2 * 3.141592653589793 * frequencies[f] * t;
  const double c = cos(theta), s = sin(theta);
  const long k = nodes[m] / Np, i = nodes[m] % Np;
  for (int comp = 0; comp < 6; ++comp) {
    const double x = (double)q[(k * 6 + comp) * Np + i] * dt;
    re[id * 6 + comp] += x * c;
    im[id * 6 + comp] -= x * s;
  }
}
)cuda";
}

}  // namespace dgmax::codegen
