#include "codegen/dsl/scalar_eval.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <unordered_map>

#include "codegen/dsl/bessel.hpp"
#include "codegen/dsl/builtins.hpp"
#include "codegen/dsl/parser.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax::dsl {
namespace {

// A name as quoted in messages: a 60,000-character identifier must not become the message.
std::string shown(const std::string& name) { return quote_for_message(name, 40); }

// Definitions shared by folding, point and batch evaluation, so all three agree bit for bit.
inline double fn_neg(double x) { return -x; }
inline double fn_square(double x) { return x * x; }
inline double fn_sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }  // 0 -> 0, NaN -> NaN
inline double fn_heaviside(double x) { return x < 0 ? 0.0 : x >= 0 ? 1.0 : x; }  // NaN -> NaN
inline double fn_add(double a, double b) { return a + b; }
inline double fn_sub(double a, double b) { return a - b; }
inline double fn_mul(double a, double b) { return a * b; }
inline double fn_div(double a, double b) { return a / b; }
// x^2 is by far the most common power; x*x is exact-rounded and much cheaper than pow.
inline double fn_pow(double a, double b) { return b == 2.0 ? a * a : std::pow(a, b); }
// fmin/fmax with the tie of +0 and -0 written out: fmin/fmax may return either zero, and GCC swaps
// their operands at will, so the same formula could give -0 here and +0 in the DAG or the emitted C.
// min(+0, -0) = min(-0, +0) = -0 and max = +0 (IEEE 754-2019 minimumNumber/maximumNumber); a NaN
// operand gives the other one, as fmin/fmax. codegen/lower/scalar_dag.cpp and the C printed by
// codegen/emit/c_expr.cpp use the same expressions.
inline double fn_min(double a, double b) { return a < b || (a == b && std::signbit(a)) || b != b ? a : b; }
inline double fn_max(double a, double b) { return a > b || (a == b && !std::signbit(a)) || b != b ? a : b; }

}  // namespace

// X-macros: (opcode = builtin name, implementation).
#define DGMAX_DSL_UNARY_BUILTINS(X)                                                          \
  X(sin, std::sin) X(cos, std::cos) X(tan, std::tan) X(asin, std::asin) X(acos, std::acos)   \
  X(atan, std::atan) X(sinh, std::sinh) X(cosh, std::cosh) X(tanh, std::tanh)                \
  X(exp, std::exp) X(log, std::log) X(sqrt, std::sqrt) X(abs, std::fabs) X(floor, std::floor) \
  X(ceil, std::ceil) X(sign, fn_sign) X(heaviside, fn_heaviside) X(erf, std::erf)
#define DGMAX_DSL_BINARY_BUILTINS(X) \
  X(atan2, std::atan2) X(min, fn_min) X(max, fn_max) X(pow, fn_pow)
#define DGMAX_DSL_UNARY_OPS(X) DGMAX_DSL_UNARY_BUILTINS(X) X(neg, fn_neg) X(square, fn_square)
#define DGMAX_DSL_BINARY_OPS(X) \
  DGMAX_DSL_BINARY_BUILTINS(X) X(add, fn_add) X(sub, fn_sub) X(mul, fn_mul) X(div, fn_div)

#define DGMAX_DSL_ENUM(name, fn) name,
enum class ScalarFunction::Op : std::uint8_t {
  push_const,
  push_var,
  DGMAX_DSL_UNARY_OPS(DGMAX_DSL_ENUM) DGMAX_DSL_BINARY_OPS(DGMAX_DSL_ENUM)
  besselj,  // unary, of order Instr::index
  bessely,
};
#undef DGMAX_DSL_ENUM

namespace {

using Op = ScalarFunction::Op;

Op op_of(Builtin b) {
  switch (b) {
#define DGMAX_DSL_CASE(name, fn) \
  case Builtin::name:            \
    return Op::name;
    DGMAX_DSL_UNARY_BUILTINS(DGMAX_DSL_CASE) DGMAX_DSL_BINARY_BUILTINS(DGMAX_DSL_CASE)
#undef DGMAX_DSL_CASE
    case Builtin::besselj: return Op::besselj;
    case Builtin::bessely: return Op::bessely;
  }
  DGMAX_ASSERT(false, "unmapped builtin");
}

Op op_of(BinaryOp b) {
  switch (b) {
    case BinaryOp::add: return Op::add;
    case BinaryOp::sub: return Op::sub;
    case BinaryOp::mul: return Op::mul;
    case BinaryOp::div: return Op::div;
    case BinaryOp::pow: return Op::pow;
  }
  DGMAX_ASSERT(false, "unmapped binary op");
}

double apply1(Op op, double x) {
  switch (op) {
#define DGMAX_DSL_CASE(name, fn) \
  case Op::name:                 \
    return fn(x);
    DGMAX_DSL_UNARY_OPS(DGMAX_DSL_CASE)
#undef DGMAX_DSL_CASE
    default: DGMAX_ASSERT(false, "not a unary op");
  }
}

// A function of order n (besselj, bessely) at x.
double apply_order(Op op, int n, double x) {
  switch (op) {
    case Op::besselj: return bessel_j(n, x);
    case Op::bessely: return bessel_y(n, x);
    default: DGMAX_ASSERT(false, "not a function with an order");
  }
}

double apply2(Op op, double a, double b) {
  switch (op) {
#define DGMAX_DSL_CASE(name, fn) \
  case Op::name:                 \
    return fn(a, b);
    DGMAX_DSL_BINARY_OPS(DGMAX_DSL_CASE)
#undef DGMAX_DSL_CASE
    default: DGMAX_ASSERT(false, "not a binary op");
  }
}


}  // namespace

