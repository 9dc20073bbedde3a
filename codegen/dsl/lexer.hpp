// Tokenizer of the expression language. It accepts only what the grammar can use: numbers,
// ASCII identifiers and the operators + - * / ^ ( ) , . ; anything else is rejected here, at its
// column, so hostile text (quotes, ';', '#', backslashes, line breaks) never gets further.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "codegen/dsl/expr_source.hpp"

namespace dgmax::dsl {

// Longest expression accepted, in bytes: far beyond any real formula, small enough that parsing
// and error messages stay cheap.
inline constexpr size_t kMaxExpressionLength = 64 * 1024;

enum class TokenKind {
  number,      // 3, 2.5, .5, 1., 1e-3, 6.02E+23
  identifier,  // [A-Za-z_][A-Za-z0-9_]*
  plus,
  minus,
  star,
  slash,
  caret,
  lparen,
  rparen,
  comma,
  dot,  // only meaningful in "name.int" / "name.ext"
  end,  // one past the last token, offset = text.size()
};

struct Token {
  TokenKind kind = TokenKind::end;
  size_t offset = 0;  // 0-based byte offset of the first character in the expression text
  std::string text;   // the characters as written (for messages only; never re-emitted)
  double value = 0;   // numbers: the parsed value
};

// Splits src.text into tokens, always ending with one `end` token. Throws UserError for
// characters outside the language, malformed or out-of-range numbers, and over-long text.
std::vector<Token> tokenize(const ExprSource& src);

// How a token is named in messages: "'sin'", "'*'", "the end of the expression".
std::string describe(const Token& token);

}  // namespace dgmax::dsl
