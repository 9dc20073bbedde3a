// Prints a ScalarDag as straight-line scalar C (`real_t` temporaries), readable and identical in
// operation order to the DAG interpreter. Used inside the cpu and cuda kernel templates.
#pragma once

#include <string>
#include <vector>

#include "codegen/lower/scalar_dag.hpp"

namespace dgmax::codegen {

struct CExprStyle {
  std::string input_array = "in";    // inputs read as in[slot]
  // When non-empty, input slot i is read as input_rows[i] (then lane_index) instead: inputs that
  // live in different arrays (the cpu stage reads the interior trace in place, uM[c * NP][e]).
  std::vector<std::string> input_rows;
  std::string output_array = "out";  // outputs written as out[i]
  std::string lane_index;            // appended to every in[slot] and out[i]: "[e]" reads lane e of [slots][W] arrays
  std::string temp_prefix = "t";     // temporaries t0, t1, ...
  std::string indent = "  ";
  bool cuda = false;                 // function names: std::sin (C++) or sin (CUDA overloads)
  std::string type = "real_t";       // type of temporaries and constants
  const char* (*input_label)(int slot) = nullptr;  // comment names of inputs (default: flux inputs)
};

// Only live nodes are printed, in DAG order; inputs and constants are written inline
// (in[slot], real_t(0.5)), every operation gets one `const real_t` temporary numbered from 0 in
// print order, and a line reading an input has a comment with the readable form. The output is
// a function of the DAG alone (deterministic). In double precision and compiled without
// -ffast-math and with -ffp-contract=off, it computes bit for bit what evaluate() computes.
//
// Lines like
//   const real_t t3 = in[12] * in[4];  // n.x * H.int.y
//   out[0] = t17;
std::string emit_c_statements(const ScalarDag& dag, const CExprStyle& style);

// The same statements split in two for a caller that evaluates the DAG at many points sharing
// some inputs (the cpu stage: every node of one face has the same normal and materials). A node
// is invariant when it is an invariant input, a constant, or an operation on invariant nodes
// only. `invariant` computes the live invariant operations once and stores each invariant value
// the rest reads (operations and inputs alike) as hoist_array[h]<lane_index>; `variant` is the
// rest, reading those. Operation order and rounding are those of emit_c_statements (the same
// operations on the same operands), only where each one is written differs. The invariant
// section reads only invariant input slots, the variant section only the others.
struct CSplitStatements {
  std::string invariant;
  std::string variant;
  int hoisted = 0;  // values stored in hoist_array
};
CSplitStatements emit_c_statements_split(const ScalarDag& dag, const CExprStyle& style,
                                         const std::vector<bool>& invariant_slot, const std::string& hoist_array);

// besselj and bessely print as calls of dgmax_besselj(n, x) and dgmax_bessely(n, x), functions the
// generated source defines once with bessel_c_definitions (after DGMAX_FN, before the first use) when
// any of its DAGs uses them (uses_bessel: a live besselj or bessely node).
bool uses_bessel(const ScalarDag& dag);
std::string bessel_c_definitions(bool cuda);

}  // namespace dgmax::codegen

