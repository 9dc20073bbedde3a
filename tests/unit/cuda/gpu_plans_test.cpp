// Every plan the tuner can pick, on a GPU (ctest label gpu; skipped with a message without one):
// its right-hand side (through the plan's own kernels: the fused stage kernel for fusion 2) matches
// the ref backend's to the backend tests' tolerance for N = 1..8 in fp64 and fp32, on a problem with
// every boundary condition, heterogeneous materials, a current and incident fields, and a K that
// leaves the last block part empty; a tuned run reproduces the cavity's errors; the search itself
// returns a checked, timed winner that the tuning database then gives to runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cavity_run.hpp"
#include "curved_mixed_problem.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "mixed_problem.hpp"
#include "simulate.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/cuda/cuda_tuner.hpp"
#include "solver/time/timestep.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

class GpuPlans : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

std::vector<codegen::CudaPlan> accepted_plans(int N, bool single) {
  std::vector<codegen::CudaPlan> out;
  for (const codegen::PlanCandidate& c : codegen::enumerate_cuda_plans(N, single))
    if (c.rejected.empty()) out.push_back(c.plan);
  return out;
}

double cavity_error(int N, int cells, bool single, const codegen::CudaPlan& plan) {
  const Problem p = box_problem(unit_box(cells), N, 1.0);
  return dgmax::test::cavity_error(p, *make_cuda_plan_backend(p, single, plan));
}

}  // namespace

TEST_F(GpuPlans, EveryAcceptedPlanMatchesRef) {
  for (int N = 1; N <= 8; ++N) {
    const Problem p = mixed_problem(N, 20 + N);
    const Fields q = random_state(p, N);
    RefBackend ref(p);
    Fields r_ref;
    ref.rhs(q, 0.37, r_ref);
    for (const bool single : {false, true}) {
      const std::vector<codegen::CudaPlan> plans = accepted_plans(N, single);
      precompile_cuda_plans(p, single, plans);
      auto be = make_cuda_plan_backend(p, single, plans.front());
      double worst = 0;
      for (const codegen::CudaPlan& plan : plans) {
        be->set_plan(plan);
        Fields r;
        be->rhs(q, 0.37, r);
        const double d = relative_difference(r, r_ref);
        worst = std::max(worst, d);
        EXPECT_LE(d, plan_check_tolerance(single)) << "N = " << N << (single ? " fp32" : " fp64") << " plan " << plan.name();
      }
      std::cout << "N = " << N << (single ? " fp32" : " fp64") << ": " << plans.size()
                << " plans, largest relative RHS difference to ref " << worst << "\n";
    }
  }
}

// The split-TF32 plans round B to TF32 by integer arithmetic, which would carry the payload of the
// device's canonical NaN (0x7fffffff, what any arithmetic on a NaN gives) into the sign and make
// it -0 in both parts: a NaN in the state would vanish from the products. to_tf32_hi passes it
// through: every node of the element holding the NaN gets a non-finite right-hand side, as in ref.
TEST_F(GpuPlans, SplitTf32PlansCarryANaNIntoTheProducts) {
  const int N = 4;
  const Problem p = mixed_problem(N, 12);
  Fields q = random_state(p, 5);
  const int k = 7, Np = p.Np();
  std::uint64_t bits = 0x7fffffffffffffffULL;  // rounds to the float 0x7fffffff
  std::memcpy(&q.q[(static_cast<size_t>(k) * 6 + 2) * Np + 3], &bits, sizeof bits);
  RefBackend ref(p);
  Fields r_ref;
  ref.rhs(q, 0.37, r_ref);
  const auto plan = codegen::CudaPlan::parse("f2.b4.t1.M.C.A");
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(codegen::cuda_plan_rejection(*plan, N, true), "");
  auto be = make_cuda_plan_backend(p, true, *plan);
  Fields r;
  be->rhs(q, 0.37, r);
  auto non_finite_nodes = [&](const Fields& f) {
    int n = 0;
    for (int i = 0; i < Np; ++i) {
      bool bad = false;
      for (int c = 0; c < 6; ++c) bad = bad || !std::isfinite(f.q[(static_cast<size_t>(k) * 6 + c) * Np + i]);
      n += bad;
    }
    return n;
  };
  EXPECT_EQ(non_finite_nodes(r_ref), Np);
  EXPECT_EQ(non_finite_nodes(r), Np);
}

