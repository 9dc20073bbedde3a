#include "codegen/dsl/lexer.hpp"

#include <charconv>
#include <cstdio>
#include <system_error>

namespace dgmax::dsl {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

// The character at `i` as the user would recognise it: a whole UTF-8 sequence when valid,
// an escape for control bytes.
std::string show_char(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c >= 0x80) {
    const size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool valid = n > 0 && i + n <= s.size();
    for (size_t k = 1; valid && k < n; ++k)
      valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (valid) return s.substr(i, n);
  }
  if (c < 0x20 || c >= 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    return buf;
  }
  return std::string(1, static_cast<char>(c));
}

// A hint for characters people plausibly try to use.
std::string hint_for(const std::string& s, size_t i) {
  switch (s[i]) {
    case '"':
    case '\'':
      return "quotes are not part of an expression (in YAML, quote the whole value)";
    case ';':
      return "an expression is a single formula, without statements or ';'";
    case '#':
      return "comments and preprocessor lines are not allowed inside an expression";
    case '[':
    case ']':
    case '{':
    case '}':
      return "use '(' and ')' for grouping";
    case '=':
    case '<':
    case '>':
    case '!':
    case '&':
    case '|':
    case '?':
      return "there are no comparisons or logical operators; heaviside(x) gives a step";
    case '%':
      return "there is no '%' operator";
    case '\\':
      return "backslashes (escapes, line continuations) are not part of an expression";
    default:
      break;
  }
  if (s.compare(i, 2, "\xCF\x80") == 0) return "write 'pi'";
  if (static_cast<unsigned char>(s[i]) >= 0x80)
    return "expressions are ASCII: letters, digits, '_', + - * / ^ ( ) , and '.'";
  return {};
}

}  // namespace

std::string describe(const Token& token) {
  if (token.kind == TokenKind::end) return "the end of the expression";
  return "'" + token.text + "'";
}

std::vector<Token> tokenize(const ExprSource& src) {
  const std::string& s = src.text;
  if (s.size() > kMaxExpressionLength)
    throw error_at(src, kMaxExpressionLength,
                   "expression is too long (" + std::to_string(s.size()) +
                       " characters, the limit is " + std::to_string(kMaxExpressionLength) + ")",
                   "split it into named constants");

  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    Token t;
    t.offset = i;
    if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      // mantissa: digits [. digits] | . digits ; then an optional exponent e[+-]digits
      size_t j = i;
      while (j < s.size() && is_digit(s[j])) ++j;
      if (j < s.size() && s[j] == '.') {
        ++j;
        while (j < s.size() && is_digit(s[j])) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && is_digit(s[k])) {
          while (k < s.size() && is_digit(s[k])) ++k;
          j = k;
        } else {
          size_t e = j + 1;
          while (e < s.size() && is_ident_char(s[e])) ++e;
          throw error_at(src, i, "malformed number '" + s.substr(i, e - i) + "'",
                         "an exponent needs digits, as in '1e-3'; for a product write '2*e'");
        }
      }
      // "1.2.3" or "1.5.int": a second dot right after a number is never meaningful.
      if (j < s.size() && s[j] == '.') {
        size_t e = j;
        while (e < s.size() && (is_ident_char(s[e]) || s[e] == '.')) ++e;
        throw error_at(src, i, "malformed number '" + s.substr(i, e - i) + "'");
      }
      t.kind = TokenKind::number;
      t.text = s.substr(i, j - i);
      // from_chars: locale-independent and exact (shortest round trip).
      const auto res = std::from_chars(s.data() + i, s.data() + j, t.value);
      if (res.ec == std::errc::result_out_of_range)
        throw error_at(src, i,
                       "number '" + t.text + "' is out of the range of double precision",
                       "doubles range from about 2.2e-308 to 1.8e308");
      DGMAX_ASSERT(res.ec == std::errc() && res.ptr == s.data() + j, "number lexing");
      i = j;
    } else if (is_ident_start(c)) {
      size_t j = i;
      while (j < s.size() && is_ident_char(s[j])) ++j;
      t.kind = TokenKind::identifier;
      t.text = s.substr(i, j - i);
      i = j;
    } else {
      switch (c) {
        case '+': t.kind = TokenKind::plus; break;
        case '-': t.kind = TokenKind::minus; break;
        case '*': t.kind = TokenKind::star; break;
        case '/': t.kind = TokenKind::slash; break;
        case '^': t.kind = TokenKind::caret; break;
        case '(': t.kind = TokenKind::lparen; break;
        case ')': t.kind = TokenKind::rparen; break;
        case ',': t.kind = TokenKind::comma; break;
        case '.': t.kind = TokenKind::dot; break;
        case '\n':
        case '\r':
          throw error_at(src, i, "unexpected line break",
                         "write the expression on one line (a YAML '>' block folds lines)");
        default:
          throw error_at(src, i, "unexpected character '" + show_char(s, i) + "'",
                         hint_for(s, i));
      }
      t.text = std::string(1, c);
      ++i;
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = TokenKind::end;
  end.offset = s.size();
  out.push_back(std::move(end));
  return out;
}

}  // namespace dgmax::dsl
