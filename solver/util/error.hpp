// Error types. A UserError is something the user caused and can fix (bad config, bad mesh, missing
// GPU...): main prints it once and exits 1. An InternalError is a bug in dgmax: "please report".
#pragma once

#include <stdexcept>
#include <string>

namespace dgmax {

// Where in a user's input the problem is. Any part may be empty / zero when unknown.
struct SourceLocation {
  std::string file;     // path as the user gave it
  int line = 0;         // 1-based; 0 = unknown
  int column = 0;       // 1-based; 0 = unknown
  std::string snippet;  // the offending source line, shown with a caret under `column`
};

class UserError : public std::runtime_error {
 public:
  explicit UserError(std::string message, SourceLocation where = {}, std::string hint = {});

  const std::string& message() const { return message_; }
  const SourceLocation& where() const { return where_; }
  const std::string& hint() const { return hint_; }

  // "file:line:col: error: message\n  snippet\n  ^\n  hint: ..." — what the user sees.
  std::string render() const;

 private:
  std::string message_;
  SourceLocation where_;
  std::string hint_;
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what);
};

// Checks an invariant of dgmax itself (not of user input); throws InternalError when it fails.
#define DGMAX_ASSERT(cond, msg)                                                              \
  do {                                                                                       \
    if (!(cond))                                                                             \
      throw ::dgmax::InternalError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                   ": " + #cond + ": " + (msg));                             \
  } while (0)

}  // namespace dgmax
