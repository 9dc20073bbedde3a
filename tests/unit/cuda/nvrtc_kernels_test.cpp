// Every generated CUDA kernel (N = 1..8, fp32 and fp64, all built-in fluxes and exterior states,
// with and without compiled initial/exact/J/incident fields)
// compiles with NVRTC for sm_80 and sm_90 — without a GPU, so CI catches a broken template.
#include <gtest/gtest.h>

#include "codegen/emit/cuda_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "field_cases.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/kernel_spec_builder.hpp"

using namespace dgmax;

TEST(NvrtcKernels, AllOrdersPrecisionsAndArchitecturesCompile) {
  for (int N = 1; N <= 8; ++N) {
    Problem p = test::mixed_problem(N, N);
    if (N % 2 == 1) test::set_case_fields(p);  // initial, exact, J and incident kernels too
    for (bool single : {false, true}) {
      const std::string src = codegen::generate_cuda_source(make_kernel_spec(p, single));
      for (const char* arch : {"sm_80", "sm_90"}) {
        codegen::NvrtcOptions opt;
        opt.arch = arch;
        const std::vector<char> cubin =
            codegen::nvrtc_compile(src, "test_N" + std::to_string(N) + (single ? "_fp32_" : "_fp64_") + arch, opt);
        ASSERT_GE(cubin.size(), 4u);
        EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << "N = " << N << " " << arch;
      }
    }
  }
}

TEST(NvrtcKernels, EveryKernelTheBackendLooksUpIsDefined) {
  // (a GPU is needed to load the module and look kernels up; CI checks the source defines them)
  Problem p = test::mixed_problem(2, 1);
  test::set_case_fields(p);
  const std::string src = codegen::generate_cuda_source(make_kernel_spec(p, false));
  for (const char* k : {"dgmax_volume", "dgmax_surface", "dgmax_lift", "dgmax_surface_lift", "dgmax_stage",
                        "dgmax_update", "dgmax_initial", "dgmax_norms", "dgmax_field_at"}) {
    const size_t at = src.find(std::string(k) + "(");
    ASSERT_NE(at, std::string::npos) << k;
    const size_t line = src.rfind("extern \"C\" __global__", at);
    EXPECT_NE(line, std::string::npos) << k;
    EXPECT_LT(at - line, 120u) << k << " is not an extern \"C\" __global__ function";
  }
}

TEST(NvrtcKernels, CentralAndAlphaFluxesCompile) {
  for (const auto& [name, alpha] : {std::pair<const char*, double>{"central", 0.0}, {"alpha", 0.25}}) {
    const Problem p = test::mixed_problem(3, 1, name, alpha);
    codegen::NvrtcOptions opt;
    opt.arch = "sm_90";
    EXPECT_FALSE(codegen::nvrtc_compile(codegen::generate_cuda_source(make_kernel_spec(p, false)), name, opt).empty());
  }
}
