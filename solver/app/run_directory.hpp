// An output directory owned by one run at a time, in which dgmax touches only its own files.
//
// The run manifest <dir>/run.json is written first and kept up to date: dgmax version, config and
// its hash, start time, pid and host, "outputs" (what this run may write there, below) and "state":
// running → finished | failed | interrupted (with the step reached and the error message). While a
// run lives it holds an exclusive lock on <dir>/.dgmax.lock (flock: released by the kernel when the
// process dies, so a killed run never leaves a stale lock), and a second run into the same
// directory is refused.
//
// Which files are an earlier run's is decided from what that run recorded, not from names alone.
// Its run.json is written before any other file and lists its "outputs" up front (RunOutputs: the
// single files such as probes.csv, monitors.h5 and far_field_<name>.csv, the snapshot stem, the
// checkpoints), so the record exists even for a run that was killed outright and never wrote a
// summary. A file is the earlier run's when that record names it (or its numbered family, or it is
// dgmax's temporary file of such a name, is_dgmax_temp_name) and it is a regular file; the record's
// names are accepted only in the forms dgmax writes, so an altered run.json cannot claim notes.txt.
// An earlier manifest without "outputs" (dgmax before the record) stands for what that version
// could write. Matching by names alone (the earlier design) moved or deleted a user's `*.tmp` and
// left an earlier run's probes.csv, monitors.h5 and far fields beside the next run's.
//
// When the run starts (not on --restart, which continues in the directory):
// - the earlier run's files are moved into their own folder previous/<YYYYmmdd-HHMMSS>-<pid>/
//   (its start time and pid, from its run.json; run.json last, so that a move cut short is
//   finished by the next run into the same folder), or deleted with --overwrite. previous/ keeps
//   the newest kKeptEarlierRuns runs; of an older one only the files its own run.json names are
//   deleted, and its folder only when that leaves it empty. A flat previous/ of dgmax before the
//   per-run folders is moved into its folder the same way. Anything else in previous/ is left
//   alone.
// - nothing else is moved or deleted. A file this run would write that no earlier run recorded
//   (a user's summary.json, a run.json that is not a dgmax manifest) is refused, naming it, unless
//   --overwrite asks to replace it; one that is not a regular file (a link, device, FIFO,
//   directory) is refused always, as is a `previous` that is not a directory when one is needed.
// So a directory never mixes two runs: a run that fails leaves its own partial output and the
// earlier run complete in previous/<its folder>/.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dgmax {

struct RunConfig;

// How many earlier runs previous/ keeps (one folder each); the oldest beyond are deleted.
constexpr int kKeptEarlierRuns = 3;

// What a run writes into its directory ("outputs" in run.json).
struct RunOutputs {
  std::vector<std::string> files;  // single files: run.json, summary.json, energy.csv, probes.csv, ...
  std::string stem;                // snapshots: <stem>.pvd, <stem>_NNNNN[_pRRRR].(vtu|pvtu|h5)
  bool any_far_field = false;      // any far_field_*.csv (an earlier run that recorded no names)
  // checkpoints (checkpoint_N.h5, checkpoint_N_pRRRR.h5) are every run's

  // Those of a run of `cfg` with snapshot stem `stem`: probes.csv with probes, monitors.h5 and
  // far_field_<name>.csv with monitors.
  static RunOutputs of(const RunConfig& cfg, const std::string& stem);
  // Those of an earlier run whose manifest holds no record (dgmax before it): any far field.
  static RunOutputs unrecorded(const std::string& stem);
  nlohmann::json to_json() const;
  // The record of a manifest's "outputs"; nullopt when absent or not in the forms dgmax writes.
  static std::optional<RunOutputs> from_json(const nlohmann::json& j);
  void merge(const RunOutputs& other);  // a restart also owns what the run before it wrote

  // Whether a file named `name` (no directory) is one of these, or dgmax's temporary file of one.
  bool owns(const std::string& name) const;
};

enum class ClaimMode { MoveAside, Overwrite, Continue };

class RunDirectory {
 public:
  // Creates `dir` when missing, takes the lock, moves aside or deletes the earlier run's files per
  // `mode` and writes run.json with `identity` (plus start time, pid, host and `outputs`) and
  // "state": "running". UserError naming the directory (or the file) when it cannot be written,
  // another live run holds it, it holds a file the run would write that no earlier run recorded
  // or that is not a regular file, or (for Continue) it holds no run.
  RunDirectory(std::string dir, RunOutputs outputs, ClaimMode mode, nlohmann::json identity);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  // Rewrites run.json with `state` and the given extra keys (merged over the identity).
  void set_state(const std::string& state, const nlohmann::json& extra = {});

  // The names of this run's files now in the directory (regular files, no temporary ones), sorted:
  // what summary.json lists as the run's outputs.
  std::vector<std::string> files_present() const;

  const std::string& path() const { return dir_; }
  // Files moved aside (or deleted) when the run started, for the user's note; empty if none.
  int cleared_files() const { return cleared_; }
  const std::string& cleared_to() const { return cleared_to_; }  // "" when deleted or none

 private:
  std::string dir_;
  RunOutputs outputs_;
  int lock_fd_ = -1;
  nlohmann::json manifest_;
  int cleared_ = 0;
  std::string cleared_to_;
};

}  // namespace dgmax
