#include "codegen/emit/c_expr.hpp"

#include <cmath>

#include "codegen/dsl/ast.hpp"
#include "codegen/dsl/builtins.hpp"
#include "codegen/lower/flux_inputs.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace {

using Op = DagNode::Op;

// C function of a builtin (sign, heaviside, min, max and a non-constant pow exponent are printed
// inline).
const char* c_function(dsl::Builtin fn) {
  using B = dsl::Builtin;
  switch (fn) {
    case B::sin: return "sin";
    case B::cos: return "cos";
    case B::tan: return "tan";
    case B::asin: return "asin";
    case B::acos: return "acos";
    case B::atan: return "atan";
    case B::atan2: return "atan2";
    case B::sinh: return "sinh";
    case B::cosh: return "cosh";
    case B::tanh: return "tanh";
    case B::exp: return "exp";
    case B::log: return "log";
    case B::sqrt: return "sqrt";
    case B::abs: return "fabs";
    case B::pow: return "pow";
    case B::floor: return "floor";
    case B::ceil: return "ceil";
    case B::erf: return "erf";
    case B::besselj: return "dgmax_besselj";  // bessel_c_definitions
    case B::bessely: return "dgmax_bessely";
    case B::sign:
    case B::heaviside:
    case B::min:  // fmin/fmax leave the tie of +0 and -0 open
    case B::max: break;
  }
  DGMAX_ASSERT(false, "builtin without a C function");
}

