// probes.csv: one row per probe sample, `t` then name.Ex, name.Ey, ... name.Hz per probe, values
// with 17 significant digits. Kept in memory and written atomically (atomic_write.hpp), so a run
// that fails or is killed leaves the last complete file.
#pragma once

#include <string>
#include <vector>

namespace dgmax {

class ProbeLog {
 public:
  explicit ProbeLog(const std::vector<std::string>& names);  // writes the header
  void append(double t, const std::vector<double>& values);   // values: [P][6]
  const std::string& text() const { return text_; }
  void restore(std::string text) { text_ = std::move(text); }  // from a checkpoint
  void write(const std::string& path) const;

 private:
  size_t probes_;
  std::string text_;
};

}  // namespace dgmax
