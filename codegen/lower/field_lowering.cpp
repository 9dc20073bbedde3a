#include "codegen/lower/field_lowering.hpp"

#include <optional>

#include "codegen/dsl/ast.hpp"
#include "codegen/dsl/bessel.hpp"
#include "codegen/dsl/builtins.hpp"
#include "codegen/dsl/parser.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace {

using dsl::BinaryOp;
using dsl::Expr;

class FieldLowerer {
 public:
  FieldLowerer(const std::map<std::string, double>& constants, ScalarDag& dag, const dsl::ExprSource& src)
      : constants_(constants), dag_(dag), src_(src) {}

  int lower(const Expr& e) {
    switch (e.kind()) {
      case Expr::Kind::number: return dag_.constant(e.value());
      case Expr::Kind::variable: return name(e);
      case Expr::Kind::negate: return dag_.neg(lower(e.operand()));
      case Expr::Kind::binary: {
        const int a = lower(e.lhs()), b = lower(e.rhs());
        switch (e.op()) {
          case BinaryOp::add: return dag_.add(a, b);
          case BinaryOp::sub: return dag_.sub(a, b);
          case BinaryOp::mul: return dag_.mul(a, b);
          case BinaryOp::div: return dag_.div(a, b);
          case BinaryOp::pow: return dag_.call(dsl::Builtin::pow, a, b);
        }
        break;
      }
      case Expr::Kind::call: return call(e);
    }
    DGMAX_ASSERT(false, "unknown expression kind");
  }

  bool reads_time = false;

 private:
  int name(const Expr& e) {
    const std::string& n = e.name();
    if (e.side() != dsl::Side::none)
      throw dsl::error_at(src_, e.offset(),
                          "'" + dsl::quote_for_message(n, 40) + dsl::side_suffix(e.side()) +
                              "': sides exist only in flux expressions",
                          "write '" + dsl::quote_for_message(n, 40) + "'");
    static const char* const kVars[] = {"x", "y", "z", "t"};
    for (int i = 0; i < kNumFieldInputs; ++i)
      if (n == kVars[i]) {
        if (i == kFieldT) reads_time = true;
        return dag_.input(i);
      }
    if (const auto it = constants_.find(n); it != constants_.end()) return dag_.constant(it->second);
    if (n == "pi") return dag_.constant(dsl::kPi);
    throw dsl::error_at(src_, e.offset(), "unknown name '" + dsl::quote_for_message(n, 40) + "'", "names available here: x, y, z, t, pi and the constants");
  }

  int call(const Expr& e) {
    const dsl::FunctionInfo* f = dsl::find_scalar_function(e.name());
    if (!f) throw dsl::error_at(src_, e.offset(), "unknown function '" + dsl::quote_for_message(e.name(), 40) + "'");
    if (static_cast<int>(e.args().size()) != f->arity)
      throw dsl::error_at(src_, e.offset(), "'" + e.name() + "' takes " + std::to_string(f->arity) + " argument" +
                                                (f->arity == 1 ? "" : "s") + ", got " + std::to_string(e.args().size()),
                          f->order ? dsl::bessel_usage(e.name()) : "");
    if (f->order) {  // besselj(n, x): n must fold to a constant (the interpreter's check)
      const int n = lower(*e.args()[0]), x = lower(*e.args()[1]);
      const DagNode& nn = dag_.nodes()[n];
      const std::optional<double> value = nn.op == DagNode::Op::constant ? std::optional<double>(nn.value) : std::nullopt;
      return dag_.call_order(f->id, dsl::checked_bessel_order(e.name(), *e.args()[0], value, src_), x);
    }
    if (f->arity == 1) return dag_.call(f->id, lower(*e.args()[0]));
    const int a = lower(*e.args()[0]), b = lower(*e.args()[1]);
    return dag_.call(f->id, a, b);
  }

  const std::map<std::string, double>& constants_;
  ScalarDag& dag_;
  const dsl::ExprSource& src_;
};

}  // namespace

const char* field_input_label(int slot) {
  static const char* const kLabels[] = {"x", "y", "z", "t"};
  return slot >= 0 && slot < kNumFieldInputs ? kLabels[slot] : "?";
}

LoweredField lower_field(const std::vector<dsl::ExprSource>& components, const std::map<std::string, double>& constants) {
  LoweredField out;
  for (const dsl::ExprSource& src : components) {
    if (src.text.find_first_not_of(" \t") == std::string::npos) {
      out.dag.outputs.push_back(out.dag.constant(0.0));
      out.texts.push_back("0");
      continue;
    }
    const dsl::ExprPtr ast = dsl::parse(src);
    FieldLowerer lowerer(constants, out.dag, src);
    out.dag.outputs.push_back(lowerer.lower(*ast));
    out.reads_time = out.reads_time || lowerer.reads_time;
    out.texts.push_back(dsl::to_string(*ast));
  }
  out.dag = out.dag.pruned();
  return out;
}

}  // namespace dgmax::codegen
