// Space-time fields (initial, exact, J, incident) lowered to a ScalarDag and printed into the
// generated kernels (codegen/lower/field_lowering, codegen/emit/kernel_common):
//   - the DAG computes bit for bit what the interpreter (dsl::ScalarFunction) computes, for every
//     function and operator of the language, constants, pi, powers and divisions;
//   - errors are UserErrors located where the interpreter locates them (both reject);
//   - hostile text is rejected with a UserError (no other exception, no crash, no hang), and
//     accepted text reaches the generated source only as numbers, input slots and re-printed
//     one-line comments: the code of the field functions is made only of the printer's vocabulary,
//     the rest of the source is the same as for a zero field, and the compiled functions return
//     what the interpreter returns;
//   - constants are folded in as literals, so a constant named like a C identifier of the kernel
//     (in, out, v0, expr_t, ...) shadows nothing.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "codegen/dsl/builtins.hpp"
#include "codegen/dsl/constants.hpp"
#include "codegen/dsl/scalar_eval.hpp"
#include "codegen/emit/cpu_kernels.hpp"
#include "codegen/jit/host_jit.hpp"
#include "codegen/lower/field_lowering.hpp"
#include "codegen/lower/scalar_dag.hpp"
#include "expect_user_error.hpp"
#include "simulate.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/physics/space_time_field.hpp"