// The blocks of E plans are persistent (as many as are resident, each looping over element groups
// with the operators kept in shared memory): on a mesh with more groups than resident blocks, so
// that blocks run several, the right-hand side and a whole step still match ref and the
// default plan (a partly empty last group included).
TEST_F(GpuPlans, ElementFieldRowBlocksLoopOverGroups) {
  const codegen::CudaBlockLimits limits = cuda_block_limits();
  if (limits.arch != 90) GTEST_SKIP() << "E plans are sm_90a (warpgroup MMAs); the device is sm_" << limits.arch;
  const int sms = cuda::Context::get().info().sm_count;
  for (const int N : {3, 4, 5}) {
    Problem p = mixed_problem(N, 60 + N, "upwind", 1, 11);  // 8712 elements
    // N = 5: two groups per block (E2) fit shared memory without J's staging only
    if (N == 5) p.current = SpaceTimeField{};
    const bool with_j = static_cast<bool>(p.current);
    const Fields q = random_state(p, 3);
    RefBackend ref(p);
    Fields r_ref;
    ref.rhs(q, 0.37, r_ref);
    // the step to compare with: the default plan for problems with J (no E2 at N = 5)
    auto be = make_cuda_plan_backend(p, true, codegen::default_cuda_plan(N, true, limits.arch, true));
    be->set_state(q);
    be->step(0.1, 1e-3);
    Fields stepped;
    be->get_state(stepped);
    int checked = 0;
    // one to three warpgroups on a group; two to four groups per block, each with its own barrier
    // (their teams run different numbers of groups: one waits on no other)
    for (const char* name : {"f2.b10.t1.M.X.E.A", "f2.b20.t1.M.X.E.A", "f2.b30.t1.M.X.E.A", "f2.b10.t1.M.X.E2.A",
                             "f2.b10.t1.M.X.E3.A", "f2.b10.t1.M.X.E4.A"}) {
      const codegen::CudaPlan plan = *codegen::CudaPlan::parse(name);
      const std::string why = codegen::cuda_plan_rejection(plan, N, true, limits, with_j);
      if (N == 5 && !why.empty()) {  // shared memory: two groups of 10 at most
        EXPECT_NE(why.find("shared memory"), std::string::npos) << name << ": " << why;
        continue;
      }
      ASSERT_EQ(why, "") << "N = " << N << " " << name;
      be->set_plan(plan);
      const CudaKernelReport stage = be->kernel_reports().front();
      ASSERT_GT(stage.blocks_per_sm, 0) << name;
      const long resident = static_cast<long>(stage.blocks_per_sm) * sms * plan.elements_per_launch_block();
      ASSERT_GT(p.K(), resident) << "N = " << N << " " << name << ": blocks must run several groups";
      ASSERT_NE(p.K() % plan.elements_per_block, 0) << name << ": the last group is partly empty";
      Fields r;
      be->rhs(q, 0.37, r);
      EXPECT_LE(relative_difference(r, r_ref), plan_check_tolerance(true)) << "N = " << N << " " << name;
      be->set_state(q);
      be->step(0.1, 1e-3);
      Fields s;
      be->get_state(s);
      EXPECT_LE(relative_difference(s, stepped), 1e-6) << "N = " << N << " " << name;
      ++checked;
    }
    EXPECT_EQ(checked, N == 5 ? 2 : 6) << "N = " << N;
  }
}

TEST_F(GpuPlans, StepsAgreeAcrossPlans) {
  // a whole LSERK step (stage kernel or rhs + update) from the same state: all plans agree to
  // rounding with the default plan
  for (const int N : {2, 5}) {
    const Problem p = mixed_problem(N, 40 + N);
    for (const bool single : {false, true}) {
      const std::vector<codegen::CudaPlan> plans = accepted_plans(N, single);
      precompile_cuda_plans(p, single, plans);
      auto be = make_cuda_plan_backend(p, single, plans.front());
      const Fields q0 = random_state(p, 7);
      Fields first;
      for (const codegen::CudaPlan& plan : plans) {
        be->set_plan(plan);
        be->set_state(q0);
        be->step(0.1, 1e-3);
        be->step(0.1 + 1e-3, 1e-3);
        Fields q;
        be->get_state(q);
        if (first.q.empty()) first = q;
        EXPECT_LE(relative_difference(q, first), single ? 1e-6 : 1e-14) << "N = " << N << " plan " << plan.name();
      }
    }
  }
}

TEST_F(GpuPlans, TunedPlansReproduceTheCavityErrors) {
  // the cavity's L2 errors with register-blocked, transposed and shared-operator plans equal the
  // default plan's (the convergence table of gpu_backend_test then holds for them too)
  for (const int N : {2, 3, 4}) {
    const double reference = cavity_error(N, 3, false, codegen::default_cuda_plan(N, false));
    for (const char* name : {"f2.b8.t2.T", "f1.b8.t4.T.S", "f0.b4.t1.T", "f2.b4.t4"}) {
      const auto plan = codegen::CudaPlan::parse(name);
      ASSERT_TRUE(plan.has_value());
      if (!codegen::cuda_plan_rejection(*plan, N, false).empty()) continue;
      EXPECT_NEAR(cavity_error(N, 3, false, *plan), reference, 1e-12 * reference) << "N = " << N << " plan " << name;
    }
  }
}

