// The cuda backend: kernels generated from the problem (codegen/emit/cuda_kernels), compiled by
// NVRTC for the device's own architecture (cached on disk), state and per-element data resident
// in device memory. fp32 or fp64.
#pragma once

#include <memory>

#include "solver/backends/backend.hpp"

namespace dgmax {

// Throws UserError when no usable GPU is present, or when the problem does not fit in device memory
// (saying how many DOF were requested and roughly how many fit).
std::unique_ptr<Backend> make_cuda_backend(const Problem& p, bool single);

}  // namespace dgmax
