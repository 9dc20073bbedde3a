// Immutable syntax tree of the expression language, shared by every later stage (scalar
// evaluation, flux type checks, lowering). Nodes are created once by the parser and shared
// through ExprPtr; nothing mutates them, so subtrees can be reused freely.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dgmax::dsl {

// Which face trace a name refers to in a flux expression: `E` (none), `E.int`, `E.ext`.
enum class Side { none, interior, exterior };

enum class BinaryOp { add, sub, mul, div, pow };

class Expr;
using ExprPtr = std::shared_ptr<const Expr>;

class Expr {
 public:
  enum class Kind { number, variable, negate, binary, call };

  static ExprPtr make_number(double value, size_t offset);
  static ExprPtr make_variable(std::string name, Side side, size_t offset);
  static ExprPtr make_negate(ExprPtr operand, size_t offset);
  static ExprPtr make_binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, size_t offset);
  static ExprPtr make_call(std::string name, std::vector<ExprPtr> args, size_t offset);

  Kind kind() const { return kind_; }
  // 0-based byte offset in the source text of the node's anchor: the first character of a number
  // or name (a call's function name), the '-' of a negation, the operator of a binary node.
  size_t offset() const { return offset_; }
  // Height of the tree below and including this node (a leaf has depth 1).
  int depth() const { return depth_; }

  double value() const;                           // number
  const std::string& name() const;                // variable or call
  Side side() const;                              // variable
  BinaryOp op() const;                            // binary
  const Expr& operand() const;                    // negate
  const Expr& lhs() const;                        // binary
  const Expr& rhs() const;                        // binary
  const std::vector<ExprPtr>& args() const;       // call
  // Operands of any node in source order (empty for leaves); the generic way to walk the tree.
  const std::vector<ExprPtr>& children() const { return children_; }

 private:
  Expr(Kind kind, size_t offset) : kind_(kind), offset_(offset) {}

  Kind kind_;
  size_t offset_;
  int depth_ = 1;
  double value_ = 0;
  std::string name_;
  Side side_ = Side::none;
  BinaryOp op_ = BinaryOp::add;
  std::vector<ExprPtr> children_;
};

enum class PrintStyle {
  minimal,      // only the parentheses the grammar needs: "-x^2 + 2*(y - 1)"
  full_parens,  // every operation parenthesized: "((-(x^2)) + (2*(y - 1)))"
};

// Canonical text of an expression: numbers are re-printed from their values (shortest text that
// reads back to the same double), never copied from the user's text. Parsing the result gives a
// tree that evaluates identically (same operations in the same order), provided the result is
// within the parser's nesting limits: re-printing can nest deeper than the input ("---x" prints
// as "-(-(-x))", a folded infinity as "(1/0)"), so an input close to kMaxNesting may print as text
// the parser refuses as too deeply nested. The canonical text is for display (generated-code
// headers); nothing parses it again.
std::string to_string(const Expr& expr, PrintStyle style = PrintStyle::minimal);

// Shortest decimal text that reads back to exactly `value` ("0.1", "1e+20", "3");
// non-finite values print as the expressions "(1/0)", "(-1/0)", "(0/0)".
std::string format_number(double value);

const char* op_symbol(BinaryOp op);  // "+", "-", "*", "/", "^"
const char* side_suffix(Side side);  // "", ".int", ".ext"

// Same shape, names, sides and values (bitwise); source offsets are ignored.
bool structurally_equal(const Expr& a, const Expr& b);

}  // namespace dgmax::dsl
