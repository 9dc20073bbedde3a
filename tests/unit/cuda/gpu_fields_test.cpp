// Space-time fields compiled by NVRTC against the interpreter (to the device math library's
// rounding), and the cuda backend's initial state and device reductions against the host's.
// ctest label gpu; skipped with a message without a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "codegen/emit/cuda_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "expect_user_error.hpp"
#include "field_cases.hpp"
#include "mixed_problem.hpp"
#include "simulate.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/kernel_spec_builder.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

class GpuFields : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

}  // namespace

TEST_F(GpuFields, CompiledFieldsEqualInterpreterToRounding) {
  auto& ctx = cuda::Context::get();
  for (bool single : {false, true}) {
    Problem p = box_problem(unit_box(1), 2, 1.0);
    set_case_fields(p);
    codegen::NvrtcOptions opt;
    opt.arch = ctx.info().arch();
    cuda::Module m(ctx, codegen::nvrtc_compile(codegen::generate_cuda_source(make_kernel_spec(p, single)), "fields", opt),
                   "fields");
    const cuda::Function f = m.function("dgmax_field_at");
    const double d = max_field_difference([&](int w, const std::vector<double>& pts, std::vector<double>& out) {
      long n = static_cast<long>(pts.size() / 4);
      cuda::DeviceBuffer dp(ctx, pts.size() * sizeof(double)), dout(ctx, out.size() * sizeof(double));
      dp.upload(pts);
      cuda::DevicePtr pp = dp.ptr(), po = dout.ptr();
      void* args[] = {&w, &n, &pp, &po};
      cuda::launch(f, "dgmax_field_at", static_cast<unsigned>((n + 127) / 128), 128, 0, args);
      dout.download(out);
    });
    std::cout << (single ? "fp32" : "fp64") << " kernels: compiled fields vs interpreter, max difference " << d
              << " (relative to max(1, |value|))\n";
    // CUDA's double math functions are within 1-2 ulp of glibc's and FMA contraction adds an ulp,
    // except jn / yn (besselj, bessely), which recur from J0, J1: 1.14e-13 from libstdc++'s on an
    // H100 (bench/NOTES.md, "2026-12-06 — the gpu label with Bessel fields and curved meshes")
    EXPECT_LE(d, 3e-13);
  }
}

TEST_F(GpuFields, InitialStateAndNormsEqualTheHost) {
  expect_initial_state_and_norms_equal_host(make_cuda_backend, false, 1e-14);
  expect_initial_state_and_norms_equal_host(make_cuda_backend, true, 4e-7);
}

TEST_F(GpuFields, NonFiniteInitialNamesComponentAndPoint) {
  expect_nonfinite_initial_is_located(make_cuda_backend, false);
  expect_nonfinite_initial_is_located(make_cuda_backend, true);
}

TEST_F(GpuFields, NormsPropagateNaN) { expect_norms_propagate_nan(make_cuda_backend); }
