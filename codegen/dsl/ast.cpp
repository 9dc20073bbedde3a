#include "codegen/dsl/ast.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "solver/util/error.hpp"

namespace dgmax::dsl {

// ---- construction -----------------------------------------------------------------------------

ExprPtr Expr::make_number(double value, size_t offset) {
  auto* e = new Expr(Kind::number, offset);
  e->value_ = value;
  return ExprPtr(e);
}

ExprPtr Expr::make_variable(std::string name, Side side, size_t offset) {
  auto* e = new Expr(Kind::variable, offset);
  e->name_ = std::move(name);
  e->side_ = side;
  return ExprPtr(e);
}

ExprPtr Expr::make_negate(ExprPtr operand, size_t offset) {
  DGMAX_ASSERT(operand, "negate of null");
  auto* e = new Expr(Kind::negate, offset);
  e->depth_ = operand->depth() + 1;
  e->children_.push_back(std::move(operand));
  return ExprPtr(e);
}

ExprPtr Expr::make_binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, size_t offset) {
  DGMAX_ASSERT(lhs && rhs, "binary with null operand");
  auto* e = new Expr(Kind::binary, offset);
  e->op_ = op;
  e->depth_ = std::max(lhs->depth(), rhs->depth()) + 1;
  e->children_.push_back(std::move(lhs));
  e->children_.push_back(std::move(rhs));
  return ExprPtr(e);
}

ExprPtr Expr::make_call(std::string name, std::vector<ExprPtr> args, size_t offset) {
  auto* e = new Expr(Kind::call, offset);
  e->name_ = std::move(name);
  for (const auto& a : args) {
    DGMAX_ASSERT(a, "call with null argument");
    e->depth_ = std::max(e->depth_, a->depth() + 1);
  }
  e->children_ = std::move(args);
  return ExprPtr(e);
}

// ---- accessors (checked: asking a node for what it does not have is a bug) -------------------

double Expr::value() const {
  DGMAX_ASSERT(kind_ == Kind::number, "value() of a non-number");
  return value_;
}
const std::string& Expr::name() const {
  DGMAX_ASSERT(kind_ == Kind::variable || kind_ == Kind::call, "name() of an unnamed node");
  return name_;
}
Side Expr::side() const {
  DGMAX_ASSERT(kind_ == Kind::variable, "side() of a non-variable");
  return side_;
}
BinaryOp Expr::op() const {
  DGMAX_ASSERT(kind_ == Kind::binary, "op() of a non-binary node");
  return op_;
}
const Expr& Expr::operand() const {
  DGMAX_ASSERT(kind_ == Kind::negate, "operand() of a non-negation");
  return *children_[0];
}
const Expr& Expr::lhs() const {
  DGMAX_ASSERT(kind_ == Kind::binary, "lhs() of a non-binary node");
  return *children_[0];
}
const Expr& Expr::rhs() const {
  DGMAX_ASSERT(kind_ == Kind::binary, "rhs() of a non-binary node");
  return *children_[1];
}
const std::vector<ExprPtr>& Expr::args() const {
  DGMAX_ASSERT(kind_ == Kind::call, "args() of a non-call");
  return children_;
}

// ---- printing ---------------------------------------------------------------------------------

const char* op_symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return "+";
    case BinaryOp::sub: return "-";
    case BinaryOp::mul: return "*";
    case BinaryOp::div: return "/";
    case BinaryOp::pow: return "^";
  }
  return "?";
}

const char* side_suffix(Side side) {
  switch (side) {
    case Side::none: return "";
    case Side::interior: return ".int";
    case Side::exterior: return ".ext";
  }
  return "";
}

std::string format_number(double value) {
  if (std::isnan(value)) return "(0/0)";
  if (std::isinf(value)) return value > 0 ? "(1/0)" : "(-1/0)";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);  // shortest round trip
  DGMAX_ASSERT(res.ec == std::errc(), "to_chars");
  return std::string(buf, res.ptr);
}

