#include "solver/app/simulation.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "codegen/jit/host_jit.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/io/async_snapshot_writer.hpp"
#include "solver/time/timestep.hpp"
#include "solver/util/clock.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

std::unique_ptr<Backend> make_backend(const std::string& name, const RunConfig& cfg, const Problem& p) {
  const bool single = cfg.precision == Precision::Single;
  // auto: cuda when a GPU is usable, else the generated cpu backend
  if (name == "auto") return cuda::driver_available() ? make_cuda_backend(p, single) : make_cpu_backend(p, single);
  if (name == "cpu") return make_cpu_backend(p, single);
  if (name == "cuda") return make_cuda_backend(p, single);
  if (name == "ref") {
    if (cfg.precision == Precision::Single)
      throw UserError("the ref backend computes in double precision only", {cfg.path},
                      "set discretization.precision: double (single precision comes with the "
                      "generated cpu and cuda backends)");
    return std::make_unique<RefBackend>(p);
  }
  throw UserError("backend '" + name + "' is not available in this version of dgmax", {cfg.path},
                  "use backend: cpu, ref or auto");
}

// A terminal progress line, redrawn at most every 0.25 s.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}
  void update(long long step, long long steps, double t, double dt, double elapsed, double dofs) {
    if (!enabled_ || (step < steps && elapsed - last_ < 0.25)) return;
    last_ = elapsed;
    const double eta = step > 0 ? elapsed / step * (steps - step) : 0;
    std::fprintf(stderr, "\r  step %lld/%lld  t = %.6g  dt = %.3g  ETA %.1f s  %.3g MDOF/s   ", step,
                 steps, t, dt, eta, elapsed > 0 ? dofs * 5 * step / elapsed / 1e6 : 0.0);
    if (step == steps) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  double last_ = -1;
};

std::string finite_or_word(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return "inf";
  return fmt_g(v);
}

}  // namespace

