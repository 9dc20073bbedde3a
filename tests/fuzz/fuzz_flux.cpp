// Fuzz target: the flux language (codegen/lower/flux_lowering: type checks, component expansion,
// constant folding, the hash-consed DAG) and the C printer (codegen/emit/c_expr).
// Input: one byte (bit 0: 0 = numerical flux, 1 = boundary exterior state), then the E
// expression, '\n', the H expression. Checked beyond "no crash": the pruned DAG computes the same
// bits as the full one, and the canonical re-printed texts lower to the same values.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/dsl/expr_source.hpp"
#include "codegen/emit/c_expr.hpp"
#include "codegen/lower/flux_inputs.hpp"
#include "codegen/lower/flux_lowering.hpp"
#include "codegen/lower/scalar_dag.hpp"
#include "fuzz_common.hpp"

using namespace dgmax;

namespace {

// Face-node values of the kNumFluxInputs slots: two sets, one generic, one with signed zeros,
// infinities and a NaN (the DAG's simplifications must be exact for those too).
void inputs(int set, double* in) {
  for (int i = 0; i < codegen::kNumFluxInputs; ++i) in[i] = 0.37 * (i + 1) - 2.1 + 0.013 * i * i;
  in[codegen::kNormal + 0] = 0.48;
  in[codegen::kNormal + 1] = -0.6;
  in[codegen::kNormal + 2] = 0.64;
  if (set == 1) {
    in[codegen::kEint] = -0.0;
    in[codegen::kHint + 1] = INFINITY;
    in[codegen::kEext + 2] = NAN;
    in[codegen::kZExt] = 0.0;
    in[codegen::kEinc] = -INFINITY;
  }
}

std::vector<double> run(const codegen::ScalarDag& dag, int set) {
  double in[codegen::kNumFluxInputs];
  inputs(set, in);
  std::vector<double> out(dag.outputs.size()), scratch(dag.nodes().size() + 1);
  codegen::evaluate(dag, in, out.data(), scratch.data());
  return out;
}

void compare(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  if (a.size() != b.size()) fuzz::finding(what + ": different numbers of outputs");
  for (size_t i = 0; i < a.size(); ++i)
    if (!fuzz::same_value(a[i], b[i]))
      fuzz::finding(what + ": output " + std::to_string(i) + " is " + fuzz::show(b[i]) +
                    " instead of " + fuzz::show(a[i]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  codegen::FluxScope scope;
  scope.context = (data[0] & 1) ? codegen::FluxContext::Exterior : codegen::FluxContext::Flux;
  scope.constants = {{"alpha", 0.5}, {"k", 2}, {"zero", 0}, {"huge", 1e308}};
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t nl = rest.find('\n');
  const std::string e_text = rest.substr(0, nl);
  const std::string h_text = nl == std::string::npos ? std::string() : rest.substr(nl + 1);

  SourceLocation e_origin{"fuzz.yaml", 2, 6, "  E: " + e_text};
  SourceLocation h_origin;  // H: no file location (errors quote the expression)
  codegen::LoweredFlux lowered;
  try {
    lowered = codegen::lower_flux({e_text, e_origin}, {h_text, h_origin}, scope);
  } catch (const UserError& e) {
    fuzz::exercise(e);
    return 0;
  }
  if (lowered.dag.outputs.size() != static_cast<size_t>(codegen::kNumFluxOutputs))
    fuzz::finding("lower_flux returned " + std::to_string(lowered.dag.outputs.size()) +
                  " outputs instead of 6");
  for (int id : lowered.dag.outputs)
    if (id < 0 || static_cast<size_t>(id) >= lowered.dag.nodes().size())
      fuzz::finding("output node id out of range");

  const codegen::ScalarDag pruned = lowered.dag.pruned();
  for (int set = 0; set < 2; ++set) compare(run(lowered.dag, set), run(pruned, set), "pruned DAG");
  (void)lowered.dag.operation_count();

  codegen::CExprStyle style;
  (void)codegen::emit_c_statements(pruned, style);
  style.cuda = true;
  style.type = "float";
  (void)codegen::emit_c_statements(lowered.dag, style);

  // the canonical texts are valid flux expressions with the same meaning
  codegen::LoweredFlux again;
  try {
    again = codegen::lower_flux({lowered.E_text, {}}, {lowered.H_text, {}}, scope);
  } catch (const UserError& e) {
    // allowed: re-printing may nest deeper than the input (dsl::to_string, ast.hpp)
    if (e.message().find("nested too deeply") != std::string::npos ||
        e.message().find("too complex") != std::string::npos)
      return 0;
    fuzz::finding("canonical texts do not lower: E '" + lowered.E_text + "', H '" +
                  lowered.H_text + "': " + e.render());
  }
  for (int set = 0; set < 2; ++set)
    compare(run(lowered.dag, set), run(again.dag, set), "canonical texts");
  return 0;
}
