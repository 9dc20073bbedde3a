// Stands in for cuda_tuner.cpp in builds without CUDA.
#include "solver/backends/cuda/cuda_tuner.hpp"

#include "solver/util/error.hpp"

namespace dgmax {

CudaTuneResult tune_cuda_plans(const Problem&, bool, const std::function<void(const PlanTrial&)>&) {
  throw UserError("this build has no CUDA support", {}, "rebuild with the CUDA Toolkit (-DDGMAX_USE_CUDA=ON)");
}

void precompile_cuda_plans(const Problem&, bool, const std::vector<codegen::CudaPlan>&) {
  throw UserError("this build has no CUDA support", {}, "rebuild with the CUDA Toolkit (-DDGMAX_USE_CUDA=ON)");
}

codegen::TuningKey cuda_tuning_key(const Problem&, bool) {
  throw UserError("this build has no CUDA support", {}, "rebuild with the CUDA Toolkit (-DDGMAX_USE_CUDA=ON)");
}

codegen::CudaPlan cuda_plan_for(const Problem& p, bool single, std::string* source) {
  if (source) *source = "default";
  return codegen::default_cuda_plan(p.N, single, 90, bool(p.current));
}

}  // namespace dgmax
