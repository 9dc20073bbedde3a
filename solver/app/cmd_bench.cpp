#include "solver/app/cmd_bench.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include <sys/resource.h>

#include "solver/app/bench_problem.hpp"
#include "solver/app/host_ceilings.hpp"
#include "solver/app/perf_model.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/cpu/cpu_tuner.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_tuner.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/cuda/device_ceilings.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/element_order.hpp"
#include "solver/mesh/memory_estimate.hpp"
#include "codegen/jit/host_jit.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "solver/physics/space_time_field.hpp"
#include "solver/util/clock.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

double compile_seconds() { return codegen::jit_stats().compile_seconds + codegen::nvrtc_stats().compile_seconds; }
// Peak resident memory of the process so far, bytes.
double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

struct BenchOptions {
  std::string orders = "4";
  std::string precision = "double";
  long long elements = 20000;
  std::string backends = "ref,cpu";
  long long steps = 0;  // 0 (not given): enough for about 1 s per backend
  std::string json = "bench.json";
  std::string numbering = "hilbert";  // as mesh.numbering: hilbert | input (the box's own numbering)
  bool steps_given = false;
  bool curved = false;  // every element curved, geometry order N (min 2)
  std::string curved_batch = "0";  // cuda: curved elements per block, a list (0: the plan's choice)
};

// "0" or "1,2,4": the values of --curved-batch, each one digit from 0 to 8.
std::vector<int> parse_curved_batches(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s + ",");  // the comma makes a trailing empty item visible to getline
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.size() != 1 || item[0] < '0' || item[0] > '8')
      throw UserError("--curved-batch: '" + item + "' is not a number of elements from 0 to 8", {},
                      "e.g. --curved-batch 1,2,4 (0: the plan's own choice)");
    out.push_back(item[0] - '0');
  }
  return out;
}

constexpr long long kMaxBenchSteps = 1000000;

std::vector<std::string> parse_backends(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item != "ref" && item != "cpu" && item != "cuda")
      throw UserError("unknown backend '" + item + "' in --backends", {}, "use ref, cpu, cuda");
    out.push_back(item);
  }
  if (out.empty()) throw UserError("--backends is empty", {}, "e.g. --backends ref,cpu");
  return out;
}


