// Tokens, their offsets and number values.
#include "codegen/dsl/lexer.hpp"

#include <gtest/gtest.h>

#include "dsl_test_util.hpp"

namespace dgmax::dsl {
namespace {

using test::plain;

TEST(DslLexer, TokenKindsAndOffsets) {
  const auto toks = tokenize(plain("Z.ext*2.5e-3 + f(a, b)^-1/(x)"));
  const std::vector<std::pair<TokenKind, size_t>> want = {
      {TokenKind::identifier, 0}, {TokenKind::dot, 1},     {TokenKind::identifier, 2},
      {TokenKind::star, 5},       {TokenKind::number, 6},  {TokenKind::plus, 13},
      {TokenKind::identifier, 15}, {TokenKind::lparen, 16}, {TokenKind::identifier, 17},
      {TokenKind::comma, 18},     {TokenKind::identifier, 20}, {TokenKind::rparen, 21},
      {TokenKind::caret, 22},     {TokenKind::minus, 23},  {TokenKind::number, 24},
      {TokenKind::slash, 25},     {TokenKind::lparen, 26}, {TokenKind::identifier, 27},
      {TokenKind::rparen, 28},    {TokenKind::end, 29}};
  ASSERT_EQ(toks.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(toks[i].kind, want[i].first) << "token " << i;
    EXPECT_EQ(toks[i].offset, want[i].second) << "token " << i;
  }
  EXPECT_EQ(toks[0].text, "Z");
  EXPECT_EQ(toks[2].text, "ext");
  EXPECT_EQ(toks[4].text, "2.5e-3");
  EXPECT_EQ(toks[4].value, 2.5e-3);
}

TEST(DslLexer, NumberForms) {
  const std::vector<std::pair<std::string, double>> cases = {
      {"0", 0.0},        {"42", 42.0},        {"3.25", 3.25},      {".5", 0.5},
      {"1.", 1.0},       {"1e-3", 1e-3},      {"1E3", 1000.0},     {"6.02e+23", 6.02e23},
      {"2.e2", 200.0},   {".5e1", 5.0},       {"0.1", 0.1},        {"1e-310", 1e-310},
      {"123456789012345678", 123456789012345678.0}};
  for (const auto& [text, value] : cases) {
    const auto toks = tokenize(plain(text));
    ASSERT_EQ(toks.size(), 2u) << text;
    EXPECT_EQ(toks[0].kind, TokenKind::number) << text;
    EXPECT_EQ(toks[0].value, value) << text;
  }
}

TEST(DslLexer, IdentifiersAndWhitespace) {
  const auto toks = tokenize(plain(" \t_a1 \tB_2c  "));
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[0].text, "_a1");
  EXPECT_EQ(toks[0].offset, 2u);
  EXPECT_EQ(toks[1].text, "B_2c");
  EXPECT_EQ(toks[1].offset, 7u);
  EXPECT_EQ(toks[2].kind, TokenKind::end);
  EXPECT_EQ(toks[2].offset, 13u);
}

TEST(DslLexer, DotAfterNameIsADotBeforeDigitsANumber) {
  auto toks = tokenize(plain("E.int"));
  EXPECT_EQ(toks[1].kind, TokenKind::dot);
  toks = tokenize(plain("x.5"));  // name, then the number .5 (the parser rejects it)
  EXPECT_EQ(toks[1].kind, TokenKind::number);
  EXPECT_EQ(toks[1].value, 0.5);
}

TEST(DslLexer, Describe) {
  const auto toks = tokenize(plain("sin*"));
  EXPECT_EQ(describe(toks[0]), "'sin'");
  EXPECT_EQ(describe(toks[1]), "'*'");
  EXPECT_EQ(describe(toks[2]), "the end of the expression");
}

}  // namespace
}  // namespace dgmax::dsl
