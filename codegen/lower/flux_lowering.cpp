#include "codegen/lower/flux_lowering.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "codegen/dsl/ast.hpp"
#include "codegen/dsl/bessel.hpp"
#include "codegen/dsl/builtins.hpp"
#include "codegen/dsl/parser.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax::codegen {
namespace {

using dsl::BinaryOp;
using dsl::Expr;
using dsl::Side;

// A lowered subexpression: a scalar (c[0]) or a 3-vector (c[0..2]) of DAG node ids.
struct Value {
  bool vector = false;
  std::array<int, 3> c{-1, -1, -1};
};

struct Field {
  const char* name;
  int int_slot, ext_slot;
};
constexpr std::array<Field, 2> kFields{{{"E", kEint, kEext}, {"H", kHint, kHext}}};
constexpr std::array<Field, 4> kMaterials{
    {{"eps", kEpsInt, kEpsExt}, {"mu", kMuInt, kMuExt}, {"Z", kZInt, kZExt}, {"Y", kYInt, kYExt}}};
constexpr std::array<const char*, 3> kVectorFunctions{"dot", "cross", "norm"};
constexpr std::array<const char*, 2> kTraceFunctions{"jump", "avg"};

const Field* find(const auto& table, const std::string& name) {
  for (const Field& f : table)
    if (name == f.name) return &f;
  return nullptr;
}


const char* kind_name(const Value& v) { return v.vector ? "a 3-vector" : "a scalar"; }

class FluxLowerer {
 public:
  FluxLowerer(const FluxScope& scope, ScalarDag& dag) : scope_(scope), dag_(dag) {}

  // Lowers `ast` (parsed from `src`); `what` names the result in messages ("E flux").
  std::array<int, 3> lower_vector(const Expr& ast, const dsl::ExprSource& src, const std::string& what) {
    src_ = &src;
    const Value v = lower(ast);
    if (!v.vector)
      throw error(ast, "the " + what + " must be a 3-vector, got a scalar",
                  "it gives the x, y and z components: combine scalars with vectors, as in "
                  "'a*n' or 'cross(n, E.int)'");
    return v.c;
  }

 private:
  bool exterior() const { return scope_.context == FluxContext::Exterior; }

  UserError error(const Expr& e, const std::string& message, std::string hint = {}) const {
    return dsl::error_at(*src_, e.offset(), message, std::move(hint));
  }

  Value scalar(int id) const {
    Value v;
    v.c[0] = id;
    return v;
  }
  Value vector_input(int slot) {
    Value v;
    v.vector = true;
    for (int i = 0; i < 3; ++i) v.c[i] = dag_.input(slot + i);
    return v;
  }

  // ---- the walk --------------------------------------------------------------------------------

  Value lower(const Expr& e) {
    switch (e.kind()) {
      case Expr::Kind::number: return scalar(dag_.constant(e.value()));
      case Expr::Kind::variable: return name(e);
      case Expr::Kind::negate: {
        Value v = lower(e.operand());
        for (int i = 0; i < (v.vector ? 3 : 1); ++i) v.c[i] = dag_.neg(v.c[i]);
        return v;
      }
      case Expr::Kind::binary: return binary(e);
      case Expr::Kind::call: return call(e);
    }
    DGMAX_ASSERT(false, "unknown expression kind");
  }