namespace dgmax::codegen {
namespace {

using dgmax::test::expect_user_error;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- helpers ----------------------------------------------------------------------------------

// Text without a file location: messages quote it, the caret column is offset + 1.
dsl::ExprSource plain(const std::string& text) { return dsl::ExprSource{text, {}}; }

// The YAML line `    Ex: "<text>"` at line 5 of fields.yaml; the value starts at column 10.
constexpr int kYamlColumn = 10;
dsl::ExprSource in_yaml(const std::string& text) {
  return dsl::ExprSource{text, SourceLocation{"fields.yaml", 5, kYamlColumn, "    Ex: \"" + text + "\""}};
}

dsl::ScalarContext field_context(const std::map<std::string, double>& constants) {
  dsl::ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  ctx.constants = constants;
  return ctx;
}

dsl::ScalarFunction interpret(const dsl::ExprSource& src, const std::map<std::string, double>& constants = {}) {
  return dsl::compile_scalar(src, field_context(constants));
}

LoweredField lower(const std::vector<std::string>& texts, const std::map<std::string, double>& constants = {}) {
  std::vector<dsl::ExprSource> srcs;
  for (const auto& t : texts) srcs.push_back(plain(t));
  return lower_field(srcs, constants);
}

// The same double, bit for bit; any NaN equals any NaN (payloads and NaN signs are not specified).
bool same_double(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

std::string show(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::vector<double> eval_dag(const ScalarDag& dag, const double p[4]) {
  std::vector<double> out(dag.outputs.size()), scratch(dag.nodes().size());
  evaluate(dag, p, out.data(), scratch.data());
  return out;
}

// Points (x, y, z, t): random in [-2, 2]^3 x [0, 3], with special values sprinkled in
// (±0, ±1, 2, 0.5, ±inf, NaN, huge, subnormal).
std::vector<std::array<double, 4>> sample_points(size_t n, unsigned seed) {
  const double special[] = {0.0,  -0.0, 1.0,    -1.0,    2.0,     0.5,    kInf,
                            -kInf, kNaN, 1e308, -1e-310, 5e-324, -3.0, std::numeric_limits<double>::max()};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2), ut(0, 3);
  std::uniform_int_distribution<int> pick(0, 13);
  std::vector<std::array<double, 4>> pts(n);
  for (size_t m = 0; m < n; ++m) {
    auto& p = pts[m];
    p = {u(rng), u(rng), u(rng), ut(rng)};
    if (m % 4 == 3)
      for (double& v : p)
        if (pick(rng) < 4) v = special[pick(rng)];
  }
  return pts;
}

// lower_field on all `texts` at once (one shared DAG) and one by one, against compile_scalar,
// at `points`: bitwise equal values (NaN equals NaN; zeros by their sign), the same canonical
// texts, the same use of t.
void expect_dag_equals_interpreter(const std::vector<std::string>& texts,
                                   const std::map<std::string, double>& constants,
                                   const std::vector<std::array<double, 4>>& points) {
  std::vector<dsl::ScalarFunction> fns;
  bool uses_t = false;
  for (const auto& t : texts) {
    fns.push_back(interpret(plain(t), constants));
    uses_t = uses_t || fns.back().depends_on("t");
  }
  const LoweredField all = lower(texts, constants);
  ASSERT_EQ(all.dag.outputs.size(), texts.size());
  ASSERT_EQ(all.texts.size(), texts.size());
  EXPECT_EQ(all.reads_time, uses_t);
  std::vector<LoweredField> singles;
  for (size_t c = 0; c < texts.size(); ++c) {
    singles.push_back(lower({texts[c]}, constants));
    EXPECT_EQ(all.texts[c], fns[c].canonical()) << texts[c];
    EXPECT_EQ(singles[c].reads_time, fns[c].depends_on("t")) << texts[c];
  }
  int failures = 0;
  for (const auto& p : points) {
    const std::vector<double> got = eval_dag(all.dag, p.data());
    for (size_t c = 0; c < texts.size(); ++c) {
      const double want = fns[c](p.data());
      const double one = eval_dag(singles[c].dag, p.data())[0];
      if (same_double(got[c], want) && same_double(one, want)) continue;
      ADD_FAILURE() << "'" << texts[c] << "' at (x, y, z, t) = (" << show(p[0]) << ", " << show(p[1]) << ", "
                    << show(p[2]) << ", " << show(p[3]) << "): DAG " << show(got[c]) << " (alone " << show(one)
                    << "), interpreter " << show(want);
      if (++failures > 10) return;
    }
  }
}

// Aborts the test binary when a block runs longer than `seconds` (a hang must not pass unseen:
// there is no portable way to stop the hung call itself).
class Watchdog {
 public:
  Watchdog(double seconds, std::string what)
      : what_(std::move(what)), thread_([this, seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) {
            std::fprintf(stderr, "\n%s: still running after %.0f s (a hang); aborting\n", what_.c_str(), seconds);
            std::fflush(stderr);
            std::_Exit(3);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::string what_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

// The outcome of a call that must either return or throw a UserError.
struct Outcome {
  bool accepted = false;
  UserError error{""};
  double seconds = 0;
};

template <class F>
Outcome outcome_of(F&& f, const std::string& what) {
  Outcome o;
  const auto start = std::chrono::steady_clock::now();
  try {
    f();
    o.accepted = true;
  } catch (const UserError& e) {
    o.error = e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": expected a value or a UserError, got another exception: " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << ": expected a value or a UserError, got a non-standard exception";
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

// `text` as one component, for messages (control characters escaped, long text shortened).
std::string shown(const std::string& text) { return dsl::quote_for_message(text, 80); }

// An error as a user sees it: one clean snippet line, no carriage return.
void expect_clean_error(const UserError& e) {
  for (char ch : e.where().snippet) EXPECT_GE(static_cast<unsigned char>(ch), 0x20) << e.render();
  EXPECT_EQ(e.render().find('\r'), std::string::npos);
}

// ---- the generated source ---------------------------------------------------------------------

// One problem for the source checks: a 1x1x1 box (6 tets), order 1.
const Problem& tiny_problem() {
  static const Problem p = dgmax::test::box_problem(dgmax::test::unit_box(1), 1, 1.0);
  return p;
}

struct FieldTexts {
  std::vector<std::string> initial, exact, current, incident;  // 6, 6, 3, 6 components
};

FieldTexts same_text_everywhere(const std::string& text) {
  return {std::vector<std::string>(6, text), std::vector<std::string>(6, text), std::vector<std::string>(3, text),
          std::vector<std::string>(6, text)};
}

Problem problem_with(const FieldTexts& f, const std::map<std::string, double>& constants) {
  Problem p = tiny_problem();
  p.initial = space_time_field_from_text(f.initial, "initial", constants);
  p.exact = space_time_field_from_text(f.exact, "exact", constants);
  p.current = space_time_field_from_text(f.current, "sources.J", constants);
  p.incident = space_time_field_from_text(f.incident, "incident", constants);
  return p;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    const size_t end = s.find('\n', start);
    if (end == std::string::npos) {
      out.push_back(s.substr(start));
      break;
    }
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool is_comment_line(const std::string& line) {
  const size_t i = line.find_first_not_of(' ');
  return i != std::string::npos && line.compare(i, 2, "//") == 0;
}

// A line without its trailing `// ...` comment and trailing spaces.
std::string code_part(const std::string& line) {
  std::string c = line.substr(0, line.find("//"));
  while (!c.empty() && c.back() == ' ') c.pop_back();
  return c;
}

bool is_field_signature(const std::string& line) {
  return line.rfind("DGMAX_FN void field_", 0) == 0 &&
         line.find("(const expr_t* __restrict__ in, expr_t* __restrict__ out) {") != std::string::npos;
}

// The first token of a field-function statement that is not the C printer's vocabulary (temporaries
// v0, v1, ..., in[] and out[] slots, expr_t literals, std:: math functions, operators; && || ! print
// min and max), or "".
std::string foreign_token(const std::string& code) {
  static const std::set<std::string> words = {
      "const",      "expr_t",     "in",        "out",       "std::sin",   "std::cos",  "std::tan",
      "std::asin",  "std::acos",  "std::atan", "std::atan2", "std::sinh", "std::cosh", "std::tanh",
      "std::exp",   "std::log",   "std::sqrt", "std::fabs",  "std::signbit", "std::pow",
      "std::floor", "std::ceil",  "std::erf",  "dgmax_besselj", "dgmax_bessely"};
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; };
  size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (c == ' ') {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < code.size() && ident_char(code[j])) ++j;
      const std::string w = code.substr(i, j - i);
      const bool temp = w.size() > 1 && w[0] == 'v' && w.find_first_not_of("0123456789", 1) == std::string::npos;
      if (!temp && !words.count(w)) return w;
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < code.size() && (std::isdigit(static_cast<unsigned char>(code[j])) || code[j] == '.')) ++j;
      if (j < code.size() && code[j] == 'e') {
        ++j;
        if (j < code.size() && (code[j] == '+' || code[j] == '-')) ++j;
        while (j < code.size() && std::isdigit(static_cast<unsigned char>(code[j]))) ++j;
      }
      i = j;
    } else if (std::strchr("+-*/(),;=?:<>[]|&!", c) != nullptr) {
      ++i;
    } else {
      return std::string(1, c);
    }
  }
  return "";
}

struct SourceParts {
  std::vector<std::string> outside;                            // code lines outside field bodies
  std::map<std::string, std::vector<std::string>> bodies;      // field name -> body lines (with comments)
  std::map<std::string, std::vector<std::string>> headers;     // field name -> "//   [c] ..." lines
};

SourceParts split_source(const std::string& src) {
  SourceParts parts;
  const auto lines = split_lines(src);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (is_field_signature(l)) {
      const std::string name = l.substr(std::strlen("DGMAX_FN void "), l.find('(') - std::strlen("DGMAX_FN void "));
      parts.outside.push_back(l);
      for (size_t h = i; h > 0 && lines[h - 1].rfind("//   [", 0) == 0; --h)
        parts.headers[name].insert(parts.headers[name].begin(), lines[h - 1]);
      for (++i; i < lines.size() && lines[i] != "}"; ++i) parts.bodies[name].push_back(lines[i]);
      if (i < lines.size()) parts.outside.push_back(lines[i]);
      continue;
    }
    if (is_comment_line(l)) continue;
    parts.outside.push_back(code_part(l));
  }
  return parts;
}

// `src`, generated for fields `f` (lowered forms in `lowered`, by function name), against `baseline`
// (the same problem with zero fields). Every violation is a test failure naming `what`.
void expect_no_user_text_in_code(const std::string& src, const std::string& baseline,
                                 const std::map<std::string, const LoweredField*>& lowered,
                                 const std::vector<std::string>& raw_texts, const std::string& what) {
  SCOPED_TRACE(what);
  // 1. Only printable ASCII and line feeds (no NUL, CR, form feed, no UTF-8 from the user), no
  //    trigraph, and no line ends in a backslash (which would splice the next line into a comment).
  for (size_t i = 0; i < src.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(src[i]);
    if (c == '\n') continue;
    if (c < 0x20 || c == 0x7f) {
      ADD_FAILURE() << "control byte " << int(c) << " at offset " << i;
      return;
    }
  }
  EXPECT_EQ(src.find("??"), std::string::npos);
  const auto lines = split_lines(src);
  for (const auto& l : lines)
    if (!l.empty() && l.back() == '\\') {
      ADD_FAILURE() << "line continuation: " << l;
      return;
    }

  // 2. Outside the field functions, the code is the same as for zero fields.
  const SourceParts got = split_source(src), base = split_source(baseline);
  for (size_t i = 0; i < std::max(got.outside.size(), base.outside.size()); ++i) {
    const std::string a = i < got.outside.size() ? got.outside[i] : "(end)";
    const std::string b = i < base.outside.size() ? base.outside[i] : "(end)";
    if (a != b) {
      ADD_FAILURE() << "code outside the field functions differs from the zero-field source at code line " << i
                    << ":\n  " << a << "\nvs\n  " << b;
      break;
    }
  }

  // 3. Field function bodies: statements `const expr_t vN = ...;` or `out[c] = ...;` made only of
  //    the printer's vocabulary; their comments printable ASCII.
  ASSERT_EQ(got.bodies.size(), lowered.size());
  for (const auto& [name, f] : lowered) {
    ASSERT_TRUE(got.bodies.count(name)) << name;
    const auto& body = got.bodies.at(name);
    size_t outputs = 0;
    for (const auto& l : body) {
      const std::string code = code_part(l);
      const bool temp = code.rfind("  const expr_t v", 0) == 0;
      const bool out = code.rfind("  out[", 0) == 0;
      EXPECT_TRUE((temp || out) && !code.empty() && code.back() == ';') << name << ": " << l;
      outputs += out ? 1 : 0;
      const std::string bad = foreign_token(code);
      EXPECT_EQ(bad, "") << name << ": '" << bad << "' in: " << l;
      for (char ch : l) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << name << ": " << l;
    }
    EXPECT_EQ(outputs, f->dag.outputs.size()) << name;
    // 4. The header comment: one line per component, the re-printed expression, nothing else.
    const auto& header = got.headers.count(name) ? got.headers.at(name) : std::vector<std::string>{};
    ASSERT_EQ(header.size(), f->texts.size()) << name;
    for (size_t c = 0; c < header.size(); ++c) {
      EXPECT_EQ(header[c], "//   [" + std::to_string(c) + "] " + f->texts[c]);
      EXPECT_EQ(f->texts[c].find_first_of("\n\r\\"), std::string::npos);
    }
  }

  // 5. Directly: no user text (of three characters or more, and not found in the zero-field
  //    code itself, such as `out` or `expr_t`) in any code line.
  std::string base_code;
  for (const auto& l : split_lines(baseline))
    if (!is_comment_line(l)) base_code += code_part(l) + "\n";
  for (const auto& raw : raw_texts) {
    if (raw.size() < 3 || base_code.find(raw) != std::string::npos) continue;
    for (const auto& l : lines) {
      if (is_comment_line(l)) continue;
      EXPECT_EQ(code_part(l).find(raw), std::string::npos) << "'" << shown(raw) << "' in: " << l;
    }
  }
}

std::map<std::string, const LoweredField*> lowered_of(const Problem& p) {
  return {{"field_initial", &*p.initial.lowered},
          {"field_exact", &*p.exact.lowered},
          {"field_current", &*p.current.lowered},
          {"field_incident", &*p.incident.lowered}};
}

const std::string& zero_field_source() {
  static const std::string s =
      generate_cpu_source(make_kernel_spec(problem_with(same_text_everywhere("0"), {}), false));
  return s;
}

// ---- 1. the DAG equals the interpreter ------------------------------------------------------------

const std::map<std::string, double>& constants() {
  static const std::map<std::string, double> c = {
      {"omega", 2.7182818284590451}, {"a0", -0.3}, {"big", 1e300}, {"tiny", 4.9406564584124654e-324}, {"two", 2.0}};
  return c;
}

TEST(FieldLowering, EveryFunctionEqualsTheInterpreterBitForBit) {
  // every function of the language, with variable, constant (folded) and mixed arguments
  std::vector<std::string> texts;
  for (const auto& f : dsl::scalar_functions()) {
    const std::string n(f.name);
    if (f.order) {  // the order is a constant, written or folded; x as for the others
      for (const char* args : {"0, x", "1, -x*y + t", "2, 3*x", "3, x/2", "1, 0.5", "two, x", "2*two - 1, x", "5, omega",
                               "0, -0", "7, big*x", "0, tiny*x"})
        texts.push_back(n + "(" + args + ")");
    } else if (f.arity == 1) {
      for (const char* arg : {"x", "-x*y + t", "3*x", "x/2", "0.5", "pi/7", "-0", "omega", "big*x"})
        texts.push_back(n + "(" + arg + ")");
    } else {
      for (const char* args : {"x, y", "y, x", "x, 2", "2, x", "x, t", "x, x", "x, -0", "-0, x", "0.5, 0.25",
                               "a0, x - y", "x, two", "abs(x), y", "x, 2.0", "x, 1 + 1", "x*y, 3"})
        texts.push_back(n + "(" + args + ")");
    }
  }
  ASSERT_EQ(dsl::scalar_functions().size(), 24u);  // a new function must be added to this test's coverage
  expect_dag_equals_interpreter(texts, constants(), sample_points(1500, 1));
}

TEST(FieldLowering, OperatorsConstantsAndPowersEqualTheInterpreterBitForBit) {
  const std::vector<std::string> texts = {
      // arithmetic and the DAG's exact simplifications
      "x + y", "x - y", "x*y", "x/y", "-x", "-(-x)", "-(-(-x))", "x - -y", "-x + y", "x + -y", "-x + -y",
      "x - 0", "x + -0", "-0 + x", "x + 0", "0 - x", "x*1", "1*x", "x/1", "0*x", "x*0", "x - x", "x/x",
      "x*y + y*x", "(x + y) - (y + x)", "x*y*z*t", "t*z*y*x", "(x + y)*(x - y)/4 + 1/3*t", "1/x", "-1/x",
      // constants, pi, folding
      "pi", "-pi", "pi*x", "2*pi*t", "omega*x", "a0*x - omega", "big*big*x", "big*x*1e-300", "tiny*x", "x/tiny",
      "1e308*10 + x", "(0/0) + x", "1/0*x", "-1/0 + x", "12345678901234567890*x", "0.1 + 0.2 + x",
      "3", "-0", "0", "1e-300*1e-300", "2^0.5", "(-8)^(1/3)",
      // '^': constant 2 in every spelling (x*x), other constants, variable exponents
      "x^2", "pow(x, 2)", "x^2.0", "x^(1 + 1)", "x^two", "x^(4/2)", "(-x)^2", "-x^2", "(x + y)^2 - x^2",
      "x^3", "x^0.5", "x^-1", "x^-2", "x^0", "x^-0", "x^1", "x^1e300", "x^(-1/3)", "2^x", "0^x", "(-2)^x",
      "x^y", "x^t", "(x + y)^(z*t)", "x^y^z", "x^(y*0 + 2)", "x^(t - t + 2)", "pow(x, y)", "pow(abs(x), -y)",
      "x^big", "big^x", "tiny^x", "x^tiny",
      // division by constants: powers of two (multiplied by the exact reciprocal) and others
      "x/2", "x/-2", "x/4", "x/0.5", "x/-0.25", "x/1024", "x/2^52", "x/2^-52", "x/2^1022", "x/2^-1022",
      "x/2^1023", "x/2^-1023", "x/2^-1074", "x/8.98846567431158e307", "x/2.2250738585072014e-308",
      "x/3", "x/0.1", "x/0", "x/-0", "x/(1/0)", "x/(0/0)", "(x*y)/2/2", "x/2*2", "1/2*x", "x/two",
      // mixed, with shared subexpressions across components
      "exp(-((x - t + 0.5)/0.2)^2)", "-exp(-((x - t + 0.5)/0.2)^2)", "sin(pi*x)*cos(omega*y) - tan(z/3)",
      "sign(x) + sign(0) + heaviside(y) + heaviside(-0)", "floor(3*x) + ceil(2*y - t)",
  };
  expect_dag_equals_interpreter(texts, constants(), sample_points(1500, 2));
}

// The functions that the compiled kernels call through dgmax_field_at(which, n, pts, out).
using FieldAt = void (*)(int, long, const double*, double*);

bool have_host_compiler() {
  return std::getenv("DGMAX_CXX") || std::getenv("CXX") || std::system("c++ --version > /dev/null 2>&1") == 0;
}

TEST(FieldLowering, MinAndMaxOfSignedZeros) {
  // fmin/fmax of +0 and -0 may return either zero (C17 F.10.9.2-3, IEEE 754-2008 minNum), and GCC
  // treats them as commutative and swaps their operands when it likes: with them, the interpreter,
  // the DAG and the compiled kernel disagreed on the sign of the zero, and then on the sign of an
  // infinity: 1/min(x, y) at (+0, -0). The tie is now written out the same way in all three:
  // min(+0, -0) = min(-0, +0) = -0, max of them +0, in either order (IEEE 754-2019 minimumNumber).
  const std::vector<std::string> texts = {"min(x, y)",  "max(x, y)",  "1/min(x, y)",
                                          "1/max(x, y)", "-1/min(y, x)", "1/max(y, x)"};
  const double want[6] = {-0.0, 0.0, -kInf, kInf, kInf, kInf};  // at (+0, -0) and at (-0, +0)
  const double pts[2][4] = {{0.0, -0.0, 0, 0}, {-0.0, 0.0, 0, 0}};
  const LoweredField f = lower(texts);
  std::vector<double> compiled(12, kNaN);
  const bool jit = have_host_compiler();
  if (jit) {
    FieldTexts ft = same_text_everywhere("0");
    ft.exact = texts;
    const auto lib = jit_compile(generate_cpu_source(make_kernel_spec(problem_with(ft, {}), false)), "field_min_max");
    const auto field_at = reinterpret_cast<FieldAt>(lib->symbol("dgmax_field_at"));
    const double flat[8] = {pts[0][0], pts[0][1], pts[0][2], pts[0][3], pts[1][0], pts[1][1], pts[1][2], pts[1][3]};
    field_at(1, 2, flat, compiled.data());
  }
  for (size_t c = 0; c < texts.size(); ++c) {
    const dsl::ScalarFunction s = interpret(plain(texts[c]));
    for (int m = 0; m < 2; ++m) {
      const std::string at = texts[c] + " at (x, y) = (" + show(pts[m][0]) + ", " + show(pts[m][1]) + ")";
      const double a = s(pts[m]), b = eval_dag(f.dag, pts[m])[c];
      double batch = kNaN;
      const double* columns[4] = {&pts[m][0], &pts[m][1], &pts[m][2], &pts[m][3]};  // x, y, z, t
      s.eval_batch(1, columns, &batch);
      EXPECT_TRUE(same_double(a, want[c])) << at << ": interpreter " << show(a) << ", want " << show(want[c]);
      EXPECT_TRUE(same_double(batch, want[c])) << at << ": batch " << show(batch) << ", want " << show(want[c]);
      EXPECT_TRUE(same_double(b, want[c])) << at << ": DAG " << show(b) << ", want " << show(want[c]);
      if (jit) {
        const double k = compiled[6 * m + c];
        EXPECT_TRUE(same_double(k, want[c])) << at << ": compiled " << show(k) << ", want " << show(want[c]);
      }
    }
  }
  if (!jit) GTEST_SKIP() << "no host C++ compiler (c++, $CXX or $DGMAX_CXX): the compiled kernel was not checked";
}

TEST(FieldLowering, DivisionByAPowerOfTwoBecomesAnExactMultiplication) {
  // x / 2^k is printed as x * 2^-k (one multiplication) when 2^-k is normal, and stays a division
  // otherwise; either way the bits are the interpreter's (checked above).
  auto op_of_output = [](const std::string& text) {
    const LoweredField f = lower({text});
    return f.dag.nodes()[f.dag.outputs[0]].op;
  };
  using Op = DagNode::Op;
  for (const char* t : {"x/2", "x/-4", "x/0.5", "x/2^1022", "x/2^-1022"}) EXPECT_EQ(op_of_output(t), Op::mul) << t;
  for (const char* t : {"x/3", "x/2^1023", "x/2^-1074", "x/0", "x/(1/0)"}) EXPECT_EQ(op_of_output(t), Op::div) << t;
}

TEST(FieldLowering, ComponentsShareOneDagAndDeadNodesAreDropped) {
  const LoweredField f = lower({"sin(x*y) + t", "sin(x*y)*2", "", "  \t", "cos(z)"});
  ASSERT_EQ(f.dag.outputs.size(), 5u);
  // x*y, sin, +, *2, cos: shared sin(x*y), nothing else
  EXPECT_EQ(f.dag.operation_count(), 5);
  EXPECT_EQ(f.texts, (std::vector<std::string>{"sin(x*y) + t", "sin(x*y)*2", "0", "0", "cos(z)"}));
  EXPECT_TRUE(f.reads_time);
  EXPECT_FALSE(lower({"x", "sin(y)", "z^2"}).reads_time);
  EXPECT_TRUE(lower({"t*0"}).reads_time);  // no algebra: t*0 is NaN for t = inf
  // pruned: every node is live
  const auto live = f.dag.live();
  for (size_t i = 0; i < live.size(); ++i) EXPECT_TRUE(live[i]) << i;
}

TEST(FieldLowering, BlankComponentIsZeroWhereTheInterpreterSaysEmpty) {
  // Documented behaviour of lower_field: empty (or blank) text is the component 0. The
  // interpreter rejects the same text ("empty expression"); callers (config) only hand blank
  // text to lower_field for components they compiled as ScalarFunction() = 0.
  for (const std::string text : {"", " ", "\t", "  \t  "}) {
    SCOPED_TRACE("'" + text + "'");
    const LoweredField f = lower({text});
    ASSERT_EQ(f.dag.outputs.size(), 1u);
    const DagNode& n = f.dag.nodes()[f.dag.outputs[0]];
    EXPECT_EQ(n.op, DagNode::Op::constant);
    EXPECT_TRUE(same_double(n.value, 0.0));
    EXPECT_EQ(f.texts[0], "0");
    EXPECT_FALSE(f.reads_time);
    const double p[4] = {1, 2, 3, 4};
    EXPECT_EQ(dsl::ScalarFunction()(p), 0.0);
    const UserError e = expect_user_error([&] { interpret(in_yaml(text)); });
    EXPECT_EQ(e.message(), "empty expression");
    EXPECT_EQ(e.where().column, kYamlColumn);
  }
  // Blank is only spaces and tabs: a line break alone is an error in both.
  for (const std::string text : {"\n", " \r", "\v"}) {
    const UserError a = expect_user_error([&] { lower_field({plain(text)}, {}); });
    const UserError b = expect_user_error([&] { interpret(plain(text)); });
    EXPECT_EQ(a.message(), b.message());
  }
}

// ---- 2. errors ------------------------------------------------------------------------------------

struct ErrorCase {
  std::string text;
  size_t offset;            // caret: byte offset in the text
  std::string message;      // lower_field's message (from a file: exactly this)
  std::string interpreter;  // the start of compile_scalar's message for the same text
};

void check_errors(const std::vector<ErrorCase>& cases, const std::map<std::string, double>& consts = constants()) {
  for (const auto& c : cases) {
    SCOPED_TRACE(shown(c.text));
    // From a file: exact message, file, line and column.
    const UserError e = expect_user_error([&] { lower_field({plain("x"), in_yaml(c.text)}, consts); });
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.where().file, "fields.yaml");
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.where().column, kYamlColumn + static_cast<int>(c.offset));
    // Without a file: the message quotes the text, the caret sits on the offending character.
    const UserError p = expect_user_error([&] { lower_field({plain(c.text)}, consts); });
    EXPECT_EQ(p.message(), c.message + " in expression '" + c.text + "'");
    EXPECT_EQ(p.where().column, static_cast<int>(c.offset) + 1);
    expect_clean_error(p);
    // The interpreter rejects it at the same place.
    const UserError i = expect_user_error([&] { interpret(in_yaml(c.text), consts); });
    EXPECT_EQ(i.message().rfind(c.interpreter, 0), 0u) << i.message();
    EXPECT_EQ(i.where().column, e.where().column);
  }
}

TEST(FieldLoweringErrors, UnknownNamesAndFunctions) {
  const std::string names = "names available here: x, y, z, t, pi and the constants";
  check_errors({
      {"omgea*x", 0, "unknown name 'omgea'", "unknown name 'omgea'"},
      {"x + sin(y)*foo", 11, "unknown name 'foo'", "unknown name 'foo'"},
      {"X", 0, "unknown name 'X'", "unknown name 'X'"},
      {"sinx", 0, "unknown name 'sinx'", "unknown name 'sinx'"},
      {"sin", 0, "unknown name 'sin'", "'sin' is a function"},
      {"2*exp", 2, "unknown name 'exp'", "'exp' is a function"},
      {"foo(x)", 0, "unknown function 'foo'", "unknown function 'foo'"},
      {"x*sine(y)", 2, "unknown function 'sine'", "unknown function 'sine'"},
      {"omega(2)", 0, "unknown function 'omega'", "'omega' is not a function"},
      {"pi(x)", 0, "unknown function 'pi'", "'pi' is not a function"},
      {"t(1)", 0, "unknown function 't'", "'t' is not a function"},
  });
  const UserError e = expect_user_error([&] { lower({"omgea"}, constants()); });
  EXPECT_EQ(e.hint(), names);
}

TEST(FieldLoweringErrors, ArgumentCounts) {
  check_errors({
      {"sin(x, y)", 0, "'sin' takes 1 argument, got 2", "sin takes 1 argument, got 2"},
      {"x + atan2(x)", 4, "'atan2' takes 2 arguments, got 1", "atan2 takes 2 arguments, got 1"},
      {"pow(x)", 0, "'pow' takes 2 arguments, got 1", "pow takes 2 arguments, got 1"},
      {"min(x, y, z)", 0, "'min' takes 2 arguments, got 3", "min takes 2 arguments, got 3"},
      {"2*erf(x, x, x, x)", 2, "'erf' takes 1 argument, got 4", "erf takes 1 argument, got 4"},
  });
  // No arguments at all: the same check, at the same place.
  check_errors({{"sin()", 0, "'sin' takes 1 argument, got 0", "sin takes 1 argument, got 0"},
                {"x*max()", 2, "'max' takes 2 arguments, got 0", "max takes 2 arguments, got 0"}});
}

TEST(FieldLoweringErrors, FluxOnlySyntax) {
  check_errors({
      {"E.int", 0, "'E.int': sides exist only in flux expressions", "'E.int': sides '.int' and '.ext' are only valid"},
      {"x + H.ext*2", 4, "'H.ext': sides exist only in flux expressions", "'H.ext': sides '.int' and '.ext'"},
      {"x.int", 0, "'x.int': sides exist only in flux expressions", "'x.int': sides '.int' and '.ext'"},
      {"omega.ext", 0, "'omega.ext': sides exist only in flux expressions", "'omega.ext': sides"},
      {"n", 0, "unknown name 'n'", "'n' is "},
      {"2*E", 2, "unknown name 'E'", "'E' is "},
      {"Einc", 0, "unknown name 'Einc'", "unknown name 'Einc'"},
      {"Z", 0, "unknown name 'Z'", "unknown name 'Z'"},
      {"cross(n, x)", 0, "unknown function 'cross'", "'cross' is "},
      {"x*dot(x, y)", 2, "unknown function 'dot'", "'dot' is "},
      {"norm(x)", 0, "unknown function 'norm'", "'norm' is "},
      {"jump(E)", 0, "unknown function 'jump'", "'jump' is "},
      {"avg(x)", 0, "unknown function 'avg'", "'avg' is "},
  });
  // the hint of a side says what to write
  EXPECT_EQ(expect_user_error([&] { lower({"E.int"}); }).hint(), "write 'E'");
}

TEST(FieldLoweringErrors, TheFailingComponentIsLocatedInItsOwnText) {
  // components before and after a bad one are fine: the error is in the bad one's text
  const UserError e = expect_user_error(
      [&] { lower_field({plain("sin(x)"), plain("y"), in_yaml("z + cos(t) + bogus"), plain("foo")}, {}); });
  EXPECT_EQ(e.message(), "unknown name 'bogus'");
  EXPECT_EQ(e.where().column, kYamlColumn + 13);
  EXPECT_EQ(e.where().snippet, "    Ex: \"z + cos(t) + bogus\"");
}

// ---- 3. hostile input -----------------------------------------------------------------------------

struct HostileCase {
  std::string text;
  std::string message_start;  // "" = only compare with the interpreter
  int column;                 // 0 = only compare with the interpreter
};

std::string very_long_name(size_t n) {
  std::string s = "_";
  while (s.size() < n) s += "abcdefghij0123456789";
  return s.substr(0, n);
}

TEST(FieldHostileInput, InjectionAttemptsAreRejectedWhereTheInterpreterRejectsThem) {
  const std::vector<HostileCase> cases = {
      {"x); system(\"rm -rf /\"); (x", "unexpected character ';'", 3},
      {"#include <stdlib.h>\nx", "unexpected character '#'", 1},
      {"x /* comment */", "expected an expression after '/'", 4},
      {"x */ y", "", 0},
      {"x // comment", "expected an expression after '/'", 4},
      {"x + 1 //", "", 0},
      {"__global__ void k() {}", "unexpected character '{'", 21},
      {"x; }", "unexpected character ';'", 2},
      {"x }", "unexpected character '}'", 3},
      {"x\ny", "unexpected line break", 2},
      {"x\r\n", "unexpected line break", 2},
      {"x +\n#define in out", "unexpected line break", 4},
      {"'x'", "unexpected character '''", 1},
      {"\"x\" + \"y\"", "unexpected character '\"'", 1},
      {"x \\\n+ y", "unexpected character '\\'", 3},
      {"x + y \\", "unexpected character '\\'", 7},
      {"x`id`", "unexpected character '`'", 2},
      {"$x", "unexpected character '$'", 1},
      {"x @ y", "unexpected character '@'", 3},
      {std::string("x\0y", 3), "unexpected character '\\x00'", 2},
      {std::string("x + \0", 5), "unexpected character '\\x00'", 5},
      {"x\x7fy", "unexpected character '\\x7F'", 2},
      {"\xff", "unexpected character '\\xFF'", 1},
      {"\xcf\x80*x", "unexpected character '\xcf\x80'", 1},  // pi in UTF-8
      {"x + \xc3\xa9", "unexpected character '\xc3\xa9'", 5},
      {"x\xe2\x80\xa8y", "", 2},  // U+2028 line separator
      {"x ?\?/\n y", "unexpected character '?'", 3},  // the trigraph of a backslash
      {"x ? y : z", "unexpected character '?'", 3},
      {"x == y", "unexpected character '='", 3},
      {"x % 2", "unexpected character '%'", 3},
      {"in[0]", "unexpected character '['", 3},
      {"out[0] = 1", "unexpected character '['", 4},
      {"std::sin(x)", "unexpected character ':'", 4},
      {"expr_t(1)", "unknown function 'expr_t'", 1},
      {"real_t(x)", "unknown function 'real_t'", 1},
      {"__asm__(\"int3\")", "unexpected character '\"'", 9},
      {"__asm__(x)", "unknown function '__asm__'", 1},
      {"__global__", "unknown name '__global__'", 1},
      {"main(x)", "unknown function 'main'", 1},
      {"v0 + x", "unknown name 'v0'", 1},
      {"in*x", "unknown name 'in'", 1},
      {"x*out", "unknown name 'out'", 3},
      {"field_at(0, x)", "unknown function 'field_at'", 1},
      {"NodeW", "unknown name 'NodeW'", 1},
      {"1e400", "number '1e400' is out of the range of double precision", 1},
      {"x*1e400", "number '1e400' is out of the range of double precision", 3},
      {"x + 1e99999999999999999999", "number '1e99999999999999999999' is out of the range", 5},
      {"1e", "malformed number '1e'", 1},
      {"1.2.3", "malformed number '1.2.3'", 1},
      {"0x10", "", 0},
      {"x.y", "", 0},
      {"(x", "", 0},
      {"x)", "", 0},
      {"sin(x", "", 0},
      {",", "", 0},
      {"x,y", "", 0},
      {"^x", "", 0},
      {"x^", "", 0},
      // long names are quoted shortened, to 40 characters and "..."
      {very_long_name(5000) + "*x", "unknown name '" + very_long_name(5000).substr(0, 40) + "...'", 1},
      {"x + " + very_long_name(60000) + "(x)", "unknown function '" + very_long_name(60000).substr(0, 40) + "...'", 5},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(shown(c.text));
    Watchdog dog(30, "FieldHostileInput: " + shown(c.text));
    const Outcome low = outcome_of([&] { lower({c.text}, constants()); }, "lower_field");
    const Outcome ref = outcome_of([&] { interpret(plain(c.text), constants()); }, "compile_scalar");
    EXPECT_FALSE(low.accepted);
    EXPECT_FALSE(ref.accepted);
    EXPECT_LT(low.seconds, 2.0);
    if (low.accepted || ref.accepted) continue;
    if (!c.message_start.empty()) {
      EXPECT_EQ(low.error.message().rfind(c.message_start, 0), 0u) << low.error.message();
    }
    if (c.column) {
      EXPECT_EQ(low.error.where().column, c.column);
    }
    EXPECT_EQ(low.error.where().column, ref.error.where().column)
        << low.error.message() << " / " << ref.error.message();
    expect_clean_error(low.error);
    // in a file the caret is the same character, in the user's line
    const Outcome f = outcome_of([&] { lower_field({in_yaml(c.text)}, constants()); }, "lower_field (file)");
    ASSERT_FALSE(f.accepted);
    const Outcome fr = outcome_of([&] { interpret(in_yaml(c.text), constants()); }, "compile_scalar (file)");
    ASSERT_FALSE(fr.accepted);
    EXPECT_EQ(f.error.where().column, fr.error.where().column);
    EXPECT_EQ(f.error.where().line, 5);
  }
}

TEST(FieldHostileInput, LongAndDeepExpressionsAreRejectedCleanly) {
  Watchdog dog(60, "FieldHostileInput.LongAndDeepExpressionsAreRejectedCleanly");
  std::string longest = "x";
  while (longest.size() < 100000) longest += "+x";
  std::string chain = "x";
  for (int i = 0; i < 30000; ++i) chain += "+x";  // 60001 characters: within the length limit
  std::string calls;
  for (int i = 0; i < 5000; ++i) calls += "sin(";
  calls += "x" + std::string(5000, ')');
  std::string powers = "x";
  for (int i = 0; i < 5000; ++i) powers += "^x";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {longest, "expression is too long (100001 characters, the limit is 65536)"},
      {std::string(70000, 'x'), "expression is too long (70000 characters, the limit is 65536)"},
      {chain, "expression is too complex (more than 1000 operations deep)"},
      {std::string(10000, '(') + "x" + std::string(10000, ')'),
       "expression is nested too deeply (more than 200 levels)"},
      {calls, "expression is nested too deeply"},
      {std::string(10000, '-') + "x", "expression is nested too deeply"},
      {powers, "expression is nested too deeply"},
      {std::string(30000, '('), "expression is nested too deeply"},
  };
  for (const auto& [text, message] : cases) {
    SCOPED_TRACE(text.substr(0, 20) + "... (" + std::to_string(text.size()) + " characters)");
    const Outcome low = outcome_of([&] { lower({text}); }, "lower_field");
    ASSERT_FALSE(low.accepted);
    EXPECT_EQ(low.error.message().rfind(message, 0), 0u) << low.error.message().substr(0, 200);
    EXPECT_LT(low.error.message().size(), 200u);
    EXPECT_LE(low.error.where().snippet.size(), 120u);
    EXPECT_LT(low.seconds, 2.0);
    const UserError ref = expect_user_error([&] { interpret(plain(text)); });
    EXPECT_EQ(low.error.message(), ref.message());
    EXPECT_EQ(low.error.where().column, ref.where().column);
  }
}

TEST(FieldHostileInput, LongNamesInMessagesAreShortened) {
  // A 60000-character unknown name (within the length limit) must not become a 60 KB message: the
  // expression itself is quoted shortened ("... in expression '<60 characters>...'"), the name
  // should be too.
  const std::string name = very_long_name(60000);
  for (const std::string& text : {name + "*x", "x + " + name + "(x)"}) {
    const Outcome low = outcome_of([&] { lower({text}); }, "lower_field");
    ASSERT_FALSE(low.accepted);
    EXPECT_LT(low.seconds, 2.0);
    EXPECT_EQ(low.error.where().column, text[0] == 'x' ? 5 : 1);
    EXPECT_LE(low.error.where().snippet.size(), 120u);
    const UserError ref = expect_user_error([&] { interpret(plain(text)); });
    // names are quoted shortened (dsl::quote_for_message) in both
    EXPECT_LE(low.error.message().size(), 1000u) << "lower_field";
    EXPECT_LE(ref.message().size(), 1000u) << "compile_scalar";
  }
}

TEST(FieldHostileInput, BigExpressionsWithinTheLimitsLowerFastAndShareNodes) {
  Watchdog dog(60, "FieldHostileInput.BigExpressionsWithinTheLimitsLowerFastAndShareNodes");
  std::string nested = "x";
  for (int i = 0; i < 190; ++i) nested = "(" + nested + ")";
  std::string sines = "sin(x)";
  for (int i = 0; i < 190; ++i) sines = "sin(" + sines + ")";
  std::string sum = "cos(x*y)";
  for (int i = 0; i < 900; ++i) sum += "+cos(x*y)";  // 900 additions, one cos node
  std::string distinct = "0";
  for (int i = 1; i <= 900; ++i) distinct += "+x*" + std::to_string(i);
  const std::vector<std::string> texts = {nested, sines, sum, distinct};
  // (a quadratic or worse lowering shows in ctest's time limit; the node count below is exact)
  const LoweredField f = lower(texts);
  EXPECT_EQ(f.dag.nodes()[f.dag.outputs[0]].op, DagNode::Op::input);
  // sin chain 191; x*y, cos, 900 adds; x*2 ... x*900 (x*1 is x) and 900 adds (0 + x is kept: +0 is
  // not dropped, -0 + 0 is +0)
  EXPECT_EQ(f.dag.operation_count(), 191 + 2 + 900 + 899 + 900);
  expect_dag_equals_interpreter(texts, {}, sample_points(50, 3));
}

TEST(FieldHostileInput, RandomTextAgreesWithTheInterpreterAndNeverCrashes) {
  Watchdog dog(60, "FieldHostileInput.RandomTextAgreesWithTheInterpreterAndNeverCrashes");
  // Token soup: valid and invalid pieces, C fragments, flux syntax, odd bytes.
  const std::vector<std::string> pieces = {
      "x", "y", "z", "t", "pi", "omega", "a0", "big", "in", "v0", "(", ")", "(", ")", ",", "+", "-", "*", "/", "^",
      "sin(", "atan2(", "pow(", "min(", "sign(", "heaviside(", "2", "0.5", "1e300", "-0", "1e-320", ";", "\\", "#",
      "E.int", "n", "cross(", " ", "\t", "\n", "\"", "/*", "*/", "//", "}", "{", "\xcf\x80", std::string(1, '\0'),
      "expr_t", "__global__", ".", "1e400", "e"};
  std::mt19937 rng(12345);
  const auto pts = sample_points(6, 4);
  int accepted = 0, rejected = 0;
  double slowest = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const int len = static_cast<int>(rng() % 12);
    for (int k = 0; k < len; ++k) text += pieces[rng() % pieces.size()];
    const bool blank = text.find_first_not_of(" \t") == std::string::npos;
    LoweredField f;
    const Outcome low = outcome_of([&] { f = lower({text}, constants()); }, "lower_field '" + shown(text) + "'");
    dsl::ScalarFunction s;
    const Outcome ref = outcome_of([&] { s = interpret(plain(text), constants()); }, "compile_scalar");
    slowest = std::max(slowest, low.seconds);
    if (blank) {  // documented: 0 for lower_field, "empty expression" for the interpreter
      EXPECT_TRUE(low.accepted);
      EXPECT_FALSE(ref.accepted);
      continue;
    }
    ASSERT_EQ(low.accepted, ref.accepted) << "'" << shown(text) << "': " << (low.accepted ? ref : low).error.message();
    if (!low.accepted) {
      ++rejected;
      EXPECT_EQ(low.error.where().column, ref.error.where().column) << shown(text);
      expect_clean_error(low.error);
      continue;
    }
    ++accepted;
    for (const auto& p : pts) {
      const double a = eval_dag(f.dag, p.data())[0], b = s(p.data());
      ASSERT_TRUE(same_double(a, b)) << "'" << shown(text) << "': DAG " << show(a) << ", interpreter " << show(b);
    }
  }
  EXPECT_GT(accepted, 50);
  EXPECT_GT(rejected, 500);
  EXPECT_LT(slowest, 1.0);
}

