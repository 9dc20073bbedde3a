// Every cpu plan variant (codegen::CpuPlan: fused stage or four passes, element batch widths
// including odd ones that leave a partial last batch, 512/256-bit or the compiler's vectors, with
// and without FMA) against the ref backend, in double and single precision, to the tolerances of
// cpu_backend_test.cpp: right-hand sides with every boundary condition, a current source and an
// incident field; a perfectly matched layer's right-hand side and 20 steps of its state and
// auxiliary fields; whole steps on the cavity. And the plan names parse back.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cavity.hpp"
#include "config_problem.hpp"
#include "expect_user_error.hpp"
#include "mixed_problem.hpp"
#include "simulate.hpp"
#include "codegen/emit/cpu_kernels.hpp"
#include "codegen/jit/host_jit.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/time/timestep.hpp"
#include "max_rel.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

constexpr double kDoubleTol = 1e-15, kSingleTol = 2e-6;  // as cpu_backend_test.cpp

// chunk: elements per OpenMP chunk, -1: two batches; 0: one range per thread (the default)
codegen::CpuPlan plan(bool fused, int batch, int vector_bits, bool fma, int chunk = -1, bool wide = false,
                      int fields_per_pass = 6, bool transposed_update = false, bool gather_instructions = false) {
  codegen::CpuPlan p;
  p.transposed_update = transposed_update;
  p.gather_instructions = gather_instructions;
  p.wide_trace_offsets = wide;
  p.fields_per_pass = fields_per_pass;
  p.fused = fused;
  p.batch = batch;
  p.elements_per_chunk = chunk < 0 ? 2 * batch : chunk;
  p.vector_bits = vector_bits;
  p.fma = fma;
  return p;
}

// The variants tested, for real_t of `bits` bits: four passes; fused with one SIMD register of
// elements (512 bits where the host has AVX-512, else 256), half of one, an odd width, none (1);
// with and without FMA; OpenMP chunks of two batches or one range of batches per thread; the
// exterior traces' offsets as ints (states under 2^31 entries) or computed in 64 bits (o64; the
// path of larger states, which no test can allocate, taken here on small ones); the volume loop in
// and the lift in passes of 3, 2 and 1 fields; the update from the transposed right-hand side (tu:
// W x W tiles at one and half a register of elements, one value at a time at the odd width); the
// exterior traces by gather instructions (gv: taken at one register of elements, 256 or 512 bits;
// at half a register on a 512-bit host, AVX2's; the lanes one by one at the odd width and with o64).
std::vector<codegen::CpuPlan> variants(int bits) {
  const int simd = codegen::host_simd_bits() >= 512 ? 512 : 256;
  const int lanes = simd / bits;
  return {plan(false, 1, 0, false),       plan(true, lanes, simd, true, 0), plan(true, lanes, simd, false),
          plan(true, lanes / 2, 0, true), plan(true, 3, 0, true, 0),        plan(true, 1, 0, false),
          plan(true, lanes, simd, true, 0, true), plan(true, 3, 0, false, -1, true),
          plan(true, lanes, simd, true, 0, false, 3), plan(true, 3, 0, true, -1, true, 2),
          plan(true, lanes, simd, false, 0, false, 1), plan(true, lanes, simd, true, 0, false, 3, true),
          plan(true, lanes / 2, 0, false, -1, true, 6, true), plan(true, 3, 0, true, 0, false, 6, true),
          plan(true, lanes, simd, true, 0, false, 6, false, true), plan(true, lanes / 2, 0, true, -1, false, 3, false, true),
          plan(true, 3, 0, true, 0, false, 6, false, true), plan(true, lanes, simd, true, 0, true, 6, true, true)};
}

std::string pml_config(const std::string& precision) {
  return R"y(
mesh:
  box: {lower: [-0.5, -0.5, -0.5], upper: [0.5, 0.5, 0.5], cells: [2, 2, 2], pml: 0.5}
discretization: {order: 2, precision: )y" +
         precision + R"y(, flux: upwind}
materials: {default: {eps: 1, mu: 1}, pml: {eps: 2, mu: 1.5}}
sources:
  J: ["0", "0", "exp(-(x^2 + y^2 + z^2)/0.1)*sin(5*t)"]
pml: {order: 2, reflection: 1e-4, kappa: 2.5, alpha: 0.3}
)y";
}

}  // namespace

