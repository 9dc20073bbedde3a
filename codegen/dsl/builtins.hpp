// The names the language gives a meaning to by itself: scalar functions, the constant pi, and
// the names reserved for flux expressions (field vectors, the normal, vector functions).
// One table, so that evaluation, "did you mean" hints and constant-name checks agree.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dgmax::dsl {

enum class Builtin {
  sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, exp, log, sqrt, abs,
  min, max, pow, floor, ceil, sign, heaviside, erf, besselj, bessely,
};

struct FunctionInfo {
  std::string_view name;
  int arity;
  Builtin id;
  // The first argument is an order n fixed when the expression is compiled (besselj, bessely:
  // codegen/dsl/bessel.hpp), not a value computed per point.
  bool order = false;
};

// All scalar functions, in the order they are listed to users.
std::span<const FunctionInfo> scalar_functions();
const FunctionInfo* find_scalar_function(std::string_view name);  // nullptr if none
std::vector<std::string> scalar_function_names();
// Whether `fn` takes an order first (FunctionInfo::order).
bool takes_order(Builtin fn);

inline constexpr double kPi = 3.141592653589793238462643383279502884;

// Names that only mean something in flux expressions (E, H, n, cross, jump, ...): a short
// description such as "a field vector", or "" when `name` is not one of them.
std::string_view flux_only_description(std::string_view name);

}  // namespace dgmax::dsl
