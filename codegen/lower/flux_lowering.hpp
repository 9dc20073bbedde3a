// Flux and exterior-state expressions: type checks (scalar vs 3-vector, which names exist in
// which context) and lowering to a ScalarDag with one output per component.
#pragma once

#include <map>
#include <string>

#include "codegen/dsl/expr_source.hpp"
#include "codegen/lower/flux_inputs.hpp"
#include "codegen/lower/scalar_dag.hpp"

namespace dgmax::codegen {

enum class FluxContext {
  Flux,      // numerical flux: E, H with .int/.ext, jump(), avg(), n, eps/mu/Z/Y .int/.ext
  Exterior,  // boundary exterior state: only .int traces, n, materials .int, Einc, Hinc
};

struct FluxScope {
  FluxContext context = FluxContext::Flux;
  std::map<std::string, double> constants;  // user constants and `alpha`; folded in as numbers
};

struct LoweredFlux {
  ScalarDag dag;          // outputs: 6 (flux: flux_E xyz, flux_H xyz; exterior: E.ext xyz, H.ext xyz)
  std::string E_text, H_text;  // canonical re-printed expressions (for generated-code headers)
};

// Parses, type-checks and lowers the two 3-vector expressions. Throws UserError located in the
// expression text (ExprSource) for syntax errors, unknown names (with suggestions and the list of
// names valid in this context), type errors ("cross expects two 3-vectors, got a scalar as
// argument 1"), scalars where a 3-vector result is required, sides in the wrong context.
LoweredFlux lower_flux(const dsl::ExprSource& E, const dsl::ExprSource& H, const FluxScope& scope);

}  // namespace dgmax::codegen
