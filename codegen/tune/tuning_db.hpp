// The tuning database: the fastest plan found for a problem class, kept between runs in the kernel
// cache folder (<cache root>/tuning/<backend>.json), so that the second run tunes nothing.
//
// A key names everything a plan's speed depends on: the device (name, architecture, driver), the
// order, the precision, the flux and boundary set (a hash of their texts and of which compiled
// fields the kernels carry) and a size class (K within a factor of 4). Writers take the file's lock
// (flock, as the kernel cache does), read, merge and replace the file by an atomic rename, so
// concurrent tuners lose no entry and readers never see half a file. A file that cannot be parsed
// is reported once and treated as empty (then rewritten); an entry whose plan does not parse is
// ignored with a note. A path that is not a regular file, or a file over 16 MiB, is refused.
#pragma once

#include <optional>
#include <string>

namespace dgmax::codegen {

struct TuningKey {
  std::string device;      // "NVIDIA H100 80GB HBM3 sm_90 driver 13.0"
  int order = 0;
  bool single = false;
  std::string physics;     // hash of the flux, boundary states and compiled fields
  long long elements = 0;  // K of the tuned problem (stored as its size class)

  // Size class: K rounded down to a power of 4 ("K4^9" for 262,144 <= K < 1,048,576).
  std::string size_class() const;
  // The database key: "<device>|N<order>|fp64|<physics>|<size class>".
  std::string str() const;
};

struct TunedPlan {
  std::string plan;         // CudaPlan::name()
  double gdof_per_s = 0;    // of the plan when tuned
  double default_gdof_per_s = 0;  // of the default plan in the same search
  double percent_of_floor = 0;
  long long elements = 0;   // K it was tuned on
  std::string when;         // ISO date
};

class TuningDb {
 public:
  // <root>/tuning/<backend>.json; root as for the kernel cache (default_jit_cache_dir()).
  TuningDb(const std::string& root, const std::string& backend);
  const std::string& path() const { return path_; }
  // The entry for `key`, or nullopt (no file, no entry, or a corrupt file: then a note).
  // UserError when the path is not a regular file (a FIFO, a device) or is larger than 16 MiB.
  std::optional<TunedPlan> find(const TuningKey& key) const;
  // Adds or replaces the entry for `key` under the file's lock. UserError when the folder cannot
  // be written (naming it, hint DGMAX_CACHE_DIR).
  void store(const TuningKey& key, const TunedPlan& plan) const;

 private:
  std::string root_, backend_, path_;
};

}  // namespace dgmax::codegen
