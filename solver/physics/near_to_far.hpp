// Near-to-far-field transform: the far field radiated by the equivalent currents on a
// closed surface that the DFT monitors recorded (SurfaceDft). Surface equivalence in free space
// (eps = mu = 1, so c = 1, eta = 1, k = 2 pi f):
//   J = n x H,  M = -n x E  on the surface (n outward),
//   N(r̂) = ∮ J e^{+ik r̂·x'} dS,  L(r̂) = ∮ M e^{+ik r̂·x'} dS,
//   F_theta = -ik/(4 pi) (L_phi + eta N_theta),  F_phi = +ik/(4 pi) (L_theta - eta N_phi).
// The sign of the phase: the DFT convention of surface_dft.hpp, X(f) = sum x(t) e^{-i 2 pi f t} dt,
// makes the fields time-harmonic as Re{X e^{+i omega t}}, so an outgoing wave is e^{-ikr}/r and
// the retarded distance |r - x'| ≈ r - r̂·x' gives e^{-ikr} e^{+ik r̂·x'}.
//
// Normalization: F = (F_theta, F_phi) is the far-field amplitude
//   F(r̂) = lim_{r→∞} r e^{+ikr} E(r r̂),
// i.e. E ≈ F e^{-ikr}/r far away (H = r̂ × E / eta). Its units are those of the DFT of E times a
// length. Then
//   bistatic RCS   sigma(r̂) = lim 4 pi r² |E_s|²/|E_inc|² = 4 pi |F|² / |E_inc|²,
//   radiated power P = 1/(2 eta) ∮ |F|² dΩ  (time average of the time-harmonic field Re{X e^{iωt}}),
// where E_inc is the DFT of the incident field's amplitude at the same frequency (the DFT of the
// incident signal times the polarization amplitude), so that DFT normalizations cancel in sigma.
#pragma once

#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "solver/physics/surface_dft.hpp"

namespace dgmax {

// A far-field direction: r̂ = (sin theta cos phi, sin theta sin phi, cos theta), in radians, and,
// for a direction a user named, the degrees the CSV shows (NaN: theta * 180/pi, the CSV's output
// before directions could be configured; not every number of degrees is x * 180/pi of a double x).
struct FarFieldDirection {
  double theta = 0, phi = 0;
  double theta_deg = std::numeric_limits<double>::quiet_NaN(), phi_deg = std::numeric_limits<double>::quiet_NaN();
};

// The far-field amplitude in one direction (normalization above).
struct FarField {
  std::complex<double> E_theta, E_phi;
};

// The far field at frequency index f of `dft` in each direction. -> [D] for directions [D].
// UserError: no frequencies, f out of range, a frequency <= 0, no surface points.
std::vector<FarField> far_field(const SurfaceDft& dft, size_t f, const std::vector<FarFieldDirection>& directions);

// sigma = 4 pi (|F_theta|² + |F_phi|²) / |incident|². UserError when incident == 0.
double radar_cross_section(const FarField& F, std::complex<double> incident);

// P = 1/(2 eta) ∮ |F|² dΩ of the far field at frequency index f, by Gauss–Legendre in cos theta
// (n_theta points) times the trapezoid rule in phi (2 n_theta points): exact for a band-limited
// pattern of degree < 2 n_theta, which the far field of a surface of radius R is for
// n_theta ≳ kR + 10.
double radiated_power(const SurfaceDft& dft, size_t f, int n_theta);

// The n_theta for radiated_power at frequency index f: ceil(k R) + 10, R = the largest distance of
// a surface point from the origin (the phase e^{ik r̂·x'} makes the pattern band-limited to degree
// k R; the 10 extra points take its tail below 1e-10 for the surfaces the tests use).
int power_quadrature_points(const SurfaceDft& dft, size_t f);

// D = 4 pi U / P with U = |F|²/(2 eta) the radiation intensity in the direction of F and P the
// total radiated power (radiated_power). D integrates to 4 pi over the sphere; a small dipole has
// D = 1.5 sin² theta. UserError when power <= 0.
double directivity(const FarField& F, double power);

// P = 1/2 Re ∮ (E × H*)·n dS on the recorded surface itself: the same power for a source inside
// the surface in free space (a check of the transform and of the quadrature).
double surface_power(const SurfaceDft& dft, size_t f);

// The two principal cuts of a plane wave travelling +z with E along x, theta from 0 to 180 degrees
// in steps of `step_deg` (which must divide 180): the E-plane (phi = 0) and then the H-plane
// (phi = 90°). -> [2 (180/step + 1)]. UserError for a step that does not divide 180 (to 1e-9).
std::vector<FarFieldDirection> principal_cuts(double step_deg);

// One frequency's pattern, as written to the CSV.
struct FarFieldPattern {
  double frequency = 0;
  std::vector<FarFieldDirection> directions;  // [D]
  std::vector<FarField> fields;                // [D]
  std::complex<double> incident = 0;           // E_inc at this frequency; 0: a radiation pattern
  double power = 0;  // radiated power P (radiated_power) of a radiation pattern; 0: no directivity
};

// Writes the patterns as CSV, atomically (temp file + rename). Columns:
//   frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im
// then, when every pattern has an incident amplitude, rcs (sigma, an area), and, when
// sphere_radius > 0, rcs_dB = 10 log10(sigma / (pi a²)); when no pattern has an incident amplitude
// and every one a power > 0, directivity (D, directivity()) and directivity_dBi = 10 log10 D
// (-inf where F = 0). Numbers in shortest round-trip form.
// UserError: some patterns with and some without an incident amplitude (or a power), fields and
// directions of different lengths, or the file cannot be written.
void write_far_field_csv(const std::string& path, const std::vector<FarFieldPattern>& patterns,
                         double sphere_radius = 0);

}  // namespace dgmax