// Constants a config may define (evaluate_constants accepts these names), named like the C
// identifiers of the generated kernels.
const std::map<std::string, double>& hostile_constants() {
  static const std::map<std::string, double> c = [] {
    const std::vector<std::pair<std::string, std::string>> defs = {
        {"in", "0.375"},       {"out", "-1.25"},     {"v0", "3.5"},        {"v1", "v0*2"},
        {"expr_t", "2.5"},     {"real_t", "0.1"},    {"main", "11"},       {"__global__", "5"},
        {"std", "0.5"},        {"NodeW", "1/4"},     {"HAS_EXACT", "-0"},  {"field_at", "3"},
        {"K", "1e300"},        {"include", "7"},     {"define", "2^-1030"}, {"system", "1/3"},
        {"t0", "-2"},          {"const", "9"},       {"return", "-7"},     {"int", "1e-300"},
        {"double", "2^0.5"},   {"_", "6"},           {"__", "-6"},         {"x0", "1e308"},
        {"DGMAX_FN", "13"},    {"HAS_INITIAL", "0"}, {"VERT", "2"},        {very_long_name(300), "2"},
    };
    std::vector<std::pair<std::string, dsl::ExprSource>> d;
    for (const auto& [name, text] : defs) d.push_back({name, plain(text)});
    return dsl::evaluate_constants(d);
  }();
  return c;
}

