// Running Fourier transforms of the fields on a closed surface, as the near-to-far-field transform
// reads them: one record per surface quadrature point (a face node of a monitored face), with its
// position, outward unit normal and quadrature weight, and the complex E and H at each frequency.
//
// Convention: X(f) = sum over steps of x(t_n) exp(-i 2 pi f t_n) dt (time-harmonic fields then
// read as Re{X exp(+i 2 pi f t)}). Written by the DFT monitors (dft_monitor.hpp), read by
// near_to_far.hpp.
#pragma once

#include <array>
#include <complex>
#include <vector>

namespace dgmax {

struct SurfacePoint {
  std::array<double, 3> x{};  // position
  std::array<double, 3> n{};  // outward unit normal of the closed surface
  double w = 0;               // quadrature weight: ∫ g dS ≈ sum_p w_p g(x_p)
};

struct SurfaceDft {
  std::vector<double> frequencies;              // [F], cycles per unit time
  std::vector<SurfacePoint> points;             // [P]
  std::vector<std::complex<double>> E, H;       // [F][P][3]
  size_t at(size_t f, size_t p, int c) const { return (f * points.size() + p) * 3 + static_cast<size_t>(c); }
};

}  // namespace dgmax