TEST(CpuPlans, NamesParseBack) {
  for (int bits : {64, 32})
    for (const codegen::CpuPlan& p : variants(bits)) {
      const auto back = codegen::CpuPlan::parse(p.name());
      ASSERT_TRUE(back.has_value()) << p.name();
      EXPECT_TRUE(*back == p) << p.name() << " -> " << back->name();
    }
  EXPECT_FALSE(codegen::CpuPlan::parse("f1.w8.c32").has_value());
  EXPECT_FALSE(codegen::CpuPlan::parse("f2.w8.c32.v512").has_value());
  EXPECT_FALSE(codegen::CpuPlan::parse("f1.w8.c32.v300.fma").has_value());
  EXPECT_EQ(codegen::CpuPlan::parse("f1.w8.c0.v512.o64")->name(), "f1.w8.c0.v512.o64");
  EXPECT_TRUE(codegen::CpuPlan::parse("f1.w8.c0.v512.fma.o64")->wide_trace_offsets);
  EXPECT_FALSE(codegen::CpuPlan::parse("f1.w8.c0.v512.o64.fma").has_value());
  EXPECT_FALSE(codegen::CpuPlan::parse("f1.w8.c0.v512.fma.o64.o64").has_value());
  EXPECT_FALSE(codegen::CpuPlan::parse("f1.w8.c0.o64").has_value());
  EXPECT_EQ(codegen::CpuPlan::parse("f1.w4.c0.v256.fma.h3.o64")->fields_per_pass, 3);
  EXPECT_EQ(codegen::CpuPlan::parse("f1.w4.c0.v256.h2")->fields_per_pass, 2);
  EXPECT_EQ(codegen::CpuPlan::parse("f1.w4.c0.v256.fma")->fields_per_pass, 6);
  EXPECT_TRUE(codegen::CpuPlan::parse("f1.w8.c0.v256.fma.h3.tu.o64")->transposed_update);
  EXPECT_FALSE(codegen::CpuPlan::parse("f1.w8.c0.v256.fma.h3")->transposed_update);
  EXPECT_TRUE(codegen::CpuPlan::parse("f1.w8.c0.v512.fma.h3.tu.gv.o64")->gather_instructions);
  EXPECT_TRUE(codegen::CpuPlan::parse("f1.w8.c0.v512.gv")->gather_instructions);
  EXPECT_FALSE(codegen::CpuPlan::parse("f1.w8.c0.v512.fma.tu")->gather_instructions);
  for (const char* bad : {"f1.w4.c0.v256.fma.h6", "f1.w4.c0.v256.fma.h4", "f1.w4.c0.v256.fma.h0",
                          "f1.w4.c0.v256.fma.o64.h3", "f1.w4.c0.v256.h3.fma", "f1.w4.c0.v256.fma.h3.h3",
                          "f1.w8.c0.v256.fma.tu.h3", "f1.w8.c0.v256.fma.o64.tu", "f1.w8.c0.v256.tu.tu",
                          "f1.w8.c0.v256.fma.gv.tu", "f1.w8.c0.v256.fma.o64.gv", "f1.w8.c0.v256.gv.gv", "f1.w8.c0.gv"})
    EXPECT_FALSE(codegen::CpuPlan::parse(bad).has_value()) << bad;
  const codegen::CpuPlan d = codegen::default_cpu_plan(3, false);
  EXPECT_TRUE(d.fused);
  EXPECT_EQ(d.batch, codegen::host_simd_bits() / 64);
  EXPECT_EQ(d.elements_per_chunk, 0);  // one contiguous range of batches per thread
  EXPECT_EQ(d.name().rfind("f1.w" + std::to_string(d.batch) + ".c0.", 0), 0u) << d.name();
  EXPECT_FALSE(d.wide_trace_offsets);
  // gv where it measured faster (fp32, 16 lanes of a 512-bit register); a loss in fp64 and on AVX2
  for (int simd : {512, 256, 128})
    for (bool single : {false, true})
      for (int N = 1; N <= 8; ++N)
        EXPECT_EQ(codegen::default_cpu_plan_for_simd(N, single, simd).gather_instructions, single && simd == 512)
            << simd << " " << single << " " << N;
  EXPECT_EQ(d.vector_bits, codegen::host_simd_bits() >= 256 ? codegen::host_simd_bits() : 0) << d.name();
  // one register of elements, and vectors of the register's width (not the compiler's tuning)
  EXPECT_EQ(codegen::default_cpu_plan_for_simd(3, false, 512).name(), "f1.w8.c0.v512.fma");
  EXPECT_EQ(codegen::default_cpu_plan_for_simd(3, true, 512).name(), "f1.w16.c0.v512.fma.gv");
  // and with 16 registers (256 bits and less) the volume loop in passes of 3 fields
  EXPECT_EQ(codegen::default_cpu_plan_for_simd(3, false, 256).name(), "f1.w4.c0.v256.fma.h3");
  // fp32 there updates from the transposed right-hand side (tu)
  EXPECT_EQ(codegen::default_cpu_plan_for_simd(3, true, 256).name(), "f1.w8.c0.v256.fma.h3.tu");
  EXPECT_EQ(codegen::default_cpu_plan_for_simd(3, false, 128).name(), "f1.w2.c0.v0.fma.h3");
}

