#include "solver/backends/cuda/cuda_tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <functional>
#include <future>
#include <thread>

#include "codegen/emit/cuda_kernels.hpp"
#include "codegen/emit/curved_kernels.hpp"
#include "codegen/jit/jit_cache.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/util/clock.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

void precompile_cuda_plans(const Problem& p, bool single, const std::vector<codegen::CudaPlan>& plans) {
  codegen::KernelSpec spec = make_kernel_spec(p, single);
  // the backend's options, so that the winner's cubin is the one the run loads
  const codegen::NvrtcOptions opt = codegen::NvrtcOptions::for_kernels(cuda::Context::get().info().arch());
  std::vector<std::string> sources;
  for (const codegen::CudaPlan& plan : plans) {
    spec.plan.cuda = plan;
    sources.push_back(codegen::generate_cuda_source(spec));
  }
  // the longest compiles first, so that the last one to start is a short one: tensor-core plans
  // (their GEMM unrolled over 6 EPB / 8 column tiles), then by threads' unrolled elements
  std::vector<size_t> order(plans.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto weight = [&](size_t i) {
    const codegen::CudaPlan& c = plans[i];
    return c.mma ? 100 + c.elements_per_block : c.elements_per_thread;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight(a) > weight(b); });
  std::atomic<size_t> next{0};
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 16));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t n = next++; n < sources.size(); n = next++) {
        const size_t i = order[n];
        try {
          codegen::NvrtcOptions o = opt;
          o.arch = codegen::cuda_plan_arch(plans[i], opt.arch);
          codegen::nvrtc_compile(sources[i], "tune_" + plans[i].name(), o);
        } catch (const std::exception&) {
        }
      }
    });
  for (std::thread& t : pool) t.join();
}

namespace {

// Why the compiled plan should not be timed, or "". Local memory is not a reason: double-precision
// sin/cos keep a stack frame for their slow path, and the timing says what spills cost.
std::string kernel_rejection(const std::vector<CudaKernelReport>& kernels) {
  for (const CudaKernelReport& k : kernels) {
    if (k.threads > k.max_threads)
      return fmt::format("{} needs {} threads per block, its {} registers per thread allow {}", k.kernel, k.threads,
                         k.registers, k.max_threads);
    if (k.blocks_per_sm < 1) return fmt::format("{}: no block fits on a multiprocessor", k.kernel);
  }
  return "";
}


}  // namespace

