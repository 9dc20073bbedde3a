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
// Compiles the kernels of `plans` for `p` into the kernel cache on all cores (the host JIT is
// thread-safe), so that backends made with them afterwards find them there. Compile errors are
// left for those backends to report.
void precompile_cpu_plans(const Problem& p, bool single, const std::vector<codegen::CpuPlan>& plans);

}  // namespace dgmax
