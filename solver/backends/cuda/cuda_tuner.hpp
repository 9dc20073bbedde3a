// The cuda plan search: every plan of codegen::enumerate_cuda_plans for the problem's order and
// precision is compiled (in parallel, into the kernel cache), refused with a reason when it cannot
// run (more threads than its registers allow, no resident block), and timed with device events on
// the problem itself (median of 3; a plan whose first step is more than twice as slow as the best so
// far is timed by that step alone). Then the plans are checked against the ref backend's
// right-hand side in order of time: the fastest that agrees to the backend tests' tolerance (1e-12
// relative in fp64, 1e-5 in fp32) is the burst winner; a faster one that does not is refused with
// its difference. Then the finals under sustained load (codegen/tune/search_finals.hpp): the plans
// near the burst winner timed again at the board's power limit, where one may displace it. Last,
// on a problem with curved elements, the winner with each of codegen::kCurvedBatches curved
// elements per block (plan suffix Q; trials appended after the enumeration's), timed and checked
// the same way: the fastest that agrees wins.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/tune/cuda_plan.hpp"
#include "codegen/tune/search_finals.hpp"
#include "codegen/tune/tuning_db.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/plan_check.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

struct PlanTrial {
  codegen::CudaPlan plan;
  std::string rejected;         // why it was not timed (or did not pass the check), or ""
  double stage_seconds = 0;     // median of the timed repetitions (or one step, when timed_once)
  bool timed_once = false;      // its first step took more than twice the best stage so far
  bool checked = false;         // compared with ref (the winner and any faster plan)
  double rhs_difference = 0;    // max |rhs - rhs_ref| / max |rhs_ref|, when checked
  double sustained_seconds = 0; // a finalist's stage time over sustained load (after a warm-up), else 0
  std::vector<CudaKernelReport> kernels;
};

struct CudaTuneResult {
  std::vector<PlanTrial> trials;  // in enumeration order (trials[0]: the default plan), then the Q trials
  int best = 0;                   // index into trials: the finalist fastest under sustained load
  int burst_best = 0;             // the fastest checked plan in the bursts
  double seconds = 0;             // wall time of the search: compile, time, check
  double compile_seconds = 0, timing_seconds = 0, check_seconds = 0, sustained_seconds = 0;
  double curved_seconds = 0;      // the search of the curved group's elements per block (0: none curved)
};

// Compiles the kernels of `plans` for `p` on all cores into the kernel cache (NVRTC is thread-safe),
// so that making backends with them afterwards finds them there. Compile errors are left for the
// backend to report.
void precompile_cuda_plans(const Problem& p, bool single, const std::vector<codegen::CudaPlan>& plans);

// Searches the plan space for `p` (the problem is used as is: its mesh, materials, flux, boundaries
// and compiled fields). `progress` (may be empty) receives a line per plan as it is done.
CudaTuneResult tune_cuda_plans(const Problem& p, bool single, const std::function<void(const PlanTrial&)>& progress = {});

// The tuning database key of `p` on the current device.
codegen::TuningKey cuda_tuning_key(const Problem& p, bool single);

// The plan to run `p` with: the tuning database's entry when there is one (and it parses and can
// run), else default_cuda_plan. *source (when given) says which: "tuned" or "default".
codegen::CudaPlan cuda_plan_for(const Problem& p, bool single, std::string* source = nullptr);

}  // namespace dgmax