// Checks and folds (pass 1), then emits postfix code (pass 2).
class ScalarCompiler {
 public:
  ScalarCompiler(const ScalarContext& ctx, const ExprSource& src) : ctx_(ctx), src_(src) {
    for (size_t i = 0; i < ctx.variables.size(); ++i) {
      const std::string& v = ctx.variables[i];
      DGMAX_ASSERT(!var_index_.count(v), "variable '" + v + "' listed twice");
      DGMAX_ASSERT(!ctx.constants.count(v) && v != "pi", "variable '" + v + "' is also a constant");
      var_index_[v] = static_cast<std::uint32_t>(i);
    }
  }

  ScalarFunction compile(const Expr& ast) {
    ScalarFunction f;
    f.code_.clear();
    f.variables_ = ctx_.variables;
    f.uses_.assign(ctx_.variables.size(), false);
    f.canonical_ = to_string(ast);
    analyze(ast);
    size_t sp = 0;
    emit(ast, f, sp);
    DGMAX_ASSERT(sp == 1, "unbalanced scalar program");
    return f;
  }

 private:
  // Pass 1: name and arity checks; records the value of every subtree without variables.
  std::optional<double> analyze(const Expr& e) {
    std::optional<double> v;
    switch (e.kind()) {
      case Expr::Kind::number:
        v = e.value();
        break;
      case Expr::Kind::variable:
        v = resolve_name(e);
        break;
      case Expr::Kind::negate:
        if (auto x = analyze(e.operand())) v = apply1(Op::neg, *x);
        break;
      case Expr::Kind::binary: {
        const auto a = analyze(e.lhs());
        const auto b = analyze(e.rhs());
        if (a && b) v = apply2(op_of(e.op()), *a, *b);
        break;
      }
      case Expr::Kind::call: {
        const FunctionInfo& fn = resolve_function(e);
        std::vector<std::optional<double>> args;
        bool all_const = true;
        for (const auto& a : e.args()) {
          args.push_back(analyze(*a));
          all_const = all_const && args.back().has_value();
        }
        if (fn.order) {  // besselj(n, x): n is part of the instruction, x is the operand
          const int n = checked_bessel_order(e.name(), *e.args()[0], args[0], src_);
          orders_[&e] = n;
          if (args[1]) v = apply_order(op_of(fn.id), n, *args[1]);
          break;
        }
        if (all_const) {
          const Op op = op_of(fn.id);
          v = fn.arity == 1 ? apply1(op, *args[0]) : apply2(op, *args[0], *args[1]);
        }
        break;
      }
    }
    if (v) folded_[&e] = *v;
    return v;
  }

  // Pass 2: postfix code; folded subtrees become one push_const.
  void emit(const Expr& e, ScalarFunction& f, size_t& sp) {
    auto push = [&](Op op, std::uint32_t index, double value) {
      f.code_.push_back({op, index, value});
      f.max_stack_ = std::max(f.max_stack_, ++sp);
    };
    if (auto it = folded_.find(&e); it != folded_.end()) return push(Op::push_const, 0, it->second);
    switch (e.kind()) {
      case Expr::Kind::number:
        DGMAX_ASSERT(false, "unfolded number");
        return;
      case Expr::Kind::variable: {
        const std::uint32_t i = var_index_.at(e.name());
        f.uses_[i] = true;
        return push(Op::push_var, i, 0);
      }
      case Expr::Kind::negate:
        emit(e.operand(), f, sp);
        f.code_.push_back({Op::neg, 0, 0});
        return;
      case Expr::Kind::binary: {
        if (e.op() == BinaryOp::pow) {
          if (auto it = folded_.find(&e.rhs()); it != folded_.end() && it->second == 2.0) {
            emit(e.lhs(), f, sp);
            f.code_.push_back({Op::square, 0, 0});
            return;
          }
        }
        emit(e.lhs(), f, sp);
        emit(e.rhs(), f, sp);
        f.code_.push_back({op_of(e.op()), 0, 0});
        --sp;
        return;
      }
      case Expr::Kind::call: {
        if (auto it = orders_.find(&e); it != orders_.end()) {
          emit(*e.args()[1], f, sp);
          f.code_.push_back({op_of(find_scalar_function(e.name())->id), static_cast<std::uint32_t>(it->second), 0});
          return;
        }
        for (const auto& a : e.args()) emit(*a, f, sp);
        f.code_.push_back({op_of(find_scalar_function(e.name())->id), 0, 0});
        sp -= e.args().size() - 1;
        return;
      }
    }
  }

