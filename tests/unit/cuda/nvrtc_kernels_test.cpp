// Every generated CUDA kernel (N = 1..8, fp32 and fp64, all built-in fluxes and exterior states,
// with and without compiled initial/exact/J/incident fields)
// compiles with NVRTC for sm_80 and sm_90 — without a GPU, so CI catches a broken template.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "codegen/emit/cuda_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "codegen/tune/cuda_plan.hpp"
#include "field_cases.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/physics/flux_set.hpp"
#include "solver/physics/space_time_field.hpp"

using namespace dgmax;

TEST(NvrtcKernels, AllOrdersPrecisionsAndArchitecturesCompile) {
  for (int N = 1; N <= 8; ++N) {
    Problem p = test::mixed_problem(N, N);
    if (N % 2 == 1) test::set_case_fields(p);  // initial, exact, J and incident kernels too
    for (bool single : {false, true}) {
      for (const char* arch : {"sm_80", "sm_90"}) {
        // each architecture's default plan (sm_90's fp64 tensor-core tiles do not exist on sm_80)
        codegen::KernelSpec spec = make_kernel_spec(p, single);
        spec.plan.cuda = codegen::default_cuda_plan(N, single, arch == std::string("sm_80") ? 80 : 90);
        const std::string src = codegen::generate_cuda_source(spec);
        codegen::NvrtcOptions opt;
        opt.arch = codegen::cuda_plan_arch(spec.plan.cuda, arch);  // sm_90a for warpgroup MMAs (X)
        const std::vector<char> cubin =
            codegen::nvrtc_compile(src, "test_N" + std::to_string(N) + (single ? "_fp32_" : "_fp64_") + arch, opt);
        ASSERT_GE(cubin.size(), 4u);
        EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << "N = " << N << " " << arch;
      }
    }
  }
}

// besselj and bessely in a field (evaluated in double) and in a custom flux (in real_t: also float)
// compile: the CUDA math API's jn and yn through the source's dgmax_besselj / dgmax_bessely.
TEST(NvrtcKernels, BesselFieldsAndFluxCompile) {
  Problem p = test::mixed_problem(2, 1);
  const std::vector<std::string> texts = {"besselj(1, 2.4*x)*cos(t)", "bessely(0, 1 + y*y)", "besselj(7, -z)", "0", "0",
                                          "bessely(2, 3 + x)"};
  p.initial = space_time_field_from_text(texts, "initial", {});
  p.exact = space_time_field_from_text(texts, "exact", {});
  const FluxSource custom{{"besselj(1, Z.int)*jump(E)", {}}, {"bessely(2, 1 + Y.int)*jump(H)", {}}};
  p.fluxes = make_flux_set("custom", 1, &custom, {});
  for (bool single : {false, true}) {
    const std::string src = codegen::generate_cuda_source(make_kernel_spec(p, single));
    EXPECT_NE(src.find("yn(n, x)"), std::string::npos);
    EXPECT_NE(src.find("dgmax_besselj(7, "), std::string::npos);
    codegen::NvrtcOptions opt;
    opt.arch = "sm_90";
    const std::vector<char> cubin = codegen::nvrtc_compile(src, single ? "bessel_fp32" : "bessel_fp64", opt);
    ASSERT_GE(cubin.size(), 4u);
    EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << (single ? "fp32" : "fp64");
  }
}

// Where the `#if` at `at` ends: its matching `#endif` (nested #if blocks skipped).
static size_t block_end(const std::string& src, size_t at) {
  int depth = 0;
  for (size_t pos = at; pos < src.size(); pos = src.find('\n', pos) + 1) {
    if (src.compare(pos, 3, "#if") == 0) ++depth;
    if (src.compare(pos, 6, "#endif") == 0 && --depth == 0) return pos;
    if (src.find('\n', pos) == std::string::npos) break;
  }
  return std::string::npos;
}

