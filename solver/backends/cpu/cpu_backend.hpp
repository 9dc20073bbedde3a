// The cpu backend: kernels generated from the problem (codegen/emit/cpu_kernels) and compiled by
// the host compiler at run time (codegen/jit), in double or single precision, OpenMP over elements.
#pragma once

#include <memory>
#include <vector>

#include "codegen/tune/cpu_plan.hpp"
#include "solver/backends/backend.hpp"

namespace dgmax {

// Generates, compiles (or loads from the kernel cache) and sets up the kernels for `p`, with the plan
// cpu_plan_for_problem picks: DGMAX_CPU_PLAN's, the tuning database's (dgmax tune --backend cpu) or
// this host's default (codegen::default_cpu_plan).
std::unique_ptr<Backend> make_cpu_backend(const Problem& p, bool single);
// The same with a given plan (tests, comparisons of plans; a different name, so that
// make_cpu_backend stays one function that tests pass around).
std::unique_ptr<Backend> make_cpu_backend_with_plan(const Problem& p, bool single, const codegen::CpuPlan& plan);
// Makes a backend of make_cpu_backend_with_plan run `plan`'s kernels over the arrays it has, where
// the plan lays them out alike (codegen::CpuPlan::same_data_layout); false (and no change) where
// not, or where `be` is no cpu backend. Throws when the plan's kernels do not compile, leaving `be`
// as it was. For the plan search: the state is the backend's as before.
bool adopt_cpu_plan(Backend& be, const codegen::CpuPlan& plan);
// Compiles the kernels of `plans` for `p` into the kernel cache on all cores (the host JIT is
// thread-safe), so that backends made with them afterwards find them there. Compile errors are
// left for those backends to report.
void precompile_cpu_plans(const Problem& p, bool single, const std::vector<codegen::CpuPlan>& plans);

}  // namespace dgmax