  // A name used as a value: a variable (no value yet), a constant or pi (value), else an error.
  std::optional<double> resolve_name(const Expr& e) {
    const std::string& name = e.name();
    if (e.side() != Side::none)
      throw error_at(src_, e.offset(),
                     "'" + name + side_suffix(e.side()) +
                         "': sides '.int' and '.ext' are only valid in flux expressions",
                     "write '" + name + "' without '" + side_suffix(e.side()) + "'");
    if (var_index_.count(name)) return std::nullopt;
    if (auto it = ctx_.constants.find(name); it != ctx_.constants.end()) return it->second;
    if (name == "pi") return kPi;
    if (auto it = ctx_.unavailable.find(name); it != ctx_.unavailable.end())
      throw error_at(src_, e.offset(), it->second);
    if (const FunctionInfo* fn = find_scalar_function(name))
      throw error_at(src_, e.offset(), "'" + shown(name) + "' is a function",
                     fn->order ? bessel_usage(name) : "call it with an argument, as in '" + shown(name) + "(x)'");
    if (auto d = flux_only_description(name); !d.empty())
      throw error_at(src_, e.offset(),
                     "'" + shown(name) + "' is " + std::string(d) + ", only available in flux expressions",
                     "available here: " + join_names(value_names(), 30));
    throw error_at(src_, e.offset(), "unknown name '" + shown(name) + "'", unknown_name_hint(name));
  }

  const FunctionInfo& resolve_function(const Expr& e) {
    const std::string& name = e.name();
    const FunctionInfo* fn = find_scalar_function(name);
    if (!fn) {
      const auto values = value_names();
      if (std::find(values.begin(), values.end(), name) != values.end())
        throw error_at(src_, e.offset(), "'" + shown(name) + "' is not a function",
                       "for a product write '" + shown(name) + "*(...)'");
      if (auto d = flux_only_description(name); !d.empty())
        throw error_at(src_, e.offset(),
                       "'" + shown(name) + "' is " + std::string(d) + ", only available in flux expressions");
      const std::string m = closest_match(name, scalar_function_names());
      throw error_at(src_, e.offset(), "unknown function '" + shown(name) + "'",
                     (m.empty() ? "" : "did you mean '" + m + "'? ") + "functions: " +
                         join_names(scalar_function_names(), 30));
    }
    const size_t got = e.args().size();
    if (got != static_cast<size_t>(fn->arity))
      throw error_at(src_, e.offset(),
                     name + " takes " + plural(fn->arity, "argument") + ", got " +
                         std::to_string(got),
                     fn->order ? bessel_usage(name) : "");
    return *fn;
  }

  // Every name usable as a value here, in the order users think of them.
  std::vector<std::string> value_names() const {
    std::vector<std::string> out = ctx_.variables;
    out.push_back("pi");
    for (const auto& [k, v] : ctx_.constants) out.push_back(k);
    return out;
  }

  std::string unknown_name_hint(const std::string& name) const {
    const auto values = value_names();
    const std::string list = "names available here: " + join_names(values, 30);
    if (const std::string m = closest_match(name, values); !m.empty())
      return "did you mean '" + m + "'? (" + list + ")";
    // "sinx": a function name glued to a value name.
    for (const auto& f : scalar_functions()) {
      if (f.arity != 1 || name.size() <= f.name.size() || name.compare(0, f.name.size(), f.name))
        continue;
      const std::string rest = name.substr(f.name.size());
      if (std::find(values.begin(), values.end(), rest) != values.end())
        return "did you mean '" + std::string(f.name) + "(" + rest + ")'? (" + list + ")";
    }
    return list;
  }

  const ScalarContext& ctx_;
  const ExprSource& src_;
  std::unordered_map<std::string, std::uint32_t> var_index_;
  std::unordered_map<const Expr*, double> folded_;
  std::unordered_map<const Expr*, int> orders_;  // calls of besselj/bessely: their order
};

// ---- evaluation ---------------------------------------------------------------------------------

ScalarFunction::ScalarFunction() : code_{{Op::push_const, 0, 0.0}}, canonical_("0") {}

