// What the plan searches of the generated backends (cuda, cpu) share: the state every plan's
// right-hand side is checked on against ref, the comparison and its tolerance, and the part of a
// tuning key that names the physics.
#pragma once

#include <future>
#include <string>

#include "codegen/tune/tuning_db.hpp"
#include "solver/physics/fields.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// Tolerance of the check against ref: the backend tests' (1e-12 relative in fp64, 1e-5 in fp32).
double plan_check_tolerance(bool single);

// A random state in [-1, 1], the same for every plan (never zeros: they hide unwritten outputs).
Fields plan_check_state(const Problem& p);

// The time the checked right-hand sides are taken at (incident fields and J depend on it).
inline constexpr double kPlanCheckTime = 0.37;

// ref's right-hand side of `q` at kPlanCheckTime, computed on another thread while a search
// compiles and times its plans (at N = 8 and K = 384,000 it takes longer than the timing). `p` and
// `q` must outlive the future.
std::future<Fields> ref_rhs_async(const Problem& p, const Fields& q);

// max |a - ref| / max |ref| (infinite where a holds a NaN).
double max_relative_difference(const Fields& a, const Fields& ref);

// The flux, boundary states and compiled fields of `p` as 16 hex digits: what a plan's speed
// depends on besides the device, order, precision and size (codegen::TuningKey::physics).
std::string tuning_physics_key(const Problem& p, bool single);

// The tuning database key of `p` in `single` or double precision on `device` (its description).
codegen::TuningKey tuning_key(const Problem& p, bool single, const std::string& device);

}  // namespace dgmax
