#include "solver/physics/near_to_far.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "solver/element/jacobi.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {

using cplx = std::complex<double>;
using CVec = std::array<cplx, 3>;
constexpr double kEta = 1;  // free-space impedance in dgmax's units (eps = mu = 1)

CVec cross(const std::array<double, 3>& a, const CVec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// Checks what a caller (a config naming frequencies, a monitor that recorded nothing) can get
// wrong, and that the record is consistent (a dgmax bug otherwise).
void check_input(const SurfaceDft& dft, size_t f) {
  if (dft.frequencies.empty())
    throw UserError("near-to-far transform: the surface DFT has no frequencies",
                    {}, "list at least one frequency for the far-field monitor");
  if (f >= dft.frequencies.size())
    throw UserError(fmt::format("near-to-far transform: frequency index {} out of range (the surface DFT has {})",
                                f, dft.frequencies.size()),
                    {}, "ask for one of the frequencies the far-field monitor recorded");
  if (!(dft.frequencies[f] > 0))
    throw UserError(fmt::format("near-to-far transform: frequency {} is not positive: no far field at f <= 0",
                                dft.frequencies[f]),
                    {}, "far-field frequencies must be > 0 (cycles per unit time)");
  if (dft.points.empty())
    throw UserError("near-to-far transform: the surface DFT has no surface points",
                    {}, "the far-field surface must enclose the sources and cross the mesh");
  const size_t n = dft.frequencies.size() * dft.points.size() * 3;
  DGMAX_ASSERT(dft.E.size() == n && dft.H.size() == n, "SurfaceDft E/H sizes do not match [F][P][3]");
}

}  // namespace

std::vector<FarField> far_field(const SurfaceDft& dft, size_t f, const std::vector<FarFieldDirection>& directions) {
  check_input(dft, f);
  const double k = 2 * std::numbers::pi * dft.frequencies[f];
  const size_t P = dft.points.size();
  // Equivalent currents times the weight: J = n x H, M = -n x E.  [P]
  std::vector<CVec> J(P), M(P);
  for (size_t p = 0; p < P; ++p) {
    const SurfacePoint& s = dft.points[p];
    const CVec E{dft.E[dft.at(f, p, 0)], dft.E[dft.at(f, p, 1)], dft.E[dft.at(f, p, 2)]};
    const CVec H{dft.H[dft.at(f, p, 0)], dft.H[dft.at(f, p, 1)], dft.H[dft.at(f, p, 2)]};
    J[p] = cross(s.n, H);
    M[p] = cross(s.n, E);
    for (int c = 0; c < 3; ++c) {
      J[p][c] *= s.w;
      M[p][c] *= -s.w;
    }
  }
  std::vector<FarField> out;
  out.reserve(directions.size());
  for (const FarFieldDirection& d : directions) {
    const double st = std::sin(d.theta), ct = std::cos(d.theta), sp = std::sin(d.phi), cp = std::cos(d.phi);
    const std::array<double, 3> r{st * cp, st * sp, ct}, th{ct * cp, ct * sp, -st}, ph{-sp, cp, 0};
    CVec N{}, L{};
    for (size_t p = 0; p < P; ++p) {
      const auto& x = dft.points[p].x;
      const cplx phase = std::polar(1.0, k * (r[0] * x[0] + r[1] * x[1] + r[2] * x[2]));  // e^{+ik r̂·x'}
      for (int c = 0; c < 3; ++c) {
        N[c] += J[p][c] * phase;
        L[c] += M[p][c] * phase;
      }
    }
    const cplx N_th = N[0] * th[0] + N[1] * th[1] + N[2] * th[2], N_ph = N[0] * ph[0] + N[1] * ph[1];
    const cplx L_th = L[0] * th[0] + L[1] * th[1] + L[2] * th[2], L_ph = L[0] * ph[0] + L[1] * ph[1];
    const cplx c = cplx(0, k / (4 * std::numbers::pi));
    out.push_back({-c * (L_ph + kEta * N_th), c * (L_th - kEta * N_ph)});
  }
  return out;
}

double radar_cross_section(const FarField& F, std::complex<double> incident) {
  if (std::abs(incident) == 0)
    throw UserError("radar cross section: the incident field is zero at this frequency",
                    {}, "choose frequencies inside the band of the incident pulse");
  return 4 * std::numbers::pi * (std::norm(F.E_theta) + std::norm(F.E_phi)) / std::norm(incident);
}

double radiated_power(const SurfaceDft& dft, size_t f, int n_theta) {
  DGMAX_ASSERT(n_theta >= 1, "radiated_power needs n_theta >= 1");
  const GaussRule g = jacobi_gq(0, 0, n_theta - 1);  // Gauss–Legendre in mu = cos theta, [n_theta]
  const int n_phi = 2 * n_theta;
  std::vector<FarFieldDirection> dirs;  // [n_theta][n_phi]
  dirs.reserve(static_cast<size_t>(n_theta * n_phi));
  for (int i = 0; i < n_theta; ++i)
    for (int j = 0; j < n_phi; ++j) dirs.push_back({std::acos(g.x(i)), 2 * std::numbers::pi * j / n_phi});
  const std::vector<FarField> F = far_field(dft, f, dirs);
  double P = 0;
  for (int i = 0; i < n_theta; ++i)
    for (int j = 0; j < n_phi; ++j) {
      const FarField& a = F[static_cast<size_t>(i * n_phi + j)];
      P += g.w(i) * (std::norm(a.E_theta) + std::norm(a.E_phi));
    }
  return P * (2 * std::numbers::pi / n_phi) / (2 * kEta);
}

