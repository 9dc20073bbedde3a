#include "solver/io/probe_writer.hpp"

#include <fmt/format.h>

#include "solver/io/atomic_write.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

ProbeLog::ProbeLog(const std::vector<std::string>& names) : probes_(names.size()) {
  text_ = "t";
  for (const std::string& n : names)
    for (const char* c : {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"}) text_ += "," + n + "." + c;
  text_ += "\n";
}

void ProbeLog::append(double t, const std::vector<double>& values) {
  DGMAX_ASSERT(values.size() == probes_ * 6, "probe values are not [P][6]");
  text_ += fmt::format("{:.17g}", t);
  for (double v : values) text_ += fmt::format(",{:.17g}", v);
  text_ += "\n";
}

void ProbeLog::write(const std::string& path) const { write_text_atomically(path, text_); }

}  // namespace dgmax
