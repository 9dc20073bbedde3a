// Every class of user error in flux and exterior-state expressions: exact message, hint and caret
// column (in the user's YAML line, and without a file); hostile input ends in a clean UserError
// and never reaches generated code.
#include <gtest/gtest.h>

#include <random>

#include "codegen/emit/c_expr.hpp"
#include "lower_test_util.hpp"

namespace dgmax::codegen {
namespace {

using test::expect_user_error;
using test::exterior_scope;
using test::flux_scope;
using test::in_yaml;
using test::kYamlColumn;
using test::plain;

const std::map<std::string, double> kConstants = {{"omega", 2.0}, {"alpha", 0.5}};

const std::string kFluxNames =
    "E.int, E.ext, H.int, H.ext, n, eps.int, eps.ext, mu.int, mu.ext, Z.int, Z.ext, Y.int, Y.ext, "
    "pi, alpha, omega";
const std::string kExteriorNames =
    "E.int, H.int, n, eps.int, mu.int, Z.int, Y.int, Einc, Hinc, pi, alpha, omega";
const std::string kScalarFunctions =
    "sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, exp, log, sqrt, abs, min, max, pow, "
    "floor, ceil, sign, heaviside, erf, besselj, bessely";

struct Case {
  std::string text;
  size_t offset;  // where the caret goes, in bytes from the start of the expression
  std::string message;
  std::string hint;
};

// `text` as the E expression (H is valid), from a YAML line: file, line, column and snippet.
void check(const std::vector<Case>& cases, const FluxScope& scope) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const UserError e = expect_user_error([&] { lower_flux(in_yaml(c.text), plain("H.int"), scope); });
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.hint(), c.hint);
    EXPECT_EQ(e.where().file, "config.yaml");
    EXPECT_EQ(e.where().line, 12);
    EXPECT_EQ(e.where().column, kYamlColumn + static_cast<int>(c.offset));
    EXPECT_EQ(e.where().snippet, "    E: \"" + c.text + "\"");
    // Without a file: the message quotes the expression and the caret is offset + 1.
    const UserError p = expect_user_error([&] { lower_flux(plain(c.text), plain("H.int"), scope); });
    EXPECT_EQ(p.message(), c.message + " in expression '" + c.text + "'");
    EXPECT_EQ(p.where().column, static_cast<int>(c.offset) + 1);
  }
}

TEST(FluxErrors, Types) {
  check({
      {"sin(E.int)", 0, "sin expects a scalar, got a 3-vector",
       "apply it to a component-free scalar such as dot(n, E.int) or norm(E.int)"},
      {"atan2(Z.int, n)*n", 0, "atan2 expects scalars, got a 3-vector as argument 2",
       "apply it to a component-free scalar such as dot(n, E.int) or norm(E.int)"},
      {"cross(n, Z.int)", 0, "cross expects two 3-vectors, got a scalar as argument 2", ""},
      {"n + cross(1, n)", 4, "cross expects two 3-vectors, got a scalar as argument 1", ""},
      {"dot(2, n)*n", 0, "dot expects two 3-vectors, got a scalar as argument 1", ""},
      {"norm(Z.int)*n", 0, "norm expects a 3-vector, got a scalar", "for a scalar use abs(x)"},
      {"E.int*H.int", 5, "cannot multiply two 3-vectors with '*'",
       "use dot(a, b) for the scalar product or cross(a, b) for the vector product"},
      {"E.int + Z.int", 6, "'+' needs two scalars or two 3-vectors, got a 3-vector and a scalar",
       "a scalar cannot be added to a vector component-wise; scale a vector instead, as in 'a*n'"},
      {"1 - n", 2, "'-' needs two scalars or two 3-vectors, got a scalar and a 3-vector",
       "a scalar cannot be subtracted from a vector component-wise; scale a vector instead, as in "
       "'a*n'"},
      {"Z.int/n", 5, "cannot divide by a 3-vector",
       "only a scalar or a 3-vector divided by a scalar is defined"},
      {"n^2", 1, "'^' needs scalars, got a 3-vector as the base",
       "for the squared length of a vector v write dot(v, v)"},
      {"2^n", 1, "'^' needs scalars, got a 3-vector as the exponent",
       "for the squared length of a vector v write dot(v, v)"},
      {"dot(n, E.int)", 0, "the E flux must be a 3-vector, got a scalar",
       "it gives the x, y and z components: combine scalars with vectors, as in 'a*n' or "
       "'cross(n, E.int)'"},
      {"Z.int*dot(n, E.int) + 1", 20, "the E flux must be a 3-vector, got a scalar",
       "it gives the x, y and z components: combine scalars with vectors, as in 'a*n' or "
       "'cross(n, E.int)'"},
  }, flux_scope(kConstants));
}

