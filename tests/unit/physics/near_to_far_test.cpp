// The near-to-far-field transform (solver/physics/near_to_far.hpp) on exact fields sampled on a
// cube: a Hertzian dipole (known pattern, amplitude, power, and the phase e^{+ik r̂·d} of a
// displaced one, which a wrong sign of the radiation integral's phase would fail) and the Mie
// scattered field of a PEC and of a dielectric sphere (complex far-field amplitudes and bistatic
// RCS against S1, S2: ties the transform to the Mie series, each checked independently).
#include "solver/physics/near_to_far.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "expect_user_error.hpp"
#include "mie_series.hpp"
#include "ntff_fixtures.hpp"
#include "temp_path.hpp"

using dgmax::FarField;
using dgmax::FarFieldDirection;
using dgmax::SurfaceDft;
using namespace dgmax::test;

namespace {

// Directions spread over the sphere, poles and cut planes included. -> [D]
std::vector<FarFieldDirection> test_directions() {
  std::vector<FarFieldDirection> d;
  for (int i = 0; i <= 12; ++i)
    for (const double phi : {0.0, 0.9, kPi / 2, 2.5, 4.4}) d.push_back({kPi * i / 12, phi});
  return d;
}

double max_abs(const std::vector<FarField>& F) {
  double m = 0;
  for (const FarField& f : F) m = std::max(m, std::hypot(std::abs(f.E_theta), std::abs(f.E_phi)));
  return m;
}

SurfaceDft dipole_dft(const CVec3& m, const std::array<double, 3>& d, double f, int panels, int q) {
  const double k = 2 * kPi * f;
  return sample_surface(f, cube_surface({0, 0, 0}, 0.75, panels, q),
                        [&](const std::array<double, 3>& x, CVec3& E, CVec3& H) { dipole_field(m, d, k, x, E, H); });
}

}  // namespace

TEST(NearToFar, CentredDipolePatternAmplitudeAndPower) {
  // z-dipole of moment I l = 1 at the origin, f = 1 (k = 2 pi, the cube is 1.5 wavelengths wide):
  // F_theta = i k sin(theta)/(4 pi), F_phi = 0, P = k² |I l|²/(12 pi).
  const double f = 1, k = 2 * kPi * f;
  const SurfaceDft dft = dipole_dft({0, 0, 1}, {0, 0, 0}, f, 4, 8);
  const std::vector<FarFieldDirection> dirs = test_directions();
  const std::vector<FarField> F = dgmax::far_field(dft, 0, dirs);
  double err = 0;
  for (size_t i = 0; i < dirs.size(); ++i) {
    const cplx expect(0, k * std::sin(dirs[i].theta) / (4 * kPi));
    err = std::max(err, std::abs(F[i].E_theta - expect) + std::abs(F[i].E_phi));
  }
  EXPECT_LT(err / (k / (4 * kPi)), 1e-11);  // 2e-13 measured
  const double P = k * k / (12 * kPi);
  EXPECT_NEAR(dgmax::surface_power(dft, 0) / P, 1, 1e-11);
  EXPECT_NEAR(dgmax::radiated_power(dft, 0, 24) / P, 1, 1e-11);
}

