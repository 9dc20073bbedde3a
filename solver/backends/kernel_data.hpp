// The per-element and per-face arrays the generated kernels read (cpu and cuda backends share
// them; the cuda backend copies them to the device). Layouts match codegen/emit/kernel_spec.hpp.
#pragma once

#include <vector>

#include "solver/physics/problem.hpp"

namespace dgmax {

template <class Real>
struct KernelData {
  std::vector<Real> geo;         // [K][kGeoStride]  metric, Fscale, normals
  std::vector<Real> mat;         // [K][kMatStride]  eps, mu, Z, Y, 1/eps, 1/mu, sigma/eps
  std::vector<int> etoe;         // [K][4] neighbour element, -1 on boundaries
  std::vector<int> bc;           // [K][4] exterior-state index on boundaries, -1 elsewhere
  std::vector<int> vmapP;        // [K][4][Nfp] neighbour node k'·Np + i'
  std::vector<int> inc_offset;   // [K][4] first row in the incident array, -1 if not read
  std::vector<double> inc_x, inc_y, inc_z;  // [n_inc] face nodes whose state reads Einc/Hinc

  size_t n_inc() const { return inc_x.size(); }
};

template <class Real>
KernelData<Real> make_kernel_data(const Problem& p);

// Incident E, H at the listed face nodes: out [n_inc][6].
template <class Real>
void eval_incident(const Problem& p, const KernelData<Real>& d, double t, Real* out);

// Current density at all nodes: out [3][K·Np].
template <class Real>
void eval_current(const Problem& p, double t, Real* out);

}  // namespace dgmax
