// The perfectly matched layer as plain data the kernel generators bake in, and its coefficients.
//
// Formulation (complex-frequency-shifted stretched coordinates, in uniaxial form): with
// s_j = kappa_j + sigma_j / (alpha_j + i w) for the axes j = x, y, z, Maxwell's curl equations in
// the layer read  i w eps Lambda E = curl H,  i w mu Lambda H = -curl E,  Lambda = diag(s_y s_z / s_x,
// s_z s_x / s_y, s_x s_y / s_z). Component a of E (or H), with (a, b, c) a cyclic order of the axes,
// satisfies i w (kappa_b kappa_c / kappa_a) r_b r_c / r_a u = C with r_j = (i w + beta_j)/(i w + alpha_j),
// beta_j = alpha_j + sigma_j / kappa_j, and C the usual right-hand side (curl H / eps, ... ). Three
// auxiliary fields per component turn the three rational factors into pointwise ODEs:
//   psi1' = -beta_a psi1 + (sigma_a/kappa_a) u         u1 = u - psi1   (= u / r_a)
//   psi2' = -alpha_c psi2 + (sigma_c/kappa_c) u1       u2 = u1 + psi2  (= r_c u1)
//   psi3' = -alpha_b psi3 + (sigma_b/kappa_b) u2       u3 = u2 + psi3  (= r_b u2)
//   u' = C kappa_a / (kappa_b kappa_c) + psi1' - psi2' - psi3'          (from u3' = C kappa_a / (kappa_b kappa_c))
// so the layer adds to the ordinary right-hand side a scale and a source computed from the local
// state alone: rhs = C * scale + src. Outside the layer sigma = 0 and kappa = 1 and nothing changes;
// the fields stay the physical ones up to the interface (the layer is reflectionless there).
// alpha > 0 damps the static (zero-frequency) solutions that make the unshifted layer grow linearly
// in time.
#pragma once

#include <algorithm>
#include <cmath>

namespace dgmax::codegen {

// Grading inside the layer: with u = (depth into the layer) / (its thickness) in [0, 1],
// sigma = sigma_max u^order, kappa = 1 + (kappa_max - 1) u^order, alpha constant.
struct PmlProfile {
  double inner_lo[3] = {0, 0, 0}, inner_hi[3] = {0, 0, 0};  // the undamped box: the layer lies outside it
  double width_lo[3] = {0, 0, 0}, width_hi[3] = {0, 0, 0};  // layer thickness below / above it (0: none)
  double sigma_lo[3] = {0, 0, 0}, sigma_hi[3] = {0, 0, 0};  // sigma_max on each side
  double order = 3;
  double kappa_max = 1;
  double alpha = 0;
};

// Auxiliary fields per node: psi[3*c + m] is psi_{m+1} of component c (E x, y, z, H x, y, z).
inline constexpr int kPmlAux = 18;

// Where an element's coefficients are taken, from the vertex coordinates v[4][3]: along each axis
// the middle of the element's extent, (min + max) / 2 (the generated pml_point computes the same
// bits). The layer's coefficients are constant per element: graded within an element, the nodal
// products sigma_i u_i are not mass-consistent and feed modes that grow exponentially (seen at
// N = 3: energy x10 per 3 time units after the pulse left). A stretched-coordinate layer is matched
// only across faces normal to its axis, so sigma_x should jump only there: every tetrahedron of a
// hexahedral cell split along its diagonals spans the cell's whole extent on each axis, so in a
// structured layer (the box mesher's, or a transfinite one from Gmsh) all of a cell's tetrahedra
// share their coefficients, and sigma_x changes only across the cells' x faces. (The centroid gave
// the cell's tetrahedra different values: jumps across their oblique faces, which reflect whatever
// the order; bench/NOTES.md, "The layer's coefficients at the middle of each element's extent".)
inline void pml_point(const double* v, double* x) {
  for (int d = 0; d < 3; ++d) {
    double lo = v[d], hi = v[d];
    for (int n = 1; n < 4; ++n) lo = v[3 * n + d] < lo ? v[3 * n + d] : lo, hi = v[3 * n + d] > hi ? v[3 * n + d] : hi;
    x[d] = 0.5 * (lo + hi);
  }
}

// sigma, kappa and alpha along each axis at point x (host twin of the generated pml_coefficients).
inline void pml_coefficients(const PmlProfile& p, const double* x, double* sigma, double* kappa, double* alpha) {
  for (int j = 0; j < 3; ++j) {
    double u = 0, smax = 0;
    if (p.width_lo[j] > 0 && x[j] < p.inner_lo[j]) u = (p.inner_lo[j] - x[j]) / p.width_lo[j], smax = p.sigma_lo[j];
    if (p.width_hi[j] > 0 && x[j] > p.inner_hi[j]) u = (x[j] - p.inner_hi[j]) / p.width_hi[j], smax = p.sigma_hi[j];
    const double g = u > 0 ? std::pow(std::min(u, 1.0), p.order) : 0.0;
    sigma[j] = smax * g;
    kappa[j] = 1 + (p.kappa_max - 1) * g;
    alpha[j] = p.alpha;
  }
}

// An element's coefficients as the stage kernels that update the auxiliary fields themselves read
// them (cuda fusion 2): sigma/kappa per axis, the scale kappa_a / (kappa_b kappa_c) of component
// a's ordinary right-hand side, alpha per axis; each rounded once to the kernel's precision, as the
// separate layer kernel rounds them.
enum PmlCoef { kPmlCoefRate = 0, kPmlCoefScale = 3, kPmlCoefAlpha = 6, kPmlCoef = 9 };

template <class Real>
void pml_element_coefficients(const double* sigma, const double* kappa, const double* alpha, Real* out) {
  for (int j = 0; j < 3; ++j) {
    out[kPmlCoefRate + j] = static_cast<Real>(sigma[j] / kappa[j]);
    out[kPmlCoefScale + j] = static_cast<Real>(kappa[j] / (kappa[(j + 1) % 3] * kappa[(j + 2) % 3]));
    out[kPmlCoefAlpha + j] = static_cast<Real>(alpha[j]);
  }
}

// The layer's terms at one node: from the state u[6] and the auxiliary fields psi[18], their
// right-hand sides dpsi[18], the source src[6] and the scale of the ordinary right-hand side.
template <class Real>
void pml_node_terms(const double* sigma, const double* kappa, const double* alpha, const Real* u, const Real* psi,
                    Real* dpsi, Real* src, Real* scale) {
  for (int c = 0; c < 6; ++c) {
    const int a = c % 3, b = (a + 1) % 3, cc = (a + 2) % 3;
    const Real* ps = psi + 3 * c;
    Real* dp = dpsi + 3 * c;
    const Real sa = static_cast<Real>(sigma[a] / kappa[a]), sb = static_cast<Real>(sigma[b] / kappa[b]),
               sc = static_cast<Real>(sigma[cc] / kappa[cc]);
    dp[0] = -(static_cast<Real>(alpha[a]) + sa) * ps[0] + sa * u[c];
    const Real u1 = u[c] - ps[0];
    dp[1] = -static_cast<Real>(alpha[cc]) * ps[1] + sc * u1;
    const Real u2 = u1 + ps[1];
    dp[2] = -static_cast<Real>(alpha[b]) * ps[2] + sb * u2;
    src[c] = dp[0] - dp[1] - dp[2];
    scale[c] = static_cast<Real>(kappa[a] / (kappa[b] * kappa[cc]));
  }
}

}  // namespace dgmax::codegen
