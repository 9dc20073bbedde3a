#include "solver/app/cmd_tune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "codegen/jit/nvrtc_jit.hpp"
#include "codegen/tune/tuning_db.hpp"
#include "solver/app/bench_problem.hpp"
#include "solver/app/cmd_tune_cpu.hpp"
#include "solver/app/host_ceilings.hpp"
#include "solver/app/perf_model.hpp"
#include "solver/backends/cpu/cpu_tuner.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/cuda/cuda_tuner.hpp"
#include "solver/backends/cuda/device_ceilings.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/io/mesh_spec.hpp"
#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"
#include "solver/mesh/memory_estimate.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

struct TuneOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string orders = "4";
  std::string precision = "double";
  long long elements = 384000;
  std::string json;
  std::string backend = "cuda";
  bool dry_run = false;  // --no-store: search and print, keep nothing
  bool orders_given = false, elements_given = false;  // --order / --elements on the command line
};

std::string today() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

std::string kernels_text(const PlanTrial& t) {
  std::string s;
  for (const CudaKernelReport& k : t.kernels)
    s += fmt::format("{}{}r/{}b{}", s.empty() ? "" : " ", k.registers, k.blocks_per_sm,
                     k.local_bytes > 0 ? fmt::format("/{}B local", k.local_bytes) : "");
  return s;
}

// Searches one (problem, precision), prints the table, stores the winner; returns its json.
nlohmann::json tune_one(const Problem& p, bool single, const cuda::DeviceCeilings& ceil, const TuneOptions& opt) {
  const int w = single ? 4 : 8;
  const long long K = p.K();
  const double floor = stage_floor_seconds(p.N, w, K, ceil.flops, ceil.bandwidth);
  auto gdof = [&](double stage) { return stage > 0 ? 6.0 * p.Np() * K / stage / 1e9 : 0.0; };
  std::cout << fmt::format("\nN = {}, {}, K = {}: {} plans\n", p.N, single ? "fp32" : "fp64", K,
                           codegen::enumerate_cuda_plans(p.N, single, {}, bool(p.current)).size())
            << fmt::format("  {:<16} {:>10} {:>8} {:>8} {:>8}  {}\n", "plan", "stage [ms]", "GDOF/s", "% floor",
                           "vs dflt", "registers/blocks per SM, or why refused");
  double default_stage = 0;
  const CudaTuneResult r = tune_cuda_plans(p, single, [&](const PlanTrial& t) {
    if (default_stage == 0 && t.rejected.empty()) default_stage = t.stage_seconds;
    if (t.checked)  // a timed plan that failed the check against ref
      std::cout << fmt::format("  {:<16} {:>10.4f} {:>8} {:>8} {:>8}  refused after timing: {}\n", t.plan.name(),
                               t.stage_seconds * 1e3, "-", "-", "-", t.rejected);
    else if (!t.rejected.empty())
      std::cout << fmt::format("  {:<16} {:>10} {:>8} {:>8} {:>8}  refused: {}\n", t.plan.name(), "-", "-", "-", "-",
                               t.rejected);
    else
      std::cout << fmt::format("  {:<16} {:>10.4f} {:>8.2f} {:>7.1f}% {:>7.2f}x  {}{}\n", t.plan.name(),
                               t.stage_seconds * 1e3, gdof(t.stage_seconds), 100 * floor / t.stage_seconds,
                               default_stage / t.stage_seconds, kernels_text(t), t.timed_once ? " (one step)" : "");
    std::cout.flush();
  });
  const PlanTrial& best = r.trials[r.best];
  const PlanTrial& dflt = r.trials.front();
  std::string finals;
  for (const PlanTrial& t : r.trials)
    if (t.sustained_seconds > 0)
      finals += fmt::format("{}{} {:.2f}", finals.empty() ? "" : ", ", t.plan.name(), gdof(t.sustained_seconds));
  if (!finals.empty()) {
    std::cout << fmt::format("  under sustained load (GDOF/s, the finalists within {:.0f}% of the fastest burst): {}\n",
                             100 * (codegen::kFinalistMargin - 1), finals);
    const PlanTrial& burst = r.trials[r.burst_best];
    std::cout << "  " << codegen::finals_verdict(burst.plan.name(), burst.sustained_seconds, best.plan.name(),
                                                 best.sustained_seconds) << "\n";
  }
  std::cout << fmt::format("  best: {} at {:.2f} GDOF/s ({:.1f}% of the floor), {:.2f}x the default plan {}; "
                           "right-hand side within {:.1e} of ref; search {:.1f} s (compile {:.1f}, time {:.1f}, "
                           "check {:.1f}, sustained {:.1f}{})\n",
                           best.plan.name(), gdof(best.stage_seconds), 100 * floor / best.stage_seconds,
                           dflt.stage_seconds > 0 ? dflt.stage_seconds / best.stage_seconds : 0.0, dflt.plan.name(),
                           best.rhs_difference, r.seconds, r.compile_seconds, r.timing_seconds, r.check_seconds,
                           r.sustained_seconds,
                           r.curved_seconds > 0 ? fmt::format(", curved elements per block {:.1f}", r.curved_seconds) : "");
  codegen::TunedPlan entry;
  entry.plan = best.plan.name();
  entry.gdof_per_s = gdof(best.stage_seconds);
  entry.default_gdof_per_s = gdof(dflt.stage_seconds);
  entry.percent_of_floor = 100 * floor / best.stage_seconds;
  entry.elements = K;
  entry.when = today();
  if (!opt.dry_run) {
    const codegen::TuningDb db(codegen::NvrtcOptions::default_cache_dir(), "cuda");
    db.store(cuda_tuning_key(p, single), entry);
    std::cout << "  stored in " << db.path() << "\n";
  }
  nlohmann::json j = {{"N", p.N}, {"precision", single ? "single" : "double"}, {"K", K},
                      {"best", entry.plan}, {"gdof_per_s", entry.gdof_per_s},
                      {"default_gdof_per_s", entry.default_gdof_per_s}, {"percent_of_floor", entry.percent_of_floor},
                      {"burst_best", r.trials[r.burst_best].plan.name()}, {"search_s", r.seconds},
                      {"plans", nlohmann::json::array()}};
  for (const PlanTrial& t : r.trials)
    j["plans"].push_back({{"plan", t.plan.name()}, {"rejected", t.rejected}, {"stage_s", t.stage_seconds},
                          {"gdof_per_s", gdof(t.stage_seconds)}, {"sustained_gdof_per_s", gdof(t.sustained_seconds)},
                          {"checked", t.checked},
                          {"rhs_difference", t.rhs_difference}});
  return j;
}

