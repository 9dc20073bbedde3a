// Grammar: precedence, associativity, sides, calls; the tree shape is checked through the fully
// parenthesized printer and through values.
#include "codegen/dsl/parser.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "codegen/dsl/scalar_eval.hpp"
#include "dsl_test_util.hpp"

namespace dgmax::dsl {
namespace {

using test::plain;

std::string full(const std::string& text) {
  return to_string(*parse(plain(text)), PrintStyle::full_parens);
}

double value(const std::string& text, double x = 2, double y = 3) {
  ScalarContext ctx;
  ctx.variables = {"x", "y"};
  const double vars[] = {x, y};
  return compile_scalar(plain(text), ctx)(vars);
}

TEST(DslParser, PrecedenceShapes) {
  EXPECT_EQ(full("1+2*3"), "(1 + (2*3))");
  EXPECT_EQ(full("1*2+3"), "((1*2) + 3)");
  EXPECT_EQ(full("a-b-c"), "((a - b) - c)");
  EXPECT_EQ(full("a/b/c"), "((a/b)/c)");
  EXPECT_EQ(full("a/b*c"), "((a/b)*c)");
  EXPECT_EQ(full("a^b^c"), "(a^(b^c))");
  EXPECT_EQ(full("-x^2"), "(-(x^2))");
  EXPECT_EQ(full("2^-1"), "(2^(-1))");
  EXPECT_EQ(full("2^-x^2"), "(2^(-(x^2)))");
  EXPECT_EQ(full("-a*b"), "((-a)*b)");
  EXPECT_EQ(full("a*-b"), "(a*(-b))");
  EXPECT_EQ(full("--a"), "(-(-a))");
  EXPECT_EQ(full("+a"), "a");
  EXPECT_EQ(full("a - -b"), "(a - (-b))");
  EXPECT_EQ(full("(a+b)*c"), "((a + b)*c)");
  EXPECT_EQ(full("((((x))))"), "x");
  EXPECT_EQ(full("f(a+b, c*d)^2"), "(f((a + b), (c*d))^2)");
}

TEST(DslParser, PrecedenceValues) {
  EXPECT_EQ(value("1+2*3"), 7.0);
  EXPECT_EQ(value("2*3^2"), 18.0);
  EXPECT_EQ(value("-2^2"), -4.0);
  EXPECT_EQ(value("(-2)^2"), 4.0);
  EXPECT_EQ(value("2^-1"), 0.5);
  EXPECT_EQ(value("2^3^2"), 512.0);
  EXPECT_EQ(value("(2^3)^2"), 64.0);
  EXPECT_EQ(value("8/4/2"), 1.0);
  EXPECT_EQ(value("8-4-2"), 2.0);
  EXPECT_EQ(value("1-2+3"), 2.0);
  EXPECT_EQ(value("2/4*2"), 1.0);
  EXPECT_EQ(value("-x^2"), -4.0);
  EXPECT_EQ(value("2^-x"), 0.25);
  EXPECT_EQ(value("x*y^2"), 18.0);
  EXPECT_EQ(value("2*-3"), -6.0);
  EXPECT_EQ(value("- -3"), 3.0);
  EXPECT_EQ(value("+3"), 3.0);
  EXPECT_EQ(value("-x*y"), -6.0);
  EXPECT_EQ(value("x - y - 1"), -2.0);
  EXPECT_EQ(value("1e-3*1000"), 1.0);
  EXPECT_EQ(value(".5*4"), 2.0);
  EXPECT_EQ(value("1.5e+2"), 150.0);
  EXPECT_EQ(value("(x+y)*(x-y)"), -5.0);
  EXPECT_EQ(value("x^y^0.5"), std::pow(2.0, std::pow(3.0, 0.5)));
}

TEST(DslParser, SidesAndCallsOfTheFluxSyntax) {
  const ExprPtr e = parse(
      plain("1/(Z.int+Z.ext) * cross(n, Z.ext*jump(H) - alpha*cross(n, jump(E)))"));
  EXPECT_EQ(to_string(*e), "1/(Z.int + Z.ext)*cross(n, Z.ext*jump(H) - alpha*cross(n, jump(E)))");
  ASSERT_EQ(e->kind(), Expr::Kind::binary);
  EXPECT_EQ(e->op(), BinaryOp::mul);
  const Expr& denom = e->lhs().rhs();  // Z.int + Z.ext
  EXPECT_EQ(denom.lhs().name(), "Z");
  EXPECT_EQ(denom.lhs().side(), Side::interior);
  EXPECT_EQ(denom.rhs().side(), Side::exterior);
  EXPECT_EQ(denom.lhs().offset(), 3u);
  const Expr& cross = e->rhs();
  ASSERT_EQ(cross.kind(), Expr::Kind::call);
  EXPECT_EQ(cross.name(), "cross");
  EXPECT_EQ(cross.offset(), 18u);
  ASSERT_EQ(cross.args().size(), 2u);
  EXPECT_EQ(cross.args()[0]->name(), "n");
  EXPECT_EQ(cross.args()[0]->side(), Side::none);
}

TEST(DslParser, OffsetsAreAnchors) {
  const ExprPtr e = parse(plain("a + -b*3"));
  EXPECT_EQ(e->offset(), 2u);                    // '+'
  EXPECT_EQ(e->lhs().offset(), 0u);              // a
  EXPECT_EQ(e->rhs().offset(), 6u);              // '*'
  EXPECT_EQ(e->rhs().lhs().offset(), 4u);        // '-'
  EXPECT_EQ(e->rhs().lhs().operand().offset(), 5u);
  EXPECT_EQ(e->rhs().rhs().offset(), 7u);        // 3
  EXPECT_EQ(e->depth(), 4);
}

TEST(DslParser, CallsWithZeroToManyArguments) {
  EXPECT_EQ(parse(plain("f()"))->args().size(), 0u);
  EXPECT_EQ(parse(plain("f(1, 2, 3, 4)"))->args().size(), 4u);
  EXPECT_EQ(full("g(f(x), (y))"), "g(f(x), y)");
}

TEST(DslParser, NestingUpToTheLimitIsFine) {
  // 150 parentheses and a chain of 900 additions stay within kMaxNesting / kMaxTreeDepth.
  std::string nested = std::string(150, '(') + "x" + std::string(150, ')');
  EXPECT_EQ(to_string(*parse(plain(nested))), "x");
  std::string chain = "x";
  for (int i = 0; i < 900; ++i) chain += "+x";
  EXPECT_EQ(parse(plain(chain))->depth(), 901);
}

}  // namespace
}  // namespace dgmax::dsl
