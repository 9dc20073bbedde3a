#include "solver/app/cmd_tune_cpu.hpp"

#include <fmt/format.h>

#include <iostream>

#include "codegen/jit/host_jit.hpp"
#include "codegen/tune/tuning_db.hpp"
#include "solver/app/perf_model.hpp"
#include "solver/backends/cpu/cpu_tuner.hpp"

namespace dgmax {

nlohmann::json tune_cpu_one(const Problem& p, bool single, const Ceilings& ceil, bool dry_run, const std::string& date) {
  const int w = single ? 4 : 8;
  const long long K = p.K();
  const double floor = stage_floor_seconds(p.N, w, K, ceil.flops, ceil.bandwidth);
  auto gdof = [&](double stage) { return stage > 0 ? 6.0 * p.Np() * K / stage / 1e9 : 0.0; };
  std::cout << fmt::format("\nN = {}, {}, K = {}: {} plans\n", p.N, single ? "fp32" : "fp64", K,
                           codegen::enumerate_cpu_plans(p.N, single, codegen::host_simd_bits()).size())
            << fmt::format("  {:<28} {:>10} {:>8} {:>8} {:>8}  {}\n", "plan", "stage [ms]", "GDOF/s", "% floor",
                           "vs dflt", "rhs vs ref, or why refused");
  double default_stage = 0;
  const CpuTuneResult r = tune_cpu_plans(p, single, [&](const CpuPlanTrial& t) {
    if (!t.rejected.empty()) {
      std::cout << fmt::format("  {:<28} {:>10} {:>8} {:>8} {:>8}  refused: {}\n", t.plan.name(), "-", "-", "-", "-",
                               t.rejected);
    } else {
      if (default_stage == 0) default_stage = t.stage_seconds;
      std::cout << fmt::format("  {:<28} {:>10.4f} {:>8.3f} {:>7.1f}% {:>7.2f}x  {:.1e}\n", t.plan.name(),
                               t.stage_seconds * 1e3, gdof(t.stage_seconds), 100 * floor / t.stage_seconds,
                               default_stage / t.stage_seconds, t.rhs_difference);
    }
    std::cout.flush();
  });
  const CpuPlanTrial& dflt = r.trials.front();
  const CpuPlanTrial& best = r.trials[r.best];
  if (r.fastest != 0) {
    const CpuPlanTrial& f = r.trials[r.fastest];
    std::cout << fmt::format("  final, {} alternated rounds (median GDOF/s): default {:.3f}, {} {:.3f} ({:.3f}x; it "
                             "must be {:.2f}x to replace the default)\n",
                             dflt.rounds.size(), gdof(dflt.final_seconds), f.plan.name(), gdof(f.final_seconds),
                             dflt.final_seconds / f.final_seconds, kCpuDisplaceMargin);
  }
  // the winner's speed: its final median where there was a final, else its timing
  const double best_stage = best.final_seconds > 0 ? best.final_seconds : best.stage_seconds;
  const double default_final = dflt.final_seconds > 0 ? dflt.final_seconds : dflt.stage_seconds;
  std::cout << fmt::format("  best: {} at {:.3f} GDOF/s ({:.1f}% of the floor), {:.2f}x the default plan {}; "
                           "right-hand side within {:.1e} of ref; search {:.1f} s (compile {:.1f}, time {:.1f}, "
                           "final {:.1f})\n",
                           best.plan.name(), gdof(best_stage), 100 * floor / best_stage, default_final / best_stage,
                           dflt.plan.name(), best.rhs_difference, r.seconds, r.compile_seconds, r.timing_seconds,
                           r.final_seconds);
  codegen::TunedPlan entry;
  entry.plan = best.plan.name();
  entry.gdof_per_s = gdof(best_stage);
  entry.default_gdof_per_s = gdof(default_final);
  entry.percent_of_floor = 100 * floor / best_stage;
  entry.elements = K;
  entry.when = date;
  if (!dry_run) {
    const codegen::TuningDb db(codegen::HostJitOptions::default_cache_dir(), "cpu");
    db.store(cpu_tuning_key(p, single), entry);
    std::cout << "  stored in " << db.path() << "\n";
  }
  nlohmann::json j = {{"N", p.N}, {"precision", single ? "single" : "double"}, {"K", K},
                      {"best", entry.plan}, {"gdof_per_s", entry.gdof_per_s},
                      {"default_gdof_per_s", entry.default_gdof_per_s}, {"percent_of_floor", entry.percent_of_floor},
                      {"fastest_first_timing", r.trials[r.fastest].plan.name()}, {"search_s", r.seconds},
                      {"plans", nlohmann::json::array()}};
  for (const CpuPlanTrial& t : r.trials)
    j["plans"].push_back({{"plan", t.plan.name()}, {"rejected", t.rejected}, {"stage_s", t.stage_seconds},
                          {"gdof_per_s", gdof(t.stage_seconds)}, {"final_rounds_s", t.rounds},
                          {"rhs_difference", t.rhs_difference}});
  return j;
}

}  // namespace dgmax
