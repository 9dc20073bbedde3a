// The cpu plan search: the plans of codegen::enumerate_cpu_plans for the problem's order and
// precision are compiled (in parallel, into the kernel cache), each run on the problem itself and
// checked against ref's right-hand side (the backend tests' tolerance), then timed once each. The
// fastest that passed and the default plan then run in alternated rounds (a shared host's speed
// moves from run to run by more than the plans differ, bench/NOTES.md); the median of the rounds
// decides, and the fastest must beat the default's median by kCpuDisplaceMargin to win.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/tune/cpu_plan.hpp"
#include "codegen/tune/tuning_db.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// Each plan's first timing: about this long (at least one step).
inline constexpr double kCpuTrialSeconds = 0.25;
// The final: this many rounds of the two finalists, each about kCpuTrialSeconds.
inline constexpr int kCpuFinalRounds = 5;
// The fastest plan replaces the default only when its median is faster by more than this factor.
inline constexpr double kCpuDisplaceMargin = 1.02;

struct CpuPlanTrial {
  codegen::CpuPlan plan;
  std::string rejected;           // why it cannot be used (its backend failed, or the check), or ""
  double stage_seconds = 0;       // its first timing
  double rhs_difference = 0;      // max |rhs - rhs_ref| / max |rhs_ref|
  std::vector<double> rounds;     // a finalist's stage times in the alternated rounds
  double final_seconds = 0;       // their median (finalists), else 0
};

struct CpuTuneResult {
  std::vector<CpuPlanTrial> trials;  // in enumeration order; trials[0] is the default plan
  int best = 0;                      // index into trials
  int fastest = 0;                   // the fastest checked plan of the first timings
  double seconds = 0;                // wall time of the search
  double compile_seconds = 0, timing_seconds = 0, final_seconds = 0;
};

// Searches the cpu plans for `p` (as it is: mesh, materials, flux, boundaries, compiled fields)
// with this process's OpenMP threads. `progress` (may be empty) gets each trial when it is timed.
CpuTuneResult tune_cpu_plans(const Problem& p, bool single, const std::function<void(const CpuPlanTrial&)>& progress = {});

// This host as the cpu tuning database names it: its processor, SIMD width and OpenMP threads.
std::string cpu_tuning_device();
// The tuning database key of `p` on this host (cpu_tuning_device).
codegen::TuningKey cpu_tuning_key(const Problem& p, bool single);

// The plan to run `p` with, fitted to its state: DGMAX_CPU_PLAN's (debugging), else the tuning
// database's entry when there is one that parses, else the default. *source (when given) says which:
// "DGMAX_CPU_PLAN", "tuned" or "default".
codegen::CpuPlan cpu_plan_for_problem(const Problem& p, bool single, std::string* source = nullptr);

}  // namespace dgmax
