// The Mie series of tests/common/mie_series.hpp against published numbers (Wiscombe's MIEV0 test
// cases, NCAR TN-140+STR 1979/1996, seven digits, as transcribed in scottprahl/miepython's and
// usask-arg/sasktran2's tests; MIEV0 writes the index as n - ik and its S1, S2 are the complex
// conjugates of Bohren & Huffman's), against the identities it must obey (optical theorem, Rayleigh
// limits), against an evaluation through the C++17 spherical Bessel functions (no recurrences of
// ours), and its near field against the PEC boundary conditions.
#include <gtest/gtest.h>

#include <cmath>

#include "mie_series.hpp"

namespace mie = dgmax::test::mie;
using mie::cplx;
using mie::kPi;

TEST(MieSeries, WiscombeEfficiencies) {
  struct Q {
    double x;
    cplx m;  // BH convention: Im m >= 0 absorbs
    double ext, sca;
  };
  const Q cases[] = {
      {0.099, {0.75, 0}, 7.417859e-06, 7.417859e-06}, {0.101, {0.75, 0}, 8.033538e-06, 8.033538e-06},
      {10, {0.75, 0}, 2.232265, 2.232265},            {1000, {0.75, 0}, 1.997908, 1.997908},
      {100, {1.33, 1e-5}, 2.101321, 2.096594},        {10000, {1.33, 1e-5}, 2.004089, 1.723857},
      {0.055, {1.5, 1}, 0.10149104, 1.131687e-05},    {0.056, {1.5, 1}, 0.1033467, 1.216311e-05},
      {100, {1.5, 1}, 2.097502, 1.283697},            {10000, {1.5, 1}, 2.004368, 1.236574},
      {1, {10, 10}, 2.532993, 2.049405},              {100, {10, 10}, 2.071124, 1.836785},
      {10000, {10, 10}, 2.005914, 1.795393},
  };
  for (const Q& c : cases) {
    const mie::Efficiencies q = mie::efficiencies(mie::dielectric_coefficients(c.x, c.m));
    // seven digits as published: half a unit of the last one
    EXPECT_NEAR(q.ext, c.ext, 1e-6 * c.ext) << "x = " << c.x << ", m = " << c.m;
    EXPECT_NEAR(q.sca, c.sca, 1e-6 * c.sca) << "x = " << c.x << ", m = " << c.m;
  }
  // Wiscombe's term counts in his three ranges of x
  EXPECT_EQ(mie::wiscombe_terms(1), 6);       // x + 4 x^(1/3) + 1
  EXPECT_EQ(mie::wiscombe_terms(100), 120);   // x + 4.05 x^(1/3) + 2
  EXPECT_EQ(mie::wiscombe_terms(1e4), 10088);  // x + 4 x^(1/3) + 2
}

TEST(MieSeries, WiscombeAmplitudes) {
  // MIEV0's S1, S2 (its sign convention) at 0, 90 and 180 degrees.
  struct S {
    double x;
    cplx m;
    double theta_deg;
    cplx S1, S2;
  };
  const S cases[] = {
      {0.101, {0.75, 0}, 0, {2.048754e-08, -1.756419e-04}, {2.048754e-08, -1.756419e-04}},
      {0.101, {0.75, 0}, 180, {2.048749e-08, -1.749650e-04}, {-2.048749e-08, 1.749650e-04}},
      {10, {0.75, 0}, 0, {5.580662e+01, -9.758097e+00}, {5.580662e+01, -9.758097e+00}},
      {10, {0.75, 0}, 90, {-1.785905e+00, -5.232828e-02}, {-5.148748e-01, -7.027288e-01}},
      {10, {0.75, 0}, 180, {-1.078568e+00, -3.608807e-02}, {1.078568e+00, 3.608807e-02}},
      {1000, {0.75, 0}, 0, {4.994770e+05, -1.336502e+04}, {4.994770e+05, -1.336502e+04}},
      {1000, {0.75, 0}, 90, {-1.600887e+02, 1.348013e+02}, {-4.152365e+01, 1.143000e+02}},
      {1000, {0.75, 0}, 180, {1.705778e+01, 4.842510e+02}, {-1.705778e+01, -4.842510e+02}},
      {1, {1.33, 1e-5}, 0, {2.348800e-02, 2.281705e-01}, {2.348800e-02, 2.281705e-01}},
      {1, {1.33, 1e-5}, 90, {2.296081e-02, 1.828349e-01}, {2.729533e-04, 6.702879e-03}},
      {1, {1.33, 1e-5}, 180, {2.243622e-02, 1.437106e-01}, {-2.243622e-02, -1.437106e-01}},
      {100, {1.33, 1e-5}, 0, {5.253302e+03, -1.243188e+02}, {5.253302e+03, -1.243188e+02}},
      {100, {1.33, 1e-5}, 90, {-3.655758e+00, 8.769860e+00}, {-6.550512e+00, -4.675370e+00}},
      {100, {1.33, 1e-5}, 180, {-5.659205e+01, 4.650974e+01}, {5.659205e+01, -4.650974e+01}},
      {10000, {1.33, 1e-5}, 0, {5.010222e+07, -1.535815e+05}, {5.010222e+07, -1.535815e+05}},
      {10000, {1.33, 1e-5}, 90, {-1.061003e+03, -1.930155e+02}, {2.430920e+02, 8.409836e+01}},
  };
  for (const S& c : cases) {
    const mie::Amplitudes s = mie::amplitudes(mie::dielectric_coefficients(c.x, c.m), c.theta_deg * kPi / 180);
    EXPECT_NEAR(std::abs(std::conj(s.S1) - c.S1), 0, 1e-6 * std::abs(c.S1))
        << "S1, x = " << c.x << ", m = " << c.m << ", theta = " << c.theta_deg;
    EXPECT_NEAR(std::abs(std::conj(s.S2) - c.S2), 0, 1e-6 * std::abs(c.S2))
        << "S2, x = " << c.x << ", m = " << c.m << ", theta = " << c.theta_deg;
  }
}

