// Stands in for cuda_backend.cpp in builds without CUDA.
#include "solver/backends/cuda/cuda_backend.hpp"

#include "solver/util/error.hpp"

namespace dgmax {

std::unique_ptr<Backend> make_cuda_backend(const Problem&, bool) {
  throw UserError("this build has no CUDA support", {},
                  "use backend: cpu, or rebuild with the CUDA Toolkit (-DDGMAX_USE_CUDA=ON)");
}

}  // namespace dgmax
