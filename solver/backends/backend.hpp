// What every backend (ref, cpu, cuda) provides: the semi-discrete right-hand side and LSERK4 steps
// on a state it may keep in its own memory and layout.
#pragma once

#include <chrono>
#include <string>

#include "solver/physics/fields.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // dq/dt = rhs(q, t) for the state q: [K][6][Np].
  virtual void rhs(const Fields& q, double t, Fields& out) = 0;
  virtual void set_state(const Fields& q) = 0;
  virtual void get_state(Fields& q) = 0;
  // One LSERK4 step of size dt from time t on the backend's state.
  virtual void step(double t, double dt) = 0;
  // Seconds taken by `steps` steps of size dt (for dgmax bench). The default uses the host clock;
  // asynchronous backends time with device events.
  virtual double time_steps(int steps, double dt);
};

inline double Backend::time_steps(int steps, double dt) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) step(s * dt, dt);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace dgmax
