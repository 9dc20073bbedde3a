// Problem → KernelSpec: the plain data the kernel generators need (order, operators, flux DAGs).
#pragma once

#include "codegen/emit/kernel_spec.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

codegen::KernelSpec make_kernel_spec(const Problem& p, bool single);

}  // namespace dgmax
