// Canonical re-printing: numbers from their values, minimal or full parentheses, and the round
// trip parse(print(e)) giving the same tree and the same values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "codegen/dsl/ast.hpp"
#include "codegen/dsl/parser.hpp"
#include "codegen/dsl/scalar_eval.hpp"
#include "dsl_test_util.hpp"

namespace dgmax::dsl {
namespace {

using test::plain;

std::string canon(const std::string& text) { return to_string(*parse(plain(text))); }

TEST(DslPrinter, MinimalParentheses) {
  EXPECT_EQ(canon("sin( pi * x )*sin(pi*y)*cos(omega*t)"), "sin(pi*x)*sin(pi*y)*cos(omega*t)");
  EXPECT_EQ(canon("exp(-((x-0.5)^2+(y-0.5)^2)/0.01)*sin(10*t)"),
            "exp(-((x - 0.5)^2 + (y - 0.5)^2)/0.01)*sin(10*t)");
  EXPECT_EQ(canon("((a+b))+c"), "a + b + c");
  EXPECT_EQ(canon("a+(b+c)"), "a + (b + c)");  // kept: floating-point addition order
  EXPECT_EQ(canon("a-(b-c)"), "a - (b - c)");
  EXPECT_EQ(canon("(a*b)/c"), "a*b/c");
  EXPECT_EQ(canon("a/(b*c)"), "a/(b*c)");
  EXPECT_EQ(canon("(a^b)^c"), "(a^b)^c");
  EXPECT_EQ(canon("a^(b^c)"), "a^b^c");
  EXPECT_EQ(canon("(-a)^2"), "(-a)^2");
  EXPECT_EQ(canon("-(a^2)"), "-a^2");
  EXPECT_EQ(canon("-(a*b)"), "-(a*b)");
  EXPECT_EQ(canon("(-a)*b"), "-a*b");
  EXPECT_EQ(canon("-(-a)"), "-(-a)");
  EXPECT_EQ(canon("a+(-b)"), "a + -b");
  EXPECT_EQ(canon("2^(-1)"), "2^-1");
  EXPECT_EQ(canon("E.int - E.ext"), "E.int - E.ext");
}

TEST(DslPrinter, NumbersAreReprintedFromValues) {
  EXPECT_EQ(canon("1.50"), "1.5");
  EXPECT_EQ(canon("0001"), "1");
  EXPECT_EQ(canon("1e3"), "1000");
  EXPECT_EQ(canon("1e-3"), "0.001");
  EXPECT_EQ(canon("1e20"), "1e+20");
  EXPECT_EQ(canon("0.1"), "0.1");
  EXPECT_EQ(canon(".3333333333333333333333"), "0.3333333333333333");
  EXPECT_EQ(format_number(-2.5), "-2.5");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "(1/0)");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "(-1/0)");
  EXPECT_EQ(format_number(std::nan("")), "(0/0)");
}

TEST(DslPrinter, NegativeNumberNodesPrintAsNegations) {
  // Such nodes only come from folding; they must still print as valid, equivalent text.
  const ExprPtr m2 = Expr::make_number(-2, 0);
  const ExprPtr x = Expr::make_variable("x", Side::none, 0);
  EXPECT_EQ(to_string(*Expr::make_binary(BinaryOp::pow, m2, x, 0)), "(-2)^x");
  EXPECT_EQ(to_string(*Expr::make_binary(BinaryOp::sub, x, m2, 0)), "x - -2");
  EXPECT_EQ(to_string(*Expr::make_negate(m2, 0)), "-(-2)");
  EXPECT_EQ(to_string(*Expr::make_binary(BinaryOp::mul, x, m2, 0), PrintStyle::full_parens),
            "(x*(-2))");
}

// Bitwise equality that treats all NaNs alike.
bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

ScalarContext xyz_context() {
  ScalarContext ctx;
  ctx.variables = {"x", "y", "z"};
  return ctx;
}

