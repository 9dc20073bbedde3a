// The per-element and per-face arrays the generated kernels read (cpu and cuda backends share
// them; the cuda backend copies them to the device). Layouts match codegen/emit/kernel_spec.hpp.
#pragma once

#include <vector>

#include "solver/backends/backend.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

template <class Real>
struct KernelData {
  std::vector<Real> geo;         // [K][kGeoStride]  metric, Fscale, normals
  std::vector<Real> mat;         // [K][kMatStride]  eps, mu, Z, Y, 1/eps, 1/mu, sigma/eps
  std::vector<int> etoe;         // [K][4] neighbour element, -1 on boundaries
  std::vector<int> bc;           // [K][4] exterior-state index on boundaries, -1 elsewhere
  std::vector<int> vmapP;        // [K][4][Nfp] neighbour node k'·Np + i'
  std::vector<double> vert;      // [K][kVertStride] vertex coordinates and J, always double
  std::vector<int> xslot;        // [K] slot of an element with extra terms (the PML), -1 elsewhere
  std::vector<int> pml_elem;     // [slots] the layer's elements
  std::vector<Real> xscale;      // [slots][6][Np] scale of the ordinary right-hand side (kappa != 1 only)
  // [layer slots][kPmlCoef] the layer's coefficients per element, for kernels that update the
  // auxiliary fields inside the stage (codegen::PmlCoef order)
  std::vector<Real> pml_coef;
  std::vector<int> tfsf_elem;    // [n] elements with a total-field/scattered-field face (slots after the layer's)
  std::vector<int> tfsf_sign;    // [n][4] +1 total-field side, -1 scattered side, 0
  int slots() const { return static_cast<int>(pml_elem.size() + tfsf_elem.size()); }
};

template <class Real>
KernelData<Real> make_kernel_data(const Problem& p);

// The reductions of a generated dgmax_norms kernel (codegen::kNorm* order) as a NormSample.
NormSample norm_sample(const double* reduced);

}  // namespace dgmax
