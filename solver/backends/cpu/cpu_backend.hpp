// The cpu backend: kernels generated from the problem (codegen/emit/cpu_kernels) and compiled by
// the host compiler at run time (codegen/jit), in double or single precision, OpenMP over elements.
#pragma once

#include <memory>

#include "solver/backends/backend.hpp"

namespace dgmax {

// Generates, compiles (or loads from the kernel cache) and sets up the kernels for `p`.
std::unique_ptr<Backend> make_cpu_backend(const Problem& p, bool single);

}  // namespace dgmax
