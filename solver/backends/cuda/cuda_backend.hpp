// The cuda backend: kernels generated from the problem (codegen/emit/cuda_kernels), compiled by
// NVRTC for the device's own architecture (cached on disk), state and per-element data resident
// in device memory. fp32 or fp64. How the kernels are sliced is a codegen::CudaPlan.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/tune/cuda_plan.hpp"
#include "solver/backends/backend.hpp"

namespace dgmax {

// What the compiler made of one kernel of a plan.
struct CudaKernelReport {
  std::string kernel;  // "dgmax_stage"
  int registers = 0, shared_bytes = 0, local_bytes = 0, max_threads = 0, threads = 0;
  int blocks_per_sm = 0;  // resident blocks per multiprocessor at this block size (occupancy)
};

// The cuda backend with its plan exposed (for the tuner and reports).
class CudaPlanBackend : public Backend {
 public:
  virtual const codegen::CudaPlan& plan() const = 0;
  // Recompiles the kernels for `plan`, keeping the state, residual and all device data.
  virtual void set_plan(const codegen::CudaPlan& plan) = 0;
  // The kernels the plan launches every stage.
  virtual std::vector<CudaKernelReport> kernel_reports() const = 0;
};

// The limits of the current device for generated blocks (threads, shared memory, architecture).
codegen::CudaBlockLimits cuda_block_limits();

// Throws UserError when no usable GPU is present, or when the problem does not fit in device memory
// (saying how many DOF were requested and roughly how many fit). Uses default_cuda_plan.
std::unique_ptr<Backend> make_cuda_backend(const Problem& p, bool single);
// The same with a given plan (InternalError when cuda_plan_rejection refuses it).
std::unique_ptr<CudaPlanBackend> make_cuda_plan_backend(const Problem& p, bool single, const codegen::CudaPlan& plan);

}  // namespace dgmax
