// The LSERK4 residual of the cuda backend (fp64 and fp32, every fusion level) for checkpoint/restart
// (ctest label gpu; skipped with a message without a GPU): get → set round-trips bitwise,
// set_residual reaches the register the steps use, and a run stopped after m steps and continued
// on a NEW backend from (state, residual) ends bitwise identical to a run never interrupted.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "mixed_problem.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/time/timestep.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

class GpuBackendResidual : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};


bool bitwise_equal(const Fields& a, const Fields& b) {
  return a.K == b.K && a.Np == b.Np && a.q.size() == b.q.size() &&
         std::memcmp(a.q.data(), b.q.data(), a.q.size() * sizeof(double)) == 0;
}

bool any_nonzero(const Fields& f) {
  for (const double v : f.q)
    if (v != 0) return true;
  return false;
}

void run_steps(Backend& b, long long first, long long last, double dt) {
  for (long long s = first; s < last; ++s) b.step(static_cast<double>(s) * dt, dt);
}

// A backend with the default plan, at another fusion level when fusion >= 0 (then from the default
// without tensor cores, which need fusion level 2).
std::unique_ptr<CudaPlanBackend> backend(const Problem& p, bool single, int fusion) {
  codegen::CudaPlan plan = codegen::default_cuda_plan(p.N, single);
  if (fusion >= 0 && fusion != plan.fusion) {
    plan = codegen::default_cuda_plan(p.N, single, /*arch=*/0);
    plan.fusion = fusion;
  }
  return make_cuda_plan_backend(p, single, plan);
}

void check_restart(const Problem& p, bool single, long long n, long long m, int fusion = -1) {
  SCOPED_TRACE(std::string(single ? "fp32" : "fp64") + ", restart at step " + std::to_string(m) + " of " +
               std::to_string(n));
  const double dt = stable_dt(p, 0.5);
  const Fields q0 = random_state(p, 11);

  auto straight = backend(p, single, fusion);
  straight->set_state(q0);
  run_steps(*straight, 0, n, dt);
  Fields q_straight, r_straight;
  straight->get_state(q_straight);
  straight->get_residual(r_straight);
  straight.reset();

  auto first = backend(p, single, fusion);
  first->set_state(q0);
  run_steps(*first, 0, m, dt);
  Fields q_m, r_m;
  first->get_state(q_m);
  first->get_residual(r_m);
  ASSERT_TRUE(any_nonzero(r_m));
  first.reset();

  auto second = backend(p, single, fusion);
  second->set_state(q_m);
  second->set_residual(r_m);
  run_steps(*second, m, n, dt);
  Fields q_restart, r_restart;
  second->get_state(q_restart);
  second->get_residual(r_restart);
  EXPECT_TRUE(bitwise_equal(q_restart, q_straight));
  EXPECT_TRUE(bitwise_equal(r_restart, r_straight));
}

}  // namespace

TEST_F(GpuBackendResidual, RoundTripsBitwise) {
  const Problem p = mixed_problem(3, 4);
  for (const bool single : {false, true}) {
    SCOPED_TRACE(single ? "fp32" : "fp64");
    auto b = make_cuda_backend(p, single);
    Fields r = random_state(p, 5);
    if (single)
      for (auto& v : r.q) v = static_cast<double>(static_cast<float>(v));
    r.q[0] = -0.0;
    r.q[1] = std::numeric_limits<double>::infinity();
    b->set_state(random_state(p, 6));
    b->set_residual(r);
    Fields back;
    b->get_residual(back);
    EXPECT_TRUE(bitwise_equal(back, r));
    EXPECT_TRUE(std::signbit(back.q[0]));
    EXPECT_THROW(b->set_residual(Fields(p.K() + 1, p.Np())), InternalError);
  }
}

TEST_F(GpuBackendResidual, ZeroAfterSetStateAndInitState) {
  const Problem p = mixed_problem(2, 4);
  for (const bool single : {false, true}) {
    SCOPED_TRACE(single ? "fp32" : "fp64");
    auto b = make_cuda_backend(p, single);
    b->set_state(random_state(p, 6));
    b->step(0, 1e-3);
    Fields r;
    b->get_residual(r);
    EXPECT_TRUE(any_nonzero(r));
    b->set_state(random_state(p, 7));
    b->get_residual(r);
    EXPECT_FALSE(any_nonzero(r));
    b->step(0, 1e-3);
    b->init_state();
    b->get_residual(r);
    EXPECT_FALSE(any_nonzero(r));
  }
}

TEST_F(GpuBackendResidual, SetResidualReachesTheSteps) {
  const Problem p = mixed_problem(2, 4);
  for (const int fuse : {0, 1, 2}) {
    for (const bool single : {false, true}) {
      SCOPED_TRACE(std::string(single ? "fp32" : "fp64") + ", fusion level " + std::to_string(fuse));
      codegen::CudaPlan plan = codegen::default_cuda_plan(p.N, single);
      plan.fusion = fuse;
      auto b = make_cuda_plan_backend(p, single, plan);
      b->set_state(random_state(p, 6));
      Fields r(p.K(), p.Np());
      r.q[3] = std::numeric_limits<double>::quiet_NaN();
      b->set_residual(r);
      b->step(0, 1e-3);
      Fields q;
      b->get_state(q);
      EXPECT_TRUE(std::isnan(q.q[3]));
    }
  }
}

TEST_F(GpuBackendResidual, RestartIsBitwiseIdentical) {
  // N = 3 (fused stage kernel by default) and N = 7 (volume + fused surface/lift + update)
  for (const int N : {3, 7}) {
    const Problem p = mixed_problem(N, 8);
    for (const bool single : {false, true}) {
      check_restart(p, single, 12, 5);
      check_restart(p, single, 7, 1);
    }
  }
  // the unfused path as well
  const Problem p = mixed_problem(3, 8);
  for (const bool single : {false, true}) check_restart(p, single, 9, 4, 0);
}

TEST_F(GpuBackendResidual, RhsLeavesTheResidualAlone) {
  // rhs() runs the plan's own kernels (the stage kernel at fusion 2, which writes the residual
  // register): the residual a run keeps between steps must come back unchanged
  const Problem p = mixed_problem(3, 9);
  for (const int fuse : {0, 1, 2}) {
    SCOPED_TRACE("fusion level " + std::to_string(fuse));
    auto b = backend(p, false, fuse);
    b->set_state(random_state(p, 1));
    const Fields r0 = random_state(p, 2);
    b->set_residual(r0);
    Fields out, r1;
    b->rhs(random_state(p, 3), 0.2, out);
    b->get_residual(r1);
    EXPECT_TRUE(bitwise_equal(r0, r1));
  }
}
