#include "solver/physics/energy_guard.hpp"

#include "solver/parallel/comm.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "solver/physics/norms.hpp"
#include "solver/physics/tfsf.hpp"
#include "codegen/dsl/expr_source.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

constexpr double kCurrentSafety = 2, kIncidentSafety = 4;

bool reads_incident(const Problem& p, BcKind kind) {
  const auto i = static_cast<size_t>(kind);
  return kind == BcKind::Incident ||
         (p.fluxes && i < p.fluxes->exterior_reads_incident.size() && p.fluxes->exterior_reads_incident[i]);
}

std::string word(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt_g(v);
}

}  // namespace

SourcePowerMeter::SourcePowerMeter(const Problem& p) : p_(p), has_current_(static_cast<bool>(p.current)) {
  if (p.incident) {
    for (int k = 0; k < p.K_owned(); ++k)
      for (int f = 0; f < 4; ++f)
        if (p.md->conn.is_boundary(k, f) && reads_incident(p, p.bc[k][f])) incident_faces_.push_back(4 * k + f);
    // a total-field/scattered-field box lets the incident field in through its faces (counted once,
    // from the total-field side)
    if (p.tfsf)
      for (size_t e = 0; e < p.tfsf->elements.size(); ++e)
        for (int f = 0; f < 4; ++f)
          if (p.tfsf->sign[4 * e + f] > 0) incident_faces_.push_back(4 * p.tfsf->elements[e] + f);
  }
  any_incident_ = world().any(!incident_faces_.empty());
  any_ = has_current_ || any_incident_;
  points_ = world().sum((has_current_ ? static_cast<double>(p.Np()) * p.K_owned() : 0.0) +
                        static_cast<double>(incident_faces_.size()) * p.Nfp());
}

SourcePower SourcePowerMeter::at(double t, bool with_current) const {
  SourcePower out;
  const int Np = p_.Np(), Nfp = p_.Nfp();
  if (has_current_ && with_current) {
    // ∫ |J|²/eps dV <= Σ_k vol_k max_i |J(x_ki)|² / eps_k
    const size_t n = p_.xyz.x.size();
    std::vector<double> buf(3 * n);
    double* J[3] = {buf.data(), buf.data() + n, buf.data() + 2 * n};
    p_.current.eval(n, p_.xyz.x.data(), p_.xyz.y.data(), p_.xyz.z.data(), t, J);
    double sum = 0;
    for (int k = 0; k < p_.K_owned(); ++k) {
      double m = 0;
      for (int i = 0; i < Np; ++i) {
        const size_t j = static_cast<size_t>(k) * Np + i;
        m = max_nan(m, J[0][j] * J[0][j] + J[1][j] * J[1][j] + J[2][j] * J[2][j]);
      }
      sum += p_.md->geom.volume(k) * m / p_.material[k].eps;
    }
    out.current = std::sqrt(world().sum(sum));  // over all ranks
  }
  if (any_incident_) {  // every rank, with or without incident faces: the sum is collective
    // ∮ c u_inc dS <= Σ_faces area · c · max over the face nodes of u_inc
    const size_t n = incident_faces_.size() * Nfp;
    std::vector<double> x(n), y(n), z(n), buf(6 * n);
    for (size_t a = 0; a < incident_faces_.size(); ++a)
      for (int j = 0; j < Nfp; ++j) {
        const int node = p_.maps.vmapM[static_cast<size_t>(incident_faces_[a]) * Nfp + j];
        x[a * Nfp + j] = p_.xyz.x[node];
        y[a * Nfp + j] = p_.xyz.y[node];
        z[a * Nfp + j] = p_.xyz.z[node];
      }
    double* F[6];
    for (int c = 0; c < 6; ++c) F[c] = buf.data() + c * n;
    p_.incident.eval(n, x.data(), y.data(), z.data(), t, F);
    double sum = 0;
    for (size_t a = 0; a < incident_faces_.size(); ++a) {
      const int k = incident_faces_[a] / 4, f = incident_faces_[a] % 4;
      const Material& m = p_.material[k];
      double u = 0;
      for (int j = 0; j < Nfp; ++j) {
        const size_t i = a * Nfp + j;
        const double e2 = F[0][i] * F[0][i] + F[1][i] * F[1][i] + F[2][i] * F[2][i];
        const double h2 = F[3][i] * F[3][i] + F[4][i] * F[4][i] + F[5][i] * F[5][i];
        u = max_nan(u, 0.5 * (m.eps * e2 + m.mu * h2));
      }
      const double area = 2 * p_.md->geom.sJ[k][f];  // the reference face has area 2
      sum += area * u / std::sqrt(m.eps * m.mu);
    }
    out.incident = world().sum(sum);
  }
  return out;
}

