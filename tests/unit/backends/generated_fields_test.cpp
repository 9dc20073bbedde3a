// Space-time fields (initial, exact, J, incident) compiled into the generated cpu kernels against
// the interpreter the ref backend uses, and the reductions and initial state the cpu backend
// computes against the host's.
#include <gtest/gtest.h>

#include <cmath>

#include "codegen/emit/cpu_kernels.hpp"
#include "codegen/jit/host_jit.hpp"
#include "expect_user_error.hpp"
#include "field_cases.hpp"
#include "mixed_problem.hpp"
#include "simulate.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/kernel_spec_builder.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

Problem small_problem(int N) {
  Problem p = box_problem(unit_box(1), N, 1.0);
  set_case_fields(p);
  return p;
}

}  // namespace

TEST(GeneratedFields, CpuEqualsInterpreterBitwise) {
  for (bool single : {false, true}) {
    const Problem p = small_problem(2);
    const auto lib = codegen::jit_compile(codegen::generate_cpu_source(make_kernel_spec(p, single)), "fields_test");
    using FieldAt = void (*)(int, long, const double*, double*);
    const auto field_at = reinterpret_cast<FieldAt>(lib->symbol("dgmax_field_at"));
    const double d = max_field_difference([&](int w, const std::vector<double>& pts, std::vector<double>& out) {
      field_at(w, static_cast<long>(pts.size() / 4), pts.data(), out.data());
    });
    // same operations in the same order, the same libm, no contraction: the same bits
    EXPECT_EQ(d, 0.0) << (single ? "single" : "double");
  }
}

TEST(GeneratedFields, GeneratedSourceHasNoUserText) {
  // constants are folded in as numbers; user text never reaches the source, only re-printed
  // canonical expressions in comments
  Problem p = box_problem(unit_box(1), 1, 1.0);
  p.exact = space_time_field_from_text({"omega*x", "0", "0", "0", "0", "0"}, "exact", {{"omega", 0.1}});
  const std::string src = codegen::generate_cpu_source(make_kernel_spec(p, false));
  EXPECT_NE(src.find("expr_t(0.1) * in[0]"), std::string::npos) << src.substr(0, 4000);
  EXPECT_EQ(src.find("omega *"), std::string::npos);
}

TEST(GeneratedFields, CpuInitialStateAndNormsEqualTheHost) {
  // same libm, same operations: the initial state is bitwise the host's in double
  expect_initial_state_and_norms_equal_host(make_cpu_backend, false, 0.0);
  expect_initial_state_and_norms_equal_host(make_cpu_backend, true, 4e-7);
}

TEST(GeneratedFields, CpuNormsPropagateNaN) { expect_norms_propagate_nan(make_cpu_backend); }

TEST(GeneratedFields, CpuNonFiniteInitialNamesComponentAndPoint) {
  expect_nonfinite_initial_is_located(make_cpu_backend, false);
  expect_nonfinite_initial_is_located(make_cpu_backend, true);
}

TEST(GeneratedFields, FieldWithoutExpressionFormIsRefusedByTheGeneratedBackends) {
  // a field given only as a host function (tests) cannot be compiled: an internal error, not a
  // silently missing source
  Problem p = mixed_problem(1, 1);
  p.current.lowered.reset();
  EXPECT_THROW(make_cpu_backend(p, false), InternalError);
}
