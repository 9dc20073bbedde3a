// The blow-up detector: compares the energy of a run with what the physics allows and refuses a
// run whose energy does more, naming the likely cause.
//
// Without sources, Maxwell's equations with sigma >= 0 and PEC/PMC/absorbing walls never gain
// energy, and neither do energy-stable fluxes (upwind, central) under a stable step: W(t) <= W(0)
// up to round-off. With a current J, dW/dt <= -(E, J) <= sqrt(2W) ||J/sqrt(eps)||, so
//   sqrt(W(t)) <= sqrt(W(0)) + ∫ ||J/sqrt(eps)|| / sqrt(2) dt;
// an incident field on a boundary adds at most the energy its flux brings in, bounded by
//   ∫∮ c u_inc dS dt,  u_inc = (eps |E_inc|² + mu |H_inc|²) / 2,  c = 1 / sqrt(eps mu)
// (and so does a total-field/scattered-field box, through its faces).
// The source powers are upper estimates (maxima over an element's nodes times its volume or face
// area) integrated with the larger end value of each interval, with safety factors 2 (J) and 4
// (incident); when the bound is exceeded the integrals are redone at every step (up to
// kRefinePoints intervals and about 1e8 point evaluations) before the run is refused, so a pulse
// between two samples does not count as a blow-up.
#pragma once

#include <optional>
#include <string>

#include "solver/physics/problem.hpp"

namespace dgmax {

// Upper estimates of the source powers at time t (zeros without sources).
struct SourcePower {
  double current = 0;   // ≈ ||J/sqrt(eps)||_L2 (an upper estimate)
  double incident = 0;  // ≈ ∮ c u_inc dS over faces whose exterior state reads the incident field
};

// A source value that is not finite: which field and component, where and when.
struct NonFiniteSource {
  const SpaceTimeField* field = nullptr;  // the problem's current or incident field
  int component = 0;
  double x = 0, y = 0, z = 0, t = 0, value = 0;
};

class SourcePowerMeter {
 public:
  explicit SourcePowerMeter(const Problem& p);
  // With several ranks: whether any rank has a source (the same answer on every rank, so that the
  // reductions in at() are reached by all of them).
  bool any() const { return any_; }
  // `with_current`: also the J part (K·Np evaluations on the host; the backend's norms() gives it
  // at the samples).
  SourcePower at(double t, bool with_current = true) const;
  bool has_current() const { return has_current_; }
  // Points evaluated per call (the cost of at()), over all ranks.
  double points() const { return points_; }
  // The first value of J (at this rank's nodes) or of the incident field (at the nodes of the faces
  // it enters through) at time t that is not finite, if any; the same points at() evaluates.
  std::optional<NonFiniteSource> nonfinite_at(double t) const;

 private:
  const Problem& p_;
  bool has_current_;
  std::vector<int> incident_faces_;  // k*4 + f of boundary faces with an incident-reading state
  bool any_ = false;
  bool any_incident_ = false;  // on any rank
  double points_ = 0;
};

// What the guard tells the user about the run when it refuses: the likely causes it can name.
struct RunSuspects {
  std::string config;          // for the message's location
  double cfl = 0.5;
  bool custom_flux = false;    // `flux:` written by the user
  bool custom_states = false;  // `boundary_states:` in use
  double alpha = 1;
  double max_sigma = 0;        // the largest conductivity (for the hint; dt accounts for it)
  std::string out_dir;
};

class EnergyGuard {
 public:
  // With a perfectly matched layer the bound is this many times larger: in the layer the stretched
  // fields are not the physical ones and their energy may exceed what entered it (a slow component
  // normal to the layer by up to (sigma/omega)^2, also from an initial field reaching into the
  // layer). A blow-up grows exponentially and still passes it within a few e-foldings; a value that
  // is not finite is refused at once.
  static constexpr double kPmlEnergyAllowance = 1e4;
  static constexpr int kRefinePoints = 4000;

  EnergyGuard(const Problem& p, bool single_precision, RunSuspects suspects);

  // The energy W at step `step`, time t (step 0 comes first, at t = 0; `dt` is the run's step,
  // used to refine the source integrals), with the backend's ||J/sqrt(eps)|| at t (computed where
  // the state lives: the host meter's J part costs K·Np evaluations and is used only to refine).
  // Throws UserError when W is not finite or exceeds the bound; the message names the step, the
  // time, the energies and the likely cause.
  void check(long long step, double t, double W, double current_norm, double dt);

  // What a restarted run needs to go on checking as if it had never stopped.
  struct State {
    double W0 = 0, t_last = 0, current_budget = 0, incident_budget = 0;
  };
  State state() const { return {W0_, t_last_, current_budget_, incident_budget_}; }
  void restore(const State& s);

  double bound() const;        // the energy allowed at the last checked time
  double tolerance() const { return tol_; }

 private:
  void integrate_sources(double t0, double t1, int points);
  void add_interval(double a, double b, const SourcePower& p0, const SourcePower& p1);
  [[noreturn]] void refuse(long long step, double t, double W, const std::string& what) const;
  // A source value that is not finite in [0, t], looked for at up to `points` times (a NaN source
  // is named with its own line, not as a likely cause).
  std::optional<NonFiniteSource> find_nonfinite_source(double t, int points) const;

  SourcePowerMeter meter_;
  RunSuspects suspects_;
  double tol_;
  double layer_factor_;  // kPmlEnergyAllowance with a layer, else 1
  double dt_ = 0;        // the run's step (the last check's): how finely refuse() looks at the sources
  bool started_ = false;
  double W0_ = 0, t_last_ = 0;
  SourcePower p_last_;
  double current_budget_ = 0;   // ∫ ||J/sqrt(eps)|| / sqrt(2) dt, times the safety factor
  double incident_budget_ = 0;  // ∫∮ c u_inc dS dt, times the safety factor
};

}  // namespace dgmax