TEST(MieSeries, OpticalTheoremForLosslessSpheres) {
  // Extinction (forward amplitude) equals scattering when nothing is absorbed: Re a_n = |a_n|²
  // term by term. And Q_ext = 4/x² Re S(0) from the angular functions too.
  for (const double x : {0.3, 1.0, 2.0, 5.0, 20.0}) {
    for (const mie::Coefficients& c : {mie::dielectric_coefficients(x, 2.0), mie::pec_coefficients(x)}) {
      const mie::Efficiencies q = mie::efficiencies(c);
      EXPECT_NEAR(q.ext, q.sca, 1e-12 * q.sca) << "x = " << x;
      const mie::Amplitudes s0 = mie::amplitudes(c, 0);
      EXPECT_NEAR(4 / (x * x) * s0.S1.real(), q.ext, 1e-12 * q.ext);
      EXPECT_NEAR(std::abs(s0.S1 - s0.S2), 0, 1e-13 * std::abs(s0.S1));
      // sigma_back from S1(pi) and S2(pi) (both equal up to sign) is efficiencies().back
      EXPECT_NEAR(mie::rcs_e_plane(c, kPi), q.back, 1e-11 * q.back);
      EXPECT_NEAR(mie::rcs_h_plane(c, kPi), q.back, 1e-11 * q.back);
    }
  }
}

TEST(MieSeries, RayleighLimits) {
  // Dielectric: Q_sca = 8/3 x^4 |(m²-1)/(m²+2)|², corrections O(x²). eps = 4: factor (3/6)² = 1/4.
  const double x = 1e-3;
  const mie::Efficiencies d = mie::efficiencies(mie::dielectric_coefficients(x, 2.0));
  EXPECT_NEAR(d.sca / (8.0 / 3 * std::pow(x, 4) / 4), 1, 1e-5);
  // PEC: electric dipole a_1 = -i 2x³/3 and magnetic b_1 = -a_1/2: Q_sca = 10/3 x^4,
  // sigma_back/(pi a²) = 9 x^4 (the Rayleigh law sigma = 9 pi a² (ka)^4).
  const mie::Coefficients p = mie::pec_coefficients(x);
  EXPECT_NEAR(std::abs(p.a[1] - cplx(0, -2 * x * x * x / 3)), 0, 1e-5 * 2 * x * x * x / 3);
  EXPECT_NEAR(std::abs(p.b[1] + p.a[1] / 2.0), 0, 1e-5 * x * x * x);
  const mie::Efficiencies q = mie::efficiencies(p);
  EXPECT_NEAR(q.sca / (10.0 / 3 * std::pow(x, 4)), 1, 1e-5);
  EXPECT_NEAR(q.back / (9 * std::pow(x, 4)), 1, 1e-5);
}

