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

TEST(GeneratedFields, CpuInitialStateEqualsHostInterpolation) {
  for (bool single : {false, true}) {
    Problem p = mixed_problem(3, 4);
    p.initial = space_time_field_from_text(
        {"sin(pi*x)*y", "cos(z) - x", "exp(-x^2)", "x*y*z", "atan2(y, x + 3)", "sqrt(1 + z^2)"}, "initial");
    auto be = make_cpu_backend(p, single);
    be->init_state();
    Fields q;
    be->get_state(q);
    const Fields host = interpolate_initial(p);
    double d = 0;
    for (size_t n = 0; n < q.q.size(); ++n) d = std::max(d, std::abs(q.q[n] - host.q[n]));
    if (single)
      EXPECT_LE(d, 4e-7);  // one rounding to float of values of size <= 3
    else
      EXPECT_EQ(d, 0.0);
  }
}

TEST(GeneratedFields, CpuNormsEqualHostNorms) {
  for (bool single : {false, true}) {
    Problem p = mixed_problem(4, 9);
    p.exact = space_time_field_from_text({"sin(x + t)", "y", "z*t", "0", "cos(x*y)", "x - t"}, "exact");
    expect_norms_equal_host(p, *make_cpu_backend(p, single), single);
  }
}

TEST(GeneratedFields, CpuNormsPropagateNaN) {
  Problem p = mixed_problem(2, 1);
  p.exact = space_time_field_from_text({"0", "0", "log(x - 100)", "0", "0", "0"}, "exact");
  auto be = make_cpu_backend(p, false);
  be->set_state(random_state(p, 1));
  const NormSample s = be->norms(0);
  EXPECT_TRUE(std::isnan(s.errors.L2_E));
  EXPECT_TRUE(std::isnan(s.errors.Linf_E));  // a NaN error must not hide behind finite ones
  EXPECT_FALSE(std::isnan(s.errors.L2_H));
}

TEST(GeneratedFields, CpuNonFiniteInitialNamesComponentAndPoint) {
  for (bool single : {false, true}) {
    Problem p = mixed_problem(2, 2);
    // finite in double everywhere, but 1e39 overflows single precision
    p.initial = space_time_field_from_text({"0", "0", "0", "0", single ? "1e39 + x" : "log(x - 100)", "0"}, "initial.H");
    auto be = make_cpu_backend(p, single);
    expect_user_error([&] { be->init_state(); }, {"'initial.H[4]' is", single ? "infinite" : "NaN", "(x, y, z) = ("});
  }
}
