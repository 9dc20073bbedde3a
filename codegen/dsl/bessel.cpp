#include "codegen/dsl/bessel.hpp"

#include <cmath>


namespace dgmax::dsl {

// The generated kernels define the same functions (codegen/emit/c_expr.cpp, bessel_c_definitions), so
// that the interpreter, the DAG and the host-compiled kernels agree bit for bit.
double bessel_j(int n, double x) {
  const double j = std::cyl_bessel_j(n, std::fabs(x));
  return x < 0 && n % 2 != 0 ? -j : j;
}

double bessel_y(int n, double x) {
  if (x < 0) return std::nan("");
  try {
    return std::cyl_neumann(n, x);
  } catch (...) {  // "Argument x too large in __bessel_jn" for subnormal x
    return std::nan("");
  }
}

std::string bessel_usage(const std::string& function) {
  return function + "(n, x) takes the order n first, a whole number from 0 to " + std::to_string(kMaxBesselOrder) +
         ", as in '" + function + "(1, 2.4*x)'";
}

int checked_bessel_order(const std::string& function, const Expr& arg, std::optional<double> value,
                         const ExprSource& src) {
  const std::string usage = bessel_usage(function);
  if (!value)
    throw error_at(src, arg.offset(), "the order of " + function + " must be a constant",
                   usage + "; a number or a named constant, not a value that changes in space or time");
  const double n = *value;
  const std::string got = ", got " + (std::isfinite(n) ? format_number(n) : std::isnan(n) ? "NaN" : n > 0 ? "infinity" : "-infinity");
  const std::string wanted = "the order of " + function + " must be a whole number from 0 to " +
                             std::to_string(kMaxBesselOrder);
  if (!std::isfinite(n) || n != std::floor(n))
    throw error_at(src, arg.offset(), wanted + got, usage);
  if (n < 0) {
    const char* letter = function == "besselj" ? "J" : "Y";
    throw error_at(src, arg.offset(), wanted + got,
                   std::string("a negative order follows from ") + letter + "_-n(x) = (-1)^n " + letter +
                       "_n(x), as in '-" + function + "(1, x)' for order -1");
  }
  if (n > kMaxBesselOrder) throw error_at(src, arg.offset(), wanted + got, usage);
  return static_cast<int>(n);
}

}  // namespace dgmax::dsl
