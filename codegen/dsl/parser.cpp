#include "codegen/dsl/parser.hpp"

#include <string>
#include <vector>

#include "codegen/dsl/lexer.hpp"
#include "solver/util/strings.hpp"

namespace dgmax::dsl {
namespace {

const char* const kSplitHint = "simplify it or split it into named constants";

class Parser {
 public:
  explicit Parser(const ExprSource& src) : src_(src), toks_(tokenize(src)) {}

  ExprPtr parse_all() {
    if (peek().kind == TokenKind::end) throw error_at(src_, 0, "empty expression");
    ExprPtr e = expr();
    if (peek().kind != TokenKind::end) trailing();
    return e;
  }

 private:
  // RAII nesting counter: every recursive descent goes through unary(), which holds one.
  struct Nest {
    explicit Nest(Parser& p) : p(p) {
      if (++p.nesting_ > kMaxNesting)
        throw error_at(p.src_, p.peek().offset,
                       "expression is nested too deeply (more than " +
                           std::to_string(kMaxNesting) + " levels)",
                       kSplitHint);
    }
    ~Nest() { --p.nesting_; }
    Parser& p;
  };

  const Token& peek() const { return toks_[pos_]; }
  const Token& next() { return toks_[pos_++]; }
  bool accept(TokenKind k) {
    if (peek().kind != k) return false;
    ++pos_;
    return true;
  }

  ExprPtr checked(ExprPtr e) {
    if (e->depth() > kMaxTreeDepth)
      throw error_at(src_, e->offset(),
                     "expression is too complex (more than " + std::to_string(kMaxTreeDepth) +
                         " operations deep)",
                     kSplitHint);
    return e;
  }

  ExprPtr expr() {
    ExprPtr e = term();
    while (peek().kind == TokenKind::plus || peek().kind == TokenKind::minus) {
      const Token& op = next();
      ExprPtr rhs = term();
      e = checked(Expr::make_binary(op.kind == TokenKind::plus ? BinaryOp::add : BinaryOp::sub,
                                    std::move(e), std::move(rhs), op.offset));
    }
    return e;
  }

  ExprPtr term() {
    ExprPtr e = unary();
    while (peek().kind == TokenKind::star || peek().kind == TokenKind::slash) {
      const Token& op = next();
      ExprPtr rhs = unary();
      e = checked(Expr::make_binary(op.kind == TokenKind::star ? BinaryOp::mul : BinaryOp::div,
                                    std::move(e), std::move(rhs), op.offset));
    }
    return e;
  }

  ExprPtr unary() {
    Nest guard(*this);
    if (peek().kind == TokenKind::minus) {
      const Token& op = next();
      return checked(Expr::make_negate(unary(), op.offset));
    }
    if (accept(TokenKind::plus)) return unary();  // unary plus: accepted, not kept
    return power();
  }

  ExprPtr power() {
    ExprPtr base = primary();
    if (peek().kind != TokenKind::caret) return base;
    const Token& op = next();
    ExprPtr exponent = unary();  // right associative: 2^3^2 = 2^(3^2); 2^-1 allowed
    return checked(Expr::make_binary(BinaryOp::pow, std::move(base), std::move(exponent),
                                     op.offset));
  }

  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::number:
        ++pos_;
        return Expr::make_number(t.value, t.offset);
      case TokenKind::identifier:
        ++pos_;
        if (peek().kind == TokenKind::lparen) return call(t);
        return Expr::make_variable(t.text, side(t), t.offset);
      case TokenKind::lparen: {
        ++pos_;
        ExprPtr e = expr();
        close_paren(t);
        return e;
      }
      default:
        missing_operand();
    }
  }

  // After "name": an optional ".int" / ".ext".
  Side side(const Token& name) {
    if (!accept(TokenKind::dot)) return Side::none;
    const Token& s = peek();
    if (s.kind == TokenKind::identifier && (s.text == "int" || s.text == "ext")) {
      ++pos_;
      return s.text == "int" ? Side::interior : Side::exterior;
    }
    std::string hint = "'" + name.text + ".int' is the interior trace, '" + name.text +
                       ".ext' the exterior one";
    if (s.kind == TokenKind::identifier) {
      const std::string m = closest_match(s.text, {"int", "ext"});
      if (!m.empty()) hint = "did you mean '" + name.text + "." + m + "'?";
    }
    throw error_at(src_, s.offset, "expected 'int' or 'ext' after '" + name.text + ".'", hint);
  }

  ExprPtr call(const Token& name) {
    const Token& open = next();  // '('
    std::vector<ExprPtr> args;
    if (peek().kind != TokenKind::rparen) {
      do {
        args.push_back(expr());
      } while (accept(TokenKind::comma));
    }
    close_paren(open);
    return checked(Expr::make_call(name.text, std::move(args), name.offset));
  }

  void close_paren(const Token& open) {
    if (accept(TokenKind::rparen)) return;
    throw error_at(src_, peek().offset,
                   "expected ')' to close '(' at column " +
                       std::to_string(display_column(src_, open.offset)),
                   peek().kind == TokenKind::end ? std::string()
                                                 : "found " + describe(peek()) + " instead");
  }

  // An operand was required but the current token cannot start one.
  [[noreturn]] void missing_operand() {
    const Token& t = peek();
    if (pos_ == 0)
      throw error_at(src_, t.offset, "unexpected " + describe(t) + " at the start of the expression");
    const Token& prev = toks_[pos_ - 1];
    std::string hint;
    if (prev.kind == TokenKind::star && t.kind == TokenKind::star)
      hint = "write powers with '^', as in 'x^2'";
    else if (prev.kind == TokenKind::lparen && t.kind == TokenKind::rparen)
      hint = "empty parentheses";
    throw error_at(src_, t.offset, "expected an expression after " + describe(prev), hint);
  }

  // A complete expression was parsed but tokens are left over.
  [[noreturn]] void trailing() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::rparen:
        throw error_at(src_, t.offset, "unexpected ')' without a matching '('");
      case TokenKind::comma:
        throw error_at(src_, t.offset, "unexpected ','",
                       "commas only separate the arguments of a function, as in 'atan2(y, x)'");
      case TokenKind::dot:
        throw error_at(src_, t.offset, "unexpected '.'",
                       "'.int' and '.ext' can only follow a name, as in 'E.int'");
      default:
        throw error_at(src_, t.offset, "unexpected " + describe(t) + " after a complete expression",
                       "is an operator missing? products need '*', as in '2*x'");
    }
  }

  const ExprSource& src_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int nesting_ = 0;
};

}  // namespace

ExprPtr parse(const ExprSource& src) { return Parser(src).parse_all(); }

}  // namespace dgmax::dsl
