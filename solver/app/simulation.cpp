#include "solver/app/simulation.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "codegen/jit/host_jit.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/cpu/cpu_tuner.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_tuner.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "dgmax/config.hpp"
#include "solver/app/interrupt.hpp"
#include "solver/app/rank_mesh.hpp"
#include "solver/app/run_directory.hpp"
#include "solver/app/run_monitors.hpp"
#include "solver/app/run_progress.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/io/async_snapshot_writer.hpp"
#include "solver/io/checkpoint.hpp"
#include "solver/io/whole_mesh_setup.hpp"
#include "solver/parallel/agree.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/parallel/rank_checkpoint.hpp"
#include "solver/physics/pml.hpp"
#include "codegen/jit/content_hash.hpp"
#include "solver/mesh/memory_estimate.hpp"
#include "solver/physics/energy_guard.hpp"
#include "solver/time/timestep.hpp"
#include "solver/util/clock.hpp"
#include "solver/util/printable.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

namespace {

// The cuda backend with the tuned plan when the tuning database has one; *plan says which.
std::unique_ptr<Backend> make_tuned_cuda_backend(const Problem& p, bool single, std::string* plan) {
  std::string source;
  const codegen::CudaPlan cp = cuda_plan_for(p, single, &source);
  *plan = cp.name() + " (" + source + ")";
  return make_cuda_plan_backend(p, single, cp);
}

// The cpu backend with the tuned plan when the tuning database has one; *plan says which.
std::unique_ptr<Backend> make_reported_cpu_backend(const Problem& p, bool single, std::string* plan) {
  std::string source;
  const codegen::CpuPlan cp = cpu_plan_for_problem(p, single, &source);
  *plan = cp.name() + " (" + source + ")";
  return make_cpu_backend_with_plan(p, single, cp);
}

// *plan: the cuda or cpu backend's kernel plan and where it came from, else empty.
std::unique_ptr<Backend> make_backend(const std::string& name, const RunConfig& cfg, const Problem& p, std::string* plan) {
  const bool single = cfg.precision == Precision::Single;
  // auto: cuda when a GPU is usable, else the generated cpu backend
  if (name == "auto")
    return cuda::driver_available() ? make_tuned_cuda_backend(p, single, plan) : make_reported_cpu_backend(p, single, plan);
  if (name == "cpu") return make_reported_cpu_backend(p, single, plan);
  if (name == "cuda") {
    try {
      return make_tuned_cuda_backend(p, single, plan);
    } catch (const UserError& e) {
      // no GPU, no driver, out of device memory: said about the config that asked for cuda
      if (!e.where().file.empty()) throw;
      throw UserError(e.message(), {cfg.path}, e.hint());
    }
  }
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

// The elements a rank writes: all of them with one rank; the owned ones (a prefix: ghosts follow)
// of a partitioned run, as a mesh and node coordinates of their own.
class OwnedPart {
 public:
  explicit OwnedPart(const Problem& p) : p_(p), all_(p.K_owned() == p.K()) {
    if (all_) return;
    const int K = p.K_owned();
    const size_t n = static_cast<size_t>(K) * p.Np();
    mesh_ = p.md->mesh;
    mesh_.elements.resize(K);
    mesh_.element_tag.resize(K);
    xyz_.Np = p.Np();
    xyz_.x.assign(p.xyz.x.begin(), p.xyz.x.begin() + static_cast<long>(n));
    xyz_.y.assign(p.xyz.y.begin(), p.xyz.y.begin() + static_cast<long>(n));
    xyz_.z.assign(p.xyz.z.begin(), p.xyz.z.begin() + static_cast<long>(n));
    const auto& g = p.md->halo.global_element;
    if (g.size() >= static_cast<size_t>(K)) ids_.assign(g.begin(), g.begin() + K);
  }
  bool all() const { return all_; }
  const Mesh* mesh() const { return all_ ? &p_.md->mesh : &mesh_; }
  const NodeCoords* xyz() const { return all_ ? &p_.xyz : &xyz_; }
  const std::vector<long long>* element_ids() const { return ids_.empty() ? nullptr : &ids_; }

 private:
  const Problem& p_;
  bool all_;
  Mesh mesh_;
  NodeCoords xyz_;
  std::vector<long long> ids_;  // global element numbers of the owned elements
};

// The most snapshots a run may write (output.vtk_every against time.final).
constexpr double kMaxSnapshots = 1e6;

RunSuspects suspects_of(const RunConfig& cfg, const Problem& p, const std::string& out_dir) {
  RunSuspects s;
  s.config = cfg.path;
  s.cfl = cfg.cfl;
  s.custom_flux = cfg.custom_flux.has_value();
  s.custom_states = !cfg.custom_states.empty();
  s.alpha = cfg.alpha;
  for (const auto& m : p.material) s.max_sigma = std::max(s.max_sigma, m.sigma);
  s.out_dir = out_dir;
  return s;
}

// The mesh a checkpoint belongs to: vertices, elements and their tags, curved elements' lattices, bitwise.
std::string mesh_fingerprint(const Mesh& m) {
  codegen::Sha256 h;
  h.update(m.vertices.data(), m.vertices.size() * sizeof(m.vertices[0]));
  h.update(m.elements.data(), m.elements.size() * sizeof(m.elements[0]));
  h.update(m.element_tag.data(), m.element_tag.size() * sizeof(int));
  if (!m.curved_index.empty()) {  // (straight-sided meshes keep their fingerprints)
    h.update(&m.geometry_order, sizeof(int));
    h.update(m.curved_index.data(), m.curved_index.size() * sizeof(int));
    h.update(m.curved_points.data(), m.curved_points.size() * sizeof(m.curved_points[0]));
  }
  return h.hex_digest();
}

// When checkpoints are due: every N steps or every T of simulated time (output.checkpoint_every).
struct CheckpointSchedule {
  long long every_steps = 0;
  double every_time = 0;
  long long next_index = 1;  // the next checkpoint by time is due at next_index * every_time
  bool enabled() const { return every_steps > 0 || every_time > 0; }
  bool due(long long step, double t) const {
    if (every_steps > 0) return step % every_steps == 0;
    return every_time > 0 && t >= static_cast<double>(next_index) * every_time * (1 - 1e-12);
  }
  void advance(double t) {
    if (every_time > 0) next_index = static_cast<long long>(std::floor(t / every_time * (1 + 1e-12))) + 1;
  }
};

// A plan error gets the config as its location.
StepPlan checked_plan(const RunConfig& cfg, const Problem& p) {
  try {
    return plan_steps(cfg.t_final, stable_dt(p, cfg.cfl));
  } catch (const UserError& e) {
    throw UserError(e.message(), {cfg.path}, e.hint());
  }
}


// The run after the mesh is built and the directory claimed: backend, time loop, report. Returns 0, or the exit code
// of an interrupted run (the caller records it). Fills `summary`, `csv`, `step_reached` and `t` as
// it goes, so that a failure can still be reported with them.
// `fingerprint`: the whole mesh's (mesh_fingerprint), which a checkpoint on any number of ranks carries.
int run_loop(const RunConfig& cfg, const RunOptions& opt, const std::string& out_dir, Clock::time_point t_start,
             Problem& p, std::vector<DftMonitor> dft, const std::string& fingerprint, double mesh_s,
             nlohmann::json& summary, std::string& csv, long long& step_reached, double& t,
             std::unique_ptr<AsyncSnapshotWriter>& snapshots) {
  const auto& md = p.md;
  const Comm& comm = world();
  const bool quiet = opt.quiet || !comm.root();  // one report per run, from rank 0
  if (cfg.alpha < 1)
    for (const auto& [tag, kind] : cfg.boundaries)
      if (kind == BcKind::Absorbing && !quiet) {
        std::cerr << "warning: absorbing boundaries reflect part of incoming waves with alpha < 1; "
                     "use flux: upwind for a clean absorbing boundary\n";
        break;
      }
  const StepPlan plan = checked_plan(cfg, p);
  if (p.pml) check_pml_time_step(*p.pml, *cfg.pml, plan.dt);
  if (p.pml && !quiet && p.pml->cell_corner_share < 0.5)  // an unstructured layer: advice, not an error
    std::cerr << fmt::format("note: pml: {:.0f}% of the layer's elements are tetrahedra of axis-aligned cells; the "
                             "others' coefficients jump across oblique faces, which reflect whatever the order (a "
                             "layer of cubes split into tetrahedra reflects less: docs/user-guide.md, \"Building a "
                             "layer in your own Gmsh mesh\")\n",
                             100 * p.pml->cell_corner_share);
  check_monitor_frequencies(cfg.monitors, plan.dt);  // their Nyquist limit, at each frequency's line
  if (cfg.vtk_every > 0 && cfg.t_final / cfg.vtk_every > kMaxSnapshots)
    throw UserError("output.vtk_every = " + fmt_g(cfg.vtk_every) + " asks for " +
                        fmt_g(std::floor(cfg.t_final / cfg.vtk_every)) + " snapshots up to time.final = " +
                        fmt_g(cfg.t_final) + ", more than the limit of " + fmt_g(kMaxSnapshots),
                    {cfg.path}, "a snapshot interval of a few steps is the finest that shows anything new");
  if (int sig = collective_stop_signal()) return interrupted_exit_code(sig);
  const std::string backend_name = opt.backend_override.empty() ? cfg.backend : opt.backend_override;
  std::string kernel_plan;
  std::unique_ptr<Backend> backend = make_backend(backend_name, cfg, p, &kernel_plan);
  RunMonitors monitors(cfg, p, *backend, out_dir, std::move(dft));  // probes and DFT monitors (run_monitors.hpp)

  const long long K = comm.sum(static_cast<long long>(p.K_owned())), Np = p.Np();  // over all ranks
  const long long dofs = 6 * K * Np;
  // default: about 200 samples, at most one every 10 steps (a sample costs about half a step)
  const long long energy_every = cfg.energy_every > 0 ? cfg.energy_every : std::max(10LL, plan.steps / 200);
  summary["K"] = K;
  summary["N"] = cfg.order;
  summary["dofs"] = dofs;
  summary["precision"] = cfg.precision == Precision::Double ? "double" : "single";
  summary["backend"] = backend->name();
  if (!kernel_plan.empty()) summary["kernel_plan"] = kernel_plan;
  summary["flux"] = cfg.flux_name;
  summary["alpha"] = cfg.alpha;
  summary["steps"] = plan.steps;
  summary["dt"] = plan.dt;
  summary["dt_last"] = plan.dt_last;
  summary["cfl"] = cfg.cfl;
  summary["mesh"] = md->mesh.source;

  // The state lives in the backend; the host sees it only when a snapshot or checkpoint is due.
  const bool exact = static_cast<bool>(p.exact);
  // snapshots are written on a background thread while the stepping goes on (two buffers)
  // (several ranks: each writes its owned elements, the ghosts are not its own)
  const OwnedPart owned(p);
  snapshots = std::make_unique<AsyncSnapshotWriter>(
      out_dir, "fields",
      SnapshotContext{owned.mesh(), p.ref, owned.xyz(), comm.rank(), comm.size(), owned.element_ids()},
      parse_snapshot_format(cfg.out_format));
  std::vector<double> snapshot_times;
  Fields whole;  // a partitioned run's local state, owned elements and ghosts
  auto snapshot = [&](double time) {
    Fields buf = snapshots->acquire_buffer();
    if (owned.all()) {
      backend->get_state(buf);
    } else {
      backend->get_state(whole);
      std::copy(whole.q.begin(), whole.q.begin() + static_cast<long>(buf.q.size()), buf.q.begin());
    }
    snapshots->write(std::move(buf), time);
    snapshot_times.push_back(time);
  };
  EnergyGuard guard(p, cfg.precision == Precision::Single, suspects_of(cfg, p, out_dir));
  long long samples = 0;
  // energy (and errors) reduced by the backend: a few scalars per sample; every sample is checked
  // against what the physics allows (energy_guard.hpp) before anything is written with it
  auto sample = [&](long long step, double time) {
    const NormSample s = backend->norms(time);
    ++samples;
    guard.check(step, time, s.energy, s.current, plan.dt);
    if (exact && !(std::isfinite(s.errors.L2_E) && std::isfinite(s.errors.L2_H) && std::isfinite(s.errors.Linf_E) &&
                   std::isfinite(s.errors.Linf_H)))
      throw UserError("the error against `exact:` is not finite at step " + std::to_string(step) + ", t = " +
                          fmt_g(time) + " while the energy is (" + fmt_g(s.energy) + ")",
                      {cfg.path}, "the exact solution evaluates to NaN or infinity there; check its expressions");
    csv += fmt::format("{},{:.17g},{:.17g}", step, time, s.energy);
    if (exact) csv += fmt::format(",{:.17g},{:.17g}", s.errors.L2_E, s.errors.L2_H);
    csv += "\n";
    return s;
  };

  // Checkpoints: the backend's state and residual plus what the outputs need to go on (energy.csv
  // so far, the snapshot series, the guard), written atomically; the newest two are kept. On
  // several ranks each writes its piece and rank 0 the record (rank_checkpoint.hpp); the identity
  // is the whole run's, so that any number of ranks can continue it.
  CheckpointIdentity identity;
  identity.config_hash = opt.config_hash;
  identity.mesh_fingerprint = fingerprint;
  identity.backend = backend->name();
  identity.precision = cfg.precision == Precision::Double ? "double" : "single";
  identity.K = K;
  identity.N = cfg.order;
  identity.Np = static_cast<int>(Np);
  identity.dt = plan.dt;
  identity.t_final = cfg.t_final;
  CheckpointSchedule checkpoints{cfg.checkpoint_every_steps, cfg.checkpoint_every_time};
  // what this rank holds in the whole run's numbering (only a run that checkpoints or restarts needs it)
  const RankElements elements = [&] {
    if (!checkpoints.enabled() && opt.restart_dir.empty()) return RankElements{};
    std::vector<double> aux;
    backend->get_aux(aux);
    return rank_elements(p, aux.size(), summary.value("partition", nlohmann::json()));
  }();
  long long next_snapshot = 1;  // snapshot j (1, 2, ...) is due at j * vtk_every: an index, so
                                // that no interval is too small to advance it
  std::string last_checkpoint;
  auto write_checkpoint_now = [&](long long step, double time) {
    Checkpoint c;
    c.id = identity;
    c.step = step;
    c.time = time;
    RunProgress progress{csv, snapshot_times, next_snapshot, checkpoints.next_index, samples, guard.state(), {}, {}};
    if (const auto* cuda_be = dynamic_cast<const CudaPlanBackend*>(backend.get()))
      progress.kernel_plan = cuda_be->plan().name();  // a restart continues with it
    if (!monitors.empty()) {  // their outputs so far are written with each checkpoint
      progress.monitors = monitors.progress();
      monitors.write(time, step, false);
    }
    c.progress = progress_text(progress);
    RankState state{Fields(p.K(), static_cast<int>(Np)), Fields(p.K(), static_cast<int>(Np)), {}};
    backend->get_state(state.q);
    backend->get_residual(state.res);
    backend->get_aux(state.aux);
    last_checkpoint = write_rank_checkpoint(out_dir, std::move(c), std::move(state), elements);
  };

  long long first_step = 1;
  NormSample last_sample;
  if (!opt.restart_dir.empty()) {
    // any number of ranks: each takes its elements' rows out of the files (rank_checkpoint.hpp);
    // a checkpoint whose progress record does not hold together falls back to the one before
    const ProgressRules rules{exact ? "step,t,energy,L2_E,L2_H" : "step,t,energy", cfg.vtk_every,
                              checkpoints.every_time, !monitors.empty()};
    RunProgress progress;
    RestartPoint from = read_rank_checkpoint(out_dir, identity, elements, [&](const Checkpoint& saved) {
      progress = parse_progress(saved, rules);
      if (!monitors.empty()) monitors.restore(progress.monitors, saved.time);  // checks their sizes
      return std::string();
    });
    const std::string& path = from.path;
    const Checkpoint& c = from.record;
    if (!from.mismatch.empty()) {
      std::string what;
      for (const auto& d : from.mismatch) what += "\n    " + d;
      throw UserError("checkpoint " + path + " belongs to another run:" + what, {cfg.path},
                      "restart with the config, mesh, backend and precision of the run that wrote it");
    }
    backend->set_state(from.q);
    backend->set_residual(from.res);  // after set_state, which clears it
    {
      std::vector<double> aux;
      backend->get_aux(aux);
      if (aux.size() != from.aux.size())
        throw UserError(fmt::format("checkpoint {} holds {} values of PML auxiliary state; this run's layer has {}", path,
                                    from.aux.size(), aux.size()),
                        {cfg.path}, "restart with the pml settings of the run that wrote it");
      backend->set_aux(from.aux);
    }
    csv = progress.csv;
    snapshot_times = progress.snapshot_times;
    next_snapshot = progress.next_snapshot;
    checkpoints.next_index = progress.next_checkpoint;
    samples = progress.samples;
    guard.restore(progress.guard);
    // bit for bit needs the same kernels: the plan the checkpoint was written with, whatever the
    // tuning database says now
    if (auto* cuda_be = dynamic_cast<CudaPlanBackend*>(backend.get()); cuda_be && progress.kernel_plan) {
      const std::optional<codegen::CudaPlan> was = codegen::CudaPlan::parse(*progress.kernel_plan);
      if (was && !(*was == cuda_be->plan()) && codegen::cuda_plan_rejection(*was, cfg.order, cfg.precision == Precision::Single, {},
                                                                      bool(p.current)).empty()) {
        if (!quiet)
          std::cerr << fmt::format("note: continuing with the checkpoint's kernel plan {} (this run would use {})\n",
                                   was->name(), cuda_be->plan().name());
        cuda_be->set_plan(*was);
        kernel_plan = was->name() + " (checkpoint)";
        summary["kernel_plan"] = kernel_plan;
      }
    }
    snapshots->resume(snapshot_times);
    t = c.time;
    step_reached = c.step;
    first_step = c.step + 1;
    last_sample.energy = guard.state().W0;
    summary["restarted_from"] = {{"checkpoint", path}, {"step", c.step}, {"time", c.time}};
    if (!quiet) std::cerr << fmt::format("dgmax: continuing from {} (step {}, t = {})\n", path, c.step, fmt_g(c.time));
  } else {
    backend->init_state();
    csv = exact ? "step,t,energy,L2_E,L2_H\n" : "step,t,energy\n";
    snapshot(0.0);
    last_sample = sample(0, 0.0);
    monitors.start(0.0);
  }
  const double setup_s = seconds_since(t_start);
  const double initial_energy = guard.state().W0;
  summary["energy"] = {{"initial", initial_energy}};

  Progress progress(!quiet);
  const double kernel_s0 = backend->kernel_seconds();
  const auto t_loop = Clock::now();
  const double snap_every = cfg.vtk_every;
  int stop_signal = 0;
  for (long long s = first_step; s <= plan.steps; ++s) {
    const bool last = s == plan.steps;
    const double dt = last ? plan.dt_last : plan.dt;
    backend->step(t, dt);
    t = last ? cfg.t_final : t + dt;
    step_reached = s;
    monitors.after_step(t, dt, s);
    stop_signal = collective_stop_signal();  // all ranks stop (and checkpoint) at the same step
    const bool snap = snap_every > 0 && !last && t >= static_cast<double>(next_snapshot) * snap_every * (1 - 1e-12);
    const bool ckpt = !last && checkpoints.enabled() && (checkpoints.due(s, t) || stop_signal);
    // a snapshot or checkpoint is sampled too: its energy is in energy.csv, and a blown-up state
    // is refused before it is written
    if (last || snap || ckpt || s % energy_every == 0 || stop_signal) last_sample = sample(s, t);
    if (snap) {
      snapshot(t);
      next_snapshot = static_cast<long long>(std::floor(t / snap_every * (1 + 1e-12))) + 1;
    }
    if (ckpt) {
      checkpoints.advance(t);
      write_checkpoint_now(s, t);
    }
    progress.update(s, plan.steps, t, dt, seconds_since(t_loop), static_cast<double>(dofs));
    if (stop_signal) break;
  }
  const double kernel_s = backend->kernel_seconds() - kernel_s0;  // waits for the device
  const double loop_s = seconds_since(t_loop);
  summary["energy"]["final"] = last_sample.energy;
  if (exact)
    summary["errors"] = {{"L2", {{"E", last_sample.errors.L2_E}, {"H", last_sample.errors.L2_H}}},
                         {"Linf", {{"E", last_sample.errors.Linf_E}, {"H", last_sample.errors.Linf_H}}}};
  if (!last_checkpoint.empty()) summary["checkpoint"] = last_checkpoint;
  monitors.write(t, step_reached, true);
  if (!monitors.far_field_summary().empty()) summary["far_field"] = monitors.far_field_summary();
  if (stop_signal) return interrupted_exit_code(stop_signal);
  snapshot(t);
  const double snapshot_wait_s = snapshots->stats().wait_seconds;
  const auto t_finish = Clock::now();
  snapshots->finish();
  const double finish_s = seconds_since(t_finish);
  const auto wstats = snapshots->stats();

  const auto hs = codegen::jit_stats();
  const auto ns = codegen::nvrtc_stats();
  const double compile_s = hs.compile_seconds + ns.compile_seconds;
  summary["setup_s"] = setup_s;
  summary["mesh_s"] = mesh_s;
  summary["loop_s"] = loop_s;
  // throughput per RK stage: 5 stages per step
  const double stage_dofs = static_cast<double>(dofs) * 5 * static_cast<double>(step_reached - first_step + 1);
  summary["dof_per_s"] = loop_s > 0 ? stage_dofs / loop_s : 0.0;
  summary["gdof_per_s"] = loop_s > 0 ? stage_dofs / loop_s / 1e9 : 0.0;
  summary["kernel_s"] = kernel_s;
  summary["kernel_share"] = loop_s > 0 ? std::min(1.0, kernel_s / loop_s) : 0.0;
  summary["samples"] = samples;
  summary["snapshot_wait_s"] = snapshot_wait_s;  // time the loop waited for the writer
  summary["snapshot_write_s"] = wstats.write_seconds;    // time the writer thread spent writing
  summary["snapshot_commit_s"] = wstats.commit_seconds;  // fsync + rename, on another thread
  summary["snapshot_finish_s"] = finish_s;               // waited after the loop for the last ones
  summary["kernels"] = {{"compiled", hs.compiled + ns.compiled}, {"cache_hits", hs.cache_hits + ns.cache_hits},
                        {"compile_s", compile_s}};

  if (comm.parallel()) {
    summary["ranks"] = comm.size();
    summary["exchange_wait_s"] = comm.max(backend->exchange_wait_seconds());  // the slowest rank's
    summary["exchange_hidden_s"] = comm.max(backend->exchange_hidden_seconds());
  }
  if (!quiet) {
    std::cout << fmt::format("dgmax: K = {}, N = {}, {} DOF, {} steps of dt = {:.4g} to t = {:.6g} "
                             "({} backend{}, {:.2f} s, {:.3g} MDOF/s per stage)\n",
                             K, cfg.order, dofs, plan.steps, plan.dt, t, backend->name(),
                             kernel_plan.empty() ? "" : ", plan " + kernel_plan, loop_s,
                             summary["dof_per_s"].get<double>() / 1e6);
    if (exact)
      std::cout << fmt::format("       L2 error E {:.4e}  H {:.4e}   energy {:.6g} -> {:.6g}\n",
                               last_sample.errors.L2_E, last_sample.errors.L2_H, initial_energy, last_sample.energy);
    else
      std::cout << fmt::format("       energy {:.6g} -> {:.6g}\n", initial_energy, last_sample.energy);
    std::cout << fmt::format("       set-up {:.2f} s (mesh and problem {:.2f} s, kernels {:.2f} s), loop {:.2f} s: "
                             "{:.3g} GDOF/s per stage, {:.0f}% of the loop in kernels\n",
                             setup_s, mesh_s, compile_s, loop_s, summary["gdof_per_s"].get<double>(),
                             100 * summary["kernel_share"].get<double>());
    const auto& k = summary["kernels"];
    if (k["compiled"].get<int>() + k["cache_hits"].get<int>() > 0)
      std::cout << fmt::format("       kernels: {} compiled ({:.2f} s), {} from the cache\n", k["compiled"].get<int>(),
                               k["compile_s"].get<double>(), k["cache_hits"].get<int>());
    if (summary.contains("far_field")) std::cout << far_field_report(summary["far_field"]);
    std::cout << fmt::format("       output in {}/ (summary.json, energy.csv, {} snapshots)\n", out_dir,
                             snapshot_times.size());  // times, not files (pieces, .pvtu, Both)
    if (comm.parallel())
      std::cout << fmt::format("       {} ranks ({} partition); waited {:.3f} s for face traces (slowest rank), "
                               "{:.3f} s of exchange hidden behind interior elements\n",
                               comm.size(), summary["partition"]["method"].get<std::string>(),
                               summary["exchange_wait_s"].get<double>(), summary["exchange_hidden_s"].get<double>());
  }
  return 0;
}

}  // namespace

int run_simulation(const RunConfig& cfg, const RunOptions& opt) {
  const auto t_start = Clock::now();
  const bool restart = !opt.restart_dir.empty();
  const Comm& comm = world();
  const std::string backend_name = opt.backend_override.empty() ? cfg.backend : opt.backend_override;
  const bool device = backend_name == "cuda" || (backend_name == "auto" && cuda::driver_available());
  // mesh and physics first: an error in them (a config error in effect) leaves the directory alone.
  // What needs the whole mesh is decided on it (every rank has it until its part is cut out): the
  // layer (which weights the partition), the TF/SF box, the monitors' faces. Every rank checks
  // the same input alike, so its errors are agreed on and said once (agree.hpp).
  struct SetUp {
    std::string out_dir;
    nlohmann::json partition;
    Problem p;
    std::vector<DftMonitor> dft;
    std::string fingerprint;  // the whole mesh's, on any number of ranks
  };
  SetUp set_up = agree_on_errors([&] {
    if (restart && opt.output_override && *opt.output_override != opt.restart_dir)
      throw UserError("--restart " + opt.restart_dir + " and --output " + *opt.output_override +
                          " name different directories",
                      {}, "a restarted run continues in the directory it restarts from: drop --output");
    if (restart && opt.overwrite) throw UserError("--restart and --overwrite contradict each other", {}, "drop --overwrite");
    std::string out_dir = restart ? opt.restart_dir : opt.output_override ? *opt.output_override : cfg.out_dir;
    if (out_dir.empty())
      throw UserError("the output directory is empty", {cfg.path}, "give a directory: output.dir or --output DIR");
    nlohmann::json partition;
    // (no rank stores the whole mesh's geometric factors: each computes its own part's)
    auto whole_md = std::make_shared<const MeshData>(
        load_mesh(cfg.mesh, comm.parallel() ? GeometryFactors::Checked : GeometryFactors::Stored));
    // curved elements run on every backend and on ranks; the layer, the TF/SF box and the surface
    // monitors check their own elements as they are built (pml.cpp, dft_monitor.cpp)
    WholeMeshSetup whole = whole_mesh_setup(cfg, std::move(whole_md));
    auto md = rank_mesh(whole.md, whole.partition_weights(), &partition, cfg.partition);  // several ranks: this rank's part
    {
      // the fields of host backends grow with Np; a GPU run keeps them on the device. Curved
      // elements add their operators on the host either way (made there, then uploaded).
      const Mesh& m = md->mesh;
      const long curved = std::count_if(m.curved_index.begin(), m.curved_index.end(), [](int c) { return c >= 0; });
      double per_element = device ? kMinRunBytesPerElement : run_host_bytes_per_element(cfg.order);
      std::string what = "a run of order " + std::to_string(cfg.order) + " on " + m.source;
      if (curved > 0) {
        per_element += curved_host_bytes_per_element(cfg.order, m.geometry_order) * static_cast<double>(curved) /
                       std::max(1, m.num_elements());
        what += " (" + std::to_string(curved) + " of its elements curved)";
      }
      require_host_memory(m.num_elements(), per_element, what, {cfg.path},
                          "coarsen the mesh or lower the order" + std::string(device ? "" : ", or run on a GPU") +
                              (curved > 0 ? "; mesh.geometry_order: 1 makes every element straight-sided" : ""));
    }
    Problem p = make_problem(md, cfg.order);
    apply_physics(cfg, p, whole);
    std::vector<DftMonitor> dft;
    for (const MonitorSpec& spec : cfg.monitors) dft.push_back(make_dft_monitor(p, spec, *whole.md));
    return SetUp{std::move(out_dir), std::move(partition), std::move(p), std::move(dft), mesh_fingerprint(whole.md->mesh)};
  });  // several ranks: the whole mesh is freed here
  const std::string& out_dir = set_up.out_dir;
  const nlohmann::json& partition = set_up.partition;
  Problem& p = set_up.p;
  std::vector<DftMonitor>& dft = set_up.dft;
  const std::string& fingerprint = set_up.fingerprint;
  const double mesh_s = seconds_since(t_start);
  // then the manifest: whatever happens next, the directory says which run it belongs to (rank 0
  // claims it; the other ranks write their pieces into it once it is claimed)
  std::optional<RunDirectory> dir;
  if (comm.root()) {
    dir.emplace(out_dir, RunOutputs::of(cfg, "fields"),
                restart ? ClaimMode::Continue : opt.overwrite ? ClaimMode::Overwrite : ClaimMode::MoveAside,
                nlohmann::json{{"dgmax", DGMAX_VERSION}, {"config", cfg.path}, {"config_sha256", opt.config_hash}});
    if (dir->cleared_files() > 0 && !opt.quiet)
      std::cerr << (dir->cleared_to().empty()
                        ? fmt::format("note: deleted {} files of an earlier run in {}\n", dir->cleared_files(), out_dir)
                        : fmt::format("note: moved {} files of an earlier run to {}/\n", dir->cleared_files(),
                                      dir->cleared_to()));
  }
  comm.barrier();

  nlohmann::json summary;
  if (comm.parallel()) summary["partition"] = partition;
  std::string csv;
  long long step_reached = 0;
  double t = 0;
  std::unique_ptr<AsyncSnapshotWriter> snapshots;
  // summary.json, energy.csv and run.json with how the run ended (finished, failed, interrupted)
  // and what was done
  auto record_stop = [&](const std::string& status, const std::string& raw_message) {
    // a message may quote a damaged file: stored and shown as printable text only
    const std::string message = printable_text(raw_message);
    try {
      if (snapshots) snapshots->finish();
    } catch (const std::exception&) {
      // the run is already failing; the writer's own error is reported by its destructor
    }
    summary["status"] = status;
    summary["steps_done"] = step_reached;
    summary["final_time"] = t;
    if (!message.empty()) summary["error"] = message;
    summary["config"] = cfg.path;
    summary["wall_s"] = seconds_since(t_start);
    if (snapshots) summary["outputs"] = {{"snapshots", snapshots->files()}, {"pvd", snapshots->pvd_path()}};
    if (!comm.root()) return;  // energy.csv, summary.json and run.json are written once, by rank 0
    if (!csv.empty()) write_text_atomically(out_dir + "/energy.csv", csv);
    // every file of the run in the directory (probes.csv, monitors.h5, far fields, checkpoints, ...)
    std::vector<std::string> files = dir->files_present();
    if (std::find(files.begin(), files.end(), "summary.json") == files.end()) files.push_back("summary.json");
    summary["outputs"]["files"] = files;
    // anything else not UTF-8 (a directory's name) is replaced rather than losing the record
    write_text_atomically(out_dir + "/summary.json",
                          summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    nlohmann::json extra = {{"step", step_reached}, {"time", t}};
    if (!message.empty()) extra["error"] = message;
    dir->set_state(status, extra);
  };
  try {
    const int code =
        run_loop(cfg, opt, out_dir, t_start, p, std::move(dft), fingerprint, mesh_s, summary, csv, step_reached, t,
                 snapshots);
    if (code != 0) {
      record_stop("interrupted", "");
      comm.barrier();  // summary.json is written before the exit status ends the other ranks
      if (!opt.quiet && comm.root()) {
        std::cerr << fmt::format("\ndgmax: interrupted at step {} (t = {}); what was done is in {}/ "
                                 "(summary.json: \"status\": \"interrupted\")\n",
                                 step_reached, fmt_g(t), out_dir);
        if (summary.contains("checkpoint"))
          std::cerr << fmt::format("       continue with: dgmax run {} --restart {}\n", cfg.path, out_dir);
      }
      return code;
    }
    comm.barrier();  // every rank's pieces are on disk before rank 0 says "finished"
    record_stop("finished", "");
    return 0;
  } catch (const std::exception& e) {
    // Ctrl-C reaches the whole process group: a kernel compiler killed by it fails the set-up,
    // but the run was interrupted, not broken
    if (const int sig = InterruptGuard::pending()) {
      record_stop("interrupted", "");
      if (!opt.quiet && comm.root())
        std::cerr << fmt::format("\ndgmax: interrupted at step {} ({}); what was done is in {}/\n", step_reached,
                                 e.what(), out_dir);
      return interrupted_exit_code(sig);
    }
    const auto* user = dynamic_cast<const UserError*>(&e);
    try {
      record_stop("failed", user ? user->message() : std::string(e.what()));
    } catch (const std::exception& also) {
      std::cerr << "warning: could not record the failure in " << out_dir << ": " << also.what() << "\n";
    }
    throw;
  }
}

}  // namespace dgmax
