// User constants: chains in order, and every way a definition can be wrong.
#include "codegen/dsl/constants.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "codegen/dsl/builtins.hpp"
#include "dsl_test_util.hpp"

namespace dgmax::dsl {
namespace {

using test::expect_user_error;
using test::plain;
using Defs = std::vector<std::pair<std::string, ExprSource>>;

// `  name: value` at `line` of constants.yaml.
std::pair<std::string, ExprSource> def(const std::string& name, const std::string& value,
                                       int line = 0) {
  if (line == 0) return {name, plain(value)};
  const std::string prefix = "  " + name + ": ";
  return {name, ExprSource{value, SourceLocation{"constants.yaml", line,
                                                 static_cast<int>(prefix.size()) + 1,
                                                 prefix + value}}};
}

UserError error_for(const Defs& defs) {
  return expect_user_error([&] { evaluate_constants(defs); });
}

TEST(DslConstants, ChainInOrder) {
  const auto c = evaluate_constants({def("a", "2"), def("b", "a^2*pi"),
                                     def("omega", "sqrt(2)*pi"), def("T", "2*pi/omega")});
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c.at("a"), 2.0);
  EXPECT_EQ(c.at("b"), 4.0 * kPi);
  EXPECT_EQ(c.at("omega"), std::sqrt(2.0) * kPi);
  EXPECT_EQ(c.at("T"), 2 * kPi / (std::sqrt(2.0) * kPi));
  EXPECT_EQ(c.count("pi"), 0u);
  EXPECT_TRUE(evaluate_constants({}).empty());
}

TEST(DslConstants, ForwardReference) {
  const UserError e = error_for({def("a", "b + 1", 3), def("b", "2", 4)});
  EXPECT_EQ(e.message(), "constant 'a' uses 'b', which is defined after it");
  EXPECT_EQ(e.hint(), "constants may use pi and the constants defined above them; move 'b' above 'a'");
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.where().column, 6);  // "  a: b + 1": the 'b'
}

TEST(DslConstants, Cycles) {
  EXPECT_EQ(error_for({def("a", "a + 1")}).message(),
            "constant 'a' refers to itself in expression 'a + 1'");
  const UserError two = error_for({def("a", "2*b", 1), def("b", "a/2", 2)});
  EXPECT_EQ(two.message(), "constants depend on each other in a cycle: a -> b -> a");
  EXPECT_EQ(two.where().column, 8);
  EXPECT_EQ(error_for({def("a", "c", 1), def("b", "a", 2), def("c", "b", 3)}).message(),
            "constants depend on each other in a cycle: a -> c -> b -> a");
}

TEST(DslConstants, CoordinatesAndTimeAreNotAvailable) {
  const UserError e = error_for({def("k", "2*pi/x", 5)});
  EXPECT_EQ(e.message(),
            "constant 'k' cannot use 'x': constants are fixed numbers, evaluated before the run");
  EXPECT_EQ(e.where().column, 11);
}

TEST(DslConstants, BadNames) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2a", "'2a' is not a valid constant name"},
      {"my-const", "'my-const' is not a valid constant name"},
      {"", "'' is not a valid constant name"},
      {"x", "constant name 'x' is reserved for a variable (x, y, z, t)"},
      {"t", "constant name 't' is reserved for a variable (x, y, z, t)"},
      {"pi", "constant name 'pi' is reserved: pi is built in"},
      {"sin", "constant name 'sin' is reserved: it is a function"},
      {"heaviside", "constant name 'heaviside' is reserved: it is a function"},
      {"E", "constant name 'E' is reserved: in flux expressions it is the electric field vector"},
      {"n", "constant name 'n' is reserved: in flux expressions it is the face normal vector"},
  };
  for (const auto& [name, message] : cases)
    EXPECT_EQ(error_for({def("ok", "1"), def(name, "1")}).message(), message);
}

TEST(DslConstants, BadNameErrorsPointAtTheName) {
  const UserError e = error_for({def("sin", "2", 9)});
  EXPECT_EQ(e.where().file, "constants.yaml");
  EXPECT_EQ(e.where().line, 9);
  EXPECT_EQ(e.where().column, 3);
  EXPECT_EQ(e.render(),
            "constants.yaml:9:3: error: constant name 'sin' is reserved: it is a function\n"
            "    sin: 2\n"
            "    ^\n"
            "  hint: choose another name\n");
}

TEST(DslConstants, Duplicates) {
  const UserError e = error_for({def("a", "1", 2), def("b", "1", 3), def("a", "2", 4)});
  EXPECT_EQ(e.message(), "constant 'a' is defined twice");
  EXPECT_EQ(e.hint(), "first defined at line 2");
  EXPECT_EQ(e.where().line, 4);
}

TEST(DslConstants, NonFiniteValues) {
  EXPECT_EQ(error_for({def("a", "1/0")}).message(), "constant 'a' evaluates to inf in expression '1/0'");
  EXPECT_EQ(error_for({def("a", "log(0)")}).message(),
            "constant 'a' evaluates to -inf in expression 'log(0)'");
  EXPECT_EQ(error_for({def("a", "sqrt(-1)")}).message(),
            "constant 'a' evaluates to NaN in expression 'sqrt(-1)'");
  EXPECT_EQ(error_for({def("a", "exp(1000)")}).message(),
            "constant 'a' evaluates to inf in expression 'exp(1000)'");
}

TEST(DslConstants, ExpressionErrorsKeepTheirLocation) {
  const UserError e = error_for({def("a", "2", 1), def("b", "a*omgea", 2)});
  EXPECT_EQ(e.message(), "unknown name 'omgea'");
  EXPECT_EQ(e.hint(), "names available here: pi, a");
  EXPECT_EQ(e.where().column, 8);
  const UserError s = error_for({def("a", "2*(1", 1)});
  EXPECT_EQ(s.message(), "expected ')' to close '(' at column 8");
  EXPECT_EQ(s.where().column, 10);
}

}  // namespace
}  // namespace dgmax::dsl