void run_bench(const BenchOptions& opt) {
  const std::vector<int> orders = parse_orders(opt.orders);
  const std::vector<std::string> backends = parse_backends(opt.backends);
  const std::vector<int> curved_batches = parse_curved_batches(opt.curved_batch);
  if (opt.precision != "double" && opt.precision != "single")
    throw UserError("--precision must be double or single, got '" + opt.precision + "'", {},
                    "write --precision double or --precision single");
  const bool single = opt.precision == "single";
  // a --json that is a device, link or directory is refused before the runs, not after them
  if (!opt.json.empty()) require_replaceable_target(opt.json, "--json");
  if (opt.steps_given && (opt.steps < 1 || opt.steps > kMaxBenchSteps))
    throw UserError("--steps must be between 1 and " + std::to_string(kMaxBenchSteps) + ", got " +
                        std::to_string(opt.steps),
                    {}, "leave --steps out to time about 1 s per backend");
  ElementOrder element_order = ElementOrder::Hilbert;
  if (!parse_element_order(opt.numbering, element_order))
    throw UserError("--numbering must be hilbert or input, got '" + opt.numbering + "'", {},
                    "hilbert (the default of runs: elements along a space-filling curve) or input (the box's "
                    "lexicographic cells)");
  const auto t_mesh = Clock::now();
  const auto md = bench_mesh(opt.elements, element_order);
  const double mesh_s = seconds_since(t_mesh);
  const long long K = md->mesh.num_elements();
  const int n = static_cast<int>(std::lround(std::cbrt(K / 6.0)));

  const bool want_host = std::find(backends.begin(), backends.end(), "cuda") != backends.end() ? backends.size() > 1 : true;
  const bool want_gpu = std::find(backends.begin(), backends.end(), "cuda") != backends.end();
  if (want_gpu) {
    std::string why;
    if (!cuda::driver_available(&why)) throw UserError("--backends cuda needs an NVIDIA GPU: " + why, {}, "use --backends ref,cpu");
  }
  if (want_host) {
    // host backends hold their fields on the host, growing with Np: refused up front for the highest
    // order asked, not killed halfway through the orders (the box alone was checked as it was made)
    const int top = *std::max_element(orders.begin(), orders.end());
    require_host_memory(static_cast<double>(K), run_host_bytes_per_element(top),
                        fmt::format("a bench of order {} with host backends", top), {},
                        "fewer --elements, a lower --order, or --backends cuda");
  }
  if (opt.curved) {
    // the curved box's operators are made on the host for every backend (curved_host_bytes_per_element)
    const int top = *std::max_element(orders.begin(), orders.end());
    require_host_memory(static_cast<double>(K),
                        (want_host ? run_host_bytes_per_element(top) : kMinRunBytesPerElement) +
                            curved_host_bytes_per_element(top, std::max(2, top)),
                        fmt::format("a bench of order {} with every element curved", top), {},
                        "fewer --elements or a lower --order");
  }
  std::cout << fmt::format("dgmax bench: K = {} (periodic box {}^3 x 6, {} numbering{}), {} precision, {} OpenMP threads\n", K,
                           n, element_order_name(element_order),
                           opt.curved ? "; every element curved, geometry order max(2, N)" : "", opt.precision,
                           omp_get_max_threads());
  Ceilings host{0, 0};
  cuda::DeviceCeilings gpu{0, 0};
  if (want_host) {
    host = measure_host_ceilings(single);
    std::cout << fmt::format("host ceilings: memory bandwidth {:.1f} GB/s, FMA rate {:.1f} GFLOP/s\n", host.bandwidth / 1e9,
                             host.flops / 1e9);
  }
  if (want_gpu) {
    gpu = cuda::measure_device_ceilings(single);
    std::cout << fmt::format("{}\ndevice ceilings: copy bandwidth {:.1f} GB/s, FMA rate {:.1f} GFLOP/s\n",
                             cuda::Context::get().info().summary(), gpu.bandwidth / 1e9, gpu.flops / 1e9);
  }
  std::cout << "\n"
            << fmt::format("{:>3} {:>5} {:>7} {:>12} {:>9} {:>9} {:>9} {:>8} {:>10}\n", "N", "Np", "backend", "stage [ms]",
                           "GDOF/s", "GFLOP/s", "GB/s", "% floor", "speedup");

  nlohmann::json out;
  out["K"] = K;
  out["precision"] = opt.precision;
  out["threads"] = omp_get_max_threads();
  out["numbering"] = element_order_name(element_order);
  out["curved"] = opt.curved;
  out["ceilings"] = nlohmann::json::object();
  if (want_host) out["ceilings"]["host"] = {{"bandwidth_Bps", host.bandwidth}, {"flops", host.flops}};
  if (want_gpu)
    out["ceilings"]["device"] = {{"bandwidth_Bps", gpu.bandwidth}, {"flops", gpu.flops},
                                 {"name", cuda::Context::get().info().name}};
  out["results"] = nlohmann::json::array();
  out["setup"] = nlohmann::json::array();
  const int w = single ? 4 : 8;
  std::vector<std::string> setup_lines;
  // with --curved: the straight-sided box first, then the same box with every element curved
  std::vector<bool> geometries{false};
  if (opt.curved) geometries.push_back(true);
  std::map<std::pair<int, std::string>, double> straight_stage;  // (N, backend): the straight box's stage
  std::vector<std::pair<int, bool>> cases;  // (N, curved)
  for (const int N : orders)
    for (const bool curved : geometries) cases.emplace_back(N, curved);
  for (const auto& [N, curved] : cases) {
    const auto t_problem = Clock::now();
    const int q = curved ? std::max(2, N) : 1;
    Problem p = bench_problem(curved ? bench_mesh(opt.elements, element_order, q) : md, N);
    const double problem_s = seconds_since(t_problem);
    if (opt.curved)
      std::cout << (curved ? fmt::format("  every element curved, geometry order {}:\n", q) : "  straight-sided:\n");
    double ref_time = 0, cpu_time = 0;
    // the cuda rows of a curved box: one per --curved-batch value (0: the plan's own choice)
    std::vector<std::pair<std::string, int>> runs;
    for (const std::string& name : backends) {
      if (name == "cuda" && curved)
        for (const int e : curved_batches) runs.emplace_back(name, e);
      else
        runs.emplace_back(name, 0);
    }
    for (const auto& [name, batch] : runs) {
      if (name == "ref" && single) continue;  // the oracle is double only
      const auto t_backend = Clock::now();
      const double compile0 = compile_seconds();
      std::string plan;  // cuda, cpu: the kernel plan and where it came from
      std::unique_ptr<Backend> be;
      if (name == "ref") be = std::make_unique<RefBackend>(p);
      else if (name == "cpu") {
        std::string source;
        const codegen::CpuPlan cp = cpu_plan_for_problem(p, single, &source);
        plan = cp.name() + " (" + source + ")";
        be = make_cpu_backend_with_plan(p, single, cp);
      }
      else {
        std::string source;
        codegen::CudaPlan cp = cuda_plan_for(p, single, &source);
        if (batch > 0) cp.curved_batch = batch;
        plan = cp.name() + " (" + source + (batch > 0 ? ", Q from --curved-batch" : "") + ")";
        be = make_cuda_plan_backend(p, single, cp);
      }
      be->init_state();
      const double backend_s = seconds_since(t_backend), compile_s = compile_seconds() - compile0;
      setup_lines.push_back(fmt::format(
          "  N = {} {:>4}: {:.2f} s = mesh {:.2f} s + problem {:.2f} s + backend {:.2f} s (kernel compile {:.2f} s, "
          "data, upload, initial state)",
          N, name, mesh_s + problem_s + backend_s, mesh_s, problem_s, backend_s, compile_s));
      out["setup"].push_back({{"N", N}, {"backend", name}, {"mesh_s", mesh_s}, {"problem_s", problem_s},
                              {"backend_s", backend_s}, {"compile_s", compile_s}});
      be->time_steps(1, 1e-6);  // warm up: module load, first touch, caches
      int steps = static_cast<int>(opt.steps);
      if (!opt.steps_given) {
        const double probe = be->time_steps(1, 1e-6);
        steps = std::clamp(static_cast<int>(1.0 / std::max(1e-6, probe)), 3, 500);
      }
      const double stage = be->time_steps(steps, 1e-6) / (5.0 * steps);
      const StageCost c = stage_cost(N, w);
      const double gdof = 6.0 * p.Np() * K / stage / 1e9;
      const bool on_gpu = name == "cuda";
      const double floor = on_gpu ? stage_floor_seconds(N, w, K, gpu.flops, gpu.bandwidth)
                                  : stage_floor_seconds(N, w, K, host.flops, host.bandwidth);
      if (name == "ref") ref_time = stage;
      if (name == "cpu") cpu_time = stage;
      // cuda against cpu (the GPU/CPU ratio of this run), cpu against ref
      const double base = on_gpu ? cpu_time : (name == "cpu" ? ref_time : 0);
      const double vs_ref = base > 0 ? base / stage : 0;
      const std::string vs = vs_ref > 0 ? fmt::format("{:.1f}x {}", vs_ref, on_gpu ? "cpu" : "ref") : "-";
      std::cout << fmt::format("{:>3} {:>5} {:>7} {:>12.3f} {:>9.3f} {:>9.1f} {:>9.1f} {:>7.1f}% {:>10}\n", N, p.Np(), name,
                               stage * 1e3, gdof, c.flops * K / stage / 1e9, c.bytes * K / stage / 1e9,
                               100 * floor / stage, vs);
      // a curved row against the straight-sided box's row of the same N and backend
      double vs_straight = 0;
      if (!curved) straight_stage[{N, name}] = stage;
      else if (const auto it = straight_stage.find({N, name}); it != straight_stage.end()) vs_straight = stage / it->second;
      out["results"].push_back({{"N", N}, {"Np", p.Np()}, {"geometry_order", q}, {"stage_vs_straight", vs_straight},
                                {"curved_elements", p.curved ? p.curved->count() : 0}, {"curved_batch", batch}, {"backend", name}, {"stage_s", stage}, {"gdof_per_s", gdof},
                                {"gflop_per_s", c.flops * K / stage / 1e9}, {"gb_per_s", c.bytes * K / stage / 1e9},
                                {"floor_s", floor}, {"percent_of_floor", 100 * floor / stage}, {"steps", steps},
                                {"speedup", vs_ref}, {"speedup_against", on_gpu ? "cpu" : "ref"}, {"plan", plan}});
      if (!plan.empty()) std::cout << fmt::format("{:>17} plan {}\n", "", plan);
      if (vs_straight > 0)
        std::cout << fmt::format("{:>17} {:.1f}x the straight-sided box's stage: a curved element costs as many straight ones\n",
                                 "", vs_straight);
    }
  }
  if (want_host) {
    // the ceilings again after the runs: on a shared host they move, and the host rows' % of the
    // floor with them; the rows keep the first reading, and the user is told when they moved
    const Ceilings after = measure_host_ceilings(single);
    const double moved = ceilings_moved(host, after);
    std::cout << "\n" << ceilings_again_line(host, after, "after the runs") << "\n";
    out["ceilings"]["host_after"] = {{"bandwidth_Bps", after.bandwidth}, {"flops", after.flops}, {"moved", moved}};
  }
  const double rss = peak_rss_bytes();
  std::cout << "\nset-up (cold when kernels were compiled, warm when they came from the cache):\n";
  for (const auto& l : setup_lines) std::cout << l << "\n";
  std::cout << fmt::format("  peak host memory {:.2f} GB ({:.0f} bytes per element)\n", rss / 1e9, rss / K);
  out["peak_rss_bytes"] = rss;
  if (!opt.json.empty()) {
    write_text_atomically(opt.json, out.dump(2) + "\n");
    std::cout << "\nwrote " << opt.json << "\n";
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Time RK stages per backend on a periodic box mesh (GDOF/s, % of the roofline floor)");
  cmd->add_option("--order,-N", opt->orders, "order(s): N, N1,N2 or N1..N2")->capture_default_str();
  cmd->add_option("--precision", opt->precision, "double | single")->capture_default_str();
  cmd->add_option("--elements,-K", opt->elements, "about this many elements")->capture_default_str();
  cmd->add_option("--backends", opt->backends, "comma-separated: ref, cpu, cuda")->capture_default_str();
  CLI::Option* steps = cmd->add_option("--steps", opt->steps, "timed steps per backend, 1 to 1000000 (default: about 1 s)");
  cmd->add_option("--json", opt->json, "write results here ('' for none)")->capture_default_str();
  cmd->add_option("--numbering", opt->numbering, "hilbert | input: how the elements are numbered (as mesh.numbering)")
      ->capture_default_str();
  cmd->add_flag("--curved", opt->curved,
                "also every element curved (each cube warped inside; geometry order max(2, N)): the curved group's "
                "throughput next to the straight-sided box's");
  cmd->add_option("--curved-batch", opt->curved_batch,
                  "with --curved, cuda: curved elements per block, one row each (e.g. 1,2,4; 0: the plan's choice)")
      ->capture_default_str();
  cmd->callback([opt, steps]() {
    opt->steps_given = steps->count() > 0;
    run_bench(*opt);
  });
}

}  // namespace dgmax
