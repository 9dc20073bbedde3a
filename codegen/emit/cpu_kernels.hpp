// The C++ source of the cpu backend's kernels for one KernelSpec: one translation unit with, for a
// fused plan (KernelPlan::cpu, codegen/tune/cpu_plan.hpp),
//   dgmax_stage    — one LSERK stage per batch of W elements: volume terms, face fluxes, lift, the
//                    layer's terms, res = a·res + dt·rhs, q_out = q + b·res (q ping-pongs)
// or, for four passes,
//   dgmax_volume   — reference derivatives + metric → curl H, −curl E          (rhs = volume terms)
//   dgmax_surface  — gathers interior/exterior traces, exterior states on boundaries, the flux
//   dgmax_lift     — rhs += LIFT·(Fscale·flux), material scaling, conductivity, current source
//   dgmax_update   — one LSERK stage: res = a·res + dt·rhs; q += b·res
//   dgmax_pml      — the layer's auxiliary fields and source, before the stage
// and in both cases dgmax_tfsf (with TF/SF), dgmax_initial, dgmax_norms, dgmax_field_at.
// N, Np, Nfp and the operator matrices are compile-time constants. Data layouts:
//   q, rhs: [K][6][Np]; geo: [K][kGeoStride]; mat: [K][kMatStride]; etoe, bc: [K][4];
//   vmapP: [K][4][Nfp] (neighbour node k'·Np + i'); flux: [K][4·Nfp][6]; the batch-interleaved
//   copies dgmax_stage reads are described at its definition.
#pragma once

#include <string>

#include "codegen/emit/kernel_spec.hpp"

namespace dgmax::codegen {

std::string generate_cpu_source(const KernelSpec& spec);

// The extern "C" signatures are those of the function pointer types in
// solver/backends/cpu/cpu_backend.cpp (StageFn, VolumeFn, ...), next to their one caller.

}  // namespace dgmax::codegen
