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
  // From a checkpoint: `text` must be this log's header, then rows of 1 + 6P numbers whose times
  // rise and are at most `t_max`; std::runtime_error saying what does not hold otherwise.
  void restore(std::string text, double t_max);
  void write(const std::string& path) const;

 private:
  size_t probes_;
  std::string header_;  // without its newline
  std::string text_;
};

}  // namespace dgmax
