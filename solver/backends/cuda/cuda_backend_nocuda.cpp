// Stands in for cuda_backend.cpp in builds without CUDA.
#include "solver/backends/cuda/cuda_backend.hpp"

#include "solver/util/error.hpp"

namespace dgmax {
namespace {

[[noreturn]] void no_cuda() {
  throw UserError("this build has no CUDA support", {},
                  "use backend: cpu, or rebuild with the CUDA Toolkit (-DDGMAX_USE_CUDA=ON)");
}

}  // namespace

codegen::CudaBlockLimits cuda_block_limits() { no_cuda(); }
std::unique_ptr<Backend> make_cuda_backend(const Problem&, bool) { no_cuda(); }
std::unique_ptr<CudaPlanBackend> make_cuda_plan_backend(const Problem&, bool, const codegen::CudaPlan&) { no_cuda(); }

}  // namespace dgmax
