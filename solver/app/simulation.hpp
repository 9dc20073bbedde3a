// One run: config → mesh → problem → backend → time loop with snapshots, energy log and summary.
#pragma once

#include <memory>
#include <string>

#include "solver/io/run_config.hpp"

namespace dgmax {

struct RunOptions {
  std::string backend_override;  // --backend (empty: the config's)
  std::string output_override;   // --output (empty: the config's output.dir)
  bool quiet = false;            // no progress line, no final report
};

// Runs the configured simulation and writes <out>/summary.json, <out>/energy.csv and snapshots.
// Throws UserError for bad input and for a blow-up (files written before stay valid).
void run_simulation(const RunConfig& cfg, const RunOptions& opt);

}  // namespace dgmax
