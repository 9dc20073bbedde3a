// LSERK4 coefficients (4th order on a linear ODE), the step plan, and the CFL formula's stability.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>

#include "expect_user_error.hpp"
#include "simulate.hpp"
#include "solver/time/lserk4.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;

namespace {

// y' = lambda y with the 2N-storage scheme, complex lambda.
std::complex<double> lserk_solve(std::complex<double> lambda, double T, int steps) {
  std::complex<double> y = 1, res = 0;
  const double dt = T / steps;
  for (int s = 0; s < steps; ++s)
    for (int i = 0; i < lserk4::kStages; ++i) {
      res = lserk4::a[i] * res + dt * lambda * y;
      y += lserk4::b[i] * res;
    }
  return y;
}

}  // namespace

TEST(Lserk4, FourthOrderOnOscillatoryAndDampedModes) {
  for (const std::complex<double> lambda : {std::complex<double>(0, 3), std::complex<double>(-1, 2)}) {
    const double T = 2;
    const auto exact = std::exp(lambda * T);
    const double e1 = std::abs(lserk_solve(lambda, T, 20) - exact);
    const double e2 = std::abs(lserk_solve(lambda, T, 40) - exact);
    const double order = std::log2(e1 / e2);
    EXPECT_GT(order, 3.8) << lambda;
    EXPECT_LT(order, 4.3) << lambda;
  }
}

TEST(Lserk4, StageTimesAreConsistent) {
  // c_i is where stage i evaluates: the sum of the b-weighted increments so far
  double c = 0, res = 0;
  for (int i = 0; i < lserk4::kStages; ++i) {
    EXPECT_NEAR(c, lserk4::c[i], 1e-10) << i;  // the published rationals agree to ~1e-11
    res = lserk4::a[i] * res + 1.0;  // y' = 1: every stage's increment is dt
    c += lserk4::b[i] * res;
  }
  EXPECT_NEAR(c, 1.0, 1e-10);  // one full step
}

// A forced problem checks the stage times: y' = cos(t), y(0) = 0 → y = sin(t); with wrong c the
// order drops.
TEST(Lserk4, FourthOrderWithTimeDependentForcing) {
  auto solve = [](int steps) {
    double y = 0, res = 0, t = 0;
    const double dt = 2.0 / steps;
    for (int s = 0; s < steps; ++s, t += dt)
      for (int i = 0; i < lserk4::kStages; ++i) {
        res = lserk4::a[i] * res + dt * std::cos(5 * (t + lserk4::c[i] * dt));
        y += lserk4::b[i] * res;
      }
    return std::abs(y - std::sin(10.0) / 5);
  };
  const double order = std::log2(solve(40) / solve(80));
  EXPECT_GT(order, 3.8);
}

TEST(StepPlan, LastStepLandsOnTheFinalTime) {
  const StepPlan p = plan_steps(1.0, 0.3);
  EXPECT_EQ(p.steps, 4);
  EXPECT_DOUBLE_EQ(p.dt, 0.3);
  EXPECT_NEAR(p.dt_last, 0.1, 1e-15);
  const StepPlan q = plan_steps(1.0, 0.25);
  EXPECT_EQ(q.steps, 4);
  EXPECT_NEAR(q.dt_last, 0.25, 1e-15);
  EXPECT_EQ(plan_steps(0.0, 0.1).steps, 0);
}

// Random initial data excites every mode, so a step beyond the stability limit grows the energy
// within a few hundred steps. cfl = 0.9 must be stable for every order; cfl = 1.6 unstable for
// low orders (the formula is not needlessly pessimistic there).
// Energy after `steps` steps at `cfl` over the initial energy, random data on a 2^3-cell box.
static double energy_ratio(int N, double cfl, int steps, unsigned seed = 1) {
  BoxSpec s;
  s.cells = {2, 2, 2};
  Problem p = test::box_problem(s, N, 1.0);
  RefBackend be(p);
  Fields q(p.K(), p.Np());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : q.q) v = u(rng);
  be.set_state(q);
  const double W0 = electromagnetic_energy(p, q);
  const double dt = stable_dt(p, cfl);
  for (int i = 0; i < steps; ++i) be.step(i * dt, dt);
  be.get_state(q);
  return electromagnetic_energy(p, q) / W0;
}

TEST(CflFormula, StableBelowOneAndTightForLowOrders) {
  for (int N = 1; N <= 5; ++N) EXPECT_LT(energy_ratio(N, 0.9, 300), 1.0) << "N = " << N;
  for (int N = 1; N <= 2; ++N) EXPECT_FALSE(energy_ratio(N, 1.6, 300) <= 1.0) << "N = " << N;  // grows or NaN
}

// The documented limits (timestep.hpp: stable up to cfl = 1.0/1.05/1.1/1.1 for N = 1..4, random
// data, 400 steps): just below each limit the energy does not grow, 25% above it does. A change of
// the formula's order dependence or constant moves one side of this.
TEST(CflFormula, DocumentedLimitsHoldForOrdersOneToFour) {
  const double limit[] = {0, 1.0, 1.05, 1.1, 1.1};
  for (int N = 1; N <= 4; ++N) {
    EXPECT_LT(energy_ratio(N, 0.95 * limit[N], 400, 7), 1.0) << "N = " << N;
    EXPECT_FALSE(energy_ratio(N, 1.25 * limit[N], 400, 7) <= 1.0) << "N = " << N;  // grows or NaN
  }
}

