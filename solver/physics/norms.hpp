// Energy and error norms, integrated with the element mass matrices (a quadrature exact for
// products of basis polynomials), over the problem's owned elements (a partitioned run's ghosts
// are other ranks' elements: the backend sums the ranks' values).
#pragma once

#include "solver/physics/fields.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// W = 1/2 ∫ (eps |E|² + mu |H|²) dV
double electromagnetic_energy(const Problem& p, const Fields& q);

struct ErrorNorms {
  double L2_E = 0, L2_H = 0;      // sqrt(∫ |E - E_exact|² dV), same for H
  double Linf_E = 0, Linf_H = 0;  // max over nodes and components of |E - E_exact|
};

// NaN-propagating maximum: a NaN error must not hide behind finite ones (std::max and fmax drop it).
inline double max_nan(double m, double a) { return (a > m || a != a) ? a : m; }

// `exact` has 6 components (E, H); it is interpolated at the nodes.
ErrorNorms error_norms(const Problem& p, const Fields& q, const FieldFn& exact, double t);

// ||J/sqrt(eps)||_L2 of the 3-component field J interpolated at the nodes (mass matrices).
double current_norm(const Problem& p, const FieldFn& J, double t);

// Interpolates a 6-component field at the nodes: q(k, c, i) = f_c(x_ki, t).
void interpolate(const Problem& p, const FieldFn& f, double t, Fields& q);

}  // namespace dgmax
