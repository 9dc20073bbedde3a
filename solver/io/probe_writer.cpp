#include "solver/io/probe_writer.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "solver/io/atomic_write.hpp"
#include "solver/io/csv_rows.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

ProbeLog::ProbeLog(const std::vector<std::string>& names) : probes_(names.size()) {
  header_ = "t";
  for (const std::string& n : names)
    for (const char* c : {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"}) header_ += "," + n + "." + c;
  text_ = header_ + "\n";
}

void ProbeLog::restore(std::string text, double t_max) {
  const auto rows = parse_csv_numbers(text, header_, "probes.csv");
  for (size_t i = 0; i < rows.size(); ++i)
    if (!(rows[i][0] >= 0 && rows[i][0] <= t_max) || (i > 0 && !(rows[i][0] > rows[i - 1][0])))
      throw std::runtime_error("probes.csv row " + std::to_string(i + 1) + ": time " + fmt::format("{:.17g}", rows[i][0]) +
                               " is out of order or after the checkpoint's t = " + fmt::format("{:.17g}", t_max));
  text_ = std::move(text);
}

void ProbeLog::append(double t, const std::vector<double>& values) {
  DGMAX_ASSERT(values.size() == probes_ * 6, "probe values are not [P][6]");
  text_ += fmt::format("{:.17g}", t);
  for (double v : values) text_ += fmt::format(",{:.17g}", v);
  text_ += "\n";
}

void ProbeLog::write(const std::string& path) const { write_text_atomically(path, text_); }

}  // namespace dgmax