TEST(NvrtcKernels, EveryKernelTheBackendLooksUpIsDefined) {
  // (a GPU is needed to load the module and look kernels up; CI checks the source defines them,
  // each fusion level's own and the ones every module has)
  Problem p = test::mixed_problem(2, 1);
  test::set_case_fields(p);
  codegen::KernelSpec spec = make_kernel_spec(p, false);
  const std::vector<std::vector<std::string>> kernels = {
      {"dgmax_volume", "dgmax_surface", "dgmax_lift"}, {"dgmax_volume", "dgmax_surface_lift"}, {"dgmax_stage"}};
  // plans: fusion 0, 1, 2 and the tensor-core stage (fusion 2, MMA)
  for (int variant = 0; variant <= 3; ++variant) {
    const int fusion = std::min(variant, 2);
    const bool mma = variant == 3;
    spec.plan.cuda = *codegen::CudaPlan::parse(mma ? "f2.b4.t1.M" : "f" + std::to_string(fusion) + ".b4.t1.T");
    const std::string src = codegen::generate_cuda_source(spec);
    EXPECT_NE(src.find("#define FUSION " + std::to_string(fusion) + "\n"), std::string::npos);
    EXPECT_NE(src.find(std::string("#define MMA ") + (mma ? "1" : "0") + "\n"), std::string::npos);
    // whether an `#if` line of the generated source holds for this plan
    auto holds = [&](const std::string& cond) {
      if (cond == "#if FUSION <= 1") return fusion <= 1;
      const std::string level = "#if FUSION == " + std::to_string(fusion);
      if (cond == level) return true;
      if (cond == level + " && !MMA") return !mma;
      if (cond == level + " && MMA") return mma;
      return false;
    };
    std::vector<std::string> names = kernels[fusion];
    for (const char* k : {"dgmax_update", "dgmax_initial", "dgmax_norms", "dgmax_field_at"}) names.push_back(k);
    for (const std::string& k : names) {
      // every definition of k, and how many are compiled for this plan: exactly one
      int compiled = 0;
      for (size_t at = src.find(k + "("); at != std::string::npos; at = src.find(k + "(", at + 1)) {
        const size_t line = src.rfind("extern \"C\" __global__", at);
        if (line == std::string::npos || at - line >= 120) continue;  // a call or a comment, not a definition
        const size_t guard = src.rfind("#if FUSION", at);
        const bool guarded = guard != std::string::npos && block_end(src, guard) > at;
        if (!guarded || holds(src.substr(guard, src.find('\n', guard) - guard))) ++compiled;
      }
      EXPECT_EQ(compiled, 1) << k << " in plan " << spec.plan.cuda.name();
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

// A layer (kappa != 1, so the scale is read too) in every fusion level and stage form, both
// precisions: the pml kernel and the stage kernels' extra terms compile, and dgmax_pml is defined
// (launched before the stage in fusion 0 and 1; whole-stage kernels advance the layer themselves).
TEST(NvrtcKernels, PmlKernelsCompileInEveryPlanForm) {
  Problem p = test::mixed_problem(4, 2);
  codegen::PmlProfile prof;
  for (int d = 0; d < 3; ++d)
    prof.inner_lo[d] = -0.3, prof.inner_hi[d] = 0.3, prof.width_lo[d] = prof.width_hi[d] = 0.2,
    prof.sigma_lo[d] = prof.sigma_hi[d] = 40;
  prof.kappa_max = 2;
  prof.alpha = 0.05;
  for (bool single : {false, true}) {
    codegen::KernelSpec spec = make_kernel_spec(p, single);
    spec.pml = prof;
    spec.pml_scaled = true;
    std::vector<const char*> plans = {"f0.b4.t1.T", "f1.b4.t1.T", "f2.b4.t1.T", "f2.b4.t1.M", "f2.b4.t1.M.C", "f2.b4.t1.M.W.C.A.G"};
    if (single) plans.insert(plans.end(), {"f2.b8.t1.M.X.C.A", "f2.b10.t1.M.X.E.A"});  // warpgroup MMAs (sm_90a)
    for (const char* plan : plans) {
      spec.plan.cuda = *codegen::CudaPlan::parse(plan);
      const std::string src = codegen::generate_cuda_source(spec);
      EXPECT_NE(src.find("#define HAS_PML 1"), std::string::npos);
      EXPECT_NE(src.find("dgmax_pml(int slots"), std::string::npos);
      // whole-stage kernels advance the layer themselves; fusion 0 and 1 launch dgmax_pml first
      const bool in_stage = plan[1] == '2';
      EXPECT_EQ(codegen::cuda_pml_in_stage(spec), in_stage) << plan;
      EXPECT_NE(src.find(std::string("#define PML_IN_STAGE ") + (in_stage ? "1" : "0")), std::string::npos) << plan;
      codegen::NvrtcOptions opt;
      opt.arch = codegen::cuda_plan_arch(spec.plan.cuda, "sm_90");
      EXPECT_FALSE(codegen::nvrtc_compile(src, std::string("pml_") + plan + (single ? "_fp32" : "_fp64"), opt).empty())
          << plan;
    }
  }
}