// Plan option gv: one gather instruction per field where the batch is one 512-bit (AVX-512F) or
// 256-bit (AVX2) register, behind a guard on the extension (a host without it builds the lanes one
// by one), and nothing else changes: a plan without gv generates no gather code. The AVX-512 form
// is compiled (not run) for an AVX-512 target too, so that a host without it still checks it.
TEST(CpuPlans, GatherInstructionsWhereTheBatchIsOneRegister) {
  const Problem p = mixed_problem(2, 31);
  auto source = [&](bool single, int W, bool gv) {
    codegen::KernelSpec s = make_kernel_spec(p, single);
    s.plan.cpu = plan(true, W, 0, true, 0, false, 6, false, gv);
    return codegen::generate_cpu_source(s);
  };
  const auto npos = std::string::npos;
  EXPECT_NE(source(false, 8, true).find("#if defined(__AVX512F__) && !WIDE_TRACE_OFFSETS"), npos);
  EXPECT_NE(source(false, 8, true).find("_mm512_i32gather_pd"), npos);
  EXPECT_NE(source(true, 16, true).find("_mm512_i32gather_ps"), npos);
  EXPECT_NE(source(false, 4, true).find("_mm256_i32gather_pd"), npos);
  EXPECT_NE(source(true, 8, true).find("_mm256_i32gather_ps"), npos);
  EXPECT_NE(source(false, 8, true).find("GATHER_FIELD(qc, tr, xP[c]);"), npos);
  for (int W : {1, 2, 3, 16}) EXPECT_EQ(source(false, W, true).find("GATHER_FIELD"), npos) << W;
  EXPECT_EQ(source(false, 8, false).find("GATHER_FIELD"), npos);
  EXPECT_EQ(source(true, 16, false).find("immintrin"), npos);
  for (bool single : {false, true}) {
    codegen::HostJitOptions opt;
    for (std::string& f : opt.flags)
      if (f == "-march=native") f = "-march=skylake-avx512";
    opt.flags.push_back("-O1");  // compiled only: no need to optimize hard
    EXPECT_NO_THROW(codegen::jit_compile(source(single, single ? 16 : 8, true), "gv_avx512_check", opt))
        << (single ? "single" : "double");
  }
}

// The fused stage stores each exterior trace's offset in the state as an int: the largest is the
// state's size less one. From 2^31 entries on, the offsets are computed in 64 bits instead (o64),
// whichever plan is asked for.
TEST(CpuPlans, WideTraceOffsetsFromTwoToThe31Entries) {
  const size_t two31 = size_t(1) << 31;
  EXPECT_FALSE(codegen::needs_wide_trace_offsets(two31 - 1));
  EXPECT_TRUE(codegen::needs_wide_trace_offsets(two31));
  EXPECT_TRUE(codegen::needs_wide_trace_offsets(size_t(6) * 120 * 20'000'000));  // N = 7, 20 million elements
  EXPECT_FALSE(codegen::cpu_plan_for(3, false, 1000).wide_trace_offsets);
  const codegen::CpuPlan big = codegen::cpu_plan_for(3, true, two31);
  EXPECT_TRUE(big.wide_trace_offsets);
  EXPECT_EQ(big.name(), codegen::default_cpu_plan(3, true).name() + ".o64");
  ::setenv("DGMAX_CPU_PLAN", "f1.w4.c0.v256.fma", 1);
  EXPECT_EQ(codegen::cpu_plan_for(3, false, two31).name(), "f1.w4.c0.v256.fma.o64");  // forced, and fitted
  EXPECT_EQ(codegen::cpu_plan_for(3, false, 1000).name(), "f1.w4.c0.v256.fma");
  ::unsetenv("DGMAX_CPU_PLAN");
}