std::optional<NonFiniteSource> SourcePowerMeter::nonfinite_at(double t) const {
  // [comps][n] values of `field` at the n points (x, y, z)
  auto first = [&](const SpaceTimeField& field, int comps, size_t n, const double* x, const double* y,
                   const double* z) -> std::optional<NonFiniteSource> {
    std::vector<double> buf(static_cast<size_t>(comps) * n);
    std::vector<double*> F(static_cast<size_t>(comps));
    for (int c = 0; c < comps; ++c) F[static_cast<size_t>(c)] = buf.data() + static_cast<size_t>(c) * n;
    field.eval(n, x, y, z, t, F.data());
    for (int c = 0; c < comps; ++c)
      for (size_t i = 0; i < n; ++i)
        if (const double v = F[static_cast<size_t>(c)][i]; !std::isfinite(v))
          return NonFiniteSource{&field, c, x[i], y[i], z[i], t, v};
    return std::nullopt;
  };
  if (has_current_) {  // this rank's own nodes (they come first)
    const size_t n = static_cast<size_t>(p_.K_owned()) * p_.Np();
    if (auto found = first(p_.current, 3, n, p_.xyz.x.data(), p_.xyz.y.data(), p_.xyz.z.data())) return found;
  }
  if (!incident_faces_.empty()) {
    const int Nfp = p_.Nfp();
    const size_t n = incident_faces_.size() * Nfp;
    std::vector<double> x(n), y(n), z(n);
    for (size_t a = 0; a < incident_faces_.size(); ++a)
      for (int j = 0; j < Nfp; ++j) {
        const int node = p_.maps.vmapM[static_cast<size_t>(incident_faces_[a]) * Nfp + j];
        x[a * Nfp + j] = p_.xyz.x[node];
        y[a * Nfp + j] = p_.xyz.y[node];
        z[a * Nfp + j] = p_.xyz.z[node];
      }
    if (auto found = first(p_.incident, 6, n, x.data(), y.data(), z.data())) return found;
  }
  return std::nullopt;
}

EnergyGuard::EnergyGuard(const Problem& p, bool single_precision, RunSuspects suspects)
    : meter_(p), suspects_(std::move(suspects)), tol_(single_precision ? 1e-3 : 1e-8),
      layer_factor_(p.pml ? kPmlEnergyAllowance : 1.0) {}  // every rank has p.pml, with or without layer elements

void EnergyGuard::restore(const State& s) {
  started_ = true;
  W0_ = s.W0;
  t_last_ = s.t_last;
  current_budget_ = s.current_budget;
  incident_budget_ = s.incident_budget;
  if (meter_.any()) p_last_ = meter_.at(t_last_);  // the host's J estimate: at most larger
}

double EnergyGuard::bound() const {
  const double s = std::sqrt(W0_) + current_budget_;
  const double b = s * s + incident_budget_;
  return (b + tol_ * b) * layer_factor_;
}

void EnergyGuard::add_interval(double a, double b, const SourcePower& p0, const SourcePower& p1) {
  current_budget_ += kCurrentSafety * (b - a) * max_nan(p0.current, p1.current) / std::sqrt(2.0);
  incident_budget_ += kIncidentSafety * (b - a) * max_nan(p0.incident, p1.incident);
}

// Adds ∫_{t0}^{t1} of the host meter's source powers with `points` intervals, each taken at its
// larger end.
void EnergyGuard::integrate_sources(double t0, double t1, int points) {
  SourcePower prev = meter_.at(t0);
  for (int i = 1; i <= points; ++i) {
    const double a = t0 + (t1 - t0) * (i - 1) / points, b = i == points ? t1 : t0 + (t1 - t0) * i / points;
    const SourcePower next = meter_.at(b);
    add_interval(a, b, prev, next);
    prev = next;
  }
  p_last_ = prev;
}