  Value binary(const Expr& e) {
    const Value a = lower(e.lhs());
    const Value b = lower(e.rhs());
    const std::string sym = dsl::op_symbol(e.op());
    switch (e.op()) {
      case BinaryOp::add:
      case BinaryOp::sub: {
        if (a.vector != b.vector)
          throw error(e, "'" + sym + "' needs two scalars or two 3-vectors, got " + kind_name(a) +
                             " and " + kind_name(b),
                      "a scalar cannot be " + std::string(e.op() == BinaryOp::add ? "added to" : "subtracted from") +
                          " a vector component-wise; scale a vector instead, as in 'a*n'");
        Value r = a;
        for (int i = 0; i < (a.vector ? 3 : 1); ++i)
          r.c[i] = e.op() == BinaryOp::add ? dag_.add(a.c[i], b.c[i]) : dag_.sub(a.c[i], b.c[i]);
        return r;
      }
      case BinaryOp::mul: {
        if (a.vector && b.vector)
          throw error(e, "cannot multiply two 3-vectors with '*'",
                      "use dot(a, b) for the scalar product or cross(a, b) for the vector product");
        if (!a.vector && !b.vector) return scalar(dag_.mul(a.c[0], b.c[0]));
        Value r;
        r.vector = true;
        for (int i = 0; i < 3; ++i)
          r.c[i] = a.vector ? dag_.mul(a.c[i], b.c[0]) : dag_.mul(a.c[0], b.c[i]);
        return r;
      }
      case BinaryOp::div: {
        if (b.vector)
          throw error(e, "cannot divide by a 3-vector",
                      "only a scalar or a 3-vector divided by a scalar is defined");
        Value r = a;
        for (int i = 0; i < (a.vector ? 3 : 1); ++i) r.c[i] = dag_.div(a.c[i], b.c[0]);
        return r;
      }
      case BinaryOp::pow:
        if (a.vector || b.vector)
          throw error(e, std::string("'^' needs scalars, got a 3-vector as the ") +
                             (a.vector ? "base" : "exponent"),
                      "for the squared length of a vector v write dot(v, v)");
        return scalar(dag_.call(dsl::Builtin::pow, a.c[0], b.c[0]));
    }
    DGMAX_ASSERT(false, "unknown binary operator");
  }

  // ---- names -----------------------------------------------------------------------------------

  Value name(const Expr& e) {
    const std::string& name = e.name();
    const Side side = e.side();
    const std::string written = name + dsl::side_suffix(side);
    if (const Field* f = find(kFields, name)) {
      if (side == Side::none)
        throw error(e, "'" + name + "' needs a side: write " + sides(name),
                    exterior() ? "an exterior state is computed from the interior trace '" + name + ".int'"
                               : "only jump(" + name + ") and avg(" + name + ") take the bare name");
      if (side == Side::exterior && exterior())
        throw error(e, "'" + written + "': exterior traces are what a boundary condition defines; use E.int/H.int");
      return vector_input(side == Side::interior ? f->int_slot : f->ext_slot);
    }
    if (const Field* m = find(kMaterials, name)) {
      if (side == Side::none) {
        std::string hint = exterior() ? "a boundary face has only the interior material: '" + name + ".int'"
                                      : "'" + name + ".int' is the interior material's value, '" + name +
                                            ".ext' the exterior one";
        if (scope_.constants.count(name))
          hint = "the constant '" + name + "' is hidden by the material parameter in flux "
                 "expressions; rename the constant";
        throw error(e, "'" + name + "' needs a side: write " + sides(name), hint);
      }
      if (side == Side::exterior && exterior())
        throw error(e, "'" + written + "': a boundary has no exterior material; use " + name + ".int");
      return scalar(dag_.input(side == Side::interior ? m->int_slot : m->ext_slot));
    }
    if (name == "n") {
      if (side != Side::none)
        throw error(e, "'" + written + "': the normal takes no side",
                    "write 'n', the outward unit normal of the interior element");
      Value v = vector_input(kNormal);
      return v;
    }
    if (exterior() && (name == "Einc" || name == "Hinc")) {
      if (side != Side::none)
        throw error(e, "'" + written + "': the incident field takes no side", "write '" + name + "'");
      return vector_input(name == "Einc" ? kEinc : kHinc);
    }
    std::optional<double> value;
    if (auto it = scope_.constants.find(name); it != scope_.constants.end()) value = it->second;
    else if (name == "pi") value = dsl::kPi;
    if (value) {
      if (side != Side::none)
        throw error(e, "'" + written + "': '" + name + "' is a constant and takes no side",
                    "sides apply to fields and materials (E, H, eps, mu, Z, Y); write '" + name + "'");
      return scalar(dag_.constant(*value));
    }
    // Errors: a name that exists elsewhere, a function used as a value, or unknown.
    if (!exterior() && (name == "Einc" || name == "Hinc"))
      throw error(e, "'" + name + "' is only available in boundary exterior states",
                  "names available here: " + join_names(value_names()));
    if (is_function(name))
      throw error(e, "'" + name + "' is a function",
                  "call it with arguments, as in '" + example_call(name) + "'");
    std::string hint = "names available here: " + join_names(value_names());
    // (one-letter names are all one edit apart: no evidence of a typo, no suggestion)
    const std::string m = name.size() > 1 ? closest_match(name, bare_value_names()) : "";
    if (const std::string glued = unglued_side(name); !glued.empty() && side == Side::none) {
      hint = "did you mean '" + glued + "'? (" + hint + ")";
    } else if (!m.empty()) {
      const bool sided = find(kFields, m) || find(kMaterials, m);
      const Side s = side == Side::none || exterior() ? Side::interior : side;  // a valid spelling
      hint = "did you mean '" + m + (sided ? dsl::side_suffix(s) : "") + "'? (" + hint + ")";
    } else if (name == "alpha") {
      hint = "the 'alpha' flux reads the constant 'alpha' (0: central, 1: upwind); define it (" + hint + ")";
    }
    throw error(e, "unknown name '" + name + "'", hint);
  }

