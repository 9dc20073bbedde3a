// What the plan searches of the generated backends (cuda, cpu) share: the state every plan's
// right-hand side is checked on against ref, the comparison and its tolerance, and the part of a
// tuning key that names the physics.
#pragma once

#include <string>

#include "solver/physics/fields.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// Tolerance of the check against ref: the backend tests' (1e-12 relative in fp64, 1e-5 in fp32).
double plan_check_tolerance(bool single);

// A random state in [-1, 1], the same for every plan (never zeros: they hide unwritten outputs).
Fields plan_check_state(const Problem& p);

// max |a - ref| / max |ref| (infinite where a holds a NaN).
double max_relative_difference(const Fields& a, const Fields& ref);

// The flux, boundary states and compiled fields of `p` as 16 hex digits: what a plan's speed
// depends on besides the device, order, precision and size (codegen::TuningKey::physics).
std::string tuning_physics_key(const Problem& p, bool single);

}  // namespace dgmax
