#include "solver/backends/cpu/cpu_tuner.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <exception>
#include <future>
#include <memory>

#include "codegen/jit/host_jit.hpp"
#include "codegen/jit/jit_cache.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/plan_check.hpp"
#include "solver/util/clock.hpp"
#include "solver/util/env.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

constexpr double kTimingDt = 1e-6;  // timing only: a tiny step keeps the random state bounded

// Seconds per stage of `be` over about `seconds` (at least one step; `step` is one step's time).
double time_stage(Backend& be, double step, double seconds) {
  const int steps = std::clamp(static_cast<int>(seconds / std::max(step, 1e-9)), 1, 100000);
  return be.time_steps(steps, kTimingDt) / (5.0 * steps);
}

// Why a plan was refused, for its line in the table: a compile failure's message less its log and
// source excerpt (the log's path stays in it).
std::string refusal(const std::exception& e) {
  const std::string what = e.what();
  return what.substr(0, what.find("\n---"));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

CpuTuneResult tune_cpu_plans(const Problem& p, bool single, const std::function<void(const CpuPlanTrial&)>& progress) {
  const auto t0 = Clock::now();
  CpuTuneResult out;
  std::vector<codegen::CpuPlan> plans = codegen::enumerate_cpu_plans(p.N, single, codegen::host_simd_bits());
  for (codegen::CpuPlan& plan : plans) plan = codegen::cpu_plan_fitting_state(plan, p.state_entries());
  const Fields q = plan_check_state(p);
  std::future<Fields> ref_rhs = ref_rhs_async(p, q);
  precompile_cpu_plans(p, single, plans);
  const Fields r_ref = ref_rhs.get();
  out.compile_seconds = seconds_since(t0);

  // each plan: the check, one timing. One backend at a time (each holds the state), and where a
  // plan lays the data out as the one before, the same backend with that plan's kernels swapped in:
  // making a backend's arrays costs more than timing it at high orders (at K = 384,000, N = 6,
  // seconds of first touch per plan).
  const auto t_timing = Clock::now();
  std::unique_ptr<Backend> be;
  Fields r;  // each plan's right-hand side, into the same memory
  for (const codegen::CpuPlan& plan : plans) {
    CpuPlanTrial trial;
    trial.plan = plan;
    try {
      if (!be || !adopt_cpu_plan(*be, plan)) {
        be.reset();  // its arrays freed before the next backend's are made
        be = make_cpu_backend_with_plan(p, single, plan);
      }
      be->rhs(q, kPlanCheckTime, r);
      trial.rhs_difference = max_relative_difference(r, r_ref);
      if (trial.rhs_difference > plan_check_tolerance(single)) {
        trial.rejected = fmt::format("right-hand side differs from ref by {:.2e} (tolerance {:.0e})",
                                     trial.rhs_difference, plan_check_tolerance(single));
      } else {
        be->set_state(q);
        // a warm-up step (caches); where one step takes the whole trial's time it is the timing
        // (this first reading only picks the finalist; the final's rounds decide)
        const double step = be->time_steps(1, kTimingDt);
        trial.stage_seconds = step >= kCpuTrialSeconds ? step / 5.0 : time_stage(*be, step, kCpuTrialSeconds);
      }
    } catch (const std::exception& e) {
      trial.rejected = refusal(e);
    }
    out.trials.push_back(trial);
    if (progress) progress(out.trials.back());
  }
  out.timing_seconds = seconds_since(t_timing);
  DGMAX_ASSERT(out.trials.front().rejected.empty(),
               "the default cpu plan " + out.trials.front().plan.name() + " failed: " + out.trials.front().rejected);

  out.fastest = 0;
  for (size_t i = 1; i < out.trials.size(); ++i)
    if (out.trials[i].rejected.empty() && out.trials[i].stage_seconds < out.trials[out.fastest].stage_seconds)
      out.fastest = static_cast<int>(i);
  out.best = 0;
  const auto t_final = Clock::now();
  if (out.fastest != 0) {
    // the final: the default and the fastest alternated round by round, both backends held
    // (where the two lay the data out alike, one backend whose kernels are swapped each round: both
    // plans then run over the same memory)
    CpuPlanTrial& d = out.trials.front();
    CpuPlanTrial& f = out.trials[out.fastest];
    const bool swap = d.plan.same_data_layout(f.plan) && be && adopt_cpu_plan(*be, d.plan);
    std::unique_ptr<Backend> bd, bf;
    if (swap) {
      be->set_state(q);
    } else {
      be.reset();
      bd = make_cpu_backend_with_plan(p, single, d.plan);
      bf = make_cpu_backend_with_plan(p, single, f.plan);
      bd->set_state(q);
      bf->set_state(q);
    }
    auto backend_of = [&](const CpuPlanTrial& t) -> Backend& {
      if (!swap) return &t == &d ? *bd : *bf;
      adopt_cpu_plan(*be, t.plan);  // true: the same layout as the one it has
      return *be;
    };
    for (int round = 0; round < kCpuFinalRounds; ++round) {
      d.rounds.push_back(time_stage(backend_of(d), 5 * d.stage_seconds, kCpuTrialSeconds));
      f.rounds.push_back(time_stage(backend_of(f), 5 * f.stage_seconds, kCpuTrialSeconds));
    }
    d.final_seconds = median(d.rounds);
    f.final_seconds = median(f.rounds);
    if (d.final_seconds > kCpuDisplaceMargin * f.final_seconds) out.best = out.fastest;
  }
  out.final_seconds = seconds_since(t_final);
  out.seconds = seconds_since(t0);
  return out;
}

std::string cpu_tuning_device() {
  return fmt::format("{} {}-bit SIMD {} threads", codegen::host_cpu_model(), codegen::host_simd_bits(),
                     omp_get_max_threads());
}

codegen::TuningKey cpu_tuning_key(const Problem& p, bool single) { return tuning_key(p, single, cpu_tuning_device()); }

codegen::CpuPlan cpu_plan_for_problem(const Problem& p, bool single, std::string* source) {
  const bool forced = !env("DGMAX_CPU_PLAN").empty();
  codegen::CpuPlan plan = codegen::cpu_plan_for(p.N, single, p.state_entries());  // default or forced
  if (source) *source = forced ? "DGMAX_CPU_PLAN" : "default";
  if (forced) return plan;
  const std::string root = codegen::HostJitOptions::default_cache_dir();
  if (root.empty()) return plan;
  const codegen::TuningDb db(root, "cpu");
  const std::optional<codegen::TunedPlan> t = db.find(cpu_tuning_key(p, single));
  if (!t) return plan;
  const std::optional<codegen::CpuPlan> tuned = codegen::CpuPlan::parse(t->plan);
  if (!tuned) {
    codegen::cache_note("tuning database '" + db.path() + "' names the cpu plan '" + t->plan +
                        "', which does not parse: using the default plan");
    return plan;
  }
  if (source) *source = "tuned";
  return codegen::cpu_plan_fitting_state(*tuned, p.state_entries());
}

}  // namespace dgmax
