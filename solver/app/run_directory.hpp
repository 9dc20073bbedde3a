// An output directory owned by one run at a time.
//
// The run manifest <dir>/run.json is written first and kept up to date: dgmax version, config and
// its hash, start time, pid and host, and "state": running → finished | failed | interrupted (with
// the step reached and the error message). While a run lives it holds an exclusive lock on
// <dir>/.dgmax.lock (flock: released by the kernel when the process dies, so a killed run never
// leaves a stale lock), and a second run into the same directory is refused.
//
// The files of an earlier run (run.json, summary.json, energy.csv, <stem>.pvd, <stem>_NNNNN.vtu/.h5,
// a partitioned run's <stem>_NNNNN_pRRRR.vtu/.h5 pieces and <stem>_NNNNN.pvtu, checkpoint_*.h5
// and left-over *.tmp) are moved into <dir>/previous/ before the run starts (an older previous/ is
// deleted), or deleted with --overwrite; other files are left alone. So a
// directory never mixes two runs: a run that fails leaves its own partial output and the earlier
// run complete in previous/. A restart (--restart) continues in the directory instead.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace dgmax {

enum class ClaimMode { MoveAside, Overwrite, Continue };

class RunDirectory {
 public:
  // Creates `dir` when missing, takes the lock, clears or keeps the earlier run's files per `mode`
  // and writes run.json with `identity` (plus start time, pid, host) and "state": "running".
  // UserError naming the directory when it cannot be written, another live run holds it, or (for
  // Continue) it holds no run.
  RunDirectory(std::string dir, std::string stem, ClaimMode mode, nlohmann::json identity);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  // Rewrites run.json with `state` and the given extra keys (merged over the identity).
  void set_state(const std::string& state, const nlohmann::json& extra = {});

  const std::string& path() const { return dir_; }
  // Files moved aside (or deleted) when the run started, for the user's note; empty if none.
  int cleared_files() const { return cleared_; }
  const std::string& cleared_to() const { return cleared_to_; }  // "" when deleted or none

 private:
  std::string dir_, stem_;
  int lock_fd_ = -1;
  nlohmann::json manifest_;
  int cleared_ = 0;
  std::string cleared_to_;
};

// Whether a file name in a run directory is one a dgmax run with snapshot stem `stem` writes.
bool is_run_output(const std::string& name, const std::string& stem);

}  // namespace dgmax