void run_simulation(const RunConfig& cfg, const RunOptions& opt) {
  const auto t_start = Clock::now();
  auto md = std::make_shared<const MeshData>(load_mesh(cfg.mesh));
  Problem p = make_problem(md, cfg.order);
  apply_physics(cfg, p);
  const double mesh_s = seconds_since(t_start);
  if (cfg.alpha < 1)
    for (const auto& [tag, kind] : cfg.boundaries)
      if (kind == BcKind::Absorbing && !opt.quiet) {
        std::cerr << "warning: absorbing boundaries reflect part of incoming waves with alpha < 1; "
                     "use flux: upwind for a clean absorbing boundary\n";
        break;
      }
  const std::string backend_name = opt.backend_override.empty() ? cfg.backend : opt.backend_override;
  std::unique_ptr<Backend> backend = make_backend(backend_name, cfg, p);
  const std::string out_dir = opt.output_override.empty() ? cfg.out_dir : opt.output_override;

  const long long K = p.K(), Np = p.Np();
  const long long dofs = 6 * K * Np;
  const StepPlan plan = plan_steps(cfg.t_final, stable_dt(p, cfg.cfl));
  // default: about 200 samples, at most one every 10 steps (a sample costs about half a step)
  const long long energy_every = cfg.energy_every > 0 ? cfg.energy_every : std::max(10LL, plan.steps / 200);

  // The state lives in the backend; the host sees it only when a snapshot is due.
  backend->init_state();
  const bool exact = static_cast<bool>(p.exact);
  // snapshots are written on a background thread while the stepping goes on (two buffers)
  AsyncSnapshotWriter snapshots(out_dir, "fields", {&md->mesh, p.ref, &p.xyz}, parse_snapshot_format(cfg.out_format));
  auto snapshot = [&](double time) {
    Fields buf = snapshots.acquire_buffer();
    backend->get_state(buf);
    snapshots.write(std::move(buf), time);
  };
  snapshot(0.0);
  const double setup_s = seconds_since(t_start);

  std::string csv = exact ? "step,t,energy,L2_E,L2_H\n" : "step,t,energy\n";
  NormSample first;
  long long samples = 0;
  // energy (and errors) reduced by the backend: a few scalars per sample
  auto sample = [&](long long step, double t) {
    const NormSample s = backend->norms(t);
    ++samples;
    const double W = s.energy, W0 = step == 0 ? W : first.energy;
    if (!std::isfinite(W) || (W0 > 0 && W > 1e12 * W0) || (W0 == 0 && W > 1e30))
      throw UserError("the solution blew up at step " + std::to_string(step) + ", t = " + fmt_g(t) +
                          " (energy " + finite_or_word(W) + ", initially " + finite_or_word(W0) + ")",
                      {cfg.path},
                      "time.cfl = " + fmt_g(cfg.cfl) + " may be too large for this mesh and order (0.5 is safe), "
                      "or a source or incident field grows without bound. Snapshots written so far are in " + out_dir);
    csv += fmt::format("{},{:.17g},{:.17g}", step, t, W);
    if (exact) csv += fmt::format(",{:.17g},{:.17g}", s.errors.L2_E, s.errors.L2_H);
    csv += "\n";
    return s;
  };
  first = sample(0, 0.0);
  NormSample last_sample = first;

  Progress progress(!opt.quiet);
  const double kernel_s0 = backend->kernel_seconds();
  const auto t_loop = Clock::now();
  double t = 0, next_snapshot = cfg.vtk_every > 0 ? cfg.vtk_every : cfg.t_final * 2;
  for (long long s = 1; s <= plan.steps; ++s) {
    const bool last = s == plan.steps;
    const double dt = last ? plan.dt_last : plan.dt;
    backend->step(t, dt);
    t = last ? cfg.t_final : t + dt;
    const bool snap = !last && t >= next_snapshot * (1 - 1e-12);
    // a snapshot is sampled too: its energy is in energy.csv, and a blown-up state is refused
    // before it is written
    if (last || snap || s % energy_every == 0) last_sample = sample(s, t);
    if (snap) {
      snapshot(t);
      while (next_snapshot <= t * (1 + 1e-12)) next_snapshot += cfg.vtk_every;
    }
    progress.update(s, plan.steps, t, dt, seconds_since(t_loop), static_cast<double>(dofs));
  }
  const double kernel_s = backend->kernel_seconds() - kernel_s0;  // waits for the device
  const double loop_s = seconds_since(t_loop);
  snapshot(t);
  const double snapshot_wait_s = snapshots.stats().wait_seconds;
  const auto t_finish = Clock::now();
  snapshots.finish();
  const double finish_s = seconds_since(t_finish);
  const auto wstats = snapshots.stats();

  nlohmann::json summary;
  summary["K"] = K;
  summary["N"] = cfg.order;
  summary["dofs"] = dofs;
  summary["precision"] = cfg.precision == Precision::Double ? "double" : "single";
  summary["backend"] = backend->name();
  summary["flux"] = cfg.flux_name;
  summary["alpha"] = cfg.alpha;
  summary["steps"] = plan.steps;
  summary["dt"] = plan.dt;
  summary["dt_last"] = plan.dt_last;
  summary["cfl"] = cfg.cfl;
  summary["final_time"] = t;
  summary["wall_s"] = seconds_since(t_start);
  const auto hs = codegen::jit_stats();
  const auto ns = codegen::nvrtc_stats();
  const double compile_s = hs.compile_seconds + ns.compile_seconds;
  summary["setup_s"] = setup_s;
  summary["mesh_s"] = mesh_s;
  summary["loop_s"] = loop_s;
  // throughput per RK stage: 5 stages per step
  const double stage_dofs = static_cast<double>(dofs) * 5 * plan.steps;
  summary["dof_per_s"] = loop_s > 0 ? stage_dofs / loop_s : 0.0;
  summary["gdof_per_s"] = loop_s > 0 ? stage_dofs / loop_s / 1e9 : 0.0;
  summary["kernel_s"] = kernel_s;
  summary["kernel_share"] = loop_s > 0 ? std::min(1.0, kernel_s / loop_s) : 0.0;
  summary["samples"] = samples;
  summary["snapshot_wait_s"] = snapshot_wait_s;  // time the loop waited for the writer
  summary["snapshot_write_s"] = wstats.write_seconds;    // time the writer thread spent writing
  summary["snapshot_commit_s"] = wstats.commit_seconds;  // fsync + rename, on another thread
  summary["snapshot_finish_s"] = finish_s;               // waited after the loop for the last ones
  summary["mesh"] = md->mesh.source;
  summary["kernels"] = {{"compiled", hs.compiled + ns.compiled}, {"cache_hits", hs.cache_hits + ns.cache_hits},
                        {"compile_s", compile_s}};
  summary["config"] = cfg.path;
  summary["energy"] = {{"initial", first.energy}, {"final", last_sample.energy}};
  if (exact)
    summary["errors"] = {{"L2", {{"E", last_sample.errors.L2_E}, {"H", last_sample.errors.L2_H}}},
                         {"Linf", {{"E", last_sample.errors.Linf_E}, {"H", last_sample.errors.Linf_H}}}};
  summary["outputs"] = {{"snapshots", snapshots.files()}, {"pvd", snapshots.pvd_path()}};
  write_text_atomically(out_dir + "/energy.csv", csv);
  write_text_atomically(out_dir + "/summary.json", summary.dump(2) + "\n");

  if (!opt.quiet) {
    std::cout << fmt::format("dgmax: K = {}, N = {}, {} DOF, {} steps of dt = {:.4g} to t = {:.6g} "
                             "({} backend, {:.2f} s, {:.3g} MDOF/s per stage)\n",
                             K, cfg.order, dofs, plan.steps, plan.dt, t, backend->name(), loop_s,
                             summary["dof_per_s"].get<double>() / 1e6);
    if (exact)
      std::cout << fmt::format("       L2 error E {:.4e}  H {:.4e}   energy {:.6g} -> {:.6g}\n",
                               last_sample.errors.L2_E, last_sample.errors.L2_H, first.energy, last_sample.energy);
    else
      std::cout << fmt::format("       energy {:.6g} -> {:.6g}\n", first.energy, last_sample.energy);
    std::cout << fmt::format("       set-up {:.2f} s (mesh and problem {:.2f} s, kernels {:.2f} s), loop {:.2f} s: "
                             "{:.3g} GDOF/s per stage, {:.0f}% of the loop in kernels\n",
                             setup_s, mesh_s, compile_s, loop_s, summary["gdof_per_s"].get<double>(),
                             100 * summary["kernel_share"].get<double>());
    const auto& k = summary["kernels"];
    if (k["compiled"].get<int>() + k["cache_hits"].get<int>() > 0)
      std::cout << fmt::format("       kernels: {} compiled ({:.2f} s), {} from the cache\n", k["compiled"].get<int>(),
                               k["compile_s"].get<double>(), k["cache_hits"].get<int>());
    std::cout << fmt::format("       output in {}/ (summary.json, energy.csv, {} snapshots)\n", out_dir,
                             snapshots.files().size());
  }
}

}  // namespace dgmax
