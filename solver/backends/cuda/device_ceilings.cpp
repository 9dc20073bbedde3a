#include "solver/backends/cuda/device_ceilings.hpp"

#include <algorithm>
#include <string>

#include "codegen/jit/nvrtc_jit.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

namespace dgmax::cuda {
namespace {

const char* kSource = R"cuda(
typedef REAL real_t;
// 16-byte loads and stores, grid-stride.
extern "C" __global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ b, long n) {
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) b[i] = a[i];
}
// 8 independent FMA chains per thread; the result is stored so nothing is optimized away.
extern "C" __global__ void fma_kernel(real_t* out, int iters, real_t a, real_t b) {
  real_t x[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) x[c] = threadIdx.x * real_t(1e-3) + c;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < 8; ++c) x[c] = fma(x[c], a, b);
  }
  real_t s = 0;
#pragma unroll
  for (int c = 0; c < 8; ++c) s += x[c];
  out[(long)blockIdx.x * blockDim.x + threadIdx.x] = s;
}
)cuda";

}  // namespace

DeviceCeilings measure_device_ceilings(bool single) {
  Context& ctx = Context::get();
  codegen::NvrtcOptions opt;
  opt.arch = ctx.info().arch();
  opt.extra = {single ? "-DREAL=float" : "-DREAL=double"};
  Module module(ctx, codegen::nvrtc_compile(kSource, single ? "dgmax_ceilings_fp32" : "dgmax_ceilings_fp64", opt),
                "ceilings");
  Function copy = module.function("copy_kernel"), fma = module.function("fma_kernel");

  // copy: 2 x 1 GiB buffers (beyond the L2 many times over)
  const size_t bytes = size_t(1) << 30;
  DeviceBuffer a(ctx, bytes, "copy source"), b(ctx, bytes, "copy target");
  a.zero();
  long n = static_cast<long>(bytes / 16);
  DevicePtr pa = a.ptr(), pb = b.ptr();
  void* cargs[] = {&pa, &pb, &n};
  const unsigned grid = 8u * static_cast<unsigned>(ctx.info().sm_count) * 4;
  double best_bw = 0;
  for (int rep = 0; rep < 6; ++rep) {
    Event t0(ctx), t1(ctx);
    t0.record();
    launch(copy, "copy_kernel", grid, 256, 0, cargs);
    t1.record();
    if (rep > 0) best_bw = std::max(best_bw, 2.0 * bytes / (t1.elapsed_ms(t0) / 1e3));
  }

  // FMA: 8 chains x iters per thread over a full grid
  const unsigned blocks = 64u * static_cast<unsigned>(ctx.info().sm_count), threads = 256;
  DeviceBuffer out(ctx, static_cast<size_t>(blocks) * threads * (single ? 4 : 8), "fma output");
  int iters = 4096;
  DevicePtr po = out.ptr();
  double best_flops = 0;
  for (int rep = 0; rep < 4; ++rep) {
    Event t0(ctx), t1(ctx);
    t0.record();
    if (single) {
      float fa = 0.999999f, fb = 1e-7f;
      void* args[] = {&po, &iters, &fa, &fb};
      launch(fma, "fma_kernel", blocks, threads, 0, args);
    } else {
      double da = 0.999999, db = 1e-7;
      void* args[] = {&po, &iters, &da, &db};
      launch(fma, "fma_kernel", blocks, threads, 0, args);
    }
    t1.record();
    const double flops = 2.0 * 8 * iters * static_cast<double>(blocks) * threads;
    if (rep > 0) best_flops = std::max(best_flops, flops / (t1.elapsed_ms(t0) / 1e3));
  }
  return {best_bw, best_flops};
}

}  // namespace dgmax::cuda
