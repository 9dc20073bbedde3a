// The values a numerical flux (or a boundary exterior state) may read at one face node, as a
// fixed slot order shared by the lowering, the DAG interpreter (ref backend) and the emitted
// kernels (cpu, cuda). A kernel fills in[kNumFluxInputs] and gets out[6] = (E xyz, H xyz).
#pragma once

namespace dgmax::codegen {

enum FluxInput : int {
  kEint = 0,    // E.int  (3 slots: x, y, z)
  kHint = 3,    // H.int
  kEext = 6,    // E.ext  (in an exterior-state expression: not available)
  kHext = 9,    // H.ext
  kNormal = 12, // n, outward unit normal of the interior element (3)
  kEpsInt = 15, kEpsExt, kMuInt, kMuExt, kZInt, kZExt, kYInt, kYExt,  // material scalars
  kEinc = 23,   // Einc: incident field at the node (exterior states only; 3)
  kHinc = 26,   // Hinc (3)
  kNumFluxInputs = 29
};

// Flux outputs: flux_E = n×(H⁻ − H*), flux_H = n×(E⁻ − E*) (the surface terms of
//   eps dE/dt = curl H − LIFT(Fscale·flux_E),  mu dH/dt = −curl E + LIFT(Fscale·flux_H)).
// Exterior-state outputs: E.ext and H.ext.
inline constexpr int kNumFluxOutputs = 6;

// C identifier of an input slot in emitted code, e.g. "in[14]" is printed as the caller wishes;
// this gives a readable name for comments: "n.z", "Z.ext", "E.int.x".
const char* flux_input_label(int slot);

}  // namespace dgmax::codegen
