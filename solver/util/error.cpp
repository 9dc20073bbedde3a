#include "solver/util/error.hpp"

namespace dgmax {

UserError::UserError(std::string message, SourceLocation where, std::string hint)
    : std::runtime_error(message), message_(std::move(message)), where_(std::move(where)),
      hint_(std::move(hint)) {}

std::string UserError::render() const {
  std::string out;
  if (!where_.file.empty()) {
    out.append(where_.file);
    if (where_.line > 0) {
      out.append(":").append(std::to_string(where_.line));
      if (where_.column > 0) out.append(":").append(std::to_string(where_.column));
    }
    out.append(": ");
  }
  out += "error: " + message_ + "\n";
  if (!where_.snippet.empty()) {
    out += "  " + where_.snippet + "\n";
    if (where_.column > 0) {
      // The column counts bytes; indent with what the terminal shows before it: tabs stay tabs,
      // a multi-byte UTF-8 character takes one place.
      std::string pad;
      for (int i = 0; i < where_.column - 1 && i < static_cast<int>(where_.snippet.size()); ++i) {
        const unsigned char c = static_cast<unsigned char>(where_.snippet[i]);
        if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
        pad += c == '\t' ? '\t' : ' ';
      }
      out.append("  ").append(pad).append("^\n");
    }
  }
  if (!hint_.empty()) out += "  hint: " + hint_ + "\n";
  return out;
}

InternalError::InternalError(const std::string& what)
    : std::logic_error("internal error (please report at the dgmax issue tracker): " + what) {}

}  // namespace dgmax