// A constant as C: digits, '.', 'e', '+', '-' from format_number (never user text), always a
// floating literal ("3" would be an int, "-0" would lose its sign, a long digit string could
// overflow every integer type): real_t(3.0), real_t(-0.0), real_t(0.5), real_t(1e+20).
std::string c_constant(double v, const std::string& type) {
  if (std::isnan(v)) return "(" + type + "(0) / " + type + "(0))";
  if (std::isinf(v)) return v > 0 ? "(" + type + "(1) / " + type + "(0))" : "(" + type + "(-1) / " + type + "(0))";
  std::string s = dsl::format_number(v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return type + "(" + s + ")";
}

class Printer {
 public:
  Printer(const ScalarDag& dag, const CExprStyle& style)
      : dag_(dag), style_(style), name_(dag.nodes().size()) {}

  std::string print() {
    const auto& nodes = dag_.nodes();
    const std::vector<bool> live = dag_.live();
    int next_temp = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (name_leaf(i) || !live[i]) continue;
      define(i, style_.temp_prefix + std::to_string(next_temp++), out_);
    }
    store_outputs(out_);
    return std::move(out_);
  }

  CSplitStatements print_split(const std::vector<bool>& invariant_slot, const std::string& hoist_array) {
    const auto& nodes = dag_.nodes();
    const std::vector<bool> live = dag_.live();
    std::vector<bool> inv(nodes.size(), false);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const DagNode& n = nodes[i];
      if (n.op == Op::input) inv[i] = n.input >= 0 && n.input < (int)invariant_slot.size() && invariant_slot[n.input];
      else if (n.op == Op::constant) inv[i] = true;
      else inv[i] = (n.a < 0 || inv[n.a]) && (n.b < 0 || inv[n.b]);
    }
    // invariant values the variant part (or an output) reads
    std::vector<bool> needed(nodes.size(), false);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const DagNode& n = nodes[i];
      if (!live[i] || inv[i] || n.op == Op::input || n.op == Op::constant) continue;
      if (n.a >= 0 && inv[n.a]) needed[n.a] = true;
      if (n.b >= 0 && inv[n.b]) needed[n.b] = true;
    }
    for (int o : dag_.outputs)
      if (inv[o]) needed[o] = true;
    CSplitStatements r;
    int next_inv = 0, next_var = 0;
    // first the invariant operations, then the stores of the values the rest reads
    for (size_t i = 0; i < nodes.size(); ++i)
      if (!name_leaf(i) && live[i] && inv[i]) define(i, "h" + style_.temp_prefix + std::to_string(next_inv++), r.invariant);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const DagNode& n = nodes[i];
      if (!needed[i] || n.op == Op::constant) continue;
      const std::string h = hoist_array + "[" + std::to_string(r.hoisted++) + "]" + style_.lane_index;
      r.invariant += style_.indent + h + " = " + name_[i] + ";";
      if (n.op == Op::input) r.invariant += "  // " + std::string(label(n.input));
      r.invariant += "\n";
      name_[i] = h;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      const DagNode& n = nodes[i];
      if (n.op == Op::input || n.op == Op::constant || !live[i] || inv[i]) continue;
      define(i, style_.temp_prefix + std::to_string(next_var++), r.variant);
    }
    store_outputs(r.variant);
    return r;
  }

 private:
  // How input slot `slot` is read, before the lane index.
  std::string input_row(int slot) const {
    if (slot < static_cast<int>(style_.input_rows.size()) && !style_.input_rows[slot].empty())
      return style_.input_rows[slot];
    return style_.input_array + "[" + std::to_string(slot) + "]";
  }
  // Names node i when it is an input or a constant (no statement needed); true then.
  bool name_leaf(size_t i) {
    const DagNode& n = dag_.nodes()[i];
    if (n.op == Op::input) name_[i] = input_row(n.input) + style_.lane_index;
    else if (n.op == Op::constant) name_[i] = c_constant(n.value, style_.type);
    else return false;
    return true;
  }
  // `const T t = <operation i>;` (with the operation on named inputs as a comment), onto out.
  void define(size_t i, const std::string& t, std::string& out) {
    const DagNode& n = dag_.nodes()[i];
    out += style_.indent + "const " + style_.type + " " + t + " = " + rhs(n, false) + ";";
    if (reads_input(n)) out += "  // " + rhs(n, true);
    out += "\n";
    name_[i] = t;
  }
  // out[k] = the k-th output, onto out.
  void store_outputs(std::string& out) const {
    const auto& nodes = dag_.nodes();
    for (size_t k = 0; k < dag_.outputs.size(); ++k) {
      const int o = dag_.outputs[k];
      out += style_.indent + style_.output_array + "[" + std::to_string(k) + "]" + style_.lane_index + " = " + name_[o] + ";";
      if (nodes[o].op == Op::input) out += "  // " + std::string(label(nodes[o].input));
      out += "\n";
    }
  }
  bool reads_input(const DagNode& n) const {
    const auto& nodes = dag_.nodes();
    return (n.a >= 0 && nodes[n.a].op == Op::input) || (n.b >= 0 && nodes[n.b].op == Op::input);
  }

  // An operand as C, or in readable form for comments (inputs by label, constants as numbers).
  std::string operand(int id, bool readable) const {
    const DagNode& n = dag_.nodes()[id];
    if (readable && n.op == Op::input) return label(n.input);
    if (readable && n.op == Op::constant) return dsl::format_number(n.value);
    return name_[id];
  }

  const char* label(int slot) const { return style_.input_label ? style_.input_label(slot) : flux_input_label(slot); }

  static std::string dsl_name(dsl::Builtin fn) {
    for (const auto& f : dsl::scalar_functions())
      if (f.id == fn) return std::string(f.name);
    DGMAX_ASSERT(false, "builtin without a name");
  }

  std::string fn(const char* name) const { return (style_.cuda ? "" : "std::") + std::string(name); }

  std::string rhs(const DagNode& n, bool readable) const {
    const std::string a = n.a >= 0 ? operand(n.a, readable) : "";
    const std::string b = n.b >= 0 ? operand(n.b, readable) : "";
    const std::string& T = style_.type;
    if (readable && n.op == Op::call1 && dsl::takes_order(n.fn))
      return dsl_name(n.fn) + "(" + std::to_string(n.order) + ", " + a + ")";
    if (readable && n.op == Op::call1) return dsl_name(n.fn) + "(" + a + ")";
    if (readable && n.op == Op::call2) return dsl_name(n.fn) + "(" + a + ", " + b + ")";
    switch (n.op) {
      case Op::add: return a + " + " + b;
      case Op::sub: return a + " - " + b;
      case Op::mul: return a + " * " + b;
      case Op::div: return a + " / " + b;
      case Op::neg: return "-" + a;
      case Op::call1:
        if (n.fn == dsl::Builtin::sign)
          return a + " > " + T + "(0) ? " + T + "(1) : " + a + " < " + T + "(0) ? " + T + "(-1) : " + a;
        if (n.fn == dsl::Builtin::heaviside)
          return a + " < " + T + "(0) ? " + T + "(0) : " + a + " >= " + T + "(0) ? " + T + "(1) : " + a;
        if (dsl::takes_order(n.fn))  // the kernel's own function (bessel_c_definitions), no std::
          return std::string(c_function(n.fn)) + "(" + std::to_string(n.order) + ", " + a + ")";
        return fn(c_function(n.fn)) + "(" + a + ")";
      case Op::call2:
        // pow(x, 2) with a constant 2 is x*x already; a variable exponent is tested like the
        // interpreter does (b == 2 ? a*a : pow(a, b)).
        if (n.fn == dsl::Builtin::pow && dag_.nodes()[n.b].op != Op::constant)
          return b + " == " + T + "(2) ? " + a + " * " + a + " : " + fn("pow") + "(" + a + ", " + b + ")";
        // as fn_min/fn_max in codegen/lower/scalar_dag.cpp: a NaN gives the other operand, -0 < +0
        if (n.fn == dsl::Builtin::min)
          return a + " < " + b + " || (" + a + " == " + b + " && " + fn("signbit") + "(" + a + ")) || " + b +
                 " != " + b + " ? " + a + " : " + b;
        if (n.fn == dsl::Builtin::max)
          return a + " > " + b + " || (" + a + " == " + b + " && !" + fn("signbit") + "(" + a + ")) || " + b +
                 " != " + b + " ? " + a + " : " + b;
        return fn(c_function(n.fn)) + "(" + a + ", " + b + ")";
      case Op::input:
      case Op::constant: break;
    }
    DGMAX_ASSERT(false, "not an operation node");
  }

  const ScalarDag& dag_;
  const CExprStyle& style_;
  std::vector<std::string> name_;  // how each node is referred to in C
  std::string out_;
};

}  // namespace