TEST(NearToFar, DisplacedDipoleHasThePhaseOfItsPosition) {
  // A tilted complex moment at d off the centre: F(r̂) = F_0(r̂) e^{+ik r̂·d}. With the opposite sign
  // of the phase (e^{-ik r̂·d}) the result would differ by O(1) (kd ≈ 1.8 here; checked below).
  const double f = 1, k = 2 * kPi * f;
  const CVec3 m{0.3, cplx(0, 0.5), cplx(-0.8, 0.2)};
  const std::array<double, 3> d{0.2, -0.1, 0.15}, minus_d{-0.2, 0.1, -0.15};
  const SurfaceDft dft = dipole_dft(m, d, f, 4, 8);
  const std::vector<FarFieldDirection> dirs = test_directions();
  const std::vector<FarField> F = dgmax::far_field(dft, 0, dirs);
  double err = 0, wrong_sign = 0;
  for (size_t i = 0; i < dirs.size(); ++i) {
    const auto e = dipole_far_field(m, d, k, dirs[i].theta, dirs[i].phi);
    const auto w = dipole_far_field(m, minus_d, k, dirs[i].theta, dirs[i].phi);  // = F_0 e^{-ik r̂·d}
    err = std::max(err, std::abs(F[i].E_theta - e[0]) + std::abs(F[i].E_phi - e[1]));
    wrong_sign = std::max(wrong_sign, std::abs(F[i].E_theta - w[0]) + std::abs(F[i].E_phi - w[1]));
  }
  const double scale = max_abs(F);
  EXPECT_LT(err / scale, 1e-10);  // 6e-12 measured
  EXPECT_GT(wrong_sign / scale, 0.5);
  // Power does not depend on where the dipole is: k² |m|²/(12 pi) both ways.
  const double m2 = std::norm(m[0]) + std::norm(m[1]) + std::norm(m[2]), P = k * k * m2 / (12 * kPi);
  EXPECT_NEAR(dgmax::surface_power(dft, 0) / P, 1, 1e-11);
  EXPECT_NEAR(dgmax::radiated_power(dft, 0, 24) / P, 1, 1e-11);
}

TEST(NearToFar, CoarseQuadratureConvergesToTheDipolePower) {
  // One Gauss panel per face with q points: the power error falls fast with q (smooth integrand).
  const double f = 1, k = 2 * kPi * f, P = k * k / (12 * kPi);
  double prev = 1;
  for (const int q : {4, 8, 12}) {
    const double e = std::abs(dgmax::radiated_power(dipole_dft({0, 0, 1}, {0.1, 0, 0}, f, 1, q), 0, 24) / P - 1);
    EXPECT_LT(e, prev / 10) << "q = " << q;
    prev = e;
  }
  EXPECT_LT(prev, 1e-6);  // 7e-8 measured at q = 12
}

// Mie: the exact scattered field of a sphere of radius 1 at ka = 2 on a cube of half-side 1.3.
class MieFarField : public ::testing::TestWithParam<bool> {};  // true: PEC, false: eps = 4

TEST_P(MieFarField, AmplitudesAndRcsMatchS1S2) {
  const bool pec = GetParam();
  const double a = 1, k = 2, f = k / (2 * kPi), x = k * a;
  const int N = mie::wiscombe_terms(x) + 15;  // the near field at r = 1.3 a needs more terms
  const mie::Coefficients c = pec ? mie::pec_coefficients(x, N) : mie::dielectric_coefficients(x, 2.0, N);
  const SurfaceDft dft = sample_surface(f, cube_surface({0, 0, 0}, 1.3, 4, 8), [&](const std::array<double, 3>& p,
                                                                                  CVec3& E, CVec3& H) {
    const mie::NearField s = mie::scattered_field(c, k, p);
    E = s.E;
    H = s.H;
  });
  const std::vector<FarFieldDirection> cuts = dgmax::principal_cuts(2);  // E-plane, then H-plane
  const std::vector<FarField> F = dgmax::far_field(dft, 0, cuts);
  double amp_err = 0, rcs_err = 0;
  for (size_t i = 0; i < cuts.size(); ++i) {
    const auto e = mie::far_field_amplitude(c, k, cuts[i].theta, cuts[i].phi);
    amp_err = std::max(amp_err, std::abs(F[i].E_theta - e[0]) + std::abs(F[i].E_phi - e[1]));
    const double sigma = dgmax::radar_cross_section(F[i], 1.0) / (kPi * a * a);
    const double ref = cuts[i].phi == 0 ? mie::rcs_e_plane(c, cuts[i].theta) : mie::rcs_h_plane(c, cuts[i].theta);
    rcs_err = std::max(rcs_err, std::abs(sigma - ref) / ref);
  }
  EXPECT_LT(amp_err / max_abs(F), 1e-10);  // 9e-13 (PEC), 1e-13 measured
  EXPECT_LT(rcs_err, 1e-10);  // 7e-13 (PEC), 3e-12 measured
  // Forward and backward scattering differ (a phase-blind check could not tell them apart) and the
  // transform gets both: sigma(0) and sigma(pi) of the E-plane cut.
  const double fwd = dgmax::radar_cross_section(F.front(), 1.0), back = dgmax::radar_cross_section(F[90], 1.0);
  const mie::Efficiencies q = mie::efficiencies(c);
  EXPECT_NEAR(back / (kPi * a * a), q.back, 1e-8 * q.back);
  EXPECT_GT(std::abs(fwd - back) / back, 0.1);
  // The scattered power P_sca = Q_sca pi a² |E_inc|²/(2 eta), both from the far field and through
  // the surface.
  const double Psca = q.sca * kPi * a * a / 2;
  EXPECT_NEAR(dgmax::radiated_power(dft, 0, 20) / Psca, 1, 1e-11);
  EXPECT_NEAR(dgmax::surface_power(dft, 0) / Psca, 1, 1e-11);
}

