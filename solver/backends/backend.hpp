// What every backend (ref, cpu, cuda) provides: the semi-discrete right-hand side, LSERK4 steps on
// a state it keeps in its own memory and layout, the initial state and the energy and error norms
// computed where the state lives (a GPU run copies a few scalars back per sample, not the state).
#pragma once

#include <string>

#include "solver/physics/fields.hpp"
#include "solver/physics/norms.hpp"
#include "solver/physics/problem.hpp"
#include "solver/util/clock.hpp"

namespace dgmax {

// Energy and error norms of the state at one time, accumulated in double in every precision.
struct NormSample {
  double energy = 0;  // 1/2 ∫ eps|E|² + mu|H|² dV
  ErrorNorms errors;  // against Problem::exact; zeros without one
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // dq/dt = rhs(q, t) for the state q: [K][6][Np].
  virtual void rhs(const Fields& q, double t, Fields& out) = 0;
  virtual void set_state(const Fields& q) = 0;
  virtual void get_state(Fields& q) = 0;
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
  // Seconds taken by `steps` steps of size dt (for dgmax bench). The default uses the host clock;
  // asynchronous backends time with device events.
  virtual double time_steps(int steps, double dt);

 protected:
  double kernel_seconds_ = 0;  // host-clock backends add to it (HostTimer)
};

inline double Backend::time_steps(int steps, double dt) {
  const auto t0 = Clock::now();
  for (int s = 0; s < steps; ++s) step(s * dt, dt);
  return seconds_since(t0);
}

}  // namespace dgmax