void expect_round_trip(const ExprPtr& e) {
  const ScalarContext ctx = xyz_context();
  const ExprSource original = plain(to_string(*e, PrintStyle::full_parens));
  const ScalarFunction f = ScalarFunction::compile(*e, ctx, original);
  for (PrintStyle style : {PrintStyle::minimal, PrintStyle::full_parens}) {
    const std::string text = to_string(*e, style);
    SCOPED_TRACE(text);
    const ExprPtr back = parse(plain(text));
    EXPECT_EQ(to_string(*back, style), text);  // printing is idempotent
    const ScalarFunction g = ScalarFunction::compile(*back, ctx, plain(text));
    for (double p : {-1.7, 0.3, 2.9}) {
      const double v[] = {p, p * 0.5 + 1, -p};
      EXPECT_TRUE(same(f(v), g(v))) << f(v) << " vs " << g(v);
    }
  }
}

TEST(DslPrinter, RoundTripOfUserExpressions) {
  for (const char* text :
       {"sin(pi*x)*sin(pi*y)*cos(2*z)", "exp(-((x-0.5)^2+(y-0.5)^2)/0.01)*sin(10*z)",
        "x - (y - z)", "-x^2 + 2^-y/3", "atan2(y, x) - min(x, max(y, z))", "((x*y)/z)^0.5",
        "x - -y - - -z", "1/(1 + exp(-x))", "0.1 + 0.2 - 0.30000000000000004"}) {
    SCOPED_TRACE(text);
    expect_round_trip(parse(plain(text)));
  }
}

// Random trees, including node shapes the parser never makes (negative numbers, numbers that
// need all 17 digits), must survive print -> parse with identical values.
ExprPtr random_tree(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, depth > 0 ? 9 : 2);
  std::uniform_real_distribution<double> real(-3, 3);
  static const char* const names[] = {"x", "y", "z"};
  static const char* const unary[] = {"sin", "exp", "atan", "abs", "sqrt", "tanh", "erf"};
  static const char* const binary[] = {"atan2", "min", "max", "pow"};
  switch (pick(rng)) {
    case 0: return Expr::make_number(real(rng), 0);
    case 1: return Expr::make_number(std::ldexp(real(rng), (int)(rng() % 40) - 20), 0);
    case 2: return Expr::make_variable(names[rng() % 3], Side::none, 0);
    case 3: return Expr::make_negate(random_tree(rng, depth - 1), 0);
    case 4:
    case 5:
    case 6:
    case 7:
      return Expr::make_binary(static_cast<BinaryOp>(rng() % 5), random_tree(rng, depth - 1),
                               random_tree(rng, depth - 1), 0);
    case 8: return Expr::make_call(unary[rng() % 7], {random_tree(rng, depth - 1)}, 0);
    default:
      return Expr::make_call(binary[rng() % 4],
                             {random_tree(rng, depth - 1), random_tree(rng, depth - 1)}, 0);
  }
}

TEST(DslPrinter, RoundTripOfRandomTrees) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 300; ++i) expect_round_trip(random_tree(rng, 5));
}

TEST(DslPrinter, ParsedTreesRoundTripStructurally) {
  for (const char* text : {"1/(Z.int + Z.ext)*cross(n, Z.ext*jump(H) - alpha*cross(n, jump(E)))",
                           "-x^-y^z", "f()", "a*-b/c^-(d-e)", "0.1*1e-300+6.02e23"}) {
    const ExprPtr e = parse(plain(text));
    for (PrintStyle style : {PrintStyle::minimal, PrintStyle::full_parens})
      EXPECT_TRUE(structurally_equal(*e, *parse(plain(to_string(*e, style))))) << text;
  }
  EXPECT_FALSE(structurally_equal(*parse(plain("a+(b+c)")), *parse(plain("a+b+c"))));
  EXPECT_FALSE(structurally_equal(*parse(plain("E.int")), *parse(plain("E.ext"))));
}

}  // namespace
}  // namespace dgmax::dsl
