// DGMAX_CUDA_PLAN overrides the tuned or default plan (debugging); a malformed or impossible plan
// is a UserError naming the variable. No GPU needed: the override is decided before the device is.
#include <gtest/gtest.h>

#include <cstdlib>

#include "expect_user_error.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/cuda/cuda_tuner.hpp"

using namespace dgmax;

namespace {

class ForcedPlan {
 public:
  explicit ForcedPlan(const char* value) { setenv("DGMAX_CUDA_PLAN", value, 1); }
  ~ForcedPlan() { unsetenv("DGMAX_CUDA_PLAN"); }
};

}  // namespace

TEST(CudaPlanOverride, TheVariableNamesThePlan) {
  const Problem p = test::mixed_problem(3, 1);
  ForcedPlan forced("f1.b12.t2.T");
  std::string source;
  const codegen::CudaPlan plan = cuda_plan_for(p, true, &source);
  EXPECT_EQ(plan.name(), "f1.b12.t2.T");
  EXPECT_EQ(source, "DGMAX_CUDA_PLAN");
  ForcedPlan capped("f2.b6.t2.T.R64");
  EXPECT_EQ(cuda_plan_for(p, true).max_registers, 64);
}

TEST(CudaPlanOverride, MalformedOrImpossiblePlansAreRefused) {
  const Problem p = test::mixed_problem(8, 1);
  {
    ForcedPlan forced("fast");
    const UserError e =
        test::expect_hinted_user_error([&] { cuda_plan_for(p, false); }, {"DGMAX_CUDA_PLAN='fast' is no plan name"});
    // the hint spells every option a plan name can carry
    EXPECT_NE(e.hint().find("fF.bB.tT[.T][.S][.V][.Rn]"), std::string::npos) << e.hint();
    EXPECT_NE(e.hint().find("f2.bB.t1.M[.W][.H][.X][.E|.E2|.E3|.E4][.C][.A][.G]"), std::string::npos) << e.hint();
  }
  {
    ForcedPlan forced("f2.b4.t1.M.A.G");  // G without chunked staging
    test::expect_user_error([&] { cuda_plan_for(p, false); },
                            {"DGMAX_CUDA_PLAN='f2.b4.t1.M.A.G' cannot run",
                             "neighbours' traces gathered asynchronously (G) go with chunked, asynchronous staging"});
  }
  {
    ForcedPlan forced("f2.b4.t1.M.C.A.R64");  // a register cap on a tensor-core plan
    test::expect_user_error([&] { cuda_plan_for(p, false); },
                            {"DGMAX_CUDA_PLAN='f2.b4.t1.M.C.A.R64' cannot run",
                             "a register cap (R) is an option of the one-node-per-thread kernels"});
  }
  {
    ForcedPlan forced("f2.b4.t1.T.R60");  // not a multiple of 8
    test::expect_user_error([&] { cuda_plan_for(p, false); },
                            {"DGMAX_CUDA_PLAN='f2.b4.t1.T.R60' cannot run", "a multiple of 8 from 32 to 248"});
  }
  {
    ForcedPlan forced("f2.b8.t1");  // 8 x 165 threads
    test::expect_user_error([&] { cuda_plan_for(p, false); }, {"DGMAX_CUDA_PLAN='f2.b8.t1' cannot run", "1320 threads"});
  }
}
