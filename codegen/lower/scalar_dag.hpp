// A hash-consed DAG of scalar operations: the lowered form of flux and exterior-state expressions.
// Identical subexpressions are one node (common-subexpression elimination by construction);
// operations on constants are folded when the node is made. Nodes are stored in creation order,
// which is a topological order (operands before uses).
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

  const std::vector<DagNode>& nodes() const { return nodes_; }
  std::vector<int> outputs;  // node id of each output

  // Nodes reachable from the outputs (dead ones are skipped by printers and interpreters).
  std::vector<bool> live() const;
  // Number of live arithmetic nodes (inputs and constants excluded): the flop count per node.
  int operation_count() const;

 private:
  int intern(const DagNode& n);
  std::vector<DagNode> nodes_;
  std::unordered_map<std::string, int> index_;  // structural key → node id
};

// Evaluates every output: out[i] = value of outputs[i] given in[kNumFluxInputs].
// `scratch` must hold nodes().size() doubles. Bitwise the same operations as the emitted C in
// double precision (same order, same functions).
void evaluate(const ScalarDag& dag, const double* in, double* out, double* scratch);

}  // namespace dgmax::codegen
