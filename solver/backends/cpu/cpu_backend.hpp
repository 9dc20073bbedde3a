// The cpu backend: kernels generated from the problem (codegen/emit/cpu_kernels) and compiled by
// the host compiler at run time (codegen/jit), in double or single precision, OpenMP over elements.
#pragma once

#include <memory>

#include "codegen/tune/cpu_plan.hpp"
#include "solver/backends/backend.hpp"

namespace dgmax {

// Generates, compiles (or loads from the kernel cache) and sets up the kernels for `p`, with this
// host's default plan (codegen::default_cpu_plan) or the one DGMAX_CPU_PLAN names.
std::unique_ptr<Backend> make_cpu_backend(const Problem& p, bool single);
// The same with a given plan (tests, comparisons of plans; a different name, so that
// make_cpu_backend stays one function that tests pass around).
std::unique_ptr<Backend> make_cpu_backend_with_plan(const Problem& p, bool single, const codegen::CpuPlan& plan);

}  // namespace dgmax
