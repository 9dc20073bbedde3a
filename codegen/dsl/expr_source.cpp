#include "codegen/dsl/expr_source.hpp"

#include <algorithm>
#include <cstdio>

namespace dgmax::dsl {
namespace {

// Expressions (without a file) longer than this are shown as a window around the caret.
constexpr size_t kSnippetMax = 100;
// File lines longer than this are not shown at all (the header still gives the column).
constexpr size_t kFileSnippetMax = 300;
constexpr size_t kWindowBefore = 40;

// One byte in, one byte out, so columns stay valid: control characters would break the
// two-line "snippet / caret" rendering.
std::string sanitize(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = (c == '\t') ? ' ' : '?';
  return s;
}

// Cuts `snippet` to a window around 1-based `column`, adjusting the column.
void window(std::string& snippet, int& column) {
  if (snippet.size() <= kSnippetMax) return;
  const size_t caret = column > 0 ? static_cast<size_t>(column - 1) : 0;
  const size_t width = kSnippetMax - 6;  // room for "..." on both sides
  size_t begin = caret > kWindowBefore ? caret - kWindowBefore : 0;
  begin = std::min(begin, snippet.size() - width);  // near the end: show the end
  const size_t len = std::min(width, snippet.size() - begin);
  std::string cut = (begin > 0 ? "..." : "") + snippet.substr(begin, len) +
                    (begin + len < snippet.size() ? "..." : "");
  if (column > 0) column = column - static_cast<int>(begin) + (begin > 0 ? 3 : 0);
  snippet = std::move(cut);
}

bool from_file(const ExprSource& src) {
  if (src.locate) return true;
  return src.origin.line > 0 && src.origin.column > 0 && !src.origin.snippet.empty();
}

}  // namespace

std::string quote_for_message(const std::string& text, size_t max_chars) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

int display_column(const ExprSource& src, size_t offset) {
  if (src.locate) return src.locate(offset).column;
  if (from_file(src)) return src.origin.column + static_cast<int>(offset);
  return static_cast<int>(offset) + 1;
}

SourceLocation location_at(const ExprSource& src, size_t offset) {
  SourceLocation loc;
  loc.file = src.origin.file;
  loc.line = src.origin.line;
  if (src.locate) return src.locate(offset);
  if (from_file(src)) {
    // The column is the file's, and render() prints it in the "file:line:col" header too, so
    // the line cannot be cut to a window; an absurdly long line is left out instead.
    loc.column = src.origin.column + static_cast<int>(offset);
    if (src.origin.snippet.size() <= kFileSnippetMax) loc.snippet = sanitize(src.origin.snippet);
    return loc;
  }
  if (src.origin.line == 0) {
    // Not from a file: the expression is its own snippet (up to its first line break; errors
    // are never reported past one, line breaks are rejected by the lexer).
    const size_t eol = src.text.find_first_of("\r\n");
    loc.snippet = src.text.substr(0, eol);
    loc.column = static_cast<int>(offset) + 1;
  } else {
    // File and line known but not the column: a caret would be misleading, leave it out.
    return loc;
  }
  // Without a file the column is only used for the caret: a window keeps the snippet short.
  loc.snippet = sanitize(std::move(loc.snippet));
  window(loc.snippet, loc.column);
  return loc;
}

UserError error_at(const ExprSource& src, size_t offset, const std::string& message,
                   std::string hint) {
  std::string msg = message;
  if (!from_file(src)) msg += " in expression '" + quote_for_message(src.text) + "'";
  return UserError(std::move(msg), location_at(src, offset), std::move(hint));
}

}  // namespace dgmax::dsl