int power_quadrature_points(const SurfaceDft& dft, size_t f) {
  check_input(dft, f);
  double R2 = 0;
  for (const SurfacePoint& s : dft.points) R2 = std::max(R2, s.x[0] * s.x[0] + s.x[1] * s.x[1] + s.x[2] * s.x[2]);
  return static_cast<int>(std::ceil(2 * std::numbers::pi * dft.frequencies[f] * std::sqrt(R2))) + 10;
}

double directivity(const FarField& F, double power) {
  if (!(power > 0))
    throw UserError(fmt::format("directivity: the radiated power {} is not positive", power), {},
                    "choose frequencies inside the band of the source");
  return 4 * std::numbers::pi * (std::norm(F.E_theta) + std::norm(F.E_phi)) / (2 * kEta) / power;
}

double surface_power(const SurfaceDft& dft, size_t f) {
  check_input(dft, f);
  double P = 0;
  for (size_t p = 0; p < dft.points.size(); ++p) {
    const SurfacePoint& s = dft.points[p];
    const CVec E{dft.E[dft.at(f, p, 0)], dft.E[dft.at(f, p, 1)], dft.E[dft.at(f, p, 2)]};
    const CVec H{std::conj(dft.H[dft.at(f, p, 0)]), std::conj(dft.H[dft.at(f, p, 1)]),
                 std::conj(dft.H[dft.at(f, p, 2)])};
    // (E × H*)·n = (H* × n)·E
    const CVec Hn = cross(s.n, H);  // n × H*
    P -= s.w * (E[0] * Hn[0] + E[1] * Hn[1] + E[2] * Hn[2]).real();
  }
  return P / 2;
}

std::vector<FarFieldDirection> principal_cuts(double step_deg) {
  const double n = 180 / step_deg;
  if (!(step_deg > 0) || std::abs(n - std::round(n)) > 1e-9 * n)
    throw UserError(fmt::format("far-field cuts: the angular step {} degrees does not divide 180", step_deg), {},
                    "use a step such as 1, 2, 5 or 0.5 degrees");
  const int count = static_cast<int>(std::round(n));
  std::vector<FarFieldDirection> dirs;
  dirs.reserve(2 * static_cast<size_t>(count + 1));
  for (const double phi : {0.0, std::numbers::pi / 2})
    for (int i = 0; i <= count; ++i) dirs.push_back({std::numbers::pi * i / count, phi});
  return dirs;
}

void write_far_field_csv(const std::string& path, const std::vector<FarFieldPattern>& patterns, double sphere_radius) {
  size_t with_incident = 0, with_power = 0;
  for (const FarFieldPattern& p : patterns) {
    if (p.fields.size() != p.directions.size())
      throw UserError(fmt::format("far-field CSV {}: {} directions but {} far-field values at f = {}", path,
                                  p.directions.size(), p.fields.size(), p.frequency),
                      {}, "pass the directions far_field() was evaluated at");
    with_incident += std::abs(p.incident) > 0;
    with_power += p.power > 0;
  }
  if (with_incident != 0 && with_incident != patterns.size())
    throw UserError(fmt::format("far-field CSV {}: {} of {} frequencies have no incident amplitude (no RCS there)",
                                path, patterns.size() - with_incident, patterns.size()),
                    {}, "give every frequency its incident amplitude, or none (a radiation pattern without RCS)");
  const bool rcs = with_incident != 0 && !patterns.empty(), db = rcs && sphere_radius > 0;
  if (!rcs && with_power != 0 && with_power != patterns.size())
    throw UserError(fmt::format("far-field CSV {}: {} of {} frequencies have no radiated power (no directivity there)",
                                path, patterns.size() - with_power, patterns.size()),
                    {}, "give every frequency its radiated power, or none (a pattern without directivity)");
  const bool directivity_cols = !rcs && with_power != 0;
  std::string csv = "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im";
  csv += rcs ? (db ? ",rcs,rcs_dB\n" : ",rcs\n") : directivity_cols ? ",directivity,directivity_dBi\n" : "\n";
  const double deg = 180 / std::numbers::pi;
  for (const FarFieldPattern& p : patterns)
    for (size_t d = 0; d < p.fields.size(); ++d) {
      const FarField& F = p.fields[d];
      const FarFieldDirection& dir = p.directions[d];
      csv += fmt::format("{},{},{},{},{},{},{}", p.frequency, std::isnan(dir.theta_deg) ? dir.theta * deg : dir.theta_deg,
                         std::isnan(dir.phi_deg) ? dir.phi * deg : dir.phi_deg, F.E_theta.real(), F.E_theta.imag(),
                         F.E_phi.real(), F.E_phi.imag());
      if (rcs) {
        const double sigma = radar_cross_section(F, p.incident);
        csv += fmt::format(",{}", sigma);
        if (db) csv += fmt::format(",{}", 10 * std::log10(sigma / (std::numbers::pi * sphere_radius * sphere_radius)));
      } else if (directivity_cols) {
        const double D = directivity(F, p.power);
        csv += fmt::format(",{},{}", D, 10 * std::log10(D));
      }
      csv += '\n';
    }
  write_text_atomically(path, csv);
}

}  // namespace dgmax
