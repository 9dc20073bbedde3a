// Every class of user error: exact message, hint and caret column, both for expressions from a
// YAML file (caret in the file's line) and for expressions without a file.
#include <gtest/gtest.h>

#include "codegen/dsl/parser.hpp"
#include "codegen/dsl/scalar_eval.hpp"
#include "dsl_test_util.hpp"

namespace dgmax::dsl {
namespace {

using test::expect_user_error;
using test::in_yaml;
using test::kYamlColumn;
using test::plain;

ScalarContext context() {
  ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  ctx.constants = {{"omega", 2.0}, {"alpha", 0.5}};
  return ctx;
}

// The error for `text` in the YAML line, checked to be at byte `offset` of the expression.
UserError yaml_error(const std::string& text, size_t offset) {
  const UserError e = expect_user_error([&] { compile_scalar(in_yaml(text), context()); });
  EXPECT_EQ(e.where().file, "config.yaml") << text;
  EXPECT_EQ(e.where().line, 7) << text;
  EXPECT_EQ(e.where().column, kYamlColumn + static_cast<int>(offset)) << text;
  EXPECT_EQ(e.where().snippet, "  Ex: \"" + text + "\"") << text;
  return e;
}

struct Case {
  std::string text;
  size_t offset;  // where the caret goes, in bytes from the start of the expression
  std::string message;
  std::string hint;
};

void check(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const UserError e = yaml_error(c.text, c.offset);
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.hint(), c.hint);
  }
}

TEST(DslErrors, Syntax) {
  check({
      {"sin(pi*x", 8, "expected ')' to close '(' at column 11", ""},
      {"sin(x y)", 6, "expected ')' to close '(' at column 11", "found 'y' instead"},
      {"(x+1", 4, "expected ')' to close '(' at column 8", ""},
      {"2 ** x", 3, "expected an expression after '*'", "write powers with '^', as in 'x^2'"},
      {"x +", 3, "expected an expression after '+'", ""},
      {"-", 1, "expected an expression after '-'", ""},
      {"()", 1, "expected an expression after '('", "empty parentheses"},
      {"atan2(x,,y)", 8, "expected an expression after ','", ""},
      {"*x", 0, "unexpected '*' at the start of the expression", ""},
      {"", 0, "empty expression", ""},
      {"   ", 0, "empty expression", ""},
      {"(x))", 3, "unexpected ')' without a matching '('", ""},
      {"x, y", 1, "unexpected ','",
       "commas only separate the arguments of a function, as in 'atan2(y, x)'"},
      {"2x", 1, "unexpected 'x' after a complete expression",
       "is an operator missing? products need '*', as in '2*x'"},
      {"sin(x) cos(x)", 7, "unexpected 'cos' after a complete expression",
       "is an operator missing? products need '*', as in '2*x'"},
      {"(x).int", 3, "unexpected '.'", "'.int' and '.ext' can only follow a name, as in 'E.int'"},
      {"Z.foo", 2, "expected 'int' or 'ext' after 'Z.'",
       "'Z.int' is the interior trace, 'Z.ext' the exterior one"},
      {"Z.inr", 2, "expected 'int' or 'ext' after 'Z.'", "did you mean 'Z.int'?"},
      {"E.", 2, "expected 'int' or 'ext' after 'E.'",
       "'E.int' is the interior trace, 'E.ext' the exterior one"},
  });
}

TEST(DslErrors, Lexical) {
  check({
      {"x;", 1, "unexpected character ';'",
       "an expression is a single formula, without statements or ';'"},
      {"\"x\"", 0, "unexpected character '\"'",
       "quotes are not part of an expression (in YAML, quote the whole value)"},
      {"x = 1", 2, "unexpected character '='",
       "there are no comparisons or logical operators; heaviside(x) gives a step"},
      {"a[0]", 1, "unexpected character '['", "use '(' and ')' for grouping"},
      {"x\\y", 1, "unexpected character '\\'",
       "backslashes (escapes, line continuations) are not part of an expression"},
      {"2*\xCF\x80", 2, "unexpected character '\xCF\x80'", "write 'pi'"},
      {"1e", 0, "malformed number '1e'",
       "an exponent needs digits, as in '1e-3'; for a product write '2*e'"},
      {"2ex", 0, "malformed number '2ex'",
       "an exponent needs digits, as in '1e-3'; for a product write '2*e'"},
      {"1.2.3", 0, "malformed number '1.2.3'", ""},
      {"x + 1e999", 4, "number '1e999' is out of the range of double precision",
       "doubles range from about 2.2e-308 to 1.8e308"},
  });
}

TEST(DslErrors, Names) {
  const std::string names = "names available here: x, y, z, t, pi, alpha, omega";
  check({
      {"sin(omgea*t)", 4, "unknown name 'omgea'", "did you mean 'omega'? (" + names + ")"},
      {"2*bogus_name", 2, "unknown name 'bogus_name'", names},
      {"sinx", 0, "unknown name 'sinx'", "did you mean 'sin(x)'? (" + names + ")"},
      {"__global__", 0, "unknown name '__global__'", names},
      {"x.int", 0, "'x.int': sides '.int' and '.ext' are only valid in flux expressions",
       "write 'x' without '.int'"},
      {"1 + omega.ext", 4, "'omega.ext': sides '.int' and '.ext' are only valid in flux expressions",
       "write 'omega' without '.ext'"},
      {"E*2", 0, "'E' is the electric field vector, only available in flux expressions",
       "available here: x, y, z, t, pi, alpha, omega"},
      {"sin*2", 0, "'sin' is a function", "call it with an argument, as in 'sin(x)'"},
      {"x(2)", 0, "'x' is not a function", "for a product write 'x*(...)'"},
      {"2*pi(1)", 2, "'pi' is not a function", "for a product write 'pi*(...)'"},
      {"cross(n, E)", 0, "'cross' is a vector function, only available in flux expressions", ""},
  });
}