TEST_F(GpuPlans, SearchReturnsACheckedTimedWinnerThatRunsThenUse) {
  const Problem p = mixed_problem(3, 5);
  const CudaTuneResult r = tune_cuda_plans(p, false);
  const auto candidates = codegen::enumerate_cuda_plans(3, false);
  ASSERT_EQ(r.trials.size(), candidates.size());
  EXPECT_TRUE(r.trials.front().plan == codegen::default_cuda_plan(3, false));
  const PlanTrial& best = r.trials[r.best];
  const PlanTrial& burst_best = r.trials[r.burst_best];
  EXPECT_EQ(best.rejected, "");
  EXPECT_GT(best.stage_seconds, 0);
  EXPECT_TRUE(best.checked);
  EXPECT_LE(best.rhs_difference, 1e-12);
  EXPECT_EQ(burst_best.rejected, "");
  EXPECT_TRUE(burst_best.checked);
  int timed = 0, finalists = 0;
  for (const PlanTrial& t : r.trials) {
    if (!t.rejected.empty()) {
      EXPECT_EQ(t.stage_seconds > 0, t.checked) << "only plans that failed the check after timing have a time: " << t.plan.name();
      EXPECT_EQ(t.sustained_seconds, 0) << t.plan.name();
      continue;
    }
    ++timed;
    // the burst winner is the fastest plan that passed the check in the bursts
    EXPECT_GE(t.stage_seconds, burst_best.stage_seconds) << t.plan.name();
    EXPECT_FALSE(t.kernels.empty()) << t.plan.name();
    if (t.sustained_seconds > 0) {
      // a finalist: within the margin of the burst winner, checked, and not clearly faster than the winner
      ++finalists;
      EXPECT_LE(t.stage_seconds, codegen::kFinalistMargin * burst_best.stage_seconds) << t.plan.name();
      EXPECT_TRUE(t.checked) << t.plan.name();
      EXPECT_LE(t.rhs_difference, 1e-12) << t.plan.name();
      EXPECT_GE(t.sustained_seconds * codegen::kDisplaceMargin, best.sustained_seconds) << t.plan.name();
    }
  }
  EXPECT_GE(timed, 10);
  EXPECT_LE(finalists, codegen::kFinalists);
  // with one plan within the margin no sustained timing is spent, and it wins; else the winner is a
  // finalist: the burst winner, or one faster than it under sustained load by the displace margin
  if (finalists == 0) EXPECT_EQ(r.best, r.burst_best);
  else EXPECT_GT(best.sustained_seconds, 0);
  EXPECT_NE(finalists, 1);
  // stored, the plan is what a run of this problem gets
  const codegen::TuningDb db(codegen::NvrtcOptions::default_cache_dir(), "cuda");
  codegen::TunedPlan entry;
  entry.plan = best.plan.name();
  db.store(cuda_tuning_key(p, false), entry);
  std::string source;
  EXPECT_TRUE(cuda_plan_for(p, false, &source) == best.plan);
  EXPECT_EQ(source, "tuned");
}

TEST_F(GpuPlans, SearchPicksTheCurvedElementsPerBlockOnACurvedProblem) {
  // after the enumeration's plans, the winner with each Q of kCurvedBatches: the fastest that agrees
  // with ref wins, and its key is not the straight-sided problem's
  const Problem p = curved_mixed_problem(3, 3, 7);
  const CudaTuneResult r = tune_cuda_plans(p, false);
  const size_t n = codegen::enumerate_cuda_plans(3, false, cuda_block_limits(), bool(p.current)).size();
  constexpr size_t nq = std::size(codegen::kCurvedBatches);
  ASSERT_EQ(r.trials.size(), n + nq);
  EXPECT_GT(r.curved_seconds, 0);
  ASSERT_GE(r.best, static_cast<int>(n));
  const PlanTrial& best = r.trials[r.best];
  EXPECT_TRUE(best.checked);
  EXPECT_LE(best.rhs_difference, 1e-12);
  for (size_t i = 0; i < nq; ++i) {
    const PlanTrial& t = r.trials[n + i];
    EXPECT_EQ(t.plan.curved_batch, codegen::kCurvedBatches[i]);
    // the same plan but for Q
    codegen::CudaPlan base = t.plan;
    base.curved_batch = best.plan.curved_batch;
    EXPECT_TRUE(base == best.plan) << t.plan.name();
    if (t.rejected.empty()) EXPECT_GE(t.stage_seconds, best.stage_seconds) << t.plan.name();
  }
  Problem straight = p;  // the same mesh and physics with every element affine
  straight.curved.reset();
  EXPECT_NE(tuning_physics_key(p, false), tuning_physics_key(straight, false));
}
