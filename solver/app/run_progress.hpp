// The progress record a checkpoint carries (Checkpoint::progress): what the run's outputs need to
// go on as if it had never stopped (energy.csv so far, the snapshot series, the schedules, the
// energy guard, the monitors), as JSON; and, on a restart, the same read back and cross-checked
// against the checkpoint's step and time and against this run before anything of it is used.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "solver/io/checkpoint.hpp"
#include "solver/physics/energy_guard.hpp"

namespace dgmax {

struct RunProgress {
  std::string csv;                     // energy.csv so far, its last row the checkpoint's step
  std::vector<double> snapshot_times;  // the snapshots written, from t = 0 on
  long long next_snapshot = 1;         // index of the next snapshot by output.vtk_every
  long long next_checkpoint = 1;       // index of the next checkpoint by time
  long long samples = 0;               // rows of csv
  EnergyGuard::State guard;
  nlohmann::json monitors;             // RunMonitors::progress(); null without monitors
  std::optional<std::string> kernel_plan;  // the cuda plan the state was computed with
};

// What the record must agree with besides the checkpoint's own step and time.
struct ProgressRules {
  std::string csv_header;       // energy.csv's, e.g. "step,t,energy"
  double vtk_every = 0;         // output.vtk_every (0: no snapshots in between)
  double checkpoint_every_time = 0;  // output.checkpoint_every by time (0: by steps)
  bool monitors = false;        // this run has probes or DFT monitors
};

std::string progress_text(const RunProgress& p);

// The record of `c`, checked: it parses; energy.csv is this run's header and rows of numbers whose
// steps rise from 0 to c.step and whose last time is c.time; samples counts them; the snapshot
// times rise from 0 to at most c.time; the indices are within what c.time allows; the guard's
// values are finite; the monitors' step and time are the checkpoint's. std::runtime_error saying
// what does not hold (printable text only).
RunProgress parse_progress(const Checkpoint& c, const ProgressRules& rules);

}  // namespace dgmax