// The real-axis limit the sigma term of stable_dt relies on: |R(-x)| <= 1 up to kLserkRealLimit
// and > 1 just beyond it.
TEST(Lserk4, RealAxisStabilityLimit) {
  auto amplification = [](double x) { return std::abs(lserk_solve(-x, 1.0, 1)); };
  for (double x = 0.1; x <= kLserkRealLimit; x += 0.1) EXPECT_LE(amplification(x), 1.0 + 1e-12) << x;
  EXPECT_LE(amplification(kLserkRealLimit), 1.0 + 1e-12);
  EXPECT_GT(amplification(kLserkRealLimit + 0.01), 1.0);
}

// Conductivity: the step accounts for the loss rate sigma/eps, so strongly lossy media stay stable
// at cfl 0.9 (with dt from the wave speed alone, sigma = 1e3 grew the energy without bound).
TEST(CflFormula, StableWithStrongConductivity) {
  for (const double sigma : {10.0, 1e3, 1e5}) {
    BoxSpec s;
    s.cells = {2, 2, 2};
    Problem p = test::box_problem(s, 2, 1.0);
    for (auto& m : p.material) m.sigma = sigma;
    RefBackend be(p);
    Fields q(p.K(), p.Np());
    std::mt19937 rng(2);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& v : q.q) v = u(rng);
    be.set_state(q);
    const double W0 = electromagnetic_energy(p, q);
    const double dt = stable_dt(p, 0.9);
    EXPECT_LT(dt * sigma, kLserkRealLimit) << sigma;
    for (int i = 0; i < 200; ++i) be.step(i * dt, dt);
    be.get_state(q);
    EXPECT_LT(electromagnetic_energy(p, q), W0) << "sigma = " << sigma;
  }
}

// The wave speed in the step is 1/sqrt(eps mu), from both materials (every other dt test has
// eps = mu = 1), and the loss rate adds sigma/eps/4 to 1/dt: with uniform materials
// 1/dt(sigma) = 1/dt(0) + sigma / (4 eps cfl) exactly.
TEST(CflFormula, WaveSpeedAndLossRateComeFromTheMaterials) {
  BoxSpec s;
  s.cells = {2, 3, 2};
  Problem p = test::box_problem(s, 3, 1.0);
  const double cfl = 0.5, dt0 = stable_dt(p, cfl);
  auto dt_with = [&](double eps, double mu, double sigma) {
    for (auto& m : p.material) m = Material{eps, mu, sigma};
    return stable_dt(p, cfl);
  };
  EXPECT_NEAR(dt_with(4, 1, 0), 2 * dt0, 1e-14 * dt0);      // c = 1/2
  EXPECT_NEAR(dt_with(1, 4, 0), 2 * dt0, 1e-14 * dt0);      // c = 1/2
  EXPECT_NEAR(dt_with(2, 8, 0), 4 * dt0, 1e-14 * dt0);      // c = 1/4
  EXPECT_NEAR(dt_with(0.25, 1, 0), 0.5 * dt0, 1e-14 * dt0);  // c = 2
  for (const auto& [eps, sigma] : {std::pair{1.0, 10.0}, {2.0, 10.0}, {3.0, 1e4}}) {
    const double dtw = dt_with(eps, 1, 0), dt = dt_with(eps, 1, sigma);
    EXPECT_NEAR(1 / dt, 1 / dtw + sigma / (4 * eps * cfl), 1e-12 / dt) << "eps = " << eps << ", sigma = " << sigma;
  }
  // the slowest element sets the step: one element with a larger eps*mu does not shrink it, a
  // smaller one does
  for (auto& m : p.material) m = Material{};
  p.material[5] = Material{9, 1, 0};
  EXPECT_NEAR(stable_dt(p, cfl), dt0, 1e-14 * dt0);
  p.material[5] = Material{1.0 / 9, 1, 0};
  EXPECT_LT(stable_dt(p, cfl), 0.99 * dt0);
}

TEST(StepPlan, RefusesWhatItCannotCount) {
  // 1e23 steps: once overflowed long long
  test::expect_hinted_user_error([] { plan_steps(1e20, 1e-3); },
                                 {"needs 1e+23 steps, more than the limit of 1000000000"});
  for (const double dt : {0.0, std::nan("")})
    test::expect_hinted_user_error([&] { plan_steps(1.0, dt); }, {"the time step is ", "must be finite and positive"});
  test::expect_hinted_user_error([] { plan_steps(std::numeric_limits<double>::infinity(), 1.0); },
                                 {"time.final is inf: it must be a finite number"});
  EXPECT_EQ(plan_steps(1.0, 1.0 / static_cast<double>(kMaxSteps)).steps, kMaxSteps);
  try {
    plan_steps(1.0, 1e-12);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("needs 1e+12 steps, more than the limit of 1000000000"), std::string::npos)
        << e.message();
  }
}
