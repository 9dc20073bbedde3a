// besselj(n, x) and bessely(n, x) of the expression language: their values on the host (the
// interpreter, the DAG, constant folding) and the check of the order n, a whole number from 0 to
// kMaxBesselOrder fixed when the expression is compiled (the generated code calls J_n for one n).
#pragma once

#include <optional>
#include <string>

#include "codegen/dsl/ast.hpp"
#include "codegen/dsl/expr_source.hpp"

namespace dgmax::dsl {

inline constexpr int kMaxBesselOrder = 100;

// J_n(x) for every real x: std::cyl_bessel_j(n, |x|), negated for x < 0 and odd n
// (J_n(-x) = (-1)^n J_n(x); libstdc++ refuses x < 0 with an exception).
double bessel_j(int n, double x);

// Y_n(x) = std::cyl_neumann(n, x) for x >= 0 (-inf at x = 0); NaN for x < 0 (Y_n is complex
// there) and where libstdc++ gives up (it throws below x ~ 1e-306, and gives NaN where |Y_n(x)|
// is beyond the double range, n large and x small).
double bessel_y(int n, double x);

// "besselj(n, x) takes the order n first, ...": the hint of errors in a call of `function`.
std::string bessel_usage(const std::string& function);

// The order argument `arg` of the call of `function` (besselj or bessely); `value` is its value
// when it is constant. Returns the order, or throws a UserError located at `arg` when it is not a
// constant whole number from 0 to kMaxBesselOrder.
int checked_bessel_order(const std::string& function, const Expr& arg, std::optional<double> value,
                         const ExprSource& src);

}  // namespace dgmax::dsl
