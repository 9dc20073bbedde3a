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
    // CUDA's double math functions are within 1-2 ulp of glibc's; FMA contraction adds an ulp
    EXPECT_LE(d, 1e-13);
  }
}

TEST_F(GpuFields, InitialStateAndNormsEqualTheHost) {
  for (bool single : {false, true}) {
    Problem p = mixed_problem(4, 9);
    p.initial = space_time_field_from_text(
        {"sin(pi*x)*y", "cos(z) - x", "exp(-x^2)", "x*y*z", "atan2(y, x + 3)", "sqrt(1 + z^2)"}, "initial");
    p.exact = space_time_field_from_text({"sin(x + t)", "y", "z*t", "0", "cos(x*y)", "x - t"}, "exact");
    auto be = make_cuda_backend(p, single);
    be->init_state();
    Fields q;
    be->get_state(q);
    const Fields host = interpolate_initial(p);
    double d = 0;
    for (size_t n = 0; n < q.q.size(); ++n) d = std::max(d, std::abs(q.q[n] - host.q[n]));
    EXPECT_LE(d, single ? 4e-7 : 1e-14);

    expect_norms_equal_host(p, *be, single);
  }
}

TEST_F(GpuFields, NonFiniteInitialNamesComponentAndPoint) {
  Problem p = mixed_problem(2, 2);
  p.initial = space_time_field_from_text({"0", "0", "0", "0", "log(x - 100)", "0"}, "initial.H");
  auto be = make_cuda_backend(p, false);
  expect_user_error([&] { be->init_state(); }, {"'initial.H[4]' is", "NaN", "(x, y, z) = ("});
}

TEST_F(GpuFields, NormsPropagateNaN) {
  Problem p = mixed_problem(2, 1);
  p.exact = space_time_field_from_text({"0", "0", "log(x - 100)", "0", "0", "0"}, "exact");
  auto be = make_cuda_backend(p, false);
  be->set_state(random_state(p, 1));
  const NormSample s = be->norms(0);
  EXPECT_TRUE(std::isnan(s.errors.L2_E));
  EXPECT_TRUE(std::isnan(s.errors.Linf_E));
  EXPECT_FALSE(std::isnan(s.errors.L2_H));
}
