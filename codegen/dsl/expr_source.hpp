// Where an expression came from, and how an error inside it is located for the user.
// Errors inside an expression must put the caret under the offending character of the user's
// YAML line, so every token keeps its byte offset and this file maps offsets to file positions.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "solver/util/error.hpp"

namespace dgmax::dsl {

// An expression as the user wrote it. `origin` is the location of its first character in the
// user's file (file, line, column, snippet = the whole source line). origin.line == 0 means "not
// from a file" (command line, tests): errors then quote the expression itself.
// The caller is responsible for `text` matching the file byte for byte from origin.column on
// (true for plain and quoted YAML scalars without escapes).
// When the text does not appear verbatim on one line (YAML escapes, quotes doubled, a scalar folded
// over several lines), `locate` maps a byte offset of `text` (up to text.size()) to its file
// position instead; origin is then the first character's.
struct ExprSource {
  std::string text;
  SourceLocation origin;
  std::function<SourceLocation(size_t offset)> locate;
};

// Location of byte `offset` of src.text (offset == text.size() means "just past the end").
// From a file: the file's line and column, snippet = the file's line (left out when longer than
// 300 characters). Without a file: column = caret position in the snippet, which is the
// expression, cut to a window around the caret when long.
SourceLocation location_at(const ExprSource& src, size_t offset);

// The column a message should quote for `offset` ("... '(' at column 5"): the file column when
// the expression comes from a file, else offset + 1.
int display_column(const ExprSource& src, size_t offset);

// A UserError at byte `offset` of the expression. Without a file location the message ends in
// " in expression '<text>'" (shortened when long) and the snippet is the expression itself.
UserError error_at(const ExprSource& src, size_t offset, const std::string& message,
                   std::string hint = {});

// `text` quoted for a message: control characters escaped, cut to `max_chars` with "...".
std::string quote_for_message(const std::string& text, size_t max_chars = 60);

}  // namespace dgmax::dsl