TEST(FluxErrors, NamesInFluxes) {
  check({
      {"E", 0, "'E' needs a side: write E.int or E.ext", "only jump(E) and avg(E) take the bare name"},
      {"n*Z", 2, "'Z' needs a side: write Z.int or Z.ext",
       "'Z.int' is the interior material's value, 'Z.ext' the exterior one"},
      {"n.int", 0, "'n.int': the normal takes no side",
       "write 'n', the outward unit normal of the interior element"},
      {"omega.ext*n", 0, "'omega.ext': 'omega' is a constant and takes no side",
       "sides apply to fields and materials (E, H, eps, mu, Z, Y); write 'omega'"},
      {"pi.int*n", 0, "'pi.int': 'pi' is a constant and takes no side",
       "sides apply to fields and materials (E, H, eps, mu, Z, Y); write 'pi'"},
      {"Einc", 0, "'Einc' is only available in boundary exterior states",
       "names available here: " + kFluxNames},
      {"omgea*n", 0, "unknown name 'omgea'",
       "did you mean 'omega'? (names available here: " + kFluxNames + ")"},
      {"Eps.int*n", 0, "unknown name 'Eps'",
       "did you mean 'eps.int'? (names available here: " + kFluxNames + ")"},
      // one-letter names are all within one edit of each other: no suggestion
      {"x*n", 0, "unknown name 'x'", "names available here: " + kFluxNames},
      {"Hext", 0, "unknown name 'Hext'",
       "did you mean 'H.ext'? (names available here: " + kFluxNames + ")"},
      {"Z_int*n", 0, "unknown name 'Z_int'",
       "did you mean 'Z.int'? (names available here: " + kFluxNames + ")"},
      {"cross*n", 0, "'cross' is a function", "call it with arguments, as in 'cross(n, E.int)'"},
      {"sin*n", 0, "'sin' is a function", "call it with arguments, as in 'sin(x)'"},
  }, flux_scope(kConstants));
  // Without `alpha` (the alpha flux reads it) the hint says where it comes from.
  check({
      {"alpha*n", 0, "unknown name 'alpha'",
       "the 'alpha' flux reads the constant 'alpha' (0: central, 1: upwind); define it (names "
       "available here: E.int, E.ext, H.int, H.ext, n, eps.int, eps.ext, mu.int, mu.ext, Z.int, "
       "Z.ext, Y.int, Y.ext, pi)"},
  }, flux_scope());
  // A constant named like a material is hidden by it.
  check({
      {"mu*n", 0, "'mu' needs a side: write mu.int or mu.ext",
       "the constant 'mu' is hidden by the material parameter in flux expressions; rename the "
       "constant"},
  }, flux_scope({{"mu", 1.0}}));
}

TEST(FluxErrors, Functions) {
  const std::string fns = "jump, avg, dot, cross, norm, " + kScalarFunctions;
  check({
      {"jump(E.int)", 5, "jump takes the bare name: write 'jump(E)', not 'jump(E.int)'",
       "'jump(E)' reads both traces E.int and E.ext"},
      {"avg(Z.ext)*n", 4, "avg takes the bare name: write 'avg(Z)', not 'avg(Z.ext)'",
       "'avg(Z)' reads both traces Z.int and Z.ext"},
      {"jump(n)", 5, "jump expects a field or material name (E, H, eps, mu, Z, Y)",
       "as in 'jump(E)': the argument is a field or material name (E, H, eps, mu, Z, Y)"},
      {"jump(2*E.int)", 6, "jump expects a field or material name (E, H, eps, mu, Z, Y)",
       "as in 'jump(E)': the argument is a field or material name (E, H, eps, mu, Z, Y)"},
      {"jump(E, H)", 0, "jump takes 1 argument, got 2", "as in 'jump(E)'"},
      {"cross(n)", 0, "cross takes 2 arguments, got 1", "as in 'cross(n, E.int)'"},
      {"norm()*n", 0, "norm takes 1 argument, got 0", "as in 'norm(E.int)'"},
      {"atan2(1)*n", 0, "atan2 takes 2 arguments, got 1", "as in 'atan2(a, b)'"},
      {"crosss(n, E.int)", 0, "unknown function 'crosss'", "did you mean 'cross'? functions: " + fns},
      {"divergence(E.int)", 0, "unknown function 'divergence'", "functions: " + fns},
      {"Z.int*n + Z(1)*n", 10, "'Z' is not a function", "for a product write 'Z*(...)'"},
      {"omega(2)*n", 0, "'omega' is not a function", "for a product write 'omega*(...)'"},
  }, flux_scope(kConstants));
}

