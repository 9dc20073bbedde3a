// The LSERK4 residual of the ref and cpu backends (double and single) for checkpoint/restart:
// get → set round-trips bitwise, set_residual reaches the register the steps use, and a run that
// is stopped after m steps and continued on a NEW backend from (state, residual) ends bitwise
// identical to a run that was never interrupted.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include "mixed_problem.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/time/timestep.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

using Factory = std::function<std::unique_ptr<Backend>(const Problem&)>;

struct Case {
  const char* name;
  Factory make;
};

std::vector<Case> cases() {
  return {{"ref", [](const Problem& p) { return std::unique_ptr<Backend>(std::make_unique<RefBackend>(p)); }},
          {"cpu double", [](const Problem& p) { return make_cpu_backend(p, false); }},
          {"cpu single", [](const Problem& p) { return make_cpu_backend(p, true); }}};
}

bool bitwise_equal(const Fields& a, const Fields& b) {
  return a.K == b.K && a.Np == b.Np && a.q.size() == b.q.size() &&
         std::memcmp(a.q.data(), b.q.data(), a.q.size() * sizeof(double)) == 0;
}

bool any_nonzero(const Fields& f) {
  for (const double v : f.q)
    if (v != 0) return true;
  return false;
}

// Steps first..last-1 of a run with time t_s = s*dt (how the run loop's time is reproduced on
// restart is the caller's business; here both runs use the same sequence).
void run_steps(Backend& b, long long first, long long last, double dt) {
  for (long long s = first; s < last; ++s) b.step(static_cast<double>(s) * dt, dt);
}

// Straight n steps vs m steps, (state, residual) to a new backend, n - m more steps.
void check_restart(const Case& c, const Problem& p, long long n, long long m) {
  SCOPED_TRACE(c.name);
  const double dt = stable_dt(p, 0.5);
  const Fields q0 = random_state(p, 11);

  auto straight = c.make(p);
  straight->set_state(q0);
  run_steps(*straight, 0, n, dt);
  Fields q_straight, r_straight;
  straight->get_state(q_straight);
  straight->get_residual(r_straight);

  auto first = c.make(p);
  first->set_state(q0);
  run_steps(*first, 0, m, dt);
  Fields q_m, r_m;
  first->get_state(q_m);
  first->get_residual(r_m);
  ASSERT_TRUE(any_nonzero(r_m));
  first.reset();

  auto second = c.make(p);
  second->set_state(q_m);
  second->set_residual(r_m);
  run_steps(*second, m, n, dt);
  Fields q_restart, r_restart;
  second->get_state(q_restart);
  second->get_residual(r_restart);
  EXPECT_TRUE(bitwise_equal(q_restart, q_straight)) << "state after restart at step " << m << " of " << n;
  EXPECT_TRUE(bitwise_equal(r_restart, r_straight)) << "residual after restart at step " << m << " of " << n;
}

}  // namespace

TEST(BackendResidual, RoundTripsBitwise) {
  const Problem p = mixed_problem(3, 4);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto b = c.make(p);
    Fields r = random_state(p, 5);
    if (std::string(c.name) == "cpu single")  // the values a single-precision backend holds
      for (auto& v : r.q) v = static_cast<double>(static_cast<float>(v));
    r.q[0] = -0.0;
    r.q[1] = std::numeric_limits<double>::infinity();
    b->set_state(random_state(p, 6));
    b->set_residual(r);
    Fields back;
    b->get_residual(back);
    EXPECT_TRUE(bitwise_equal(back, r));
    EXPECT_TRUE(std::signbit(back.q[0]));
  }
}

TEST(BackendResidual, ZeroAfterSetStateAndInitState) {
  const Problem p = mixed_problem(2, 4);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto b = c.make(p);
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

// 0·NaN = NaN: a residual set to NaN must poison the next step, or set_residual did not reach the
// register the steps use.
TEST(BackendResidual, SetResidualReachesTheSteps) {
  const Problem p = mixed_problem(2, 4);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto b = c.make(p);
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

TEST(BackendResidual, SetResidualOfTheWrongSizeIsABug) {
  const Problem p = mixed_problem(2, 4);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto b = c.make(p);
    EXPECT_THROW(b->set_residual(Fields(p.K() + 1, p.Np())), InternalError);
  }
}

TEST(BackendResidual, RestartIsBitwiseIdentical) {
  // sources, incident fields and every boundary condition: time enters every stage
  const Problem p = mixed_problem(3, 8);
  for (const Case& c : cases()) {
    check_restart(c, p, 12, 5);
    check_restart(c, p, 7, 1);
  }
}
