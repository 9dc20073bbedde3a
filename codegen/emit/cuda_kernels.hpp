// The CUDA source of the cuda backend's kernels for one KernelSpec (compiled by NVRTC), sliced as
// spec.plan.cuda says (codegen/tune/cuda_plan.hpp). Blocks of (NP, EPB / EPT) threads: thread
// (i, y) owns node i of EPT of the block's EPB elements.
//   dgmax_stage          one whole LSERK stage (plan fusion 2)
//   dgmax_volume         the elements' states staged in shared memory; curl H, −curl E
//   dgmax_surface_lift   face fluxes in shared memory, then LIFT, materials, conductivity, J (fusion 1)
//   dgmax_surface        one thread per face node: traces, exterior state, flux × Fscale (fusion 0)
//   dgmax_lift           the face fluxes staged in shared memory; LIFT ... (fusion 0)
//   dgmax_update         grid-stride LSERK stage (fusion 0 and 1)
//   dgmax_initial, dgmax_norms, dgmax_field_at: blocks of (NP, cuda_norm_elements_per_block)
// Layouts are those of cpu_kernels.hpp; the same common section (kernel_common.hpp) prints the
// operator tables and the flux, so both backends derive from the same DAGs.
#pragma once

#include <string>

#include "codegen/emit/kernel_spec.hpp"

namespace dgmax::codegen {

// Elements per block of dgmax_initial and dgmax_norms (not part of the plan): about 128 threads.
int cuda_norm_elements_per_block(int Np);

// Whether spec's whole-stage kernel advances the layer's auxiliary fields itself (stage_extra):
// then the backend launches no dgmax_pml before it and passes the layer's arrays to dgmax_stage.
bool cuda_pml_in_stage(const KernelSpec& spec);

std::string generate_cuda_source(const KernelSpec& spec);

}  // namespace dgmax::codegen