bool uses_bessel(const ScalarDag& dag) {
  const std::vector<bool> live = dag.live();
  for (size_t i = 0; i < dag.nodes().size(); ++i)
    if (live[i] && dag.nodes()[i].op == Op::call1 && dsl::takes_order(dag.nodes()[i].fn)) return true;
  return false;
}

std::string bessel_c_definitions(bool cuda) {
  // The definitions of dsl::bessel_j and dsl::bessel_y (codegen/dsl/bessel.cpp), in double
  // precision whatever real_t is. Host: libstdc++ refuses x < 0 in cyl_bessel_j (J_n(-x) =
  // (-1)^n J_n(x) covers it) and throws from cyl_neumann below x ~ 1e-306 (an exception must not
  // leave a kernel). CUDA: jn and yn of the CUDA math API (yn is NaN for x < 0 as well).
  if (cuda)
    return R"(// besselj(n, x), bessely(n, x) of the expressions (the CUDA math API's jn, yn).
DGMAX_FN double dgmax_besselj(int n, double x) {
  const double j = jn(n, fabs(x));
  return x < 0 && n % 2 != 0 ? -j : j;
}
DGMAX_FN double dgmax_bessely(int n, double x) { return x < 0 ? nan("") : yn(n, x); }

)";
  return R"(// besselj(n, x), bessely(n, x) of the expressions (C++17 special functions, as dgmax itself).
DGMAX_FN double dgmax_besselj(int n, double x) {
  const double j = std::cyl_bessel_j(n, std::fabs(x));
  return x < 0 && n % 2 != 0 ? -j : j;
}
DGMAX_FN double dgmax_bessely(int n, double x) {
  if (x < 0) return std::nan("");
  try {
    return std::cyl_neumann(n, x);
  } catch (...) {
    return std::nan("");
  }
}

)";
}

std::string emit_c_statements(const ScalarDag& dag, const CExprStyle& style) {
  return Printer(dag, style).print();
}

CSplitStatements emit_c_statements_split(const ScalarDag& dag, const CExprStyle& style,
                                         const std::vector<bool>& invariant_slot, const std::string& hoist_array) {
  return Printer(dag, style).print_split(invariant_slot, hoist_array);
}

}  // namespace dgmax::codegen
