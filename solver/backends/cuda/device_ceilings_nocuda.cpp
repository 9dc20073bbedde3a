// Stands in for device_ceilings.cpp in builds without CUDA.
#include "solver/backends/cuda/device_ceilings.hpp"

#include "solver/util/error.hpp"

namespace dgmax::cuda {

DeviceCeilings measure_device_ceilings(bool) { throw UserError("this build has no CUDA support"); }

}  // namespace dgmax::cuda
