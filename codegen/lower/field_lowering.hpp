// Space-time vector fields given by scalar expressions of (x, y, z, t) — initial fields, current
// sources J, incident fields, exact solutions — lowered to a ScalarDag (one output per component)
// that the cpu and cuda backends print into their kernels. The ref backend keeps interpreting the
// same text with dsl::ScalarFunction; both compute the same double operations in the same order
// (scalar_dag.hpp lists the exact simplifications), so compiled and interpreted values agree to the
// last bit on the host and to the device's math-library rounding on a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/dsl/expr_source.hpp"
#include "codegen/lower/scalar_dag.hpp"

namespace dgmax::codegen {

// Input slots of a lowered field: the point and the time.
enum FieldInput : int { kFieldX = 0, kFieldY, kFieldZ, kFieldT, kNumFieldInputs };

// "x", "y", "z", "t" (comments in generated code).
const char* field_input_label(int slot);

struct LoweredField {
  ScalarDag dag;                   // inputs: FieldInput slots; outputs: one per component
  std::vector<std::string> texts;  // canonical re-printed component expressions (for headers)
  bool reads_time = false;         // whether any component depends on t
};

// Lowers each component expression (empty text = 0). Names: x y z t, pi, `constants` (folded in as
// numbers); calls: the scalar functions of the language. Throws UserError located in the text for
// anything else (the same checks dsl::compile_scalar makes; callers normally ran that first).
LoweredField lower_field(const std::vector<dsl::ExprSource>& components,
                         const std::map<std::string, double>& constants);

}  // namespace dgmax::codegen