CudaTuneResult tune_cuda_plans(const Problem& p, bool single, const std::function<void(const PlanTrial&)>& progress) {
  const auto t0 = Clock::now();
  CudaTuneResult out;
  const codegen::CudaBlockLimits limits = cuda_block_limits();
  const std::vector<codegen::PlanCandidate> candidates =
      codegen::enumerate_cuda_plans(p.N, single, limits, bool(p.current));
  std::vector<codegen::CudaPlan> runnable;
  for (const codegen::PlanCandidate& c : candidates)
    if (c.rejected.empty()) runnable.push_back(c.plan);
  // ref's right-hand side for the check, on the host while the plans compile and the GPU times them
  const Fields q = plan_check_state(p);
  std::future<Fields> ref_rhs = ref_rhs_async(p, q);
  precompile_cuda_plans(p, single, runnable);
  out.compile_seconds = seconds_since(t0);

  // time every plan that compiled into something that can run
  const auto t_timing = Clock::now();
  auto be = make_cuda_plan_backend(p, single, runnable.front());
  be->set_state(q);        // kept across plans (set_plan keeps the state)
  const double dt = 1e-6;  // timing only: a tiny step keeps the random state bounded
  {
    // the GPU up to its working clock before the first burst (kFirstWarmupSeconds says why)
    const double step = std::max(be->time_steps(1, dt), 1e-7);
    be->time_steps(std::clamp(static_cast<int>(codegen::kFirstWarmupSeconds / step), 1, 100000), dt);
  }
  double best_stage = 0;
  // loads the trial's plan and times it (trial.rejected says why not)
  auto time_trial = [&](PlanTrial& trial) {
    if (trial.rejected.empty()) {
      be->set_plan(trial.plan);
      trial.kernels = be->kernel_reports();
      trial.rejected = kernel_rejection(trial.kernels);
    }
    if (!trial.rejected.empty()) return;
    // the first step after loading the module also tells how many to time
    const double probe = be->time_steps(1, dt) / 5.0;
    if (best_stage > 0 && probe > 2 * best_stage) {
      trial.stage_seconds = probe;  // twice as slow as the best so far: one step says enough
      trial.timed_once = true;
    } else {
      const int steps = std::clamp(static_cast<int>(0.004 / std::max(probe, 1e-8)), 1, 200);
      double t[3];
      for (double& s : t) s = be->time_steps(steps, dt) / (5.0 * steps);
      std::sort(t, t + 3);
      trial.stage_seconds = t[1];  // the median
      best_stage = best_stage > 0 ? std::min(best_stage, t[1]) : t[1];
    }
  };
  for (const codegen::PlanCandidate& c : candidates) {
    PlanTrial trial;
    trial.plan = c.plan;
    trial.rejected = c.rejected;
    time_trial(trial);
    out.trials.push_back(trial);
    if (progress) progress(out.trials.back());
  }
  out.timing_seconds = seconds_since(t_timing);

  // the fastest plan that agrees with ref wins: check in order of time until one passes
  const auto t_check = Clock::now();
  std::vector<int> order;
  for (size_t i = 0; i < out.trials.size(); ++i)
    if (out.trials[i].rejected.empty()) order.push_back(static_cast<int>(i));
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return out.trials[a].stage_seconds < out.trials[b].stage_seconds; });
  const Fields r_ref = ref_rhs.get();
  // the plan's right-hand side against ref's; refused with its difference when it does not agree
  auto passes_check = [&](PlanTrial& trial) {
    be->set_plan(trial.plan);
    Fields r;
    be->rhs(q, kPlanCheckTime, r);
    trial.rhs_difference = max_relative_difference(r, r_ref);
    trial.checked = true;
    if (trial.rhs_difference <= plan_check_tolerance(single)) return true;
    trial.rejected = fmt::format("right-hand side differs from ref by {:.2e} (tolerance {:.0e})",
                                 trial.rhs_difference, plan_check_tolerance(single));
    if (progress) progress(trial);
    return false;
  };
  out.best = -1;
  for (int i : order)
    if (passes_check(out.trials[i])) {
      out.best = i;
      break;
    }
  DGMAX_ASSERT(out.best >= 0, "no cuda plan for N = " + std::to_string(p.N) + " passed the check against ref (" +
                                  (order.empty() ? out.trials[0].rejected : out.trials[order[0]].rejected) + ")");
  out.check_seconds = seconds_since(t_check);
  out.burst_best = out.best;

  // the finalists, timed again under sustained load: each warmed up to its own steady power state
  // (the board averages its power over a few hundred ms), then timed over a second
  const auto t_sustained = Clock::now();
  const double burst = out.trials[out.best].stage_seconds;
  // the finals are decided on before any finalist is checked: each may cost a check (as long as
  // the check phase's were on average) besides its warm-up and measured second
  int checked = 0;
  for (const PlanTrial& t : out.trials) checked += t.checked;
  std::vector<int> finalists;
  if (codegen::finals_fit_budget(seconds_since(t0), out.check_seconds / std::max(1, checked)))
    for (int i : order) {
      PlanTrial& trial = out.trials[i];
      if (static_cast<int>(finalists.size()) == codegen::kFinalists || trial.stage_seconds > codegen::kFinalistMargin * burst) break;
      if (!trial.rejected.empty() || trial.timed_once) continue;
      if (trial.checked || passes_check(trial)) finalists.push_back(i);
    }
  // a winner alone within the margin keeps its place without the wait; so does the burst winner
  // when the finals would take the search past its budget (the longest searches, N = 7, 8)
  if (finalists.size() > 1) {
    for (int i : finalists) {
      PlanTrial& trial = out.trials[i];
      be->set_plan(trial.plan);
      auto steps_for = [&](double seconds) { return std::max(1, static_cast<int>(seconds / (5 * trial.stage_seconds))); };
      be->time_steps(steps_for(codegen::kFinalWarmupSeconds), dt);
      const int steps = steps_for(codegen::kFinalMeasuredSeconds);
      trial.sustained_seconds = be->time_steps(steps, dt) / (5.0 * steps);
    }
    // the burst winner (the first finalist) keeps its place unless one is clearly faster sustained
    std::vector<double> sustained;
    for (int i : finalists) sustained.push_back(out.trials[i].sustained_seconds);
    out.best = finalists[codegen::sustained_winner(sustained)];
  }
  out.sustained_seconds = seconds_since(t_sustained);

  // the curved group's elements per block (plan suffix Q) under the winner's plan: each that fits
  // in shared memory, timed and checked as above, the fastest checked one wins. The straight-sided
  // kernels do not depend on Q, so Q is searched apart, after the finals.
  if (p.curved && !p.curved->empty()) {
    const auto t_curved = Clock::now();
    codegen::KernelSpec spec = make_kernel_spec(p, single);
    const codegen::CudaPlan winner = out.trials[out.best].plan;
    std::vector<int> by_time;
    for (const int e : codegen::kCurvedBatches) {
      PlanTrial trial;
      trial.plan = winner;
      trial.plan.curved_batch = e;
      spec.plan.cuda = trial.plan;
      trial.rejected = codegen::curved_cuda_refusal(spec, limits.max_dynamic_shared);
      time_trial(trial);
      out.trials.push_back(trial);
      if (progress) progress(out.trials.back());
      if (out.trials.back().rejected.empty()) by_time.push_back(static_cast<int>(out.trials.size()) - 1);
    }
    std::sort(by_time.begin(), by_time.end(),
              [&](int a, int b) { return out.trials[a].stage_seconds < out.trials[b].stage_seconds; });
    for (int i : by_time)
      if (passes_check(out.trials[i])) {
        out.best = i;
        break;
      }
    out.curved_seconds = seconds_since(t_curved);
  }
  out.seconds = seconds_since(t0);
  return out;
}

