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
  // (a GPU is needed to load the module and look kernels up; CI checks the source defines them,
  // each fusion level's own and the ones every module has)
  Problem p = test::mixed_problem(2, 1);
  test::set_case_fields(p);
  codegen::KernelSpec spec = make_kernel_spec(p, false);
  const std::vector<std::vector<std::string>> kernels = {
      {"dgmax_volume", "dgmax_surface", "dgmax_lift"}, {"dgmax_volume", "dgmax_surface_lift"}, {"dgmax_stage"}};
  for (int fusion = 0; fusion <= 2; ++fusion) {
    spec.plan.cuda.fusion = fusion;
    const std::string src = codegen::generate_cuda_source(spec);
    EXPECT_NE(src.find("#define FUSION " + std::to_string(fusion) + "\n"), std::string::npos);
    std::vector<std::string> names = kernels[fusion];
    for (const char* k : {"dgmax_update", "dgmax_initial", "dgmax_norms", "dgmax_field_at"}) names.push_back(k);
    for (const std::string& k : names) {
      const size_t at = src.find(k + "(");
      ASSERT_NE(at, std::string::npos) << k;
      const size_t line = src.rfind("extern \"C\" __global__", at);
      EXPECT_NE(line, std::string::npos) << k;
      EXPECT_LT(at - line, 120u) << k << " is not an extern \"C\" __global__ function";
      // fusion-level kernels sit inside `#if FUSION ...` that holds for this level
      const size_t guard = src.rfind("#if FUSION", at);
      if (guard != std::string::npos && src.find("#endif", guard) > at) {
        const std::string cond = src.substr(guard, src.find('\n', guard) - guard);
        const bool holds = cond == "#if FUSION <= 1" ? fusion <= 1 : cond == "#if FUSION == " + std::to_string(fusion);
        EXPECT_TRUE(holds) << k << " is compiled under '" << cond << "' at fusion " << fusion;
      }
    }
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
