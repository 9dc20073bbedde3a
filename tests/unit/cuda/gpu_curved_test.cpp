// The cuda backend's curved group against the ref backend's quadrature form (curved_backend_checks.hpp),
// in both precisions, geometry orders 2 and 3, with the default plan and a four-pass one.
#include <gtest/gtest.h>

#include "codegen/tune/cuda_plan.hpp"
#include "curved_backend_checks.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {
bool no_gpu(std::string* why) { return !cuda::driver_available(why); }
}  // namespace

TEST(GpuCurved, MatchesRefInBothPrecisions) {
  std::string why;
  if (no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  const BackendMaker make = [](const Problem& p, bool single) { return make_cuda_backend(p, single); };
  for (bool single : {false, true}) {
    expect_curved_backend_matches_ref(make, single, 2, 2);
    expect_curved_backend_matches_ref(make, single, 3, 3);
  }
}

TEST(GpuCurved, FourPassPlanMatchesRef) {
  std::string why;
  if (no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  const BackendMaker make = [](const Problem& p, bool single) -> std::unique_ptr<Backend> {
    return make_cuda_plan_backend(p, single, *codegen::CudaPlan::parse("f0.b4.t1.T"));
  };
  expect_curved_backend_matches_ref(make, false, 2, 2);
}

TEST(GpuCurved, TfsfFaceBesideCurvedElementsMatchesRef) {
  std::string why;
  if (no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  const BackendMaker make = [](const Problem& p, bool single) { return make_cuda_backend(p, single); };
  EXPECT_LE(tfsf_beside_curved_difference(make, false), 1e-12);
  EXPECT_LE(tfsf_beside_curved_difference(make, true), 3e-5);
}