TEST(DslErrors, Functions) {
  const std::string fns =
      "functions: sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, exp, log, sqrt, abs, "
      "min, max, pow, floor, ceil, sign, heaviside, erf, besselj, bessely";
  check({
      {"foo(x)", 0, "unknown function 'foo'", "did you mean 'cos'? " + fns},
      {"3*sine(x)", 2, "unknown function 'sine'", "did you mean 'sin'? " + fns},
      {"qwertyuiop(x)", 0, "unknown function 'qwertyuiop'", fns},
      {"atan2(x)", 0, "atan2 takes 2 arguments, got 1", ""},
      {"1 + sin(x, y)", 4, "sin takes 1 argument, got 2", ""},
      {"sin()", 0, "sin takes 1 argument, got 0", ""},
      {"max(1, 2, 3)", 0, "max takes 2 arguments, got 3", ""},
  });
}

TEST(DslErrors, BesselOrder) {
  const std::string usage_j = "besselj(n, x) takes the order n first, a whole number from 0 to 100, as in 'besselj(1, 2.4*x)'";
  const std::string usage_y = "bessely(n, x) takes the order n first, a whole number from 0 to 100, as in 'bessely(1, 2.4*x)'";
  const std::string varies = "; a number or a named constant, not a value that changes in space or time";
  check({
      {"besselj(1.5, x)", 8, "the order of besselj must be a whole number from 0 to 100, got 1.5", usage_j},
      {"2*besselj(-1, x)", 10, "the order of besselj must be a whole number from 0 to 100, got -1",
       "a negative order follows from J_-n(x) = (-1)^n J_n(x), as in '-besselj(1, x)' for order -1"},
      {"bessely(-2, x)", 8, "the order of bessely must be a whole number from 0 to 100, got -2",
       "a negative order follows from Y_-n(x) = (-1)^n Y_n(x), as in '-bessely(1, x)' for order -1"},
      {"besselj(t, x)", 8, "the order of besselj must be a constant", usage_j + varies},
      {"bessely(omega*t, x)", 13, "the order of bessely must be a constant", usage_y + varies},
      {"besselj(101, x)", 8, "the order of besselj must be a whole number from 0 to 100, got 101", usage_j},
      {"besselj(alpha, x)", 8, "the order of besselj must be a whole number from 0 to 100, got 0.5", usage_j},
      {"besselj(1/0, x)", 9, "the order of besselj must be a whole number from 0 to 100, got infinity", usage_j},
      {"besselj(x)", 0, "besselj takes 2 arguments, got 1", usage_j},
      {"1 + bessely(1, x, y)", 4, "bessely takes 2 arguments, got 3", usage_y},
      {"besselj*2", 0, "'besselj' is a function", usage_j},
      {"besselj(2, omgea)", 11, "unknown name 'omgea'",
       "did you mean 'omega'? (names available here: x, y, z, t, pi, alpha, omega)"},
  });
}

TEST(DslErrors, RenderedCaretLandsUnderTheOffendingCharacter) {
  const UserError e = expect_user_error([] { compile_scalar(in_yaml("sin(pi*x"), context()); });
  EXPECT_EQ(e.render(),
            "config.yaml:7:16: error: expected ')' to close '(' at column 11\n"
            "    Ex: \"sin(pi*x\"\n"
            "                 ^\n");
  const UserError u =
      expect_user_error([] { compile_scalar(in_yaml("exp(-t)*omgea"), context()); });
  EXPECT_EQ(u.render(),
            "config.yaml:7:16: error: unknown name 'omgea'\n"
            "    Ex: \"exp(-t)*omgea\"\n"
            "                 ^\n"
            "  hint: did you mean 'omega'? (names available here: x, y, z, t, pi, alpha, omega)\n");
}

TEST(DslErrors, WithoutAFileTheExpressionIsTheSnippet) {
  const UserError e = expect_user_error([] { compile_scalar(plain("sin(pi*x"), context()); });
  EXPECT_EQ(e.message(), "expected ')' to close '(' at column 4 in expression 'sin(pi*x'");
  EXPECT_EQ(e.where().line, 0);
  EXPECT_EQ(e.where().column, 9);
  EXPECT_EQ(e.where().snippet, "sin(pi*x");
  EXPECT_EQ(e.render(),
            "error: expected ')' to close '(' at column 4 in expression 'sin(pi*x'\n"
            "  sin(pi*x\n"
            "          ^\n");
  const UserError n = expect_user_error([] { compile_scalar(plain("omgea*t"), context()); });
  EXPECT_EQ(n.message(), "unknown name 'omgea' in expression 'omgea*t'");
  EXPECT_EQ(n.where().column, 1);
  const UserError c = expect_user_error([] { parse(plain("2 ** x")); });
  EXPECT_EQ(c.message(), "expected an expression after '*' in expression '2 ** x'");
  EXPECT_EQ(c.where().column, 4);
}

TEST(DslErrors, FileAndLineWithoutColumnGiveNoCaret) {
  const ExprSource src{"x +", SourceLocation{"run.yaml", 3, 0, ""}};
  const UserError e = expect_user_error([&] { parse(src); });
  EXPECT_EQ(e.render(), "run.yaml:3: error: expected an expression after '+' in expression 'x +'\n");
}

}  // namespace
}  // namespace dgmax::dsl
