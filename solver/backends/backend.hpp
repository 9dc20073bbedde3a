// What every backend (ref, cpu, cuda) provides: the semi-discrete right-hand side, LSERK4 steps on
// a state it keeps in its own memory and layout, the initial state and the energy and error norms
// computed where the state lives (a GPU run copies a few scalars back per sample, not the state).
#pragma once

#include <string>
#include <vector>

#include "solver/physics/fields.hpp"
#include "solver/physics/norms.hpp"
#include "solver/physics/problem.hpp"
#include "solver/util/clock.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

// Energy and error norms of the state at one time, accumulated in double in every precision.
struct NormSample {
  double energy = 0;  // 1/2 ∫ eps|E|² + mu|H|² dV
  ErrorNorms errors;  // against Problem::exact; zeros without one
  double current = 0;  // ||J/sqrt(eps)||_L2 at t (of J interpolated at the nodes); 0 without J
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // dq/dt = rhs(q, t) for the state q: [K][6][Np].
  virtual void rhs(const Fields& q, double t, Fields& out) = 0;
  // The state in double ([K][6][Np]; a single-precision backend rounds on set and widens exactly on
  // get). set_state also zeroes the LSERK4 residual.
  virtual void set_state(const Fields& q) = 0;
  virtual void get_state(Fields& q) = 0;
  // The LSERK4 residual register (`res` in solver/time/lserk4.hpp) between steps, [K][6][Np], in
  // the backend's precision widened to double (exact, so get → set round-trips bitwise). Stage 0
  // multiplies it by a[0] = 0, but 0·res is not bitwise free in IEEE arithmetic (signed zeros,
  // Inf/NaN), so a restart that must continue bit-for-bit sets it: set_state, then set_residual.
  // set_residual: InternalError when `res` is not [K][6][Np] of this problem.
  virtual void get_residual(Fields& res) = 0;
  virtual void set_residual(const Fields& res) = 0;
  // The auxiliary state of a perfectly matched layer (its fields psi, then their LSERK4 residual,
  // widened to double; empty without a layer), for checkpoints. init_state zeroes it; set_state
  // leaves it. set_aux: InternalError when the size does not match.
  virtual void get_aux(std::vector<double>& aux) { aux.clear(); }
  virtual void set_aux(const std::vector<double>& aux) {
    if (!aux.empty()) throw InternalError("this backend has no auxiliary state");
  }
  // The state := Problem::initial at t = 0 (zero without one). UserError naming the component and
  // the point when a value is not finite in the backend's precision.
  virtual void init_state() = 0;
  // Energy and (with Problem::exact) error norms of the backend's state at time t.
  virtual NormSample norms(double t) = 0;
  // One LSERK4 step of size dt from time t on the backend's state.
  virtual void step(double t, double dt) = 0;
  // Seconds spent in the backend's kernels (steps and norms) since construction: device events on
  // a GPU (waits for the work queued so far), the host clock around the calls otherwise.
  virtual double kernel_seconds() { return kernel_seconds_; }
  // A partitioned run: seconds spent waiting for the neighbours' face traces (the exchange time the
  // volume work did not hide); 0 with one rank.
  virtual double exchange_wait_seconds() const { return 0; }
  // A partitioned run: seconds of face-trace exchange during which the device computed interior
  // elements (the exchange time hidden); 0 where the backend does not measure it.
  virtual double exchange_hidden_seconds() const { return 0; }
  // Seconds taken by `steps` steps of size dt (for dgmax bench). The default uses the host clock;
  // asynchronous backends time with device events.
  virtual double time_steps(int steps, double dt);

  // Point probes (solver/physics/probes.hpp), evaluated where the state lives: elements [P],
  // weights [P][Np]; probe_sample fills out [P][6] with sum_i w[p][i] q(elements[p], c, i) in
  // double (a GPU copies back P*6 numbers). A new probe_setup replaces the probes.
  virtual void probe_setup(const std::vector<int>& elements, const std::vector<double>& weights);
  virtual void probe_sample(std::vector<double>& out);
  // DFT monitors (solver/physics/dft_monitor.hpp), accumulated in double where the state lives.
  // dft_add: a set of nodes [M] (k*Np + i) and frequencies [F], with zero accumulators; returns
  // its index. dft_accumulate: for every set, X[f][m][c] += q(m, c) exp(-i 2 pi f t) dt.
  // dft_get / dft_set: a set's accumulators re, im: [F][M][6] (set: a restart continues them).
  virtual int dft_add(const std::vector<long>& nodes, const std::vector<double>& frequencies);
  virtual void dft_accumulate(double t, double dt);
  virtual void dft_get(int set, std::vector<double>& re, std::vector<double>& im);
  virtual void dft_set(int set, const std::vector<double>& re, const std::vector<double>& im);

 protected:
  double kernel_seconds_ = 0;  // host-clock backends add to it (HostTimer)
};

inline double Backend::time_steps(int steps, double dt) {
  const auto t0 = Clock::now();
  for (int s = 0; s < steps; ++s) step(s * dt, dt);
  return seconds_since(t0);
}

// Backends without probes or DFT monitors refuse them (an internal error: every backend of dgmax has them).
inline void Backend::probe_setup(const std::vector<int>&, const std::vector<double>&) {
  throw InternalError("the " + name() + " backend has no probes");
}
inline void Backend::probe_sample(std::vector<double>&) { throw InternalError("the " + name() + " backend has no probes"); }
inline int Backend::dft_add(const std::vector<long>&, const std::vector<double>&) {
  throw InternalError("the " + name() + " backend has no DFT monitors");
}
inline void Backend::dft_accumulate(double, double) { throw InternalError("the " + name() + " backend has no DFT monitors"); }
inline void Backend::dft_get(int, std::vector<double>&, std::vector<double>&) {
  throw InternalError("the " + name() + " backend has no DFT monitors");
}
inline void Backend::dft_set(int, const std::vector<double>&, const std::vector<double>&) {
  throw InternalError("the " + name() + " backend has no DFT monitors");
}

}  // namespace dgmax
