// The arrays the curved group's generated kernels read (codegen/emit/curved_kernels.hpp has the
// layouts): the owned curved elements' slots, their operators (curved_operators.hpp), geometry at
// the quadrature points and node positions, and the reference operators the face points and the
// norms need. Shared by the cpu and cuda backends.
#pragma once

#include <vector>

#include "codegen/emit/kernel_spec.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

template <class Real>
struct CurvedKernelData {
  int count = 0;              // Kc: owned curved elements (the slots)
  std::vector<int> cinfo;     // [Kc][kCurvedInfo] element, face rankings
  std::vector<Real> cgeo;     // [Kc][geo_stride] J at the volume points, normal and w·sJ at the face points
  std::vector<Real> cops;     // [op_size] w If VqT
  std::vector<Real> cmat;     // [Kc][4][Np][Np] A_x A_y A_z L transposed (curved_operators.hpp)
  std::vector<double> cx;     // [Kc][Np][3] node positions on the curved map
};

// Empty (count 0) when the problem has no owned curved element.
template <class Real>
CurvedKernelData<Real> make_curved_kernel_data(const Problem& p);

// The sizes the kernels are generated for: spec.curved_Nq, curved_Nfq (0 without owned curved elements).
void set_curved_sizes(const Problem& p, codegen::KernelSpec& spec);

}  // namespace dgmax
