// What the near-to-far tests feed the transform: a closed cube surface with a tensor
// Gauss–Legendre rule on each face, and the exact fields of two radiators (a Hertzian dipole and
// the Mie-scattered field of a sphere) sampled on it as a SurfaceDft, in dgmax's e^{+i omega t}
// convention with eps = mu = eta = 1.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <vector>

#include "solver/element/jacobi.hpp"
#include "solver/physics/surface_dft.hpp"

namespace dgmax::test {

using cplx = std::complex<double>;
using CVec3 = std::array<cplx, 3>;
constexpr double kPi = 3.14159265358979323846;

// The surface of the cube [c - h, c + h]^3: each face split into panels x panels squares, each with
// q x q Gauss–Legendre points. -> [6 panels² q²] points with outward normals and weights.
inline std::vector<SurfacePoint> cube_surface(const std::array<double, 3>& c, double h, int panels, int q) {
  const GaussRule g = jacobi_gq(0, 0, q - 1);  // on [-1, 1], weights sum to 2
  const double ph = h / panels;                // half-width of a panel
  std::vector<double> s, w;                    // [panels q] face coordinate in [-h, h], weight
  for (int p = 0; p < panels; ++p)
    for (int i = 0; i < q; ++i) {
      s.push_back(-h + (2 * p + 1) * ph + ph * g.x(i));
      w.push_back(ph * g.w(i));
    }
  std::vector<SurfacePoint> pts;
  for (int axis = 0; axis < 3; ++axis)
    for (const double side : {-1.0, 1.0}) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      for (size_t i = 0; i < s.size(); ++i)
        for (size_t j = 0; j < s.size(); ++j) {
          SurfacePoint p;
          p.x[static_cast<size_t>(axis)] = c[static_cast<size_t>(axis)] + side * h;
          p.x[static_cast<size_t>(u)] = c[static_cast<size_t>(u)] + s[i];
          p.x[static_cast<size_t>(v)] = c[static_cast<size_t>(v)] + s[j];
          p.n[static_cast<size_t>(axis)] = side;
          p.w = w[i] * w[j];
          pts.push_back(p);
        }
    }
  return pts;
}

// E and H at a point: what a radiator gives.
using FieldAt = std::function<void(const std::array<double, 3>& x, CVec3& E, CVec3& H)>;

// A one-frequency SurfaceDft holding `field` sampled at `points`.
inline SurfaceDft sample_surface(double frequency, std::vector<SurfacePoint> points, const FieldAt& field) {
  SurfaceDft d;
  d.frequencies = {frequency};
  d.points = std::move(points);
  d.E.resize(d.points.size() * 3);
  d.H.resize(d.points.size() * 3);
  for (size_t p = 0; p < d.points.size(); ++p) {
    CVec3 E, H;
    field(d.points[p].x, E, H);
    for (int c = 0; c < 3; ++c) {
      d.E[d.at(0, p, c)] = E[static_cast<size_t>(c)];
      d.H[d.at(0, p, c)] = H[static_cast<size_t>(c)];
    }
  }
  return d;
}

// Hertzian dipole of current moment m = I l (a complex vector) at d, wavenumber k, e^{+i omega t}
// (Balanis, Antenna Theory, sec. 4.2, in vector form), with R = x - d, u = R/|R|:
//   E = e^{-ikR}/(4 pi) { (ik/R) [u (u·m) - m] + (1/R² + 1/(ikR³)) [3u (u·m) - m] }
//   H = e^{-ikR}/(4 pi) (ik/R) (1 + 1/(ikR)) m × u
inline void dipole_field(const CVec3& m, const std::array<double, 3>& d, double k, const std::array<double, 3>& x,
                         CVec3& E, CVec3& H) {
  const std::array<double, 3> Rv{x[0] - d[0], x[1] - d[1], x[2] - d[2]};
  const double R = std::sqrt(Rv[0] * Rv[0] + Rv[1] * Rv[1] + Rv[2] * Rv[2]);
  const std::array<double, 3> u{Rv[0] / R, Rv[1] / R, Rv[2] / R};
  const cplx i(0, 1), ikR = i * k * R, g = std::exp(-ikR) / (4 * kPi);
  const cplx um = u[0] * m[0] + u[1] * m[1] + u[2] * m[2];
  const cplx far = ikR / (R * R), near = 1.0 / (R * R) + 1.0 / (ikR * R * R);
  const CVec3 mxu{m[1] * u[2] - m[2] * u[1], m[2] * u[0] - m[0] * u[2], m[0] * u[1] - m[1] * u[0]};
  for (size_t c = 0; c < 3; ++c) {
    E[c] = g * (far * (u[c] * um - m[c]) + near * (3.0 * u[c] * um - m[c]));
    H[c] = g * (i * k / R) * (1.0 + 1.0 / ikR) * mxu[c];
  }
}

// Its far-field amplitude F = lim r e^{+ikr} E: (ik/(4 pi)) e^{+ik r̂·d} [r̂ (r̂·m) - m], as
// (F_theta, F_phi).
inline std::array<cplx, 2> dipole_far_field(const CVec3& m, const std::array<double, 3>& d, double k, double theta,
                                            double phi) {
  const double st = std::sin(theta), ct = std::cos(theta), sp = std::sin(phi), cp = std::cos(phi);
  const std::array<double, 3> r{st * cp, st * sp, ct}, th{ct * cp, ct * sp, -st}, ph{-sp, cp, 0};
  const cplx f = cplx(0, k / (4 * kPi)) * std::polar(1.0, k * (r[0] * d[0] + r[1] * d[1] + r[2] * d[2]));
  // the r̂ (r̂·m) part has no theta or phi component
  return {-f * (th[0] * m[0] + th[1] * m[1] + th[2] * m[2]), -f * (ph[0] * m[0] + ph[1] * m[1])};
}

}  // namespace dgmax::test
