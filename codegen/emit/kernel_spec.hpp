// Everything a kernel generator needs, as plain data: codegen never sees meshes or physics types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/lower/field_lowering.hpp"
#include "codegen/lower/flux_lowering.hpp"
#include "codegen/emit/pml_profile.hpp"
#include "codegen/tune/cpu_plan.hpp"
#include "codegen/tune/cuda_plan.hpp"

namespace dgmax::codegen {

// How the work is sliced (the tuner's choices).
struct KernelPlan {
  CpuPlan cpu;    // cpu: fused or four passes, element batch (SIMD lanes), OpenMP chunk, vector width, FMA
  CudaPlan cuda;  // cuda: fusion, block shape, register blocking, operator residence
};

struct KernelSpec {
  int N = 0, Np = 0, Nfp = 0;
  bool single = false;                  // real_t = float (else double)
  // Operators, double precision, row-major.
  std::vector<double> Dr, Ds, Dt;       // [Np][Np]
  std::vector<double> LIFT;             // [Np][4*Nfp]
  std::vector<int> Fmask;               // [4][Nfp]
  LoweredFlux flux;                     // numerical flux (6 outputs)
  std::vector<LoweredFlux> exterior;    // exterior state per boundary-condition index (6 outputs each)
  std::vector<std::string> exterior_names;  // for comments: "pec", "pmc", ...
  std::vector<bool> exterior_reads_incident;  // per exterior state: whether it reads Einc/Hinc
  // Space-time fields of (x, y, z, t) compiled into the kernels, evaluated in double precision at
  // the nodes' physical coordinates (computed from the element's vertex record); absent = unused.
  std::optional<LoweredField> initial;   // 6 outputs: E, H at t = 0 (dgmax_initial)
  std::optional<LoweredField> exact;     // 6 outputs: E, H (error norms in dgmax_norms)
  std::optional<LoweredField> current;   // 3 outputs: J (fused into the right-hand side)
  std::optional<LoweredField> incident;  // 6 outputs: Einc, Hinc (at boundary face nodes)
  // A perfectly matched layer (pml_profile.hpp): its coefficients are compiled in; the kernels of
  // elements with a slot (xslot[k] >= 0) finish their right-hand side as rhs * xscale + xsrc.
  std::optional<PmlProfile> pml;
  bool pml_scaled = false;               // kappa_max != 1: xscale is read (else it is 1)
  // Total-field/scattered-field faces (solver/physics/tfsf.hpp): their elements get slots too; the
  // dgmax_tfsf kernel writes the incident field's flux correction, lifted, to xsrc.
  bool tfsf = false;
  // Curved elements (solver/mesh/curved_geometry.hpp) form their own group with its own kernels
  // (curved_kernels.hpp): the sizes of their volume and face rules; 0 without curved elements.
  int curved_Nq = 0, curved_Nfq = 0;
  // The cpu source with the cuda kernel's loops (one point or node per iteration, as one thread
  // does) instead of its own vectorized ones: tests run the cuda form's indexing on the host.
  bool curved_team_loops = false;
  std::vector<double> M;                 // [Np][Np] reference mass matrix (energy and norms)
  std::vector<double> node_weights;      // [Np][4] node i: x = sum_v w[i][v] * vertex_v
  KernelPlan plan;
  std::string origin;                   // what it was generated from (a line for the header)
};

// Per-element geometry record the kernels read: geo[k*kGeoStride + ...].
inline constexpr int kGeoDrdx = 0;     // rx ry rz sx sy sz tx ty tz (9)
inline constexpr int kGeoFscale = 9;   // Fscale per face (4)
inline constexpr int kGeoNormal = 13;  // normals, face-major (4 x 3)
inline constexpr int kGeoStride = 25;

// Per-element vertex record, always double: vert[k*kVertStride + 3*v + d] is coordinate d of
// vertex v; vert[k*kVertStride + kVertJ] the Jacobian determinant (volume / (4/3)).
inline constexpr int kVertJ = 12;
inline constexpr int kVertStride = 13;

// Reductions dgmax_norms returns (sums and maxima over all nodes, in double); kNormJ2 is
// ∫ |J|²/eps dV of the interpolated current (zero without one), for the energy guard.
inline constexpr int kNormEnergy = 0, kNormE2 = 1, kNormH2 = 2, kNormEinf = 3, kNormHinf = 4, kNormJ2 = 5,
                     kNumNorms = 6;
// Whether reduction n is a maximum (else a sum).
inline constexpr bool norm_is_max(int n) { return n == kNormEinf || n == kNormHinf; }

// Per-element material record: mat[k*kMatStride + ...].
inline constexpr int kMatEps = 0, kMatMu = 1, kMatZ = 2, kMatY = 3, kMatInvEps = 4, kMatInvMu = 5,
                     kMatSigmaOverEps = 6, kMatStride = 8;

}  // namespace dgmax::codegen
