// The CUDA source of the cuda backend's kernels for one KernelSpec (compiled by NVRTC):
//   dgmax_volume   block (NP, EPB): one thread per node, EPB elements per block; the elements'
//                  states staged in shared memory; curl H, −curl E
//   dgmax_surface  one thread per face node: traces, exterior state, flux × Fscale
//   dgmax_lift     block (NP, EPB): the elements' face fluxes staged in shared memory; LIFT,
//                  material scaling, conductivity, current source
//   dgmax_update   grid-stride LSERK stage
// Layouts are those of cpu_kernels.hpp; the same common section (kernel_common.hpp) prints the
// operator tables and the flux, so both backends derive from the same DAGs.
#pragma once

#include <string>

#include "codegen/emit/kernel_spec.hpp"

namespace dgmax::codegen {

// Elements per block of the volume and lift kernels: about 128 threads per block.
int cuda_elements_per_block(const KernelSpec& spec);

std::string generate_cuda_source(const KernelSpec& spec);

}  // namespace dgmax::codegen