codegen::TuningKey cuda_tuning_key(const Problem& p, bool single) {
  const cuda::DeviceInfo& dev = cuda::Context::get().info();
  return tuning_key(p, single, fmt::format("{} {} driver {}", dev.name, dev.arch(), dev.driver_version));
}

codegen::CudaPlan cuda_plan_for(const Problem& p, bool single, std::string* source) {
  if (const char* forced = std::getenv("DGMAX_CUDA_PLAN"); forced && *forced) {  // debugging
    const std::optional<codegen::CudaPlan> plan = codegen::CudaPlan::parse(forced);
    if (!plan)
      throw UserError(std::string("DGMAX_CUDA_PLAN='") + forced + "' is no plan name", {},
                      "write fF.bB.tT[.T][.S][.V][.Rn] (Rn: at most n registers per thread) or "
                      "f2.bB.t1.M[.W][.H][.X][.E|.E2|.E3|.E4][.C][.A][.G], e.g. f2.b4.t1.T (dgmax tune lists the plans)");
    const std::string why = codegen::cuda_plan_rejection(
        *plan, p.N, single, cuda::driver_available() ? cuda_block_limits() : codegen::CudaBlockLimits{}, bool(p.current));
    if (!why.empty()) throw UserError(std::string("DGMAX_CUDA_PLAN='") + forced + "' cannot run: " + why);
    if (source) *source = "DGMAX_CUDA_PLAN";
    return *plan;
  }
  if (source) *source = "default";
  // no GPU: the backend, made next, says so in its own words
  if (!cuda::driver_available()) return codegen::default_cuda_plan(p.N, single, 90, bool(p.current));
  const codegen::CudaBlockLimits limits = cuda_block_limits();
  const codegen::CudaPlan fallback = codegen::default_cuda_plan(p.N, single, limits.arch, bool(p.current));
  const std::string root = codegen::NvrtcOptions::default_cache_dir();
  if (root.empty()) return fallback;
  const codegen::TuningDb db(root, "cuda");
  const std::optional<codegen::TunedPlan> t = db.find(cuda_tuning_key(p, single));
  if (!t) return fallback;
  const std::optional<codegen::CudaPlan> plan = codegen::CudaPlan::parse(t->plan);
  if (!plan || !codegen::cuda_plan_rejection(*plan, p.N, single, limits, bool(p.current)).empty()) {
    codegen::cache_note("tuning database '" + db.path() + "' names the plan '" + t->plan + "', which cannot run: " +
                        "using the default plan");
    return fallback;
  }
  if (source) *source = "tuned";
  return *plan;
}

}  // namespace dgmax