INSTANTIATE_TEST_SUITE_P(Sphere, MieFarField, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Pec" : "Dielectric"; });

TEST(NearToFar, PrincipalCuts) {
  const std::vector<FarFieldDirection> d = dgmax::principal_cuts(45);
  ASSERT_EQ(d.size(), 10u);
  EXPECT_DOUBLE_EQ(d[0].theta, 0);
  EXPECT_DOUBLE_EQ(d[4].theta, kPi);
  EXPECT_DOUBLE_EQ(d[4].phi, 0);
  EXPECT_DOUBLE_EQ(d[5].theta, 0);
  EXPECT_DOUBLE_EQ(d[7].theta, kPi / 2);
  EXPECT_DOUBLE_EQ(d[7].phi, kPi / 2);
  EXPECT_EQ(dgmax::principal_cuts(0.5).size(), 722u);
  expect_hinted_user_error([] { dgmax::principal_cuts(7); }, {"7", "does not divide 180"});
  expect_hinted_user_error([] { dgmax::principal_cuts(0); }, {"does not divide 180"});
}

TEST(NearToFar, UserErrors) {
  SurfaceDft empty;
  expect_hinted_user_error([&] { dgmax::far_field(empty, 0, {}); }, {"no frequencies"});
  SurfaceDft no_points;
  no_points.frequencies = {1.0};
  expect_hinted_user_error([&] { dgmax::far_field(no_points, 0, {}); }, {"no surface points"});
  expect_hinted_user_error([&] { dgmax::surface_power(no_points, 0); }, {"no surface points"});
  const SurfaceDft dft = dipole_dft({0, 0, 1}, {0, 0, 0}, 1, 1, 2);
  expect_hinted_user_error([&] { dgmax::far_field(dft, 1, {}); }, {"frequency index 1 out of range", "has 1"});
  SurfaceDft dc = dft;
  dc.frequencies = {0.0};
  expect_hinted_user_error([&] { dgmax::far_field(dc, 0, {}); }, {"not positive"});
  expect_hinted_user_error([] { dgmax::radar_cross_section({1.0, 0.0}, 0.0); }, {"incident field is zero"});
}

TEST(NearToFar, CsvOfAPattern) {
  const std::string dir = unique_temp_dir("dgmax_far_field_csv");
  dgmax::FarFieldPattern p;
  p.frequency = 0.5;
  p.directions = {{0, 0}, {kPi / 2, kPi / 2}};
  p.fields = {{cplx(1, -2), cplx(0, 0)}, {cplx(0, 0), cplx(0.25, 0)}};
  p.incident = cplx(0, 2);  // |E_inc|² = 4
  dgmax::write_far_field_csv(dir + "ff.csv", {p}, 0.5);
  std::ifstream in(dir + "ff.csv");
  std::stringstream text;
  text << in.rdbuf();
  // sigma = 4 pi |F|²/4: 5 pi and pi/16; over pi a² = pi/4: 20 and 1/4, i.e. 13.0103 and -6.0206 dB
  std::istringstream lines(text.str());
  std::string header, row1, row2, extra;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  EXPECT_FALSE(std::getline(lines, extra));
  EXPECT_EQ(header, "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im,rcs,rcs_dB");
  EXPECT_EQ(row1.rfind("0.5,0,0,1,-2,0,0,", 0), 0u) << row1;
  EXPECT_EQ(row2.rfind("0.5,90,90,0,0,0.25,0,", 0), 0u) << row2;
  double v[9], w[9];
  ASSERT_EQ(std::sscanf(row1.c_str(), "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                        &v[6], &v[7], &v[8]), 9);
  ASSERT_EQ(std::sscanf(row2.c_str(), "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5],
                        &w[6], &w[7], &w[8]), 9);
  EXPECT_DOUBLE_EQ(v[7], 5 * kPi);
  EXPECT_NEAR(v[8], 10 * std::log10(20.0), 1e-12);
  EXPECT_DOUBLE_EQ(w[7], kPi / 16);
  EXPECT_NEAR(w[8], 10 * std::log10(0.25), 1e-12);

  // A radiation pattern (no incident field): no RCS columns. Mixed: an error, and no file.
  p.incident = 0;
  dgmax::write_far_field_csv(dir + "rad.csv", {p});
  std::ifstream rad(dir + "rad.csv");
  std::getline(rad, header);
  EXPECT_EQ(header, "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im");
  dgmax::FarFieldPattern q = p;
  q.incident = 1;
  expect_hinted_user_error([&] { dgmax::write_far_field_csv(dir + "mixed.csv", {p, q}); },
                           {"mixed.csv", "1 of 2 frequencies have no incident amplitude"});
  q.fields.pop_back();
  expect_hinted_user_error([&] { dgmax::write_far_field_csv(dir + "short.csv", {q}); }, {"2 directions but 1"});
  EXPECT_FALSE(std::ifstream(dir + "mixed.csv").good());
  EXPECT_FALSE(std::ifstream(dir + "short.csv").good());
}

TEST(NearToFar, DirectivityOfTheDipoleIsOnePointFiveSinSquared) {
  // A tilted, displaced dipole: its pattern is 1.5 sin² of the angle to its moment wherever it
  // sits, so D = 1.5 (1.76 dBi) broadside, 0 along the moment, and D integrates to 4 pi.
  const double f = 1;
  const CVec3 m{0.6, 0, 0.8};  // real: a linear moment along (0.6, 0, 0.8)
  const SurfaceDft dft = dipole_dft(m, {0.2, -0.1, 0.15}, f, 4, 8);
  const double P = dgmax::radiated_power(dft, 0, dgmax::power_quadrature_points(dft, 0));
  const int n = 24;
  const dgmax::GaussRule g = dgmax::jacobi_gq(0, 0, n - 1);  // Gauss–Legendre in cos theta
  std::vector<FarFieldDirection> dirs;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2 * n; ++j) dirs.push_back({std::acos(g.x(i)), kPi * j / n});
  const std::vector<FarField> F = dgmax::far_field(dft, 0, dirs);
  double integral = 0, err = 0;
  for (size_t d = 0; d < dirs.size(); ++d) {
    const double D = dgmax::directivity(F[d], P);
    integral += g.w(static_cast<int>(d) / (2 * n)) * D * kPi / n;
    const double st = std::sin(dirs[d].theta);
    const double c = 0.6 * st * std::cos(dirs[d].phi) + 0.8 * std::cos(dirs[d].theta);  // cos of the angle to m
    err = std::max(err, std::abs(D - 1.5 * (1 - c * c)));
  }
  EXPECT_NEAR(integral / (4 * kPi), 1, 1e-13);  // 3e-16 measured
  EXPECT_LT(err, 3e-11);                         // 8.5e-12 measured
  const FarFieldDirection broadside{std::acos(-0.6), 0}, along{std::acos(0.8), 0};  // ⊥ m, ∥ m
  const std::vector<FarField> Fb = dgmax::far_field(dft, 0, {broadside, along});
  EXPECT_NEAR(dgmax::directivity(Fb[0], P), 1.5, 1e-10);
  EXPECT_NEAR(10 * std::log10(dgmax::directivity(Fb[0], P)), 1.7609125905568124, 1e-9);
  EXPECT_LT(dgmax::directivity(Fb[1], P), 1e-10);
  // by hand: |F|² = 1, P = pi gives D = 4 pi (1/2) / pi = 2
  EXPECT_DOUBLE_EQ(dgmax::directivity({cplx(0.6, 0.8), 0.0}, kPi), 2);
  expect_hinted_user_error([] { dgmax::directivity({1.0, 0.0}, 0); }, {"radiated power 0 is not positive"});
}

TEST(NearToFar, PowerQuadratureFollowsTheSurfaceSize) {
  // n_theta = ceil(k R) + 10 with R the farthest surface point: here a cube of half-side 0.75, R =
  // 0.75 sqrt(3). Two dipoles 1.5 apart at f = 2 interfere into a pattern of high degree: the
  // rule's 27 points give the power through the surface (an independent quadrature) to 2.3e-11
  // (measured), a third as many miss it by 2.9e-2.
  const double f = 2, k = 2 * kPi * f;
  const std::array<double, 3> d1{0.5, 0.3, -0.4}, d2{-0.5, -0.3, 0.4};
  const SurfaceDft dft = sample_surface(f, cube_surface({0, 0, 0}, 0.75, 6, 8), [&](const std::array<double, 3>& x,
                                                                                    CVec3& E, CVec3& H) {
    CVec3 E2, H2;
    dipole_field({0, 0, 1}, d1, k, x, E, H);
    dipole_field({0, 0, 1}, d2, k, x, E2, H2);  // in phase: the cross term sin² cos(k r̂·(d1 - d2)) is even
    for (size_t c = 0; c < 3; ++c) E[c] += E2[c], H[c] += H2[c];
  });
  const int n = dgmax::power_quadrature_points(dft, 0);
  EXPECT_EQ(n, static_cast<int>(std::ceil(k * 0.75 * std::sqrt(3.0))) + 10);
  EXPECT_EQ(n, 27);
  const double P = dgmax::surface_power(dft, 0);
  EXPECT_NEAR(dgmax::radiated_power(dft, 0, n) / P, 1, 1e-9);
  EXPECT_GT(std::abs(dgmax::radiated_power(dft, 0, n / 3) / P - 1), 1e-4);
}

TEST(NearToFar, CsvOfARadiationPatternHasItsDirectivity) {
  const std::string dir = unique_temp_dir("dgmax_far_field_directivity");
  dgmax::FarFieldPattern p;
  p.frequency = 1;
  p.directions = {{kPi / 2, 0}, {kPi / 4, kPi}, {0, 0}};
  p.fields = {{cplx(0.6, 0.8), 0.0}, {0.0, cplx(0, 0.5)}, {0.0, 0.0}};
  p.power = kPi;  // D = 2 |F|²: 2, 0.5 and 0 (3.0103, -3.0103 and -inf dBi)
  dgmax::write_far_field_csv(dir + "d.csv", {p});
  std::ifstream in(dir + "d.csv");
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header, "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im,directivity,directivity_dBi");
  std::vector<std::string> rows;
  while (std::getline(in, row)) rows.push_back(row);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].rfind("1,90,0,0.6,0.8,0,0,2,3.0102999566", 0), 0u) << rows[0];
  EXPECT_EQ(rows[1].rfind("1,45,180,0,0,0,0.5,0.5,-3.0102999566", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2], "1,0,0,0,0,0,0,0,-inf");
  // a scattering pattern keeps its rcs and has no directivity; power on some frequencies only: an error
  p.incident = 1;
  dgmax::write_far_field_csv(dir + "s.csv", {p});
  std::ifstream s(dir + "s.csv");
  std::getline(s, header);
  EXPECT_EQ(header, "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im,rcs");
  p.incident = 0;
  dgmax::FarFieldPattern q = p;
  q.power = 0;
  expect_hinted_user_error([&] { dgmax::write_far_field_csv(dir + "mixed.csv", {p, q}); },
                           {"mixed.csv", "1 of 2 frequencies have no radiated power"});
  EXPECT_FALSE(std::ifstream(dir + "mixed.csv").good());
}