ScalarFunction ScalarFunction::compile(const Expr& ast, const ScalarContext& ctx,
                                       const ExprSource& src) {
  return ScalarCompiler(ctx, src).compile(ast);
}

ScalarFunction compile_scalar(const ExprSource& src, const ScalarContext& ctx) {
  const ExprPtr ast = parse(src);
  return ScalarFunction::compile(*ast, ctx, src);
}

bool ScalarFunction::depends_on(const std::string& var) const {
  for (size_t i = 0; i < variables_.size(); ++i)
    if (variables_[i] == var) return uses_[i];
  return false;
}

bool ScalarFunction::is_constant() const {
  return std::none_of(uses_.begin(), uses_.end(), [](bool u) { return u; });
}

std::string ScalarFunction::canonical() const { return canonical_; }

double ScalarFunction::operator()(const double* vars) const {
  if (code_.size() == 1 && code_[0].op == Op::push_const) return code_[0].value;
  constexpr size_t kLocal = 64;
  double local[kLocal];
  std::unique_ptr<double[]> heap;
  double* s = local;
  if (max_stack_ > kLocal) {
    heap = std::make_unique<double[]>(max_stack_);
    s = heap.get();
  }
  s[0] = 0;       // (the program always writes it; tells the compiler so)
  size_t sp = 0;  // s[sp - 1] is the top
  for (const Instr& in : code_) {
    switch (in.op) {
      case Op::push_const: s[sp++] = in.value; break;
      case Op::push_var: s[sp++] = vars[in.index]; break;
#define DGMAX_DSL_CASE(name, fn)   \
  case Op::name:                   \
    s[sp - 1] = fn(s[sp - 1]);     \
    break;
      DGMAX_DSL_UNARY_OPS(DGMAX_DSL_CASE)
#undef DGMAX_DSL_CASE
#define DGMAX_DSL_CASE(name, fn)             \
  case Op::name:                             \
    s[sp - 2] = fn(s[sp - 2], s[sp - 1]);    \
    --sp;                                    \
    break;
      DGMAX_DSL_BINARY_OPS(DGMAX_DSL_CASE)
#undef DGMAX_DSL_CASE
      case Op::besselj:
      case Op::bessely:
        s[sp - 1] = apply_order(in.op, static_cast<int>(in.index), s[sp - 1]);
        break;
    }
  }
  return s[0];
}

namespace {
// Points per block in eval_batch: large enough to amortize dispatch, small enough that the
// value stack stays in L1 for moderate expressions.
constexpr size_t kBlock = 256;

template <class F>
inline void map1(double* a, size_t m, F f) {
  for (size_t i = 0; i < m; ++i) a[i] = f(a[i]);
}
template <class F>
inline void map2(double* a, const double* b, size_t m, F f) {
  for (size_t i = 0; i < m; ++i) a[i] = f(a[i], b[i]);
}
}  // namespace

void ScalarFunction::eval_batch(size_t n, const double* const* var_arrays, double* out) const {
  if (code_.size() == 1 && code_[0].op == Op::push_const) {
    std::fill(out, out + n, code_[0].value);
    return;
  }
  std::vector<double> stack(max_stack_ * kBlock);  // slot k: stack[k*kBlock ..]
  for (size_t i0 = 0; i0 < n; i0 += kBlock) {
    const size_t m = std::min(kBlock, n - i0);
    size_t sp = 0;  // slots in use
    for (const Instr& in : code_) {
      double* next = stack.data() + sp * kBlock;  // first free slot
      switch (in.op) {
        case Op::push_const:
          std::fill(next, next + m, in.value);
          ++sp;
          break;
        case Op::push_var:
          std::copy(var_arrays[in.index] + i0, var_arrays[in.index] + i0 + m, next);
          ++sp;
          break;
#define DGMAX_DSL_CASE(name, fn)                             \
  case Op::name:                                             \
    map1(next - kBlock, m, [](double x) { return fn(x); });  \
    break;
          DGMAX_DSL_UNARY_OPS(DGMAX_DSL_CASE)
#undef DGMAX_DSL_CASE
#define DGMAX_DSL_CASE(name, fn)                                                         \
  case Op::name:                                                                         \
    map2(next - 2 * kBlock, next - kBlock, m, [](double a, double b) { return fn(a, b); }); \
    --sp;                                                                                \
    break;
          DGMAX_DSL_BINARY_OPS(DGMAX_DSL_CASE)
#undef DGMAX_DSL_CASE
        case Op::besselj:
        case Op::bessely: {
          const Op op = in.op;
          const int order = static_cast<int>(in.index);
          map1(next - kBlock, m, [op, order](double x) { return apply_order(op, order, x); });
          break;
        }
      }
    }
    std::copy(stack.data(), stack.data() + m, out + i0);
  }
}

}  // namespace dgmax::dsl
