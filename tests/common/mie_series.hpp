// Mie series for a sphere of radius a in free space under a plane wave (E along x, travelling +z):
// the test truth of the near-to-far-field transform and of scattering runs. Bohren & Huffman
// (Absorption and Scattering of Light by Small Particles, 1983, ch. 4) conventions throughout the
// series: time factor e^{-i omega t}, relative refractive index m with Im m >= 0 for absorption,
// incident field E_i = x̂ e^{ikz}, scattered far field
//   E_theta ≈ e^{ikr}/(-ikr) cos(phi) S2(theta),  E_phi ≈ -e^{ikr}/(-ikr) sin(phi) S1(theta).
// dgmax's phasors (surface_dft.hpp: e^{+i omega t}) are the complex conjugates of these; the
// functions that return fields (scattered_field, far_field_amplitude) convert to dgmax's
// convention and say so.
//
// Numerics: Wiscombe's number of terms (NCAR TN-140+STR, 1979); the logarithmic derivative
// D_n(z) = psi_n'(z)/psi_n(z) by downward recurrence (stable for any complex z); psi_n by upward
// recurrence while it oscillates (n <= x) and from D_n beyond (where upward recurrence loses all
// digits); chi_n by upward recurrence (it grows, which upward recurrence follows stably).
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <vector>