void run_tune(const TuneOptions& opt) {
  // the arguments first: a typo is reported on any machine
  std::vector<bool> precisions;
  if (opt.precision == "double" || opt.precision == "both") precisions.push_back(false);
  if (opt.precision == "single" || opt.precision == "both") precisions.push_back(true);
  if (precisions.empty())
    throw UserError("--precision must be double, single or both, got '" + opt.precision + "'", {},
                    "write --precision double, --precision single or --precision both");
  if (opt.backend != "cuda" && opt.backend != "cpu")
    throw UserError("--backend must be cuda or cpu, got '" + opt.backend + "'", {},
                    "write --backend cuda (the GPU's kernel plans) or --backend cpu (the generated cpu backend's)");
  const bool cpu = opt.backend == "cpu";
  // options that do nothing in this form are refused, not ignored
  if (opt.config.empty() && !opt.sets.empty())
    throw UserError("--set changes a config, but no CONFIG is given", {},
                    "give the config first (dgmax tune CONFIG --set key=value), or drop --set to tune the periodic box");
  if (!opt.config.empty() && opt.elements_given)
    throw UserError("--elements sizes the periodic box, but CONFIG gives the mesh", {},
                    "drop --elements (the config's mesh is tuned), or drop CONFIG to tune a box of that size");
  // the orders: --order's (also with CONFIG: its problem at each order), else the config's
  const std::vector<int> orders = opt.config.empty() || opt.orders_given ? parse_orders(opt.orders) : std::vector<int>{};
  // a --json that is a device, link or directory is refused before the search, not after it
  if (!opt.json.empty()) require_replaceable_target(opt.json, "--json");
  std::string why;
  if (!cpu && !cuda::driver_available(&why))
    throw UserError("dgmax tune searches plans of the cuda backend, which needs an NVIDIA GPU: " + why, {},
                    "run it on the GPU machine, or search the cpu backend's plans with --backend cpu");
  // The problems, each made when its search starts and freed after it: a box's problems of several
  // orders held together were gigabytes at K = 384,000 (node coordinates and face maps per order).
  struct TuneProblem {
    int N;
    std::string what;  // what the tables call it
    std::function<std::shared_ptr<const Problem>()> make;
  };
  std::vector<TuneProblem> problems;
  long long K = 0;
  SourceLocation where;  // the config, or none for the box of --elements
  if (!opt.config.empty()) {
    YamlDoc doc = YamlDoc::load_file(opt.config);
    for (const auto& s : opt.sets) doc.apply_override(s);
    const RunConfig cfg = parse_run_config(doc);
    auto md = std::make_shared<const MeshData>(load_mesh(cfg.mesh));
    auto shared_cfg = std::make_shared<const RunConfig>(cfg);
    for (int N : orders.empty() ? std::vector<int>{cfg.order} : orders)
      problems.push_back({N, orders.empty() ? opt.config : fmt::format("{} at N = {}", opt.config, N), [md, shared_cfg, N] {
                            auto p = std::make_shared<Problem>(make_problem(md, N));
                            apply_physics(*shared_cfg, *p);
                            return std::shared_ptr<const Problem>(p);
                          }});
    K = md->mesh.num_elements();
    where = SourceLocation{cfg.path};
    if (opt.precision == "double" && doc.root()["discretization"] && doc.root()["discretization"]["precision"])
      precisions = {cfg.precision == Precision::Single};
  } else {
    auto md = bench_mesh(opt.elements);
    K = md->mesh.num_elements();
    for (int N : orders)
      problems.push_back({N, "periodic box", [md, N] { return std::make_shared<const Problem>(bench_problem(md, N)); }});
  }
  nlohmann::json out = {{"results", nlohmann::json::array()}};
  if (cpu) {
    // the cpu search holds the fields on the host: refused up front for the highest order, not
    // killed halfway (its peak measured at 1.01x a cpu run's estimate, bench/NOTES.md)
    int top = 0;
    for (const TuneProblem& t : problems) top = std::max(top, t.N);
    require_host_memory(static_cast<double>(K), kCpuSearchBytesFactor * run_host_bytes_per_element(top),
                        fmt::format("a cpu plan search of order {}", top), where,
                        opt.config.empty() ? "fewer --elements or a lower --order" : "coarsen the mesh or lower the order");
    const std::string host = cpu_tuning_device();
    std::cout << "dgmax tune (cpu backend): " << host << "\n";
    out["device"] = host;
    for (bool single : precisions) {
      const Ceilings ceil = measure_host_ceilings(single);
      std::cout << fmt::format("host ceilings ({}): memory bandwidth {:.1f} GB/s, FMA rate {:.1f} GFLOP/s\n",
                               single ? "fp32" : "fp64", ceil.bandwidth / 1e9, ceil.flops / 1e9);
      for (const TuneProblem& t : problems) {
        nlohmann::json j = tune_cpu_one(*t.make(), single, ceil, opt.dry_run, today());
        j["problem"] = t.what;
        out["results"].push_back(j);
      }
      // again after the searches: on a shared host the ceilings move, and the % of the floor with them
      const Ceilings after = measure_host_ceilings(single);
      std::cout << ceilings_again_line(ceil, after, fmt::format("({}) after the searches", single ? "fp32" : "fp64"))
                << "\n";
      out["host_ceilings"].push_back({{"precision", single ? "single" : "double"},
                                      {"bandwidth_Bps", ceil.bandwidth}, {"flops", ceil.flops},
                                      {"after", {{"bandwidth_Bps", after.bandwidth}, {"flops", after.flops}}},
                                      {"moved", ceilings_moved(ceil, after)}});
    }
  } else {
    const cuda::DeviceInfo& dev = cuda::Context::get().info();
    std::cout << "dgmax tune: " << dev.summary() << "\n";
    out["device"] = dev.name;
    for (bool single : precisions) {
      const cuda::DeviceCeilings ceil = cuda::measure_device_ceilings(single);
      std::cout << fmt::format("device ceilings ({}): copy bandwidth {:.1f} GB/s, FMA rate {:.1f} GFLOP/s\n",
                               single ? "fp32" : "fp64", ceil.bandwidth / 1e9, ceil.flops / 1e9);
      for (const TuneProblem& t : problems) {
        nlohmann::json j = tune_one(*t.make(), single, ceil, opt);
        j["problem"] = t.what;
        out["results"].push_back(j);
      }
    }
  }
  if (!opt.json.empty()) {
    write_text_atomically(opt.json, out.dump(2) + "\n");
    std::cout << "\nwrote " << opt.json << "\n";
  }
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto opt = std::make_shared<TuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Search the kernel plans (cuda, or cpu with --backend cpu) for a config's problem (or a periodic box) "
              "and keep the fastest");
  cmd->add_option("config", opt->config, "YAML config file (default: a periodic box per --order)");
  cmd->add_option("--set,-s", opt->sets, "override a config value: key.path=value (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  CLI::Option* orders = cmd->add_option("--order,-N", opt->orders,
                                        "order(s), N, N1,N2 or N1..N2 (with CONFIG: instead of the config's order)")
                           ->capture_default_str();
  cmd->add_option("--precision", opt->precision, "double | single | both")->capture_default_str();
  CLI::Option* elements =
      cmd->add_option("--elements,-K", opt->elements, "without CONFIG: about this many elements")->capture_default_str();
  cmd->add_option("--json", opt->json, "also write every plan's result here");
  cmd->add_option("--backend", opt->backend, "cuda | cpu: whose plans to search")->capture_default_str();
  cmd->add_flag("--no-store", opt->dry_run, "search and print only; leave the tuning database alone");
  cmd->callback([opt, orders, elements]() {
    opt->orders_given = orders->count() > 0;
    opt->elements_given = elements->count() > 0;
    run_tune(*opt);
  });
}

}  // namespace dgmax
