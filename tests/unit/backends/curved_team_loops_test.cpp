// The cuda kernel's form of the curved group (curved_stage_batch in codegen/emit/curved_kernels.cpp:
// CURVED_E elements per block, a face point or a node of one of them per thread)
// run on the host: the cpu source compiled with KernelSpec::curved_team_loops, its
// dgmax_curved_stage called directly in right-hand-side mode, against the ref backend's curved
// elements, for several numbers of elements per block (the last block partly past the slots). So
// the indexing of the form the GPU runs is checked on every machine, not only on one with a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "codegen/emit/cpu_kernels.hpp"
#include "codegen/jit/host_jit.hpp"
#include "curved_mixed_problem.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/curved_kernel_data.hpp"
#include "solver/backends/kernel_data.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/backends/ref/ref_backend.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {
using CurvedStageFn = void (*)(int, int, const double*, const double*, const int*, const int*, const int*, const int*,
                               const double*, const double*, const double*, const double*, double, double*, double*,
                               double*, double, double, double);

// max over the curved elements of |rhs - ref rhs| / max |ref rhs| with the team form (or the cpu form)
double curved_rhs_difference(const Problem& p, bool team_loops, int batch = 0) {
  codegen::KernelSpec spec = make_kernel_spec(p, false);
  spec.curved_team_loops = team_loops;
  spec.plan.cuda.curved_batch = batch;
  const std::string src = codegen::generate_cpu_source(spec);
  EXPECT_NE(src.find(std::string("#define CURVED_CPU ") + (team_loops ? "0" : "1")), std::string::npos);
  const auto lib = codegen::jit_compile(src, "dgmax_cpu_curved_team_test");
  const auto stage = reinterpret_cast<CurvedStageFn>(lib->symbol("dgmax_curved_stage"));
  const KernelData<double> d = make_kernel_data<double>(p);
  const CurvedKernelData<double> cd = make_curved_kernel_data<double>(p);
  const Fields q = random_state(p, 13);
  Fields got(p.K(), p.Np()), want;
  const double t = 0.37;
  stage(0, cd.count, q.q.data(), d.mat.data(), d.etoe.data(), d.bc.data(), d.vmapP.data(), cd.cinfo.data(),
        cd.cgeo.data(), cd.cops.data(), cd.cmat.data(), cd.cx.data(), t, nullptr, got.q.data(), nullptr, 0.0, 0.0, 1.0);
  RefBackend ref(p);
  ref.rhs(q, t, want);
  double diff = 0, scale = 0;
  for (int k = 0; k < p.K(); ++k) {
    if (!p.is_curved(k)) continue;
    for (int c = 0; c < 6; ++c)
      for (int i = 0; i < p.Np(); ++i) {
        diff = std::max(diff, std::abs(got(k, c, i) - want(k, c, i)));
        scale = std::max(scale, std::abs(want(k, c, i)));
      }
  }
  return diff / scale;
}
}  // namespace

TEST(CurvedTeamLoops, TheCudaFormMatchesRefOnTheHost) {
  for (int N : {2, 3}) {
    const Problem p = curved_mixed_problem(N, N, 5);
    ASSERT_GT(p.curved->count(), 0);
    ASSERT_NE(p.curved->count() % 5, 0) << p.curved->count();  // E = 5: a last block partly past the slots
    for (int E : {1, 4, 5}) {
      EXPECT_LE(curved_rhs_difference(p, true, E), 1e-12) << "N = " << N << ", the cuda form, " << E << " per block";
    }
    EXPECT_LE(curved_rhs_difference(p, false), 1e-12) << "N = " << N << ", the cpu form";
  }
}
