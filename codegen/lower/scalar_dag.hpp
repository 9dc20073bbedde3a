// A hash-consed DAG of scalar operations: the lowered form of flux and exterior-state expressions.
// Identical subexpressions are one node (common-subexpression elimination by construction);
// operations on constants are folded when the node is made. Nodes are stored in creation order,
// which is a topological order (operands before uses).
//
// Simplifications made by the constructors, all exact for every double (±0, inf and NaN
// included, NaN payloads aside), so the DAG computes bit for bit what the text says:
//   - all operands constant → one constant, computed with the same double operation/function;
//   - x*1, 1*x, x/1 → x;   x - (+0) → x;   x + (-0), (-0) + x → x;   -(-x) → x;
//   - x + (-y) → x - y;   (-x) + y → y - x;   x - (-y) → x + y   (IEEE: a - b is a + (-b));
//   - x / c → x * (1/c) when c is a power of two whose reciprocal is normal (both round x·2^-k);
//   - x^2 and pow(x, 2) → x*x (as in dsl::ScalarFunction);
//   - x+y and y+x are one node (add and mul are commutative bit for bit; the node keeps the
//     operand order it was first made with).
// Not done, because it is not exact: x*0 → 0 (NaN, inf), x + (+0) → x (x = -0), x - x → 0,
// reassociation, x*(-1) → -x. No FMA contraction anywhere (emitted code must not contract either).
//
// Function semantics (evaluate() and the emitted C agree): abs = fabs, min/max = fmin/fmax with
// the tie of zeros fixed (min(+0, -0) = min(-0, +0) = -0, max of them +0, whatever the order),
// sign(x) = x > 0 ? 1 : x < 0 ? -1 : x, heaviside(x) = x < 0 ? 0 : x >= 0 ? 1 : x,
// pow(a, b) = b == 2 ? a*a : pow(a, b) (the b == 2 test only matters for a non-constant b),
// besselj, bessely = dsl::bessel_j, dsl::bessel_y (libstdc++; the emitted C defines the same).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/dsl/builtins.hpp"

namespace dgmax::codegen {

struct DagNode {
  enum class Op : std::uint8_t { input, constant, add, sub, mul, div, neg, call1, call2 };
  Op op;
  int a = -1, b = -1;       // operand node ids
  int input = -1;           // input: slot (FluxInput)
  double value = 0;         // constant
  dsl::Builtin fn{};        // call1 / call2
  int order = 0;            // call1 of besselj / bessely: the order n
};

class ScalarDag {
 public:
  int input(int slot);
  int constant(double v);
  int add(int a, int b);
  int sub(int a, int b);
  int mul(int a, int b);
  int div(int a, int b);
  int neg(int a);
  int call(dsl::Builtin fn, int a);
  int call(dsl::Builtin fn, int a, int b);
  // besselj / bessely of order n (dsl::takes_order) at a.
  int call_order(dsl::Builtin fn, int n, int a);

  const std::vector<DagNode>& nodes() const { return nodes_; }
  std::vector<int> outputs;  // node id of each output

  // Nodes reachable from the outputs (dead ones are skipped by printers and interpreters).
  std::vector<bool> live() const;
  // Number of live arithmetic nodes (inputs and constants excluded): the flop count per node.
  int operation_count() const;

  // A copy holding only the live nodes, in the same (topological) order, outputs remapped.
  ScalarDag pruned() const;

 private:
  int intern(const DagNode& n);
  std::vector<DagNode> nodes_;
  std::unordered_map<std::string, int> index_;  // structural key → node id
};

// Evaluates every output: out[i] = value of outputs[i] given in[kNumFluxInputs].
// `scratch` must hold nodes().size() doubles. Every node is computed, dead ones included
// (use pruned() to drop them). Bitwise the same operations as the emitted C in
// double precision (same order, same functions).
void evaluate(const ScalarDag& dag, const double* in, double* out, double* scratch);

}  // namespace dgmax::codegen