TEST(FluxErrors, ExteriorStates) {
  check({
      {"E.ext", 0, "'E.ext': exterior traces are what a boundary condition defines; use E.int/H.int", ""},
      {"-H.ext", 1, "'H.ext': exterior traces are what a boundary condition defines; use E.int/H.int", ""},
      {"Z.ext*n", 0, "'Z.ext': a boundary has no exterior material; use Z.int", ""},
      {"E", 0, "'E' needs a side: write E.int",
       "an exterior state is computed from the interior trace 'E.int'"},
      {"Z*n", 0, "'Z' needs a side: write Z.int",
       "a boundary face has only the interior material: 'Z.int'"},
      {"jump(E)", 0, "jump() is only available in numerical fluxes",
       "an exterior state is computed from the interior trace: use E.int, H.int"},
      {"E.int - avg(E)", 8, "avg() is only available in numerical fluxes",
       "an exterior state is computed from the interior trace: use E.int, H.int"},
      {"Einc.int", 0, "'Einc.int': the incident field takes no side", "write 'Einc'"},
      {"dot(n, Hinc)", 0, "the E exterior state must be a 3-vector, got a scalar",
       "it gives the x, y and z components: combine scalars with vectors, as in 'a*n' or "
       "'cross(n, E.int)'"},
      {"Eint", 0, "unknown name 'Eint'",
       "did you mean 'E.int'? (names available here: " + kExteriorNames + ")"},
      {"Einx", 0, "unknown name 'Einx'",
       "did you mean 'Einc'? (names available here: " + kExteriorNames + ")"},
  }, exterior_scope(kConstants));
}

TEST(FluxErrors, TheHExpressionIsLocatedInItsOwnText) {
  const UserError e = expect_user_error(
      [&] { lower_flux(plain("E.int"), in_yaml("cross(n, E.int) + Z.int"), flux_scope()); });
  EXPECT_EQ(e.message(), "'+' needs two scalars or two 3-vectors, got a 3-vector and a scalar");
  EXPECT_EQ(e.where().column, kYamlColumn + 16);
  const UserError s = expect_user_error([&] { lower_flux(plain("n"), plain("Z.int"), flux_scope()); });
  EXPECT_EQ(s.message(), "the H flux must be a 3-vector, got a scalar in expression 'Z.int'");
  // E is checked completely before H is parsed: E's error comes first.
  const UserError both = expect_user_error([&] { lower_flux(plain("E"), plain("H +"), flux_scope()); });
  EXPECT_EQ(both.message(), "'E' needs a side: write E.int or E.ext in expression 'E'");
  // Syntax errors are the parser's, located the same way.
  const UserError syn = expect_user_error([&] { lower_flux(plain("n"), in_yaml("cross(n, H.int"), flux_scope()); });
  EXPECT_EQ(syn.where().column, kYamlColumn + 14);
}

// ---- hostile input ----------------------------------------------------------------------------

UserError error_for(const std::string& text, const FluxScope& scope = flux_scope()) {
  return expect_user_error([&] { lower_flux(plain(text), plain("H.int"), scope); });
}

