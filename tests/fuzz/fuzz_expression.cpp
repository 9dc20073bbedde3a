// Fuzz target: the scalar expression language (codegen/dsl: lexer, parser, scalar_eval) and its
// lowering to a DAG (codegen/lower/field_lowering) and C (codegen/emit/c_expr).
// Input: the expression text. Checked beyond "no crash": what the interpreter accepts the lowering
// accepts, and both give the same doubles bit for bit (scalar_dag.hpp, field_lowering.hpp); the
// batch evaluation equals the pointwise one; the canonical re-print compiles to the same values.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/dsl/expr_source.hpp"
#include "codegen/dsl/parser.hpp"
#include "codegen/dsl/scalar_eval.hpp"
#include "codegen/emit/c_expr.hpp"
#include "codegen/lower/field_lowering.hpp"
#include "codegen/lower/scalar_dag.hpp"
#include "fuzz_common.hpp"

using namespace dgmax;

namespace {

const std::map<std::string, double> kConstants = {
    {"omega", 4.442882938158366}, {"w", 0.25}, {"s0", -1.5}, {"mu_r", 2}, {"amp", 3},
    {"c", 299792458.0}, {"big", 1e300}, {"tiny", 5e-324}};

dsl::ScalarContext context() {
  dsl::ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};  // the FieldInput slot order
  ctx.constants = kConstants;
  ctx.unavailable = {{"u", "'u' is not available here"}};
  return ctx;
}

constexpr int kPoints = 6;
const double kX[kPoints] = {0.3, 0, -0.0, 1e308, -2.5, 0.5};
const double kY[kPoints] = {-1.7, 0, 1, -1e-310, 3.25, 0.5};
const double kZ[kPoints] = {2.5, 0, -1, 7, INFINITY, 0.5};
const double kT[kPoints] = {0.9, 0, 2, -3, 1, NAN};

// The parser's limits (kMaxNesting, kMaxTreeDepth).
bool too_deep(const UserError& e) {
  return e.message().find("nested too deeply") != std::string::npos ||
         e.message().find("too complex") != std::string::npos;
}

void check(const dsl::ExprSource& src) {
  const dsl::ScalarContext ctx = context();
  dsl::ScalarFunction f;
  try {
    f = dsl::compile_scalar(src, ctx);
  } catch (const UserError& e) {
    fuzz::exercise(e);
    return;
  }

  // pointwise vs batch
  double pointwise[kPoints], batch[kPoints];
  for (int i = 0; i < kPoints; ++i) {
    const double vars[4] = {kX[i], kY[i], kZ[i], kT[i]};
    pointwise[i] = f(vars);
  }
  const double* arrays[4] = {kX, kY, kZ, kT};
  f.eval_batch(kPoints, arrays, batch);
  for (int i = 0; i < kPoints; ++i)
    if (!fuzz::same_value(pointwise[i], batch[i]))
      fuzz::finding("eval_batch " + fuzz::show(batch[i]) + " != operator() " +
                    fuzz::show(pointwise[i]) + " at point " + std::to_string(i));
  (void)f.depends_on("x");
  (void)f.is_constant();

  // the lowering accepts what the interpreter compiled, and computes the same bits
  codegen::LoweredField lowered;
  try {
    lowered = codegen::lower_field({src}, kConstants);
  } catch (const UserError& e) {
    fuzz::finding("lower_field rejects an expression compile_scalar accepted: " + e.render());
  }
  std::vector<double> scratch(lowered.dag.nodes().size() + 1);
  for (int i = 0; i < kPoints; ++i) {
    const double in[codegen::kNumFieldInputs] = {kX[i], kY[i], kZ[i], kT[i]};
    double out = 0;
    codegen::evaluate(lowered.dag, in, &out, scratch.data());
    if (!fuzz::same_value(out, pointwise[i]))
      fuzz::finding("lowered DAG gives " + fuzz::show(out) + ", interpreter " +
                    fuzz::show(pointwise[i]) + " at point " + std::to_string(i));
  }
  if (lowered.reads_time != f.depends_on("t"))
    fuzz::finding("LoweredField::reads_time disagrees with ScalarFunction::depends_on(t)");
  codegen::CExprStyle style;
  style.input_label = codegen::field_input_label;
  (void)codegen::emit_c_statements(lowered.dag, style);
  style.cuda = true;
  style.type = "float";
  (void)codegen::emit_c_statements(lowered.dag.pruned(), style);

  // the canonical text means the same thing
  const std::string canonical = f.canonical();
  dsl::ScalarFunction g;
  try {
    g = dsl::compile_scalar({canonical, {}}, ctx);
  } catch (const UserError& e) {
    // allowed: re-printing may nest deeper than the input (dsl::to_string, ast.hpp)
    if (too_deep(e)) return;
    fuzz::finding("canonical form '" + canonical + "' does not compile: " + e.render());
  }
  for (int i = 0; i < kPoints; ++i) {
    const double vars[4] = {kX[i], kY[i], kZ[i], kT[i]};
    const double v = g(vars);
    if (!fuzz::same_value(v, pointwise[i]))
      fuzz::finding("canonical form '" + canonical + "' gives " + fuzz::show(v) + ", original " +
                    fuzz::show(pointwise[i]) + " at point " + std::to_string(i));
  }
  if (g.canonical() != canonical)
    fuzz::finding("canonical form is not a fixed point: '" + canonical + "' -> '" + g.canonical() +
                  "'");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  // 1. as from the command line (errors quote the expression)
  check({text, {}});

  // 2. as from a YAML file: `  E: <text>` on line 3, so locations map into the file's line
  if (text.find_first_of("\n\r") == std::string::npos) {
    SourceLocation origin;
    origin.file = "fuzz.yaml";
    origin.line = 3;
    origin.column = 6;
    origin.snippet = "  E: " + text;
    try {
      (void)dsl::parse({text, origin});
    } catch (const UserError& e) {
      fuzz::exercise(e);
    }
  }
  return 0;
}