// DGMAX_CPU_PLAN (debugging) forces a plan; a name that does not parse is one clear error.
TEST(CpuPlans, ForcedPlanIsUsedOrRefused) {
  ::setenv("DGMAX_CPU_PLAN", "f0.w1.c16.v0", 1);
  const codegen::CpuPlan forced = codegen::cpu_plan_for(3, false, 1000);
  EXPECT_EQ(forced.name(), "f0.w1.c16.v0");
  EXPECT_FALSE(forced.fused);
  ::setenv("DGMAX_CPU_PLAN", "f1.w8", 1);
  const UserError e =
      expect_hinted_user_error([] { codegen::cpu_plan_for(3, false, 1000); }, {"DGMAX_CPU_PLAN='f1.w8'", "no plan name"});
  EXPECT_NE(e.hint().find("f1.w8.c32.v512.fma"), std::string::npos) << e.render();
  EXPECT_NE(e.hint().find("[.hH]"), std::string::npos) << e.render();
  EXPECT_NE(e.hint().find("[.gv]"), std::string::npos) << e.render();
  EXPECT_NE(e.hint().find("gv: gather instructions"), std::string::npos) << e.render();
  ::setenv("DGMAX_CPU_PLAN", "f1.w8.c0.v512.fma.gv", 1);
  EXPECT_TRUE(codegen::cpu_plan_for(3, false, 1000).gather_instructions);
  ::unsetenv("DGMAX_CPU_PLAN");
  EXPECT_TRUE(codegen::cpu_plan_for(3, false, 1000) == codegen::default_cpu_plan(3, false));
}

// Right-hand sides on a random mesh (its element count leaves partial batches for most widths)
// with every boundary condition, heterogeneous materials, a current source and an incident field.
TEST(CpuPlans, RhsMatchesRefForEveryVariant) {
  for (const bool single : {false, true})
    for (const codegen::CpuPlan& pl : variants(single ? 32 : 64))
      for (int N : {1, 3, 5}) {
        const Problem p = mixed_problem(N, 30 + N);
        const double d = rhs_difference_to_ref(p, *make_cpu_backend_with_plan(p, single, pl), N);
        EXPECT_LE(d, single ? kSingleTol : kDoubleTol)
            << "plan " << pl.name() << (single ? " single" : " double") << " N = " << N << " K = " << p.K();
      }
}

// The layer: the right-hand side (psi left as it is), then 20 steps of the state and of the
// auxiliary fields, which the fused stage advances itself.
TEST(CpuPlans, PmlMatchesRefForEveryVariant) {
  for (const std::string precision : {"double", "single"}) {
    const bool single = precision == "single";
    const auto c = config_problem(pml_config(precision));
    const Problem& p = c->p;
    RefBackend ref(p);
    const Fields q0 = random_state(p, 5);
    ref.set_state(q0);
    const double dt = stable_dt(p, 0.5);
    for (int s = 0; s < 20; ++s) ref.step(s * dt, dt);
    Fields qr;
    std::vector<double> ar;
    ref.get_state(qr);
    ref.get_aux(ar);
    for (const codegen::CpuPlan& pl : variants(single ? 32 : 64)) {
      auto cpu = make_cpu_backend_with_plan(p, single, pl);
      EXPECT_LE(rhs_difference_to_ref(p, *cpu, 9), single ? kSingleTol : 1e-12) << pl.name() << " " << precision;
      cpu->set_state(q0);
      for (int s = 0; s < 20; ++s) cpu->step(s * dt, dt);
      Fields qc;
      std::vector<double> ac;
      cpu->get_state(qc);
      cpu->get_aux(ac);
      ASSERT_EQ(ac.size(), ar.size());
      const double tol = single ? 2e-5 : 1e-12;  // as pml_backends_test.cpp
      EXPECT_LE(relative_difference(qc, qr), tol) << pl.name() << " " << precision;
      EXPECT_LE(max_rel(ac, ar), tol * 10) << pl.name() << " " << precision;
    }
  }
}

// Whole steps on the cavity against ref; and the fused plans against the four passes of the same
// precision after 20 steps (the state ping-pongs between two buffers: an odd and an even number of
// stages both leave it where get_state reads it).
TEST(CpuPlans, StepsMatchRefAndFourPasses) {
  Problem p = box_problem(unit_box(2), 3, 1.0);
  Fields q0;
  interpolate(p, cavity_mode(), 0, q0);
  const double dt = stable_dt(p, 0.5);
  RefBackend ref(p);
  ref.set_state(q0);
  for (int s = 0; s < 20; ++s) ref.step(s * dt, dt);
  Fields qr;
  ref.get_state(qr);
  for (const bool single : {false, true}) {
    Fields q4;
    for (const codegen::CpuPlan& pl : variants(single ? 32 : 64)) {
      auto cpu = make_cpu_backend_with_plan(p, single, pl);
      cpu->set_state(q0);
      for (int s = 0; s < 20; ++s) cpu->step(s * dt, dt);
      Fields qc;
      cpu->get_state(qc);
      EXPECT_LE(relative_difference(qc, qr), single ? 2e-5 : 1e-12) << pl.name();
      if (!pl.fused) q4 = qc;
      else EXPECT_LE(relative_difference(qc, q4), single ? 2e-5 : 1e-12) << pl.name() << " vs four passes";
    }
  }
}
