// The C++ source of the cpu backend's kernels for one KernelSpec: one translation unit with
//   dgmax_volume   — reference derivatives + metric → curl H, −curl E          (rhs = volume terms)
//   dgmax_surface  — gathers interior/exterior traces, exterior states on boundaries, the flux
//   dgmax_lift     — rhs += LIFT·(Fscale·flux), material scaling, conductivity, current source
//   dgmax_update   — one LSERK stage: res = a·res + dt·rhs; q += b·res
// N, Np, Nfp and the operator matrices are compile-time constants. Data layouts:
//   q, rhs: [K][6][Np]; geo: [K][kGeoStride]; mat: [K][kMatStride]; etoe, bc, inc_offset: [K][4];
//   vmapP: [K][4][Nfp] (neighbour node k'·Np + i'); flux: [K][4·Nfp][6];
//   inc: [n][6] incident E, H at face nodes, face (k, f) starting at row inc_offset[k·4 + f];
//   J: [3][K·Np] or null.
#pragma once

#include <string>

#include "codegen/emit/kernel_spec.hpp"

namespace dgmax::codegen {

std::string generate_cpu_source(const KernelSpec& spec);

// extern "C" signatures of the generated functions (real_t = float or double):
//   void dgmax_volume(int K, const real_t* q, const real_t* geo, real_t* rhs);
//   void dgmax_surface(int K, const real_t* q, const real_t* geo, const real_t* mat,
//                      const int* etoe, const int* bc, const int* vmapP, const int* inc_offset,
//                      const real_t* inc, real_t* flux);
//   void dgmax_lift(int K, const real_t* flux, const real_t* mat, const real_t* q,
//                   const real_t* J, real_t* rhs);
//   void dgmax_update(long n, real_t a, real_t b, real_t dt, const real_t* rhs, real_t* res, real_t* q);

}  // namespace dgmax::codegen