// Accepted texts that look like trouble: names of kernel identifiers (as constants), C-looking
// spellings the language allows, extreme numbers, NaN and infinity, deep nesting within the limits.
std::vector<std::string> hostile_valid_texts() {
  std::string nested = "sin(x)";
  for (int i = 0; i < 150; ++i) nested = "(" + nested + ")";
  std::string sum = "0";
  for (int i = 1; i <= 300; ++i) sum += "+sin(x+" + std::to_string(i) + ")";
  return {"in*x + out",
          "v0 - t*in + v1",
          "expr_t*real_t*y + main",
          "__global__ + std*z^2",
          "NodeW/4 + HAS_EXACT*x - (-0)",
          "include - define/x",
          nested,
          "K*K*x",
          "(0/0) + x",
          "1e308*10*0 + y",
          "x/-0",
          very_long_name(300) + "*x",
          "x^y^z",
          "sign(x)*heaviside(-y)",
          "system*t + t0",
          "field_at^2 - t",
          "-(-(-x))",
          sum,
          "pow(abs(x), y) + const*return",
          "atan2(in, out) + int/double",
          "min(v0, x) + erf(x) + 1e-300/1e300 + _*__ + x0*x0 + DGMAX_FN + HAS_INITIAL + VERT",
          "2.2250738585072014e-308/2^52*x",
          "1e-320*x + 4.9406564584124654e-324",
          "  x\t*\t  in  "};
}

