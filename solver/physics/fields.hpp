// The Maxwell state: six field components per node, element-major.
#pragma once

#include <cstddef>
#include <vector>

namespace dgmax {

// Field component order within an element.
enum Component : int { Ex = 0, Ey, Ez, Hx, Hy, Hz, kNumComponents };

// q: [K][6][Np] — element k, component c, node i at q[(k*6 + c)*Np + i].
template <class Real>
struct FieldsT {
  int K = 0, Np = 0;
  std::vector<Real> q;

  FieldsT() = default;
  FieldsT(int K_, int Np_) : K(K_), Np(Np_), q(static_cast<size_t>(K_) * kNumComponents * Np_, Real(0)) {}

  size_t index(int k, int c, int i) const { return (static_cast<size_t>(k) * kNumComponents + c) * Np + i; }
  Real* comp(int k, int c) { return q.data() + index(k, c, 0); }
  const Real* comp(int k, int c) const { return q.data() + index(k, c, 0); }
  Real& operator()(int k, int c, int i) { return q[index(k, c, i)]; }
  Real operator()(int k, int c, int i) const { return q[index(k, c, i)]; }
};

using Fields = FieldsT<double>;

}  // namespace dgmax
