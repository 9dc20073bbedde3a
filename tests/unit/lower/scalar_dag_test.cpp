// The hash-consed DAG: one node per distinct subexpression, folding of constant operations,
// only bitwise-exact identities, liveness, operation counts, and the interpreter.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "codegen/lower/scalar_dag.hpp"
#include "lower_test_util.hpp"

namespace dgmax::codegen {
namespace {

using Op = DagNode::Op;
using B = dsl::Builtin;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const std::vector<double> kSpecial = {0.0, -0.0, 1.0, -1.5, 1e-310, 3.0,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN()};

// Evaluates node `id` of `dag` with in[0] = x, in[1] = y.
double value_of(ScalarDag dag, int id, double x, double y = 0) {
  dag.outputs = {id};
  std::vector<double> in(kNumFluxInputs, 0.0);
  in[0] = x;
  in[1] = y;
  return test::eval(dag, in)[0];
}

TEST(ScalarDag, IdenticalSubexpressionsAreOneNode) {
  ScalarDag d;
  const int x = d.input(0), y = d.input(1);
  EXPECT_EQ(d.input(0), x);
  const int s = d.add(x, y);
  EXPECT_EQ(d.add(x, y), s);
  EXPECT_EQ(d.add(y, x), s);  // commutative: the same node, in the order first written
  EXPECT_EQ(d.nodes()[s].a, x);
  EXPECT_EQ(d.mul(y, x), d.mul(x, y));
  EXPECT_NE(d.sub(x, y), d.sub(y, x));
  EXPECT_NE(d.div(x, y), d.div(y, x));
  EXPECT_EQ(d.call(B::sin, s), d.call(B::sin, s));
  EXPECT_NE(d.call(B::sin, s), d.call(B::cos, s));
  EXPECT_EQ(d.call(B::atan2, x, y), d.call(B::atan2, x, y));
  EXPECT_NE(d.call(B::atan2, x, y), d.call(B::atan2, y, x));
  EXPECT_EQ(d.constant(0.5), d.constant(0.5));
  EXPECT_NE(d.constant(0.0), d.constant(-0.0));  // constants are keyed by their bits
  const size_t n = d.nodes().size();
  d.mul(d.add(x, y), d.sub(x, y));
  d.mul(d.add(y, x), d.sub(x, y));
  EXPECT_EQ(d.nodes().size(), n + 1);
}

TEST(ScalarDag, ConstantOperandsAreFoldedWithTheSameDoubleOperations) {
  ScalarDag d;
  const double a = 0.1, b = 0.7;
  auto c = [&](int id) {
    EXPECT_EQ(d.nodes()[id].op, Op::constant);
    return d.nodes()[id].value;
  };
  const int ca = d.constant(a), cb = d.constant(b);
  EXPECT_TRUE(same_bits(c(d.add(ca, cb)), a + b));
  EXPECT_TRUE(same_bits(c(d.sub(ca, cb)), a - b));
  EXPECT_TRUE(same_bits(c(d.mul(ca, cb)), a * b));
  EXPECT_TRUE(same_bits(c(d.div(ca, cb)), a / b));
  EXPECT_TRUE(same_bits(c(d.neg(ca)), -a));
  EXPECT_TRUE(same_bits(c(d.call(B::sin, ca)), std::sin(a)));
  EXPECT_TRUE(same_bits(c(d.call(B::atan2, ca, cb)), std::atan2(a, b)));
  EXPECT_TRUE(same_bits(c(d.call(B::pow, ca, cb)), std::pow(a, b)));
  EXPECT_TRUE(same_bits(c(d.call(B::sign, d.neg(ca))), -1.0));
  EXPECT_TRUE(same_bits(c(d.div(d.constant(1), d.constant(0))), std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(std::isnan(c(d.call(B::log, d.constant(-1)))));
  // nothing but constants was made
  for (const DagNode& n : d.nodes()) EXPECT_EQ(n.op, Op::constant);
}

TEST(ScalarDag, OnlyExactIdentitiesAreApplied) {
  ScalarDag d;
  const int x = d.input(0), y = d.input(1);
  const int one = d.constant(1), zero = d.constant(0), mzero = d.constant(-0.0);
  EXPECT_EQ(d.mul(x, one), x);
  EXPECT_EQ(d.mul(one, x), x);
  EXPECT_EQ(d.div(x, one), x);
  EXPECT_EQ(d.sub(x, zero), x);
  EXPECT_EQ(d.add(x, mzero), x);
  EXPECT_EQ(d.add(mzero, x), x);
  EXPECT_EQ(d.neg(d.neg(x)), x);
  EXPECT_EQ(d.add(x, d.neg(y)), d.sub(x, y));
  EXPECT_EQ(d.add(d.neg(x), y), d.sub(y, x));
  EXPECT_EQ(d.sub(x, d.neg(y)), d.add(x, y));
  EXPECT_EQ(d.call(B::pow, x, d.constant(2)), d.mul(x, x));  // x^2 is x*x, as in scalar_eval
  // x/4 is x*0.25 (power of two); x/3 stays a division
  const DagNode q = d.nodes()[d.div(x, d.constant(4))];
  EXPECT_EQ(q.op, Op::mul);
  EXPECT_EQ(d.nodes()[q.b].value, 0.25);
  EXPECT_EQ(d.nodes()[d.div(x, d.constant(3))].op, Op::div);
  EXPECT_EQ(d.nodes()[d.div(x, d.constant(std::ldexp(1.0, 1023)))].op, Op::div);  // 2^-1023 subnormal
  // not folded: they are wrong for some x
  EXPECT_EQ(d.nodes()[d.mul(x, zero)].op, Op::mul);     // inf*0, NaN*0
  EXPECT_EQ(d.nodes()[d.add(x, zero)].op, Op::add);     // -0 + 0 = +0
  EXPECT_EQ(d.nodes()[d.sub(x, x)].op, Op::sub);        // inf - inf
  EXPECT_EQ(d.nodes()[d.call(B::pow, x, d.constant(3))].op, Op::call2);

  // And the applied identities are exact on special values, checked against the plain operation.
  for (double vx : kSpecial)
    for (double vy : kSpecial) {
      SCOPED_TRACE(std::to_string(vx) + ", " + std::to_string(vy));
      EXPECT_TRUE(same_bits(value_of(d, d.mul(x, one), vx), vx * 1.0));
      EXPECT_TRUE(same_bits(value_of(d, d.div(x, one), vx), vx / 1.0));
      EXPECT_TRUE(same_bits(value_of(d, d.sub(x, zero), vx), vx - 0.0));
      EXPECT_TRUE(same_bits(value_of(d, d.add(x, mzero), vx), vx + -0.0));
      EXPECT_TRUE(same_bits(value_of(d, d.add(x, d.neg(y)), vx, vy), vx + (-vy)) || std::isnan(vx + vy));
      EXPECT_TRUE(same_bits(value_of(d, d.sub(x, d.neg(y)), vx, vy), vx - (-vy)) || std::isnan(vx + vy));
      EXPECT_TRUE(same_bits(value_of(d, d.div(x, d.constant(4)), vx), vx / 4.0));
      EXPECT_TRUE(same_bits(value_of(d, d.call(B::pow, x, d.constant(2)), vx), vx * vx));
    }
}

TEST(ScalarDag, LivenessAndOperationCount) {
  ScalarDag d;
  const int x = d.input(0), y = d.input(1), z = d.input(2);
  const int dead = d.call(B::exp, d.mul(x, z));  // not reachable from an output
  (void)dead;
  const int s = d.add(x, y);
  const int p = d.mul(s, d.constant(3));
  d.outputs = {p, s, y};
  const auto live = d.live();
  EXPECT_TRUE(live[x] && live[y] && live[s] && live[p]);
  EXPECT_FALSE(live[z]);
  EXPECT_FALSE(live[dead]);
  EXPECT_EQ(d.operation_count(), 2);  // add, mul (inputs and constants are free)

  const ScalarDag pr = d.pruned();
  EXPECT_EQ(pr.nodes().size(), 5u);  // x, y, x+y, 3, (x+y)*3
  EXPECT_EQ(pr.operation_count(), 2);
  std::vector<double> in(kNumFluxInputs, 0.0);
  in[0] = 0.25;
  in[1] = 1.5;
  in[2] = 1e300;
  EXPECT_EQ(test::eval(pr, in), test::eval(d, in));
  EXPECT_EQ(test::eval(d, in), (std::vector<double>{(0.25 + 1.5) * 3, 1.75, 1.5}));
}

TEST(ScalarDag, FunctionsEvaluateLikeScalarExpressions) {
  ScalarDag d;
  const int x = d.input(0), y = d.input(1);
  struct F {
    B fn;
    double (*ref)(double, double);
  };
  const std::vector<F> fs = {
      {B::sqrt, [](double a, double) { return std::sqrt(a); }},
      {B::abs, [](double a, double) { return std::fabs(a); }},
      {B::sign, [](double a, double) { return a > 0 ? 1.0 : a < 0 ? -1.0 : a; }},
      {B::heaviside, [](double a, double) { return a < 0 ? 0.0 : a >= 0 ? 1.0 : a; }},
      {B::min, [](double a, double b) { return a == 0 && b == 0 ? (std::signbit(a) ? a : b) : std::fmin(a, b); }},
      {B::max, [](double a, double b) { return a == 0 && b == 0 ? (std::signbit(a) ? b : a) : std::fmax(a, b); }},
      {B::pow, [](double a, double b) { return b == 2.0 ? a * a : std::pow(a, b); }},
  };
  for (const F& f : fs) {
    const bool two = f.fn == B::min || f.fn == B::max || f.fn == B::pow;
    const int id = two ? d.call(f.fn, x, y) : d.call(f.fn, x);
    for (double vx : kSpecial)
      for (double vy : {2.0, -0.5, 0.0, -0.0}) {
        const double got = value_of(d, id, vx, vy), want = f.ref(vx, vy);
        EXPECT_TRUE(same_bits(got, want) || (std::isnan(got) && std::isnan(want)))
            << static_cast<int>(f.fn) << " " << vx << " " << vy;
      }
  }
}

}  // namespace
}  // namespace dgmax::codegen