namespace dgmax::test::mie {

using cplx = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;

// Wiscombe's number of terms for size parameter x = k a: enough for the far field to ~1e-7.
inline int wiscombe_terms(double x) {
  const double c = std::cbrt(x);
  const double n = x <= 8 ? x + 4 * c + 1 : x < 4200 ? x + 4.05 * c + 2 : x + 4 * c + 2;
  return static_cast<int>(n);
}

// D_n(z) = psi_n'(z)/psi_n(z), n = 0..n_max, by downward recurrence D_{n-1} = n/z - 1/(D_n + n/z)
// started with D = 0 well above max(n_max, |z|): the start's error shrinks at each step down only
// once n - |z| exceeds a few |z|^{1/3} (the width of the turning-point region; below |z| it no
// longer shrinks when Im z is small), so the start is |z| + 10 |z|^{1/3} + 16 at least, which
// leaves it below rounding. (|z| + 16, as in BHMIE, leaves 1e-3 errors in S11(180) at x = 100,
// m = 1.33 and 3e-3 in Q_sca at x = 1e4.) -> [n_max+1]
inline std::vector<cplx> log_derivative(cplx z, int n_max) {
  const double az = std::abs(z);
  const int start = static_cast<int>(std::max<double>(n_max, az + 10 * std::cbrt(az))) + 16;
  std::vector<cplx> D(static_cast<size_t>(n_max) + 1);
  cplx d = 0;
  for (int n = start; n > 0; --n) {
    const cplx nz = static_cast<double>(n) / z;
    d = nz - 1.0 / (d + nz);  // now D_{n-1}
    if (n - 1 <= n_max) D[static_cast<size_t>(n - 1)] = d;
  }
  return D;
}

// Riccati–Bessel functions at real rho > 0, n = 0..n_max: psi_n = rho j_n, xi_n = rho h_n^(1)
// = psi_n - i chi_n (chi_n = -rho y_n), and their derivatives f_n' = f_{n-1} - n f_n/rho (no
// cancellation there: for n > rho, f_{n-1} ≈ (2n+1)/rho f_n). -> each [n_max+1]
struct RiccatiBessel {
  std::vector<double> psi, dpsi;
  std::vector<cplx> xi, dxi;
};

inline RiccatiBessel riccati_bessel(double rho, int n_max) {
  RiccatiBessel r;
  const size_t N = static_cast<size_t>(n_max) + 1;
  r.psi.resize(N);
  r.dpsi.resize(N);
  r.xi.resize(N);
  r.dxi.resize(N);
  const std::vector<cplx> D = log_derivative(rho, n_max);
  double psi_m1 = std::cos(rho), chi_m1 = -std::sin(rho);  // n = -1
  r.psi[0] = std::sin(rho);
  double chi = std::cos(rho);
  r.xi[0] = cplx(r.psi[0], -chi);
  r.dpsi[0] = psi_m1;                 // psi_0' = psi_{-1}
  r.dxi[0] = cplx(psi_m1, -chi_m1);  // xi_0' = xi_{-1}
  double chi_prev = chi_m1;
  for (int n = 1; n <= n_max; ++n) {
    const size_t i = static_cast<size_t>(n);
    const double f = (2.0 * n - 1) / rho;
    // psi: upward while it oscillates (n <= rho), then from psi_{n-1}/psi_n = D_n + n/rho
    const double psi_prev2 = n >= 2 ? r.psi[i - 2] : psi_m1;
    r.psi[i] = n <= rho ? f * r.psi[i - 1] - psi_prev2 : r.psi[i - 1] / (D[i].real() + n / rho);
    const double chi_n = f * chi - chi_prev;
    chi_prev = chi;
    chi = chi_n;
    r.xi[i] = cplx(r.psi[i], -chi);
    r.dpsi[i] = r.psi[i - 1] - n / rho * r.psi[i];
    r.dxi[i] = r.xi[i - 1] - static_cast<double>(n) / rho * r.xi[i];
  }
  return r;
}

// Scattering coefficients a_n, b_n, n = 1..N (index 0 unused, zero). -> each [N+1]
struct Coefficients {
  double x = 0;  // size parameter k a
  std::vector<cplx> a, b;
  int terms() const { return static_cast<int>(a.size()) - 1; }
};

// Homogeneous sphere of relative refractive index m, BH (4.88) with psi_n'(mx)/psi_n(mx) = D_n(mx)
// (BH appendix A): a_n = (t_a psi_n - psi_n')/(t_a xi_n - xi_n'), t_a = D_n(mx)/m, and b_n the same
// with t_b = m D_n(mx). A non-magnetic dielectric of permittivity eps has m = sqrt(eps).
// n_terms = 0: Wiscombe's count.
inline Coefficients dielectric_coefficients(double x, cplx m, int n_terms = 0) {
  const int N = n_terms > 0 ? n_terms : wiscombe_terms(x);
  const RiccatiBessel rb = riccati_bessel(x, N);
  const std::vector<cplx> Dm = log_derivative(m * x, N);
  Coefficients c{x, std::vector<cplx>(static_cast<size_t>(N) + 1), std::vector<cplx>(static_cast<size_t>(N) + 1)};
  for (int n = 1; n <= N; ++n) {
    const size_t i = static_cast<size_t>(n);
    const cplx ta = Dm[i] / m, tb = m * Dm[i];
    c.a[i] = (ta * rb.psi[i] - rb.dpsi[i]) / (ta * rb.xi[i] - rb.dxi[i]);
    c.b[i] = (tb * rb.psi[i] - rb.dpsi[i]) / (tb * rb.xi[i] - rb.dxi[i]);
  }
  return c;
}

// Perfectly conducting sphere (the limit |m| -> infinity): a_n = psi_n'/xi_n', b_n = psi_n/xi_n.
inline Coefficients pec_coefficients(double x, int n_terms = 0) {
  const int N = n_terms > 0 ? n_terms : wiscombe_terms(x);
  const RiccatiBessel rb = riccati_bessel(x, N);
  Coefficients c{x, std::vector<cplx>(static_cast<size_t>(N) + 1), std::vector<cplx>(static_cast<size_t>(N) + 1)};
  for (int n = 1; n <= N; ++n) {
    const size_t i = static_cast<size_t>(n);
    c.a[i] = rb.dpsi[i] / rb.dxi[i];
    c.b[i] = rb.psi[i] / rb.xi[i];
  }
  return c;
}

// Angular functions pi_n(cos theta), tau_n(cos theta), n = 0..N (BH (4.46), (4.47)).
struct Angular {
  std::vector<double> pi, tau;  // [N+1]
};

inline Angular angular(double mu, int N) {
  Angular g{std::vector<double>(static_cast<size_t>(N) + 1, 0.0), std::vector<double>(static_cast<size_t>(N) + 1, 0.0)};
  if (N >= 1) g.pi[1] = 1;
  for (int n = 2; n <= N; ++n)
    g.pi[static_cast<size_t>(n)] = ((2.0 * n - 1) * mu * g.pi[static_cast<size_t>(n - 1)] - n * g.pi[static_cast<size_t>(n - 2)]) / (n - 1);
  for (int n = 1; n <= N; ++n)
    g.tau[static_cast<size_t>(n)] = n * mu * g.pi[static_cast<size_t>(n)] - (n + 1) * g.pi[static_cast<size_t>(n - 1)];
  return g;
}

struct Amplitudes {
  cplx S1, S2;
};

// S1 = sum (2n+1)/(n(n+1)) (a_n pi_n + b_n tau_n), S2 = sum (2n+1)/(n(n+1)) (a_n tau_n + b_n pi_n).
inline Amplitudes amplitudes(const Coefficients& c, double theta) {
  const int N = c.terms();
  const Angular g = angular(std::cos(theta), N);
  Amplitudes s{0, 0};
  for (int n = 1; n <= N; ++n) {
    const size_t i = static_cast<size_t>(n);
    const double f = (2.0 * n + 1) / (n * (n + 1.0));
    s.S1 += f * (c.a[i] * g.pi[i] + c.b[i] * g.tau[i]);
    s.S2 += f * (c.a[i] * g.tau[i] + c.b[i] * g.pi[i]);
  }
  return s;
}

// Cross sections over the geometric one pi a²: extinction (from the forward amplitude: the optical
// theorem), scattering (sum of |a_n|² + |b_n|²), and backscattering sigma_back/(pi a²), the
// normalized monostatic radar cross section.
struct Efficiencies {
  double ext = 0, sca = 0, back = 0;
};

inline Efficiencies efficiencies(const Coefficients& c) {
  Efficiencies q;
  cplx back = 0;
  for (int n = 1; n <= c.terms(); ++n) {
    const size_t i = static_cast<size_t>(n);
    q.ext += (2.0 * n + 1) * (c.a[i] + c.b[i]).real();
    q.sca += (2.0 * n + 1) * (std::norm(c.a[i]) + std::norm(c.b[i]));
    back += (2.0 * n + 1) * (n % 2 ? -1.0 : 1.0) * (c.a[i] - c.b[i]);
  }
  const double x2 = c.x * c.x;
  q.ext *= 2 / x2;
  q.sca *= 2 / x2;
  q.back = std::norm(back) / x2;
  return q;
}

// Bistatic RCS over pi a² at scattering angle theta: E-plane (phi = 0) 4|S2|²/x², H-plane
// (phi = 90°) 4|S1|²/x². sigma_e(pi) = sigma_h(pi) = efficiencies().back.
inline double rcs_e_plane(const Coefficients& c, double theta) {
  return 4 * std::norm(amplitudes(c, theta).S2) / (c.x * c.x);
}
inline double rcs_h_plane(const Coefficients& c, double theta) {
  return 4 * std::norm(amplitudes(c, theta).S1) / (c.x * c.x);
}

// The scattered far-field amplitude in dgmax's normalization (near_to_far.hpp: F = lim r e^{+ikr} E
// with e^{+i omega t} phasors) for a unit incident field x̂ e^{-ikz} (dgmax's convention) and
// wavenumber k: the conjugate of BH's, F_theta = -i cos(phi) conj(S2)/k, F_phi = +i sin(phi) conj(S1)/k.
inline std::array<cplx, 2> far_field_amplitude(const Coefficients& c, double k, double theta, double phi) {
  const Amplitudes s = amplitudes(c, theta);
  const cplx i(0, 1);
  return {-i * std::cos(phi) * std::conj(s.S2) / k, i * std::sin(phi) * std::conj(s.S1) / k};
}

// The scattered field at a point outside the sphere, BH (4.45) with the vector spherical harmonics
// of the third kind (BH (4.50), z_n = h_n^(1)), converted to dgmax's e^{+i omega t} convention
// (complex conjugate) and to Cartesian components; eta = 1 (k/(omega mu) = 1). Unit incident field
// x̂ e^{-ikz} (dgmax's convention). The series converges for r > a; n_terms of the coefficients
// should then exceed Wiscombe's count by ~10 near the surface.
struct NearField {
  std::array<cplx, 3> E, H;
};

inline NearField scattered_field(const Coefficients& c, double k, const std::array<double, 3>& p) {
  const double r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  const double theta = std::acos(p[2] / r), phi = std::atan2(p[1], p[0]);
  const double st = std::sin(theta), ct = std::cos(theta), sp = std::sin(phi), cp = std::cos(phi);
  const double rho = k * r;
  const int N = c.terms();
  const RiccatiBessel rb = riccati_bessel(rho, N);
  const Angular g = angular(ct, N);
  const cplx i(0, 1);
  cplx Er = 0, Et = 0, Ep = 0, Hr = 0, Ht = 0, Hp = 0;
  cplx in = 1;  // i^n
  for (int n = 1; n <= N; ++n) {
    const size_t j = static_cast<size_t>(n);
    in *= i;
    const cplx En = in * (2.0 * n + 1) / (n * (n + 1.0));
    const cplx z = rb.xi[j] / rho, dz = rb.dxi[j] / rho;  // h_n(rho), (rho h_n)'/rho
    const cplx zr = n * (n + 1.0) * st * g.pi[j] * z / rho;
    // M_o1n, M_e1n, N_o1n, N_e1n: (r, theta, phi) components
    const std::array<cplx, 3> Mo{0, cp * g.pi[j] * z, -sp * g.tau[j] * z};
    const std::array<cplx, 3> Me{0, -sp * g.pi[j] * z, -cp * g.tau[j] * z};
    const std::array<cplx, 3> No{sp * zr, sp * g.tau[j] * dz, cp * g.pi[j] * dz};
    const std::array<cplx, 3> Ne{cp * zr, cp * g.tau[j] * dz, -sp * g.pi[j] * dz};
    const cplx ea = En * i * c.a[j], eb = En * c.b[j], hb = En * i * c.b[j], ha = En * c.a[j];
    Er += ea * Ne[0] - eb * Mo[0];
    Et += ea * Ne[1] - eb * Mo[1];
    Ep += ea * Ne[2] - eb * Mo[2];
    Hr += hb * No[0] + ha * Me[0];
    Ht += hb * No[1] + ha * Me[1];
    Hp += hb * No[2] + ha * Me[2];
  }
  // spherical -> Cartesian, then conjugate to e^{+i omega t}
  const std::array<double, 3> er{st * cp, st * sp, ct}, et{ct * cp, ct * sp, -st}, ep{-sp, cp, 0};
  NearField f;
  for (int d = 0; d < 3; ++d) {
    f.E[static_cast<size_t>(d)] = std::conj(Er * er[d] + Et * et[d] + Ep * ep[d]);
    f.H[static_cast<size_t>(d)] = std::conj(Hr * er[d] + Ht * et[d] + Hp * ep[d]);
  }
  return f;
}

}  // namespace dgmax::test::mie