  // "Hext", "E_int" → "H.ext", "E.int"; "" when `name` is not a field or material glued to a side.
  static std::string unglued_side(const std::string& name) {
    for (const char* suffix : {"int", "ext"}) {
      if (name.size() <= 3 || name.compare(name.size() - 3, 3, suffix) != 0) continue;
      std::string base = name.substr(0, name.size() - 3);
      if (base.size() > 1 && base.back() == '_') base.pop_back();
      if (find(kFields, base) || find(kMaterials, base)) return base + "." + suffix;
    }
    return "";
  }

  std::string sides(const std::string& name) const {
    return exterior() ? name + ".int" : name + ".int or " + name + ".ext";
  }

  // Names usable as values here, as users write them.
  std::vector<std::string> value_names() const {
    std::vector<std::string> out;
    for (const Field& f : kFields) {
      out.push_back(std::string(f.name) + ".int");
      if (!exterior()) out.push_back(std::string(f.name) + ".ext");
    }
    out.push_back("n");
    for (const Field& m : kMaterials) {
      out.push_back(std::string(m.name) + ".int");
      if (!exterior()) out.push_back(std::string(m.name) + ".ext");
    }
    if (exterior()) {
      out.push_back("Einc");
      out.push_back("Hinc");
    }
    out.push_back("pi");
    for (const auto& [k, v] : scope_.constants)
      if (!find(kMaterials, k) && !(exterior() && (k == "Einc" || k == "Hinc"))) out.push_back(k);
    return out;
  }

  std::vector<std::string> bare_value_names() const {
    std::vector<std::string> out;
    for (const Field& f : kFields) out.push_back(f.name);
    out.push_back("n");
    for (const Field& m : kMaterials) out.push_back(m.name);
    if (exterior()) {
      out.push_back("Einc");
      out.push_back("Hinc");
    }
    out.push_back("pi");
    for (const auto& [k, v] : scope_.constants) out.push_back(k);
    return out;
  }

  // ---- calls -----------------------------------------------------------------------------------

  std::vector<std::string> function_names() const {
    std::vector<std::string> out;
    if (!exterior())
      for (const char* f : kTraceFunctions) out.push_back(f);
    for (const char* f : kVectorFunctions) out.push_back(f);
    for (const auto& f : dsl::scalar_function_names()) out.push_back(f);
    return out;
  }

