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
    if (where_.column > 0) out += "  " + std::string(where_.column - 1, ' ') + "^\n";
  }
  if (!hint_.empty()) out += "  hint: " + hint_ + "\n";
  return out;
}

InternalError::InternalError(const std::string& what)
    : std::logic_error("internal error (please report at the dgmax issue tracker): " + what) {}

}  // namespace dgmax
