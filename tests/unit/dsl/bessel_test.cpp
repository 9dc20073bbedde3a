// besselj(n, x) and bessely(n, x) in scalar expressions: values against independent references
// (Abramowitz & Stegun table 9.1 where it tabulates them, the rest computed with mpmath 1.2.1 at
// 40 significant digits, `mp.besselj(n, x)` / `mp.bessely(n, x)`), point and batch evaluation,
// negative arguments, the recurrence J_{n-1} + J_{n+1} = (2n/x) J_n, the order taken from constants
// and folded, and Y_n at and below 0. The error messages are in errors_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "codegen/dsl/bessel.hpp"
#include "codegen/dsl/scalar_eval.hpp"
#include "dsl_test_util.hpp"

namespace dgmax::dsl {
namespace {

using test::plain;

ScalarContext xyzt(std::map<std::string, double> constants = {}) {
  ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  ctx.constants = std::move(constants);
  return ctx;
}

// f(x) at one point and through eval_batch, which must agree bit for bit.
double at(const ScalarFunction& f, double x) {
  const double v[] = {x, 0, 0, 0};
  const double zero = 0;
  const double* columns[4] = {&x, &zero, &zero, &zero};
  double batch = std::numeric_limits<double>::quiet_NaN();
  f.eval_batch(1, columns, &batch);
  const double point = f(v);
  EXPECT_TRUE(std::memcmp(&point, &batch, sizeof point) == 0 || (std::isnan(point) && std::isnan(batch)))
      << f.canonical() << " at " << x << ": point " << point << ", batch " << batch;
  return point;
}

struct Reference {
  const char* function;  // "besselj" or "bessely"
  int n;
  double x;
  double value;  // the reference, rounded to 17 digits
};

// Values of moderate size (|n| <= 20, x <= 30), where the C++17 special functions are accurate to
// a few units in the last place: checked to 1e-14 relative.
const std::vector<Reference>& moderate_references() {
  static const std::vector<Reference> r = {
      {"besselj", 0, 1.0, 0.76519768655796655},  // A&S table 9.1: 0.765197686557967
      {"besselj", 1, 2.5, 0.49709410246427404},  // A&S table 9.1: 0.497094102464274
      {"bessely", 0, 1.0, 0.088256964215676958},  // A&S table 9.1: 0.088256964215677
      {"bessely", 1, 3.0, 0.32467442479179998},  // A&S table 9.1: 0.324674424791800
      {"besselj", 2, 5.0, 0.046565116277752216},
      {"besselj", 5, 10.0, -0.23406152818679364},
      {"besselj", 10, 30.0, -0.12987689399858877},
      {"bessely", 10, 30.0, 0.075056702122397113},
      {"bessely", 2, 0.5, -5.4413708371742657},
      {"bessely", 3, 12.5, 0.20075031599307529},
      {"bessely", 5, 0.75, -1067.2468952289758},
      {"besselj", 1, 1e-3, 4.9999993750000261e-4},
      {"bessely", 0, 1e-3, -4.4714166113759233},
      {"besselj", 20, 5.0, 2.7703300521289417e-11},
      // negative arguments: J_n(-x) = (-1)^n J_n(x)
      {"besselj", 3, -2.0, -0.12894324947440205},
      {"besselj", 4, -7.5, 0.023824679971022013},
      {"besselj", 0, -3.75, -0.40140605493617434},
      {"besselj", 1, -0.5, -0.24226845767487389},
  };
  return r;
}

ScalarFunction call(const Reference& r) {
  return compile_scalar(plain(std::string(r.function) + "(" + std::to_string(r.n) + ", x)"), xyzt());
}

TEST(DslBessel, ModerateOrdersAndArgumentsMatchTheReferences) {
  for (const Reference& r : moderate_references()) {
    const double got = at(call(r), r.x);
    EXPECT_NEAR(got, r.value, 1e-14 * std::fabs(r.value)) << r.function << "(" << r.n << ", " << r.x << ")";
  }
}

TEST(DslBessel, FirstZeroOfJ0) {
  // j_{0,1} = 2.404825557695772768...; at the nearest double J0 is -6.1087652597367e-17 (mpmath)
  const ScalarFunction j0 = compile_scalar(plain("besselj(0, x)"), xyzt());
  EXPECT_NEAR(at(j0, 2.404825557695773), -6.1087652597367304e-17, 1e-16);
}

TEST(DslBessel, LargeOrdersAndArguments) {
  // Where the function is small against its amplitude, only an absolute bound holds: for x > 1000
  // the phase x - (n + 1/2)pi/2 carries the rounding of x (ulp(x) ~ 2e-13 at x = 1500, times the
  // amplitude sqrt(2/(pi x)) ~ 0.02); at order 100 the continued fraction of libstdc++ loses about
  // 1e-14 absolute. Bounds: a few times the error measured against mpmath.
  struct Loose {
    Reference r;
    double abs_tol;
  };
  const std::vector<Loose> cases = {
      {{"besselj", 0, 1500.25, -0.012400451715742773}, 5e-15},
      {{"bessely", 1, 2000.5, 0.0016222702550295151}, 5e-15},
      {{"besselj", 100, 100.0, 0.096366673295861560}, 1e-15},
      {{"besselj", 100, 50.0, 1.1159273690838093e-21}, 1e-34},
      {{"bessely", 100, 50.0, -3.2938001882026666e18}, 1e4},
      {{"besselj", 100, 150.0, -0.015359526118405391}, 5e-14},
      {{"bessely", 50, 60.0, 0.0086417699626744903}, 1e-14},
  };
  for (const Loose& c : cases)
    EXPECT_NEAR(at(call(c.r), c.r.x), c.r.value, c.abs_tol) << c.r.function << "(" << c.r.n << ", " << c.r.x << ")";
}

TEST(DslBessel, RecurrenceOfNeighbouringOrders) {
  // J_{n-1}(x) + J_{n+1}(x) = (2n/x) J_n(x), and the same for Y (A&S 9.1.27)
  for (const char* fn : {"besselj", "bessely"}) {
    for (int n : {1, 2, 5, 12}) {
      const auto order = [&](int k) {
        return compile_scalar(plain(std::string(fn) + "(" + std::to_string(k) + ", x)"), xyzt());
      };
      const ScalarFunction lo = order(n - 1), mid = order(n), hi = order(n + 1);
      for (double x : {0.75, 3.0, 8.5, 17.25, 29.0}) {
        const double lhs = at(lo, x) + at(hi, x), rhs = 2 * n / x * at(mid, x);
        const double scale = std::fabs(at(lo, x)) + std::fabs(at(hi, x));
        EXPECT_NEAR(lhs, rhs, 1e-14 * scale) << fn << " n = " << n << ", x = " << x;
      }
    }
  }
}

TEST(DslBessel, NegativeArgumentsUseTheParityOfTheOrder) {
  for (int n = 0; n <= 6; ++n) {
    const ScalarFunction f = compile_scalar(plain("besselj(" + std::to_string(n) + ", x)"), xyzt());
    for (double x : {0.3, 2.0, 9.75, 1200.0}) EXPECT_EQ(at(f, -x), (n % 2 ? -1 : 1) * at(f, x)) << n << " " << x;
  }
  EXPECT_EQ(at(compile_scalar(plain("besselj(0, x)"), xyzt()), -0.0), 1.0);
  EXPECT_EQ(at(compile_scalar(plain("besselj(3, x)"), xyzt()), 0.0), 0.0);
}

TEST(DslBessel, SecondKindAtAndBelowZero) {
  // Y_n(0) = -inf; Y_n is complex for x < 0: NaN (the run's energy check then stops the run);
  // below about 1e-306 libstdc++ throws, which gives NaN here too instead of an exception.
  for (int n : {0, 1, 4}) {
    const ScalarFunction y = compile_scalar(plain("bessely(" + std::to_string(n) + ", x)"), xyzt());
    EXPECT_EQ(at(y, 0.0), -std::numeric_limits<double>::infinity()) << n;
    EXPECT_TRUE(std::isnan(at(y, -1.0))) << n;
    EXPECT_TRUE(std::isnan(at(y, -1e-300))) << n;
    EXPECT_TRUE(std::isnan(at(y, 1e-310))) << n;
    EXPECT_TRUE(std::isnan(at(y, std::numeric_limits<double>::quiet_NaN()))) << n;
  }
  EXPECT_TRUE(std::isnan(bessel_y(0, 5e-324)));
}

TEST(DslBessel, TheOrderMayBeAConstantExpression) {
  const ScalarContext ctx = xyzt({{"m", 2.0}});
  const double x = 3.5, want = at(compile_scalar(plain("besselj(3, x)"), ctx), x);
  for (const char* text : {"besselj(2*m - 1, x)", "besselj(m + 1, x)", "besselj(3.0, x)", "besselj(0.3e1, x)",
                           "besselj(floor(pi), x)", "besselj(sqrt(9), x)"})
    EXPECT_EQ(at(compile_scalar(plain(text), ctx), x), want) << text;
  EXPECT_EQ(at(compile_scalar(plain("bessely(-0, x)"), ctx), x), at(compile_scalar(plain("bessely(0, x)"), ctx), x));
}

TEST(DslBessel, ConstantCallsFoldAndTheOrderIsKept) {
  const ScalarFunction c = compile_scalar(plain("besselj(1, 2.5)"), xyzt());
  EXPECT_TRUE(c.is_constant());
  EXPECT_EQ(c.program_size(), 1u);
  EXPECT_NEAR(c(nullptr), 0.49709410246427404, 1e-14);
  // x and the call remain; the order is part of the instruction, not an operand
  const ScalarFunction f = compile_scalar(plain("bessely(2, 3*x)"), xyzt());
  EXPECT_EQ(f.program_size(), 4u);  // 3, x, *, bessely
  EXPECT_EQ(f.canonical(), "bessely(2, 3*x)");
  EXPECT_TRUE(f.depends_on("x"));
  // different orders are different functions
  EXPECT_NE(at(compile_scalar(plain("besselj(1, x)"), xyzt()), 1.5),
            at(compile_scalar(plain("besselj(2, x)"), xyzt()), 1.5));
}

TEST(DslBessel, BatchOverManyPointsEqualsPointByPoint) {
  const ScalarFunction f = compile_scalar(plain("besselj(2, x)*bessely(1, 1 + y*y) - besselj(7, -x/3)"), xyzt());
  const size_t n = 700;  // more than one block of the batch evaluator
  std::vector<double> xs(n), ys(n), zero(n, 0.0), out(n);
  for (size_t i = 0; i < n; ++i) {
    xs[i] = -20 + 40.0 * i / n;
    ys[i] = std::sin(0.1 * i);
  }
  const double* columns[4] = {xs.data(), ys.data(), zero.data(), zero.data()};
  f.eval_batch(n, columns, out.data());
  for (size_t i = 0; i < n; ++i) {
    const double v[] = {xs[i], ys[i], 0, 0};
    const double want = bessel_j(2, xs[i]) * bessel_y(1, 1 + ys[i] * ys[i]) - bessel_j(7, -xs[i] / 3);
    EXPECT_EQ(out[i], f(v)) << i;
    EXPECT_EQ(out[i], want) << i;
  }
}

}  // namespace
}  // namespace dgmax::dsl