TEST(FieldHostileInput, AcceptedTextReachesTheSourceOnlyAsNumbersAndComments) {
  Watchdog dog(60, "FieldHostileInput.AcceptedTextReachesTheSourceOnlyAsNumbersAndComments");
  const auto& consts = hostile_constants();
  const std::string& baseline = zero_field_source();
  for (const auto& text : hostile_valid_texts()) {
    // the same text in every component of every field (initial, exact, J, incident)
    const Problem p = problem_with(same_text_everywhere(text), consts);
    const std::string src = generate_cpu_source(make_kernel_spec(p, false));
    std::vector<std::string> check = {text};
    for (const auto& [name, v] : consts) check.push_back(name);
    expect_no_user_text_in_code(src, baseline, lowered_of(p), check, shown(text));
  }
  // and in single precision (real_t = float; fields stay in expr_t = double)
  const Problem p = problem_with(same_text_everywhere("in*x + out + v0"), consts);
  const std::string single_src = generate_cpu_source(make_kernel_spec(p, true));
  const std::string single_base =
      generate_cpu_source(make_kernel_spec(problem_with(same_text_everywhere("0"), {}), true));
  expect_no_user_text_in_code(single_src, single_base, lowered_of(p), {"in*x"}, "single precision");
}

TEST(FieldHostileInput, TheVocabularyCheckCatchesInjectedText) {
  // The checker itself: it must see a foreign token, so the test above means something.
  EXPECT_EQ(foreign_token("  const expr_t v12 = std::sin(in[0]) * expr_t(1e+20);"), "");
  EXPECT_EQ(foreign_token("  out[3] = v1 > expr_t(0) ? expr_t(1) : v1 < expr_t(0) ? expr_t(-1) : v1;"), "");
  EXPECT_EQ(foreign_token("  out[0] = (expr_t(0) / expr_t(0));"), "");
  EXPECT_EQ(foreign_token("  const expr_t v0 = omega * in[0];"), "omega");
  EXPECT_EQ(foreign_token("  const expr_t v0 = system(in[0]);"), "system");
  EXPECT_EQ(foreign_token("  const expr_t v0 = in[0]; }"), "}");
  EXPECT_EQ(foreign_token("  const expr_t v0 = \"x\";"), "\"");
  EXPECT_EQ(foreign_token("  const expr_t t0 = in[0];"), "t0");
  EXPECT_EQ(foreign_token("#include <x>"), "#");
  // and the comparison with the zero-field source sees a changed line outside the field functions
  const std::string& base = zero_field_source();
  const Problem p = problem_with(same_text_everywhere("0"), {});
  std::string tampered = base;
  const size_t at = tampered.find("typedef double expr_t;");
  ASSERT_NE(at, std::string::npos);
  tampered.insert(at, "int injected;\n");
  EXPECT_NONFATAL_FAILURE(expect_no_user_text_in_code(tampered, base, lowered_of(p), {}, "tampered"),
                          "differs from the zero-field source");
  std::string spliced = base;
  const size_t c = spliced.find("//   [0] 0\n");
  ASSERT_NE(c, std::string::npos);
  spliced.insert(c + 10, " \\");
  EXPECT_NONFATAL_FAILURE(expect_no_user_text_in_code(spliced, base, lowered_of(p), {}, "spliced"),
                          "line continuation");
}

