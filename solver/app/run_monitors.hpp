// Probes and DFT monitors during a run: located on the mesh and set up on the backend, sampled in
// the time loop (the backend computes the values where the state lives; a probe sample brings
// P*6 numbers back, a DFT step nothing), carried through checkpoints, written out as probes.csv
// and monitors.h5 (probe_writer.hpp, monitor_writer.hpp); a closed-surface monitor's far field goes
// to far_field_<name>.csv at the end (near_to_far.hpp), on its `far_field:` directions, with the
// radar cross-section (rcs column) when the config has an `incident:` field (its DFT at the origin
// over the same steps normalizes it), else the directivity; its radiated power goes to summary.json.
// With several ranks each rank samples and sums its own elements' points, and rank 0 writes the
// files with every rank's values, in the order and with the content of a one-rank run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solver/backends/backend.hpp"
#include "solver/io/monitor_writer.hpp"
#include "solver/io/probe_writer.hpp"
#include "solver/io/run_config.hpp"
#include "solver/physics/dft_monitor.hpp"
#include "solver/physics/far_field_grid.hpp"
#include "solver/physics/incident_dft.hpp"
#include "solver/physics/probes.hpp"

namespace dgmax {

// The run report's lines on far_field_summary(): per monitor its CSV and, per frequency, the power
// over the far-field sphere and through the surface, and how far they differ.
std::string far_field_report(const nlohmann::json& far_field);

class RunMonitors {
 public:
  // UserError (at the config's entry) for a probe outside the mesh. `dft`: the config's monitors
  // (make_dft_monitor), with several ranks each rank's points of them. Collective with several ranks.
  RunMonitors(const RunConfig& cfg, const Problem& p, Backend& backend, std::string out_dir, std::vector<DftMonitor> dft);
  // On the way out of a failed run, writes probes.csv as far as it got (errors ignored).
  ~RunMonitors();
  RunMonitors(const RunMonitors&) = delete;
  RunMonitors& operator=(const RunMonitors&) = delete;

  bool empty() const { return probes_.size() == 0 && dft_.empty(); }
  // The probe sample of the initial state (a fresh run).
  void start(double t);
  // After each full step that ended at time t: the DFT sums (every step) and a probe sample when due.
  void after_step(double t, double dt, long long step);
  // For a checkpoint: the probe log so far, the probe schedule and the DFT accumulators, these in
  // the whole monitors' order (on rank 0; collective), so that a restart on any number of ranks
  // takes its own points back out of them (restore; std::exception when they do not fit).
  nlohmann::json progress() const;
  void restore(const nlohmann::json& progress, double t);  // t: the checkpoint's time
  // probes.csv (with probes) and monitors.h5 (with monitors) in the output directory, after
  // `steps` steps that ended at time t; `final`: the run's last write (else a checkpoint's). Rank 0
  // writes them, with every rank's DFT sums (collective).
  void write(double t, long long steps, bool final);
  // After the final write, on rank 0: per closed-surface monitor {csv, directions, powers: [{frequency,
  // power_far, power_surface}]}, the radiated power by the far field over the whole sphere
  // (radiated_power) and through the monitor's surface (surface_power), for summary.json's
  // "far_field" and the run report. Empty before, on other ranks, and without surface monitors.
  const nlohmann::json& far_field_summary() const { return far_field_; }

 private:
  void sample_probes(double t);
  void write_far_fields(const std::vector<MonitorResult>& results);

  Backend& backend_;
  std::string out_dir_;
  ProbeSet probes_;
  double probe_every_ = 0;
  long long next_probe_ = 1;  // the next sample by time is due at next_probe_ * probe_every_
  ProbeLog log_;
  std::vector<DftMonitor> dft_;    // this rank's points
  std::vector<DftMonitor> whole_;  // several ranks, on rank 0: the whole monitors (dft_gather.hpp)
  std::vector<int> dft_sets_;  // [monitors] the backend's set index
  std::vector<FarFieldGrid> far_grids_;  // [monitors] the config's far-field directions
  std::vector<std::vector<SourceLocation>> frequency_where_;  // [monitors][F] for a far field that is not finite
  nlohmann::json far_field_ = nlohmann::json::object();  // far_field_summary()
  std::vector<IncidentDft> incident_;  // [monitors] with an `incident:` field, else empty
  double t_last_ = 0;
  long long steps_ = 0;  // steps summed
  bool written_ = false;
};

}  // namespace dgmax
