// One run: config → mesh → problem → backend → time loop with snapshots, energy log and summary.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "solver/io/run_config.hpp"

namespace dgmax {

struct RunOptions {
  std::string backend_override;                // --backend (empty: the config's)
  std::optional<std::string> output_override;  // --output (unset: the config's output.dir)
  bool quiet = false;                          // no progress line, no final report
  bool overwrite = false;                      // --overwrite: delete an earlier run's files
  std::string restart_dir;                     // --restart DIR: continue from DIR's last checkpoint
  std::string config_hash;                     // sha256 of the config after overrides
};

// Runs the configured simulation (the caller holds an InterruptGuard, interrupt.hpp, to make
// SIGINT/SIGTERM stop it cleanly) and writes into the output directory (run_directory.hpp):
// run.json, summary.json, energy.csv and snapshots. Returns 0, or 128 + the signal when SIGINT or
// SIGTERM stopped it (summary.json then says "interrupted" and the step reached). Throws
// UserError for bad input and for a blow-up, after recording "failed" and the message in
// summary.json and run.json (files written before stay valid).
int run_simulation(const RunConfig& cfg, const RunOptions& opt);

}  // namespace dgmax