namespace {

// Binding strength, weakest first; mirrors the parser's grammar.
enum Prec { kAdd = 1, kMul = 2, kUnary = 3, kPow = 4, kAtom = 5 };

int prec(const Expr& e) {
  switch (e.kind()) {
    case Expr::Kind::number:  // a negative value (only from folding) prints as a negation
      return std::isfinite(e.value()) && std::signbit(e.value()) ? kUnary : kAtom;
    case Expr::Kind::variable:
    case Expr::Kind::call: return kAtom;
    case Expr::Kind::negate: return kUnary;
    case Expr::Kind::binary:
      switch (e.op()) {
        case BinaryOp::add:
        case BinaryOp::sub: return kAdd;
        case BinaryOp::mul:
        case BinaryOp::div: return kMul;
        case BinaryOp::pow: return kPow;
      }
  }
  return kAtom;
}

class Printer {
 public:
  explicit Printer(PrintStyle style) : full_(style == PrintStyle::full_parens) {}

  void print(const Expr& e) {
    switch (e.kind()) {
      case Expr::Kind::number: {
        const std::string s = format_number(e.value());
        const bool wrap = full_ && s[0] == '-';
        if (wrap) out += '(';
        out += s;
        if (wrap) out += ')';
        break;
      }
      case Expr::Kind::variable:
        out += e.name();
        out += side_suffix(e.side());
        break;
      case Expr::Kind::negate:
        if (full_) out += '(';
        out += '-';
        // "-(-x)" rather than "--x"; "-x^2" needs no parentheses (^ binds tighter).
        child(e.operand(), prec(e.operand()) <= kUnary);
        if (full_) out += ')';
        break;
      case Expr::Kind::binary: {
        const int p = prec(e);
        bool left_paren, right_paren;
        if (e.op() == BinaryOp::pow) {
          // right associative, and its right operand may be a negation: "2^-x", "(a^b)^c".
          left_paren = prec(e.lhs()) <= kPow;
          right_paren = prec(e.rhs()) < kUnary;
        } else {
          // left associative: "a - (b - c)" keeps its parentheses, "(a - b) - c" loses them.
          left_paren = prec(e.lhs()) < p;
          right_paren = prec(e.rhs()) <= p;
        }
        if (full_) out += '(';
        child(e.lhs(), left_paren);
        const bool spaced = p == kAdd;  // "a + b*c": spaces show the structure
        if (spaced) out += ' ';
        out += op_symbol(e.op());
        if (spaced) out += ' ';
        child(e.rhs(), right_paren);
        if (full_) out += ')';
        break;
      }
      case Expr::Kind::call:
        out += e.name();
        out += '(';
        for (size_t i = 0; i < e.args().size(); ++i) {
          if (i) out += ", ";
          print(*e.args()[i]);
        }
        out += ')';
        break;
    }
  }

  std::string out;

 private:
  void child(const Expr& c, bool paren) {
    paren = paren && !full_;  // full style parenthesizes every operation itself
    if (paren) out += '(';
    print(c);
    if (paren) out += ')';
  }

  bool full_;
};

}  // namespace

std::string to_string(const Expr& expr, PrintStyle style) {
  Printer p(style);
  p.print(expr);
  return std::move(p.out);
}

bool structurally_equal(const Expr& a, const Expr& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Expr::Kind::number: {
      const double x = a.value(), y = b.value();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Expr::Kind::variable:
      return a.name() == b.name() && a.side() == b.side();
    case Expr::Kind::negate:
      break;
    case Expr::Kind::binary:
      if (a.op() != b.op()) return false;
      break;
    case Expr::Kind::call:
      if (a.name() != b.name()) return false;
      break;
  }
  if (a.children().size() != b.children().size()) return false;
  for (size_t i = 0; i < a.children().size(); ++i)
    if (!structurally_equal(*a.children()[i], *b.children()[i])) return false;
  return true;
}

}  // namespace dgmax::dsl
