// IncidentDft (solver/physics/incident_dft.hpp): the DFT of the incident field at the origin that
// normalizes the radar cross-section, with the monitors' convention X(f) = sum E(t_n) e^{-i 2 pi f t_n} dt.
#include <gtest/gtest.h>

#include <cmath>

#include "solver/physics/incident_dft.hpp"

using dgmax::IncidentDft;

namespace {

// E = (A cos(2 pi f0 t + p), 0, B sin(2 pi f0 t)) at every point (H: zero).
dgmax::FieldFn sinusoid(double A, double B, double f0, double p) {
  return [=](size_t n, const double*, const double*, const double*, double t, double* const* out) {
    for (size_t i = 0; i < n; ++i) {
      out[0][i] = A * std::cos(2 * M_PI * f0 * t + p);
      out[1][i] = 0;
      out[2][i] = B * std::sin(2 * M_PI * f0 * t);
      for (int c = 3; c < 6; ++c) out[c][i] = 0;
    }
  };
}

}  // namespace

// Over a whole number of periods, sum A cos(w t + p) e^{-i w t} dt = A T/2 e^{i p}: the amplitude is
// half the length times the vector amplitude; another frequency of the grid gives (nearly) nothing.
TEST(IncidentDft, SinusoidOverWholePeriods) {
  const double f0 = 2, A = 3, B = 4, p = 0.7, T = 5;  // 10 periods
  const int n = 4000;
  const double dt = T / n;
  IncidentDft inc(sinusoid(A, B, f0, p), {f0, 3.0, 0.0});
  for (int s = 1; s <= n; ++s) inc.accumulate(s * dt, dt);
  EXPECT_NEAR(inc.amplitude(0), std::hypot(A, B) * T / 2, 1e-9);
  EXPECT_NEAR(std::arg(inc.component(0, 0)), p, 1e-9);
  EXPECT_NEAR(std::arg(inc.component(0, 2)), -M_PI / 2, 1e-9);  // sin = cos(. - pi/2)
  EXPECT_NEAR(std::abs(inc.component(0, 1)), 0, 1e-12);
  EXPECT_LT(inc.amplitude(1), 1e-9);                              // f = 3: orthogonal over T = 5
  EXPECT_LT(inc.amplitude(2), 1e-9);                              // the mean of a sinusoid
}

// A Gaussian pulse exp(-((t - t0)/w)^2): |X(f)| = w sqrt(pi) exp(-(pi f w)^2), the spectrum that
// the sphere RCS configs divide by.
TEST(IncidentDft, GaussianPulseSpectrum) {
  const double w = 0.2, t0 = 1.1;
  dgmax::FieldFn g = [=](size_t n, const double*, const double*, const double* z, double t, double* const* out) {
    for (size_t i = 0; i < n; ++i) {
      out[0][i] = std::exp(-std::pow((z[i] - t + t0) / w, 2));
      for (int c = 1; c < 6; ++c) out[c][i] = 0;
    }
  };
  IncidentDft inc(g, {0.5, 1.0, 2.0});
  const double dt = 0.002;
  for (int s = 1; s <= 2500; ++s) inc.accumulate(s * dt, dt);
  for (size_t f = 0; f < 3; ++f) {
    const double fr = inc.frequencies()[f];
    EXPECT_NEAR(inc.amplitude(f) / (w * std::sqrt(M_PI) * std::exp(-std::pow(M_PI * fr * w, 2))), 1, 1e-9) << fr;
  }
}

// A checkpoint carries the sums; a restored copy continues where the first stopped.
TEST(IncidentDft, JsonRoundTripAndWrongSize) {
  IncidentDft a(sinusoid(1, 0, 1, 0), {1.0, 2.0});
  for (int s = 1; s <= 10; ++s) a.accumulate(0.01 * s, 0.01);
  IncidentDft b(sinusoid(1, 0, 1, 0), {1.0, 2.0});
  b.from_json(a.to_json());
  a.accumulate(0.11, 0.01);
  b.accumulate(0.11, 0.01);
  EXPECT_EQ(a.component(1, 0), b.component(1, 0));
  IncidentDft c(sinusoid(1, 0, 1, 0), {1.0});
  EXPECT_THROW(c.from_json(a.to_json()), dgmax::InternalError);
}