  bool is_function(const std::string& name) const {
    const auto all = function_names();
    return std::find(all.begin(), all.end(), name) != all.end() ||
           std::find(kTraceFunctions.begin(), kTraceFunctions.end(), name) != kTraceFunctions.end();
  }

  static std::string example_call(const std::string& name) {
    if (name == "jump" || name == "avg") return name + "(E)";
    if (name == "dot" || name == "cross") return name + "(n, E.int)";
    if (name == "norm") return "norm(E.int)";
    const dsl::FunctionInfo* f = dsl::find_scalar_function(name);
    if (f && f->order) return name + "(1, x)";
    return name + (f && f->arity == 2 ? "(a, b)" : "(x)");
  }

  void check_arity(const Expr& e, size_t arity) const {
    const size_t got = e.args().size();
    if (got != arity)
      throw error(e, e.name() + " takes " + plural(arity, "argument") + ", got " + std::to_string(got),
                  "as in '" + example_call(e.name()) + "'");
  }

  Value call(const Expr& e) {
    const std::string& name = e.name();
    if (name == "jump" || name == "avg") return trace_function(e);
    if (name == "dot" || name == "cross" || name == "norm") {
      const size_t arity = name == "norm" ? 1 : 2;
      check_arity(e, arity);
      const Value a = lower(*e.args()[0]);
      if (arity == 1) {
        if (!a.vector) throw error(e, "norm expects a 3-vector, got a scalar", "for a scalar use abs(x)");
        const int d = dot(a, a);
        return scalar(dag_.call(dsl::Builtin::sqrt, d));
      }
      const Value b = lower(*e.args()[1]);
      for (int i = 0; i < 2; ++i)
        if (!(i == 0 ? a : b).vector)
          throw error(e, name + " expects two 3-vectors, got a scalar as argument " + std::to_string(i + 1));
      if (name == "dot") return scalar(dot(a, b));
      Value r;
      r.vector = true;
      for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;  // (a×b)_i = a_j b_k − a_k b_j
        // (one statement per node: argument evaluation order would make the node order, and so
        // the emitted code, depend on the compiler)
        const int p = dag_.mul(a.c[j], b.c[k]);
        const int q = dag_.mul(a.c[k], b.c[j]);
        r.c[i] = dag_.sub(p, q);
      }
      return r;
    }
    const dsl::FunctionInfo* fn = dsl::find_scalar_function(name);
    if (!fn) unknown_function(e);
    check_arity(e, static_cast<size_t>(fn->arity));
    std::vector<Value> args;
    for (const auto& a : e.args()) args.push_back(lower(*a));
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].vector)
        throw error(e, fn->arity == 1 ? name + " expects a scalar, got a 3-vector"
                                      : name + " expects scalars, got a 3-vector as argument " +
                                            std::to_string(i + 1),
                    "apply it to a component-free scalar such as dot(n, E.int) or norm(E.int)");
    if (fn->order) {  // besselj(n, x): n must fold to a constant
      const DagNode& n = dag_.nodes()[args[0].c[0]];
      const std::optional<double> value = n.op == DagNode::Op::constant ? std::optional<double>(n.value) : std::nullopt;
      return scalar(dag_.call_order(fn->id, dsl::checked_bessel_order(name, *e.args()[0], value, *src_), args[1].c[0]));
    }
    return scalar(fn->arity == 1 ? dag_.call(fn->id, args[0].c[0])
                                 : dag_.call(fn->id, args[0].c[0], args[1].c[0]));
  }

  // jump(u) = u.int − u.ext, avg(u) = (u.int + u.ext)/2, u a field or material name.
  Value trace_function(const Expr& e) {
    const std::string& name = e.name();
    if (exterior())
      throw error(e, name + "() is only available in numerical fluxes",
                  "an exterior state is computed from the interior trace: use E.int, H.int");
    check_arity(e, 1);
    const Expr& arg = *e.args()[0];
    const std::string usage = "as in '" + name + "(E)': the argument is a field or material name "
                              "(E, H, eps, mu, Z, Y)";
    if (arg.kind() != Expr::Kind::variable ||
        !(find(kFields, arg.name()) || find(kMaterials, arg.name())))
      throw dsl::error_at(*src_, arg.offset(),
                          name + " expects a field or material name (E, H, eps, mu, Z, Y)", usage);
    if (arg.side() != Side::none)
      throw dsl::error_at(*src_, arg.offset(),
                          name + " takes the bare name: write '" + name + "(" + arg.name() +
                              ")', not '" + name + "(" + arg.name() + dsl::side_suffix(arg.side()) + ")'",
                          "'" + name + "(" + arg.name() + ")' reads both traces " + arg.name() +
                              ".int and " + arg.name() + ".ext");
    const Field* f = find(kFields, arg.name());
    const bool vec = f != nullptr;
    if (!f) f = find(kMaterials, arg.name());
    Value r;
    r.vector = vec;
    for (int i = 0; i < (vec ? 3 : 1); ++i) {
      const int in = dag_.input(f->int_slot + i), ex = dag_.input(f->ext_slot + i);
      if (name == "jump") {
        r.c[i] = dag_.sub(in, ex);
      } else {
        const int sum = dag_.add(in, ex);
        r.c[i] = dag_.div(sum, dag_.constant(2.0));
      }
    }
    return r;
  }

  int dot(const Value& a, const Value& b) {
    const int p0 = dag_.mul(a.c[0], b.c[0]);
    const int p1 = dag_.mul(a.c[1], b.c[1]);
    const int s01 = dag_.add(p0, p1);
    const int p2 = dag_.mul(a.c[2], b.c[2]);
    return dag_.add(s01, p2);
  }

  [[noreturn]] void unknown_function(const Expr& e) const {
    const std::string& name = e.name();
    if (find(kFields, name) || find(kMaterials, name) || name == "n" || name == "pi" ||
        scope_.constants.count(name) || (exterior() && (name == "Einc" || name == "Hinc")))
      throw error(e, "'" + name + "' is not a function", "for a product write '" + name + "*(...)'");
    if (!exterior() && (name == "Einc" || name == "Hinc"))
      throw error(e, "'" + name + "' is only available in boundary exterior states");
    const auto fns = function_names();
    const std::string m = closest_match(name, fns);
    throw error(e, "unknown function '" + name + "'",
                (m.empty() ? "" : "did you mean '" + m + "'? ") + "functions: " + join_names(fns));
  }

  const FluxScope& scope_;
  ScalarDag& dag_;
  const dsl::ExprSource* src_ = nullptr;
};

}  // namespace

LoweredFlux lower_flux(const dsl::ExprSource& E, const dsl::ExprSource& H, const FluxScope& scope) {
  const char* what = scope.context == FluxContext::Flux ? "flux" : "exterior state";
  ScalarDag dag;
  FluxLowerer lowerer(scope, dag);
  // E first, completely: its errors come before any of H's.
  const dsl::ExprPtr e_ast = dsl::parse(E);
  const auto e = lowerer.lower_vector(*e_ast, E, std::string("E ") + what);
  const dsl::ExprPtr h_ast = dsl::parse(H);
  const auto h = lowerer.lower_vector(*h_ast, H, std::string("H ") + what);
  dag.outputs.assign(e.begin(), e.end());
  dag.outputs.insert(dag.outputs.end(), h.begin(), h.end());
  LoweredFlux out;
  out.dag = dag.pruned();
  out.E_text = dsl::to_string(*e_ast);
  out.H_text = dsl::to_string(*h_ast);
  return out;
}

}  // namespace dgmax::codegen