TEST(FluxErrors, HostileTextIsRejectedCleanly) {
  struct HostileCase {
    std::string text, message_start;
    int column;
  };
  const std::vector<HostileCase> cases = {
      {"__global__", "unknown name '__global__'", 1},
      {"__global__ void k() {}", "unexpected character '{'", 21},
      {"E.int;", "unexpected character ';'", 6},
      {"#define E 1", "unexpected character '#'", 1},
      {"E.int /* */", "expected an expression after '/'", 8},
      {"E.int // x", "expected an expression after '/'", 8},
      {"std::sin(E.int)", "unexpected character ':'", 4},
      {"__asm__(\"int3\")", "unexpected character '\"'", 9},
      {"__asm__(n)", "unknown function '__asm__'", 1},
      {"in[0]*n", "unexpected character '['", 3},
      {"E.int\n; system(x)", "unexpected line break", 6},
      {"real_t(1)*n", "unknown function 'real_t'", 1},
      {"t0*n", "unknown name 't0'", 1},
      {"E.int.x", "unexpected '.'", 6},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const UserError e = error_for(c.text);
    EXPECT_EQ(e.message().rfind(c.message_start, 0), 0u) << e.message();
    EXPECT_EQ(e.where().column, c.column);
    for (char ch : e.where().snippet) EXPECT_GE(static_cast<unsigned char>(ch), 0x20);
  }
}

TEST(FluxErrors, VeryLongAndDeepExpressions) {
  std::string longest = "n";
  while (longest.size() < 70000) longest += "+n";
  EXPECT_EQ(error_for(longest).message().rfind("expression is too long", 0), 0u);
  std::string chain = "n";
  for (int i = 0; i < 30000; ++i) chain += "+n";  // within the length limit, beyond the depth limit
  EXPECT_EQ(error_for(chain).message().rfind("expression is too complex", 0), 0u);
  EXPECT_EQ(error_for(std::string(5000, '(') + "n" + std::string(5000, ')')).message().rfind(
                "expression is nested too deeply", 0),
            0u);
  std::string crosses;
  for (int i = 0; i < 1000; ++i) crosses += "cross(n, ";
  crosses += "E.int" + std::string(1000, ')');
  EXPECT_EQ(error_for(crosses).message().rfind("expression is nested too deeply", 0), 0u);
  // Within the limits, big expressions lower fine, and sharing keeps the DAG small.
  std::string sum = "E.int";
  for (int i = 0; i < 900; ++i) sum += "+cross(n, E.int)";
  const auto l = lower_flux(plain(sum), plain("H.int"), flux_scope());
  EXPECT_EQ(l.dag.operation_count(), 9 + 3 * 900);
  std::string nested = "E.int";
  for (int i = 0; i < 150; ++i) nested = "cross(n, " + nested + ")";
  EXPECT_EQ(lower_flux(plain(nested), plain("H.int"), flux_scope()).dag.operation_count(), 150 * 9);
}

TEST(FluxErrors, UserTextNeverReachesGeneratedCode) {
  // Constants with hostile-looking (but valid identifier) names are folded to numbers.
  FluxScope scope = flux_scope({{"__device__", 3.0}, {"asm", 0.5}, {"real_t", 2.0}});
  const auto l = lower_flux(plain("__device__*n + asm*real_t*E.int"), plain("1e300*1e300*H.int"), scope);
  const std::string c = emit_c_statements(l.dag, {});
  EXPECT_EQ(c.find("__device__"), std::string::npos);
  EXPECT_EQ(c.find("asm"), std::string::npos);
  EXPECT_NE(c.find("real_t(3.0)"), std::string::npos) << c;
  EXPECT_NE(c.find("(real_t(1) / real_t(0))"), std::string::npos) << c;  // 1e600 overflows to inf
  // Only the characters of temporaries, in[]/out[] slots, numbers, operators and labels appear.
  for (char ch : c)
    EXPECT_NE(std::string("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ .,;:=+-*/()[]<>?\n").find(ch),
              std::string::npos)
        << "'" << ch << "' in\n" << c;
}

TEST(FluxErrors, RandomTextNeverCrashes) {
  std::mt19937 rng(2463534242u);
  const std::string alphabet = "EHnZYintexpjumavgdcrosZY.01+-*/^(),; \t";
  int errors = 0, values = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const size_t len = rng() % 24;
    for (size_t k = 0; k < len; ++k) text += alphabet[rng() % alphabet.size()];
    for (const FluxScope& scope : {flux_scope(kConstants), exterior_scope()}) {
      try {
        const auto l = lower_flux(plain(text), plain("H.int"), scope);
        EXPECT_EQ(l.dag.outputs.size(), 6u);
        ++values;
      } catch (const UserError&) {
        ++errors;
      }
    }
  }
  EXPECT_EQ(errors + values, 6000);
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace dgmax::codegen
