// Helpers for the expression-language tests: sources with and without a file location, and
// catching the UserError an input must produce.
#pragma once

#include "expect_user_error.hpp"
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

using dgmax::test::expect_user_error;

}  // namespace dgmax::dsl::test
