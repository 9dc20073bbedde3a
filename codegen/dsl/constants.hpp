// User constants (`constants:` in a config): each is an expression over pi and the constants
// defined before it, evaluated once, in order.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/dsl/expr_source.hpp"

namespace dgmax::dsl {

// The coordinates and time, which constants may neither use nor shadow.
inline const std::vector<std::string> kDefaultVariables = {"x", "y", "z", "t"};

// At most this many constants (a bound on the work a config can ask for; real ones use a few).
inline constexpr size_t kMaxConstants = 10000;

// Evaluates `defs` in order and returns name -> value (pi is built in and not included).
// Throws UserError for: invalid names, names shadowing `variables`, pi, a function or a flux
// name, duplicates, forward references, cycles, use of `variables`, any expression error,
// non-finite values and more than kMaxConstants definitions. Errors about a name point at the
// name in origin.snippet when found.
std::map<std::string, double> evaluate_constants(
    const std::vector<std::pair<std::string, ExprSource>>& defs,
    const std::vector<std::string>& variables = kDefaultVariables);

// Whether `name` matches [A-Za-z_][A-Za-z0-9_]*.
bool is_identifier(const std::string& name);

}  // namespace dgmax::dsl
