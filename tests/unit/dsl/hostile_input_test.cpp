// Hostile or absurd input must end in a clean UserError (never a crash, hang or stack
// overflow), and nothing of the user's text survives except through the re-printed AST.
#include <gtest/gtest.h>

#include <string>

#include "codegen/dsl/lexer.hpp"
#include "codegen/dsl/parser.hpp"
#include "codegen/dsl/scalar_eval.hpp"
#include "dsl_test_util.hpp"

namespace dgmax::dsl {
namespace {

using test::expect_user_error;
using test::in_yaml;
using test::plain;

ScalarContext context() {
  ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  return ctx;
}

UserError error_for(const std::string& text) {
  return expect_user_error([&] { compile_scalar(plain(text), context()); });
}

TEST(DslHostile, CodeInjectionAttemptsAreRejectedAtTheFirstForeignCharacter) {
  struct Case {
    std::string text, message_start;
    int column;
  };
  const std::vector<Case> cases = {
      {"x); system(\"rm -rf /\"); (x", "unexpected character ';'", 3},
      {"#include <stdlib.h>\nx", "unexpected character '#'", 1},
      {"x /* comment */", "expected an expression after '/'", 4},
      {"x // comment", "expected an expression after '/'", 4},
      {"__global__ void k() {}", "unexpected character '{'", 21},
      {"x\ny", "unexpected line break", 2},
      {"x\r\n", "unexpected line break", 2},
      {"'x'", "unexpected character '''", 1},
      {"\"x\" + \"y\"", "unexpected character '\"'", 1},
      {"x \\\n+ y", "unexpected character '\\'", 3},
      {"x`id`", "unexpected character '`'", 2},
      {"$x", "unexpected character '$'", 1},
      {"x @ y", "unexpected character '@'", 3},
      {std::string("x\0y", 3), "unexpected character '\\x00'", 2},
      {"x\x7fy", "unexpected character '\\x7F'", 2},
      {"\xff", "unexpected character '\\xFF'", 1},
      {"__global__", "unknown name '__global__'", 1},
      {"__asm__(x)", "unknown function '__asm__'", 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const UserError e = error_for(c.text);
    EXPECT_EQ(e.message().rfind(c.message_start, 0), 0u) << e.message();
    EXPECT_EQ(e.where().column, c.column);
    // The snippet is one clean line: no control characters to break the caret display.
    for (char ch : e.where().snippet) EXPECT_GE(static_cast<unsigned char>(ch), 0x20);
    EXPECT_EQ(e.render().find('\r'), std::string::npos);
  }
}

TEST(DslHostile, MessagesEscapeControlCharacters) {
  const UserError e = error_for(std::string("x\x01", 2));
  EXPECT_EQ(e.message(), "unexpected character '\\x01' in expression 'x\\x01'");
  const UserError n = error_for("x +\ny");
  EXPECT_EQ(n.message(), "unexpected line break in expression 'x +\\ny'");
  EXPECT_EQ(n.where().snippet, "x +");
}

TEST(DslHostile, VeryLongExpression) {
  std::string text = "x";
  while (text.size() < 100000) text += "+x";
  const UserError e = error_for(text);
  EXPECT_EQ(e.message().rfind("expression is too long (100001 characters, the limit is 65536)", 0),
            0u);
  EXPECT_LT(e.message().size(), 200u);      // the expression is quoted shortened
  EXPECT_LT(e.where().snippet.size(), 120u);  // the snippet is a window
  EXPECT_EQ(e.hint(), "split it into named constants");
}

// Without a file, the caret column is within a window of the expression.
void expect_caret_on(const UserError& e, char c) {
  const auto& w = e.where();
  ASSERT_GT(w.column, 0);
  ASSERT_LE(w.snippet.size(), 100u);
  ASSERT_LT(static_cast<size_t>(w.column - 1), w.snippet.size());
  EXPECT_EQ(w.snippet[w.column - 1], c);
}

TEST(DslHostile, LongChainBeyondTheTreeDepthLimit) {
  std::string text = "x";
  for (int i = 0; i < 30000; ++i) text += "+x";  // 60001 characters: within the length limit
  const UserError e = error_for(text);
  EXPECT_EQ(e.message().rfind("expression is too complex (more than 1000 operations deep)", 0), 0u);
  expect_caret_on(e, '+');
  // From a file: the exact column of the 1000th '+' (offset 1999); the long line is left out.
  const UserError f = expect_user_error([&] { compile_scalar(in_yaml(text), context()); });
  EXPECT_EQ(f.message(), "expression is too complex (more than 1000 operations deep)");
  EXPECT_EQ(f.where().column, test::kYamlColumn + 1999);
  EXPECT_EQ(f.where().snippet, "");
}

TEST(DslHostile, DeeplyNestedParentheses) {
  const std::string text = std::string(10000, '(') + "x" + std::string(10000, ')');
  const UserError e = error_for(text);
  EXPECT_EQ(e.message().rfind("expression is nested too deeply (more than 200 levels)", 0), 0u);
  EXPECT_EQ(e.hint(), "simplify it or split it into named constants");
  expect_caret_on(e, '(');
  const UserError f = expect_user_error([&] { compile_scalar(in_yaml(text), context()); });
  EXPECT_EQ(f.where().column, test::kYamlColumn + 200);  // the 201st '('
}

TEST(DslHostile, DeeplyNestedCallsUnaryMinusAndPowers) {
  std::string calls;
  for (int i = 0; i < 5000; ++i) calls += "sin(";
  calls += "x" + std::string(5000, ')');
  EXPECT_EQ(error_for(calls).message().rfind("expression is nested too deeply", 0), 0u);
  EXPECT_EQ(error_for(std::string(10000, '-') + "x").message().rfind(
                "expression is nested too deeply", 0),
            0u);
  std::string powers = "x";
  for (int i = 0; i < 5000; ++i) powers += "^x";
  EXPECT_EQ(error_for(powers).message().rfind("expression is nested too deeply", 0), 0u);
  // Unclosed: the nesting error comes first, cleanly.
  EXPECT_EQ(error_for(std::string(30000, '(')).message().rfind("expression is nested too deeply", 0),
            0u);
}

TEST(DslHostile, LongExpressionsAreShownAsAWindowWithTheCaretInPlace) {
  std::string text = "x";
  for (int i = 0; i < 500; ++i) text += "+y";
  text += "+omgea+z";
  const UserError e = error_for(text);
  const auto& w = e.where();
  EXPECT_LE(w.snippet.size(), 100u);
  ASSERT_GT(w.column, 0);
  EXPECT_EQ(w.snippet.substr(w.column - 1, 7), "omgea+z");
  EXPECT_EQ(w.snippet.substr(0, 3), "...");
  EXPECT_EQ(e.message(), "unknown name 'omgea' in expression '" + text.substr(0, 60) + "...'");
  // A long YAML line is not shown, but the header has the exact column.
  const UserError f = expect_user_error([&] { compile_scalar(in_yaml(text), context()); });
  EXPECT_EQ(f.message(), "unknown name 'omgea'");
  EXPECT_EQ(f.render().substr(0, 47), "config.yaml:7:1010: error: unknown name 'omgea'");
  EXPECT_EQ(f.where().snippet, "");
}

TEST(DslHostile, ManyTermsAndRandomBytesNeverCrash) {
  // Byte soup: every outcome is either a value or a UserError.
  uint32_t state = 2463534242u;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  const std::string alphabet = "xyzt0123456789.eE+-*/^(),pisnco_ \t;#\"\\\n";
  int errors = 0, values = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const size_t len = next() % 24;
    for (size_t k = 0; k < len; ++k) text += alphabet[next() % alphabet.size()];
    try {
      compile_scalar(plain(text), context());
      ++values;
    } catch (const UserError& e) {
      ++errors;
      // every refusal says something and points into the text (or just past its end)
      EXPECT_FALSE(e.message().empty()) << text;
      EXPECT_GE(e.where().column, 1) << text << "\n" << e.render();
      EXPECT_LE(e.where().column, static_cast<int>(text.size()) + 1) << text << "\n" << e.render();
    }
  }
  // both outcomes occur (a soup that only ever failed, or never, would test nothing); anything
  // but a value or a UserError has already failed the test
  EXPECT_GT(errors, 100);
  EXPECT_GT(values, 30);
}

}  // namespace
}  // namespace dgmax::dsl