void EnergyGuard::check(long long step, double t, double W, double current_norm, double dt) {
  // With several ranks W and the source powers are sums over all of them, but every decision
  // below is also taken together (any rank's "no" is every rank's): the refinement's reductions
  // must be reached by all ranks, and no rank may go on while another refuses.
  const Comm& comm = world();
  // the sample's source powers: J from the backend, incident fields from the (boundary) meter
  SourcePower now;
  if (meter_.any()) now = meter_.at(t, false);
  now.current = current_norm;
  if (!started_) {
    started_ = true;
    W0_ = W;
    t_last_ = t;
    p_last_ = now;
    if (comm.any(!std::isfinite(W))) refuse(step, t, W, "the initial energy is not finite");
    return;
  }
  if (meter_.any() && t > t_last_) add_interval(t_last_, t, p_last_, now);
  p_last_ = now;
  t_last_ = t;
  dt_ = dt;
  if (comm.any(!std::isfinite(W))) refuse(step, t, W, "the energy is not finite");
  if (!comm.any(!(W <= bound()))) return;
  if (meter_.any()) {
    // a source pulse between two samples is not seen at the samples: redo the integrals at
    // every step (at most kRefinePoints intervals, about 1e8 point evaluations) before refusing
    current_budget_ = incident_budget_ = 0;
    const double affordable = std::max(50.0, 1e8 / std::max(1.0, meter_.points()));
    const int points = static_cast<int>(std::min({double(kRefinePoints), std::ceil(t / dt), affordable}));
    integrate_sources(0, t, std::max(1, points));
    p_last_ = now;
    if (!comm.any(!(W <= bound()))) return;
    refuse(step, t, W, "the energy exceeds what the sources can supply (at most " + word(bound()) + ")");
  }
  refuse(step, t, W,
         "the energy grew by " + fmt_g(W0_ > 0 ? W / W0_ - 1 : W) + (W0_ > 0 ? " (relative)" : "") +
             " without sources; with sigma >= 0 and an energy-stable flux it can only decrease");
}

std::optional<NonFiniteSource> EnergyGuard::find_nonfinite_source(double t, int points) const {
  if (auto found = meter_.nonfinite_at(t)) return found;
  for (int i = 0; i < points; ++i)
    if (auto found = meter_.nonfinite_at(t * i / points)) return found;
  return std::nullopt;
}

void EnergyGuard::refuse(long long step, double t, double W, const std::string& what) const {
  const std::string blew_up = "the solution blew up at step " + std::to_string(step) + ", t = " + fmt_g(t) + ": ";
  if (meter_.any() && !std::isfinite(W)) {
    // a source that is not finite somewhere is the cause: named with its expression's line. Looked
    // for at the run's steps (the same budget as the refinement of the source integrals)
    const double affordable = std::max(50.0, 1e8 / std::max(1.0, meter_.points()));
    const double steps = dt_ > 0 ? std::ceil(t / dt_) : 1.0;
    const int points = static_cast<int>(std::min({double(kRefinePoints), steps, affordable}));
    if (const auto bad = find_nonfinite_source(t, std::max(1, points))) {
      const auto c = static_cast<size_t>(bad->component);
      const std::string name = c < bad->field->names.size() ? bad->field->names[c] : "a source";
      const std::string message = blew_up + "'" + name + "' is " + (std::isnan(bad->value) ? "NaN" : "infinite") +
                                  " at (x, y, z) = (" + fmt_g(bad->x) + ", " + fmt_g(bad->y) + ", " + fmt_g(bad->z) +
                                  "), t = " + fmt_g(bad->t);
      const std::string hint = "check for the square root or logarithm of a negative number, or a division by zero";
      if (c < bad->field->sources.size()) throw dsl::error_at(bad->field->sources[c], 0, message, hint);
      throw UserError(message, {suspects_.config}, hint);
    }
  }
  std::string cause;
  if (suspects_.cfl > 0.9)
    cause = "time.cfl = " + fmt_g(suspects_.cfl) + " is beyond the measured stability limit (about 1.0 for "
            "the upwind flux; the default 0.5 leaves a factor 2)";
  else if (suspects_.custom_flux)
    cause = "the user-written `flux:` is not energy-stable: it must not add energy at a face (compare its signs "
            "with the built-in upwind flux in the README)";
  else if (suspects_.alpha < 0)
    cause = "alpha = " + fmt_g(suspects_.alpha) + " < 0 makes the flux anti-dissipative; use 0 (central) .. 1 (upwind)";
  else if (suspects_.custom_states)
    cause = "a user-written boundary state (`boundary_states:`) adds energy at the boundary";
  else if (meter_.any())
    cause = "a source or incident field is not finite or grows without bound";
  else
    cause = "an unstable combination of mesh, order and materials; try time.cfl = 0.25 and report it if that "
            "does not help";
  std::string msg = blew_up + what +
                    " (energy " + word(W) + ", initially " + word(W0_) + ")";
  throw UserError(msg, {suspects_.config},
                  "likely cause: " + cause + ". Snapshots written so far are in " + suspects_.out_dir);
}

}  // namespace dgmax