// The fields of hostile_valid_texts(), compiled: what dgmax_field_at returns is what the
// interpreter returns (bitwise in double; NaN equals NaN).
TEST(FieldHostileInput, CompiledHostileLookingFieldsEqualTheInterpreter) {
  if (!have_host_compiler()) GTEST_SKIP() << "no host C++ compiler";
  Watchdog dog(300, "FieldHostileInput.CompiledHostileLookingFieldsEqualTheInterpreter");
  const auto& consts = hostile_constants();
  const auto texts = hostile_valid_texts();  // 24: 6 + 6 + 3 + 6 = 21 used, the rest below
  FieldTexts f;
  size_t k = 0;
  for (int c = 0; c < 6; ++c) f.initial.push_back(texts[k++ % texts.size()]);
  for (int c = 0; c < 6; ++c) f.exact.push_back(texts[k++ % texts.size()]);
  for (int c = 0; c < 3; ++c) f.current.push_back(texts[k++ % texts.size()]);
  for (int c = 0; c < 6; ++c) f.incident.push_back(texts[k++ % texts.size()]);
  f.incident[5] = "(" + texts[20] + ") + (" + texts[21] + ") + (" + texts[22] + ") + (" + texts[23] + ")";
  const Problem p = problem_with(f, consts);
  const auto lib = jit_compile(generate_cpu_source(make_kernel_spec(p, false)), "field_lowering_test");
  const auto field_at = reinterpret_cast<FieldAt>(lib->symbol("dgmax_field_at"));
  const auto pts = sample_points(400, 5);
  std::vector<double> flat;
  for (const auto& q : pts) flat.insert(flat.end(), q.begin(), q.end());
  const std::vector<std::string>* fields[4] = {&f.initial, &f.exact, &f.current, &f.incident};
  int failures = 0;
  for (int w = 0; w < 4; ++w) {
    std::vector<double> out(6 * pts.size());
    field_at(w, static_cast<long>(pts.size()), flat.data(), out.data());
    for (size_t c = 0; c < fields[w]->size(); ++c) {
      const dsl::ScalarFunction s = interpret(plain((*fields[w])[c]), consts);
      for (size_t m = 0; m < pts.size(); ++m) {
        const double want = s(pts[m].data()), got = out[6 * m + c];
        if (same_double(got, want)) continue;
        ADD_FAILURE() << "field " << w << " component " << c << " '" << shown((*fields[w])[c]) << "' at ("
                      << show(pts[m][0]) << ", " << show(pts[m][1]) << ", " << show(pts[m][2]) << ", "
                      << show(pts[m][3]) << "): compiled " << show(got) << ", interpreter " << show(want);
        if (++failures > 10) return;
      }
    }
    for (size_t c = fields[w]->size(); c < 6; ++c)
      for (size_t m = 0; m < pts.size(); ++m) EXPECT_TRUE(std::isnan(out[6 * m + c]));
  }
}