TEST(MieSeries, PecMonostaticRcsAgreesWithSphericalBesselFunctions) {
  // sigma_back/(pi a²) = |sum (-1)^n (2n+1) (a_n - b_n)|² / x² with a_n = psi_n'/xi_n' and
  // b_n = psi_n/xi_n from std::sph_bessel and std::sph_neumann (libstdc++'s own algorithms).
  for (const double x : {0.5, 1.0, 2.0, 3.0, 6.0}) {
    const int N = mie::wiscombe_terms(x);
    cplx sum = 0;
    for (int n = 1; n <= N; ++n) {
      const unsigned u = static_cast<unsigned>(n);
      const cplx h = cplx(std::sph_bessel(u, x), std::sph_neumann(u, x));
      const cplx h1 = cplx(std::sph_bessel(u - 1, x), std::sph_neumann(u - 1, x));
      const double j = std::sph_bessel(u, x), j1 = std::sph_bessel(u - 1, x);
      const cplx a = (x * j1 - n * j) / (x * h1 - static_cast<double>(n) * h);  // (rho f)' = rho f_{n-1} - n f_n
      const cplx b = j / h;
      sum += (n % 2 ? -1.0 : 1.0) * (2.0 * n + 1) * (a - b);
    }
    const double ref = std::norm(sum) / (x * x);
    EXPECT_NEAR(mie::efficiencies(mie::pec_coefficients(x)).back, ref, 1e-11 * ref) << "ka = " << x;
  }
  // The textbook curve (e.g. Knott, Shaeffer & Tuley, Radar Cross Section, fig. 5.2): its first
  // maximum, about 3.65 pi a², lies near ka = 1 (here 3.65495 at ka = 1.0281), and it oscillates
  // towards the optical limit pi a². The values at ka = 1, 2, 3 are pinned (8 digits, equal to
  // the std::sph_bessel evaluation above).
  double peak = 0, peak_ka = 0;
  for (double ka = 0.9; ka < 1.2; ka += 1e-3) {
    const double s = mie::efficiencies(mie::pec_coefficients(ka)).back;
    if (s > peak) peak = s, peak_ka = ka;
  }
  EXPECT_NEAR(peak, 3.655, 0.001);
  EXPECT_NEAR(peak_ka, 1.028, 0.002);
  const double at[] = {1, 2, 3};
  const double expect[] = {3.6375665, 1.0081431, 0.52076541};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(mie::efficiencies(mie::pec_coefficients(at[i])).back, expect[i], 2e-8 * expect[i]) << "ka = " << at[i];
  EXPECT_NEAR(mie::efficiencies(mie::pec_coefficients(200)).back, 1, 0.02);
}

TEST(MieSeries, PecIsTheLimitOfAGoodConductor) {
  // m = M (1 + i) with M -> infinity: a_n, b_n approach the PEC ones as 1/M.
  const mie::Coefficients p = mie::pec_coefficients(2.0);
  const mie::Coefficients d = mie::dielectric_coefficients(2.0, cplx(1e6, 1e6));
  ASSERT_EQ(p.terms(), d.terms());
  for (int n = 1; n <= p.terms(); ++n) {
    EXPECT_NEAR(std::abs(d.a[n] - p.a[n]), 0, 1e-5 * std::abs(p.a[n])) << n;
    EXPECT_NEAR(std::abs(d.b[n] - p.b[n]), 0, 1e-5 * std::abs(p.b[n])) << n;
  }
}

TEST(MieSeries, PecNearFieldMeetsTheBoundaryConditions) {
  // On r = a: tangential E and normal H of incident + scattered field vanish (dgmax's convention,
  // incident x̂ e^{-ikz}, ŷ e^{-ikz}). This checks the vector spherical harmonics term by term.
  const double k = 1.7, a = 1.0;
  const mie::Coefficients c = mie::pec_coefficients(k * a, mie::wiscombe_terms(k * a) + 15);
  double worst_Et = 0, worst_Hn = 0;
  for (const double theta : {0.1, 0.7, 1.5, 2.2, 3.0})
    for (const double phi : {0.0, 0.4, 1.9, 4.0}) {
      const std::array<double, 3> n{std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
      const std::array<double, 3> x{a * n[0], a * n[1], a * n[2]};
      const mie::NearField s = mie::scattered_field(c, k, x);
      const cplx inc = std::polar(1.0, -k * x[2]);
      const std::array<cplx, 3> E{s.E[0] + inc, s.E[1], s.E[2]}, H{s.H[0], s.H[1] + inc, s.H[2]};
      const cplx En = E[0] * n[0] + E[1] * n[1] + E[2] * n[2], Hn = H[0] * n[0] + H[1] * n[1] + H[2] * n[2];
      double Et2 = 0;
      for (int d = 0; d < 3; ++d) Et2 += std::norm(E[d] - En * n[d]);
      worst_Et = std::max(worst_Et, std::sqrt(Et2));
      worst_Hn = std::max(worst_Hn, std::abs(Hn));
    }
  EXPECT_LT(worst_Et, 1e-12);
  EXPECT_LT(worst_Hn, 1e-12);
}
