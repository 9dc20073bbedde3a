// What every backend (ref, cpu, cuda) provides: the semi-discrete right-hand side and LSERK4 steps
// on a state it may keep in its own memory and layout.
#pragma once

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
};

}  // namespace dgmax