// ---- 4. constants are literals --------------------------------------------------------------------

std::vector<std::string> body_of(const std::string& src, const std::string& fn) {
  const SourceParts parts = split_source(src);
  const auto it = parts.bodies.find(fn);
  return it == parts.bodies.end() ? std::vector<std::string>{} : it->second;
}

TEST(FieldConstants, NamesOfKernelIdentifiersBecomeLiterals) {
  const std::map<std::string, double> consts = {{"in", 0.375}, {"out", -1.25}, {"v0", 3.5}, {"expr_t", 2.5},
                                                {"t0", 0.1}, {"v1", 1e300}};
  FieldTexts f = same_text_everywhere("0");
  f.exact = {"in*x", "out*y", "v0*z", "expr_t*t", "t0 + v1", "in"};
  const Problem p = problem_with(f, consts);
  const std::vector<std::string> body = body_of(generate_cpu_source(make_kernel_spec(p, false)), "field_exact");
  const std::vector<std::string> want = {
      "  const expr_t v0 = expr_t(0.375) * in[0];  // 0.375 * x",
      "  const expr_t v1 = expr_t(-1.25) * in[1];  // -1.25 * y",
      "  const expr_t v2 = expr_t(3.5) * in[2];  // 3.5 * z",
      "  const expr_t v3 = expr_t(2.5) * in[3];  // 2.5 * t",
      "  out[0] = v0;",
      "  out[1] = v1;",
      "  out[2] = v2;",
      "  out[3] = v3;",
      "  out[4] = expr_t(1e+300);",  // 0.1 + 1e300, folded
      "  out[5] = expr_t(0.375);",
  };
  EXPECT_EQ(body, want);
  EXPECT_EQ(p.exact.lowered->texts, (std::vector<std::string>{"in*x", "out*y", "v0*z", "expr_t*t", "t0 + v1", "in"}));
}

