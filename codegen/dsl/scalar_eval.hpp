// Scalar expressions (initial fields, sources, exact solutions, constants): names and argument
// counts are checked once, constant subtrees are folded, and the result is a small postfix
// program over a value stack. Sources are evaluated at millions of points per time step, so
// eval_batch runs each instruction over a block of points at a time (one dispatch per block,
// loops the compiler can vectorize) instead of one dispatch per point and instruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/dsl/ast.hpp"
#include "codegen/dsl/expr_source.hpp"

namespace dgmax::dsl {

// Which names an expression may use and what they mean.
struct ScalarContext {
  // Bound at evaluation time, in this order (e.g. {"x", "y", "z", "t"}).
  std::vector<std::string> variables;
  // Fixed values (user constants). `pi` is always available and need not be listed.
  std::map<std::string, double> constants;
  // Names that exist elsewhere but may not be used here, with the message to give
  // (e.g. "x" inside a constant's definition).
  std::map<std::string, std::string> unavailable;
};

class ScalarFunction {
 public:
  ScalarFunction();  // the constant 0

  // Checks names (variables, constants, pi, functions), argument counts and the absence of
  // flux-only syntax; throws UserError located via `src` (the text `ast` was parsed from).
  static ScalarFunction compile(const Expr& ast, const ScalarContext& ctx, const ExprSource& src);

  // f at one point; vars[i] is the value of ctx.variables[i]. Thread-safe.
  double operator()(const double* vars) const;
  // out[i] = f(var_arrays[0][i], var_arrays[1][i], ...) for i < n; bitwise equal to calling
  // operator() point by point. Thread-safe.
  void eval_batch(size_t n, const double* const* var_arrays, double* out) const;

  // Whether `var` occurs in the program (false for names that are not variables). No algebra is
  // done: 0*y depends on y (it is NaN for y = inf).
  bool depends_on(const std::string& var) const;
  bool is_constant() const;        // no variable is used: the value is operator()(nullptr)
  std::string canonical() const;   // the expression re-printed (minimal parentheses)
  size_t program_size() const { return code_.size(); }  // instructions, after folding
  const std::vector<std::string>& variables() const { return variables_; }

  enum class Op : std::uint8_t;  // instruction set; an implementation detail of scalar_eval.cpp

 private:
  struct Instr {
    Op op;
    std::uint32_t index;  // push_var: which variable; besselj, bessely: the order n
    double value;         // push_const: the value
  };
  friend class ScalarCompiler;

  std::vector<Instr> code_;
  size_t max_stack_ = 1;
  std::vector<std::string> variables_;
  std::vector<bool> uses_;  // per variable
  std::string canonical_;
};

// parse + ScalarFunction::compile.
ScalarFunction compile_scalar(const ExprSource& src, const ScalarContext& ctx);

}  // namespace dgmax::dsl
