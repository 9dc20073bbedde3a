// Prints a ScalarDag as straight-line scalar C (`real_t` temporaries), readable and identical in
// operation order to the DAG interpreter. Used inside the cpu and cuda kernel templates.
#pragma once

#include <string>
#include <vector>

#include "codegen/lower/scalar_dag.hpp"

namespace dgmax::codegen {

struct CExprStyle {
  std::string input_array = "in";    // inputs read as in[slot]
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

}  // namespace dgmax::codegen