TEST(FieldConstants, ReservedNamesCannotBeConstantsAndVariablesWinInTheLowering) {
  // A config cannot define t (or x, y, z), pi, or a function name as a constant ...
  for (const char* name : {"t", "x", "pi", "exp", "sin", "E", "n"}) {
    SCOPED_TRACE(name);
    const UserError e = expect_user_error([&] { dsl::evaluate_constants({{name, plain("1")}}); });
    EXPECT_EQ(e.message().rfind(std::string("constant name '") + name + "' is reserved", 0), 0u) << e.message();
  }
  // ... and should one reach lower_field anyway, t stays the time and x the coordinate: the
  // constant shadows nothing.
  const LoweredField f = lower({"t", "x*2"}, {{"t", 5.0}, {"x", 7.0}});
  EXPECT_TRUE(f.reads_time);
  const double pt[4] = {1.5, 0, 0, 0.25};
  EXPECT_EQ(eval_dag(f.dag, pt), (std::vector<double>{0.25, 3.0}));
  // A constant named like a function is a value where a value is expected and the function where
  // it is called, in both the lowering and the interpreter; a constant named pi replaces pi in both.
  const std::map<std::string, double> c = {{"exp", 2.0}, {"pi", 3.0}, {"sin", 0.5}};
  expect_dag_equals_interpreter({"exp*exp(x)", "pi*x", "sin(sin*x) + exp"}, c, sample_points(100, 6));
  const double p0[4] = {0, 0, 0, 0};
  EXPECT_EQ(eval_dag(lower({"pi"}, c).dag, p0)[0], 3.0);
}

TEST(FieldConstants, NonFiniteAndSignedZeroConstantsArePrintedAsExpressions) {
  // evaluate_constants rejects non-finite constants, but folded expressions can be inf or NaN:
  // printed as divisions of literals, never as a name (INFINITY, NAN, inf) the source might lack.
  FieldTexts f = same_text_everywhere("0");
  f.exact = {"c*x", "1e308*10*x", "-(1e308*10)*x", "(0/0)*x", "-0*x", "nan*x"};
  const Problem p = problem_with(f, {{"c", -0.0}, {"nan", 0.0}});
  const std::vector<std::string> body = body_of(generate_cpu_source(make_kernel_spec(p, false)), "field_exact");
  std::string all;
  for (const auto& l : body) all += l + "\n";
  EXPECT_NE(all.find("expr_t(-0.0) * in[0]"), std::string::npos) << all;
  EXPECT_NE(all.find("(expr_t(1) / expr_t(0)) * in[0]"), std::string::npos) << all;
  EXPECT_NE(all.find("(expr_t(-1) / expr_t(0)) * in[0]"), std::string::npos) << all;
  EXPECT_NE(all.find("(expr_t(0) / expr_t(0)) * in[0]"), std::string::npos) << all;
  EXPECT_NE(all.find("expr_t(0.0) * in[0]"), std::string::npos) << all;
  EXPECT_EQ(all.find("nan"), std::string::npos) << all;
  EXPECT_EQ(all.find("inf"), std::string::npos) << all;
}

}  // namespace
}  // namespace dgmax::codegen
