// Recursive-descent parser of the expression language.
//
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('-' | '+') unary | power          -x^2 = -(x^2)
//   power   := primary ('^' unary)?               right associative; 2^-1 allowed
//   primary := number | name ('.' ('int' | 'ext'))? | name '(' (expr (',' expr)*)? ')'
//            | '(' expr ')'
//
// The parser only checks syntax; which names and functions exist, argument counts and types are
// decided by the consumer (scalar_eval for scalar expressions, the flux checker for fluxes).
#pragma once

#include "codegen/dsl/ast.hpp"
#include "codegen/dsl/expr_source.hpp"

namespace dgmax::dsl {

// Deepest nesting of parentheses / calls / unary operators / powers: deeper input gets a clear
// error instead of exhausting the stack.
inline constexpr int kMaxNesting = 200;
// Deepest syntax tree (long chains like a+b+c+... grow it without nesting): bounds the recursion
// of every later tree walk.
inline constexpr int kMaxTreeDepth = 1000;

// Parses src.text; throws UserError (located in the user's file) on any syntax error.
ExprPtr parse(const ExprSource& src);

}  // namespace dgmax::dsl
