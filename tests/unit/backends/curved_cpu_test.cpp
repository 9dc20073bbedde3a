// The cpu backend's curved group (codegen/emit/curved_kernels.hpp) against the ref backend's
// quadrature form, in both precisions, fused and four-pass plans, geometry orders 2 and 3.
#include <gtest/gtest.h>

#include "curved_backend_checks.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/cpu/cpu_tuner.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(CurvedCpu, MatchesRefInBothPrecisions) {
  const BackendMaker make = [](const Problem& p, bool single) { return make_cpu_backend(p, single); };
  for (bool single : {false, true}) {
    expect_curved_backend_matches_ref(make, single, 2, 2);
    expect_curved_backend_matches_ref(make, single, 3, 3);
  }
}

TEST(CurvedCpu, FourPassPlanMatchesRef) {
  const BackendMaker make = [](const Problem& p, bool single) {
    codegen::CpuPlan plan = cpu_plan_for_problem(p, single);
    plan.fused = false;
    return make_cpu_backend_with_plan(p, single, plan);
  };
  expect_curved_backend_matches_ref(make, false, 2, 2);
}

TEST(CurvedCpu, TfsfFaceBesideCurvedElementsMatchesRef) {
  const BackendMaker make = [](const Problem& p, bool single) { return make_cpu_backend(p, single); };
  EXPECT_LE(tfsf_beside_curved_difference(make, false), 1e-12);
  EXPECT_LE(tfsf_beside_curved_difference(make, true), 3e-5);
}
