// Helpers for the expression-language tests: sources with and without a file location, and
// catching the UserError an input must produce.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "codegen/dsl/expr_source.hpp"
#include "solver/util/error.hpp"

namespace dgmax::dsl::test {

// An expression typed on the command line: no file location.
inline ExprSource plain(const std::string& text) { return ExprSource{text, {}}; }

// The YAML line `  Ex: "<text>"` at line 7 of config.yaml; the value starts at column 8.
inline constexpr int kYamlColumn = 8;
inline ExprSource in_yaml(const std::string& text) {
  const std::string prefix = "  Ex: \"";
  return ExprSource{text, SourceLocation{"config.yaml", 7, kYamlColumn, prefix + text + "\""}};
}

// Runs `f`, which must throw a UserError, and returns it (a failure is recorded otherwise).
inline UserError expect_user_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected a UserError, got: " << e.what();
    return UserError("<wrong exception>");
  }
  ADD_FAILURE() << "expected a UserError, nothing was thrown";
  return UserError("<nothing thrown>");
}

}  // namespace dgmax::dsl::test
