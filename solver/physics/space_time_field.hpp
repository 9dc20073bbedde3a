// Building SpaceTimeField values (problem.hpp) from expression text, and the host-side checks and
// evaluations that go with them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/dsl/scalar_eval.hpp"
#include "solver/physics/fields.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// Both forms of a field from its component expressions: `comps` (already compiled, checked
// interpreters of x, y, z, t) and the same text lowered for the kernels. `constants` are the
// config's constants (folded into the lowered form exactly as the interpreter folds them).
SpaceTimeField make_space_time_field(std::vector<dsl::ScalarFunction> comps, std::vector<dsl::ExprSource> sources,
                                     std::vector<std::string> names, const std::map<std::string, double>& constants);

// From plain text (tests, built-in fields): compiles with variables x, y, z, t and `constants`;
// names are "<what>[c]".
SpaceTimeField space_time_field_from_text(const std::vector<std::string>& texts, const std::string& what,
                                          const std::map<std::string, double>& constants = {});

// The initial state interpolated on the host (zero without p.initial); UserError naming the
// component and the point when a value is not finite.
Fields interpolate_initial(const Problem& p);

// The UserError for a non-finite initial value at flat index (k*6 + c)*Np + i of the state.
[[noreturn]] void throw_nonfinite_initial(const Problem& p, size_t flat_index, double value);

}  // namespace dgmax
