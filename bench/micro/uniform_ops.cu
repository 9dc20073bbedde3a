// Operators the warp reads uniformly (bench/NOTES.md, 2026-11-30, "operators as FMA operands"):
// how fast can the stage's operator products run
// when every thread of a warp applies the same operator entry at the same time, so that the entry
// is an operand of the FMA itself (constant bank or immediate) instead of a load through L1?
// The one-node-per-thread stage (plan T) loads Dr/Ds/Dt/LIFT entries and the state through the
// L1/shared pipe, which was 82-90% busy at fp32 N = 2, 3 and fp64 N = 2 (bench/NOTES.md).
// Here one thread per element and output field c computes
//   out[i] = sum_o sum_j D_o[i][j] w_o[j] + sum_m LIFT[i][m] f[m][c]   (i < Np, o = r, s, t)
// with w_o the curl-weighted state (w_o[j] = s (g[3o+a] u_{b}[j] - g[3o+b] u_{a}[j]), the M plans'
// form), the block's state and face fluxes staged in shared memory, out written back through
// shared memory: the volume and lift terms of the stage without its face fluxes and update.
// Variants (OPS):
//   const  : D and LIFT in __constant__ memory, j and m loops unrolled (FMA with a c[] operand)
//   rolled : the same with the j and m loops not unrolled (constant reads indexed by the loop)
//   imm    : the entries as compile-time values (fp32: FMA immediates; fp64: the compiler's constants)
// plus `peak`, FMAs on registers only (this board's FMA rate in this binary).
// Build and run on the GPU machine (one job, about 30 s with both precisions):
//   for R in float double; do nvcc -O3 -std=c++17 -arch=sm_90 -DREAL=$R bench/micro/uniform_ops.cu \
//     -o /tmp/uops_$R && /tmp/uops_$R; done
// Each result is checked against a host product in double (max relative error printed).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef REAL
#define REAL float
#endif
using real = REAL;

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t err_ = (x);                                                               \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(err_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

__host__ __device__ constexpr int np_of(int N) { return (N + 1) * (N + 2) * (N + 3) / 6; }
__host__ __device__ constexpr int nfp_of(int N) { return (N + 1) * (N + 2) / 2; }

// Operator entries as a function of their place (values in [-1, 1], no structure the compiler
// could use): o = 0..2 Dr, Ds, Dt; o = 3 LIFT (j: the face node).
__host__ __device__ constexpr real op_value(int o, int i, int j) {
  unsigned h = 2654435761u * (unsigned)(o * 7919 + i * 104729 + j * 1299709 + 17);
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return real((int)(h % 2001u) - 1000) / real(1000);
}

// 64 KB of constant memory: D_o[i][j] at (o*Np + i)*Np + j, then LIFT[i][m] at 3 Np^2 + i*NF + m.
constexpr int kConstWords = 65536 / sizeof(real);
__constant__ real cops[kConstWords];

enum Ops { kConst, kRolled, kImm };
constexpr int kWarpsPerBlock = 2, kElemPerWarp = 5, EPB = kWarpsPerBlock * kElemPerWarp;

template <int N, int OPS>
__device__ __forceinline__ real op_at(int o, int i, int j) {
  constexpr int Np = np_of(N), NF = 4 * nfp_of(N);
  if constexpr (OPS == kImm) return op_value(o, i, j);
  else return o < 3 ? cops[(o * Np + i) * Np + j] : cops[3 * Np * Np + i * NF + j];
}

// q: [K][6][Np] state, geo: [K][9] metric, flux: [K][NF][6] face fluxes, out: [K][6][Np].
template <int N, int OPS>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    uniform_ops(int K, const real* __restrict__ q, const real* __restrict__ geo, const real* __restrict__ flux,
                real* __restrict__ out) {
  constexpr int Np = np_of(N), NF = 4 * nfp_of(N);
  __shared__ real sq[EPB][6][Np];
  __shared__ real sf[EPB][NF * 6];
  const int kb = blockIdx.x * EPB, tid = threadIdx.x, nvalid = min(EPB, K - kb);
  for (int n = tid; n < nvalid * 6 * Np; n += blockDim.x) (&sq[0][0][0])[n] = q[(long)kb * 6 * Np + n];
  for (int n = tid; n < nvalid * NF * 6; n += blockDim.x) (&sf[0][0])[n] = flux[(long)kb * NF * 6 + n];
  __syncthreads();
  const int warp = tid / 32, lane = tid % 32, e = warp * kElemPerWarp + lane / 6, c = lane % 6;
  const bool active = lane < 6 * kElemPerWarp && e < nvalid;
  real acc[Np];
#pragma unroll
  for (int i = 0; i < Np; ++i) acc[i] = 0;
  if (active) {
    const real* g = geo + (long)(kb + e) * 9;
    const int src = c < 3 ? 3 : 0, a = (c + 1) % 3, b = (c + 2) % 3;
    const real s = c < 3 ? real(1) : real(-1);
    const real* ua = sq[e][src + a];
    const real* ub = sq[e][src + b];
#pragma unroll
    for (int o = 0; o < 3; ++o) {
      const real ga = s * g[3 * o + a], gb = s * g[3 * o + b];
      if constexpr (OPS == kRolled) {
#pragma unroll 1
        for (int j = 0; j < Np; ++j) {
          const real w = ga * ub[j] - gb * ua[j];
#pragma unroll
          for (int i = 0; i < Np; ++i) acc[i] = fma(op_at<N, OPS>(o, i, j), w, acc[i]);
        }
      } else {
#pragma unroll
        for (int j = 0; j < Np; ++j) {
          const real w = ga * ub[j] - gb * ua[j];
#pragma unroll
          for (int i = 0; i < Np; ++i) acc[i] = fma(op_at<N, OPS>(o, i, j), w, acc[i]);
        }
      }
    }
    if constexpr (OPS == kRolled) {
#pragma unroll 1
      for (int m = 0; m < NF; ++m) {
        const real f = sf[e][m * 6 + c];
#pragma unroll
        for (int i = 0; i < Np; ++i) acc[i] = fma(op_at<N, OPS>(3, i, m), f, acc[i]);
      }
    } else {
#pragma unroll
      for (int m = 0; m < NF; ++m) {
        const real f = sf[e][m * 6 + c];
#pragma unroll
        for (int i = 0; i < Np; ++i) acc[i] = fma(op_at<N, OPS>(3, i, m), f, acc[i]);
      }
    }
  }
  __syncthreads();  // every thread done reading sq: it takes the results
  if (active)
#pragma unroll
    for (int i = 0; i < Np; ++i) sq[e][c][i] = acc[i];
  __syncthreads();
  for (int n = tid; n < nvalid * 6 * Np; n += blockDim.x) out[(long)kb * 6 * Np + n] = (&sq[0][0][0])[n];
}

// This board's FMA rate: 8 independent chains per thread, registers only.
__global__ void fma_peak(int iters, real* out) {
  real x[8];
  for (int u = 0; u < 8; ++u) x[u] = real(threadIdx.x + u) * real(1e-3);
  const real a = real(0.999), b = real(1e-4);
  for (int n = 0; n < iters; ++n)
#pragma unroll
    for (int u = 0; u < 8; ++u) x[u] = fma(x[u], a, b);
  real s = 0;
  for (int u = 0; u < 8; ++u) s += x[u];
  if (s == real(12345)) out[0] = s;  // keeps the chains
}

template <int N, int OPS>
void run_case(const char* name, int K, double peak_flops) {
  constexpr int Np = np_of(N), NF = 4 * nfp_of(N);
  if (OPS != kImm && 3 * Np * Np + Np * NF > kConstWords) {
    std::printf("  N = %d %-7s: operators (%d words) do not fit 64 KB of constant memory\n", N, name,
                3 * Np * Np + Np * NF);
    return;
  }
  std::vector<real> hops(3 * Np * Np + Np * NF);
  for (int o = 0; o < 3; ++o)
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) hops[(o * Np + i) * Np + j] = op_value(o, i, j);
  for (int i = 0; i < Np; ++i)
    for (int m = 0; m < NF; ++m) hops[3 * Np * Np + i * NF + m] = op_value(3, i, m);
  CHECK(cudaMemcpyToSymbol(cops, hops.data(), hops.size() * sizeof(real)));
  std::vector<real> hq((size_t)K * 6 * Np), hg((size_t)K * 9), hf((size_t)K * NF * 6);
  srand(7);
  for (auto& v : hq) v = real(rand() % 2001 - 1000) / real(1000);
  for (auto& v : hg) v = real(rand() % 2001 - 1000) / real(1000);
  for (auto& v : hf) v = real(rand() % 2001 - 1000) / real(1000);
  real *q, *g, *f, *o;
  CHECK(cudaMalloc(&q, hq.size() * sizeof(real)));
  CHECK(cudaMalloc(&g, hg.size() * sizeof(real)));
  CHECK(cudaMalloc(&f, hf.size() * sizeof(real)));
  CHECK(cudaMalloc(&o, hq.size() * sizeof(real)));
  CHECK(cudaMemcpy(q, hq.data(), hq.size() * sizeof(real), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(g, hg.data(), hg.size() * sizeof(real), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(f, hf.data(), hf.size() * sizeof(real), cudaMemcpyHostToDevice));
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, uniform_ops<N, OPS>));
  const int blocks = (K + EPB - 1) / EPB;
  uniform_ops<N, OPS><<<blocks, 32 * kWarpsPerBlock>>>(K, q, g, f, o);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  const int reps = 20;
  CHECK(cudaEventRecord(t0));
  for (int r = 0; r < reps; ++r) uniform_ops<N, OPS><<<blocks, 32 * kWarpsPerBlock>>>(K, q, g, f, o);
  CHECK(cudaEventRecord(t1));
  CHECK(cudaEventSynchronize(t1));
  CHECK(cudaGetLastError());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  const double sec = ms * 1e-3 / reps;
  // check a few elements against the host product in double
  std::vector<real> ho(hq.size());
  CHECK(cudaMemcpy(ho.data(), o, ho.size() * sizeof(real), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int k = 0; k < K; k += K / 97 + 1)
    for (int c = 0; c < 6; ++c) {
      const int src = c < 3 ? 3 : 0, a = (c + 1) % 3, b = (c + 2) % 3;
      const double s = c < 3 ? 1 : -1;
      for (int i = 0; i < Np; ++i) {
        double v = 0, scale = 0;
        for (int oo = 0; oo < 3; ++oo)
          for (int j = 0; j < Np; ++j) {
            const double w = s * ((double)hg[k * 9 + 3 * oo + a] * hq[((size_t)k * 6 + src + b) * Np + j] -
                                  (double)hg[k * 9 + 3 * oo + b] * hq[((size_t)k * 6 + src + a) * Np + j]);
            v += (double)hops[(oo * Np + i) * Np + j] * w;
            scale += std::fabs((double)hops[(oo * Np + i) * Np + j] * w);
          }
        for (int m = 0; m < NF; ++m) {
          v += (double)hops[3 * Np * Np + i * NF + m] * hf[((size_t)k * NF + m) * 6 + c];
          scale += std::fabs((double)hops[3 * Np * Np + i * NF + m] * hf[((size_t)k * NF + m) * 6 + c]);
        }
        worst = std::fmax(worst, std::fabs(ho[((size_t)k * 6 + c) * Np + i] - v) / scale);
      }
    }
  const double flops = 2.0 * 6 * (3.0 * Np * Np + (double)Np * NF) * K;  // the operator FMAs
  std::printf("  N = %d %-7s: %8.3f ms  %7.2f TFLOP/s (%5.1f%% of peak)  %7.2f GDOF/s  %3d regs  %5d B local  err %.1e\n",
              N, name, sec * 1e3, flops / sec * 1e-12, 100 * flops / sec / peak_flops, 6.0 * Np * K / sec * 1e-9,
              attr.numRegs, (int)attr.localSizeBytes, worst);
  CHECK(cudaFree(q));
  CHECK(cudaFree(g));
  CHECK(cudaFree(f));
  CHECK(cudaFree(o));
}

template <int N>
void run_order(int K, double peak) {
  run_case<N, kConst>("const", K, peak);
  run_case<N, kRolled>("rolled", K, peak);
  run_case<N, kImm>("imm", K, peak);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  real* d;
  CHECK(cudaMalloc(&d, sizeof(real)));
  const int pblocks = prop.multiProcessorCount * 8, pthreads = 256, iters = 1 << 16;
  fma_peak<<<pblocks, pthreads>>>(iters, d);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  CHECK(cudaEventRecord(t0));
  fma_peak<<<pblocks, pthreads>>>(iters, d);
  CHECK(cudaEventRecord(t1));
  CHECK(cudaEventSynchronize(t1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  const double peak = 2.0 * 8 * iters * (double)pblocks * pthreads / (ms * 1e-3);
  std::printf("%s, %s: FMA peak (registers only) %.2f TFLOP/s; K = 384000, %d elements per block\n", prop.name,
              sizeof(real) == 4 ? "fp32" : "fp64", peak * 1e-12, EPB);
  const int K = 384000;
  run_order<1>(K, peak);
  run_order<2>(K, peak);
  run_order<3>(K, peak);
  run_order<4>(K, peak);
  if constexpr (sizeof(real) == 4) run_order<5>(K, peak);
  return 0;
}
