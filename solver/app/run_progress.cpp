#include "solver/app/run_progress.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "solver/io/csv_rows.hpp"
#include "solver/util/printable.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

namespace {

[[noreturn]] void bad(const std::string& why) { throw std::runtime_error("its progress record: " + why); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The index a schedule by time holds after time t: floor(t / every * (1 + 1e-12)) + 1, as the run
// computes it (simulation.cpp).
long long index_after(double t, double every) {
  return static_cast<long long>(std::floor(t / every * (1 + 1e-12))) + 1;
}

}  // namespace

std::string progress_text(const RunProgress& p) {
  const auto& g = p.guard;
  nlohmann::json j = {{"csv", p.csv},
                      {"snapshot_times", p.snapshot_times},
                      {"next_snapshot", p.next_snapshot},
                      {"next_checkpoint", p.next_checkpoint},
                      {"samples", p.samples},
                      {"guard", {g.W0, g.t_last, g.current_budget, g.incident_budget}}};
  if (p.kernel_plan) j["kernel_plan"] = *p.kernel_plan;
  if (!p.monitors.is_null()) j["monitors"] = p.monitors;
  return j.dump();
}

RunProgress parse_progress(const Checkpoint& c, const ProgressRules& rules) {
  RunProgress p;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(c.progress);
    p.csv = j.at("csv").get<std::string>();
    p.snapshot_times = j.at("snapshot_times").get<std::vector<double>>();
    p.next_snapshot = j.at("next_snapshot").get<long long>();
    p.next_checkpoint = j.at("next_checkpoint").get<long long>();
    p.samples = j.at("samples").get<long long>();
    const auto g = j.at("guard").get<std::vector<double>>();
    if (g.size() != 4) bad("the energy guard has " + std::to_string(g.size()) + " values, not 4");
    p.guard = {g[0], g[1], g[2], g[3]};
    if (j.contains("kernel_plan")) p.kernel_plan = j["kernel_plan"].get<std::string>();
    if (rules.monitors) p.monitors = j.at("monitors");
  } catch (const nlohmann::json::exception& e) {
    bad(printable_text(e.what()));  // a parser's excerpt of a damaged record may hold any byte
  }
  const double t = c.time;
  // energy.csv: step, t, energy[, errors]; a checkpoint's step is always sampled
  std::vector<std::vector<double>> rows;
  try {
    rows = parse_csv_numbers(p.csv, rules.csv_header, "energy.csv");
  } catch (const std::runtime_error& e) {
    bad(e.what());
  }
  if (rows.empty() || static_cast<long long>(rows.size()) != p.samples)
    bad(std::to_string(rows.size()) + " rows of energy.csv for " + std::to_string(p.samples) + " samples");
  for (size_t i = 0; i < rows.size(); ++i) {
    const double step = rows[i][0];
    if (step != std::floor(step) || (i == 0 ? step != 0 : !(step > rows[i - 1][0] && rows[i][1] >= rows[i - 1][1])))
      bad("energy.csv row " + std::to_string(i + 1) + " does not follow the one before (step " + fmt_g(step) + ")");
  }
  if (rows.back()[0] != static_cast<double>(c.step) || !same_bits(rows.back()[1], t))
    bad("energy.csv ends at step " + fmt_g(rows.back()[0]) + ", t = " + fmt_g(rows.back()[1]) +
        ", not at the checkpoint's step " + std::to_string(c.step) + ", t = " + fmt_g(t));
  // the snapshot series: t = 0 first, rising, none after t
  const auto& s = p.snapshot_times;
  for (size_t i = 0; i < s.size(); ++i)
    if (!std::isfinite(s[i]) || s[i] > t || (i == 0 ? s[i] != 0 : !(s[i] > s[i - 1])))
      bad("snapshot time " + std::to_string(i + 1) + " (" + fmt_g(s[i]) + ") is out of order or after t = " + fmt_g(t));
  if (s.empty()) bad("no snapshot at t = 0");
  const long long most = rules.vtk_every > 0 ? index_after(t, rules.vtk_every) : 1;
  if (p.next_snapshot < 1 || p.next_snapshot > most || static_cast<long long>(s.size()) > p.next_snapshot ||
      (rules.vtk_every <= 0 && p.next_snapshot != 1))
    bad("next snapshot index " + std::to_string(p.next_snapshot) + " does not fit " + std::to_string(s.size()) +
        " snapshots up to t = " + fmt_g(t));
  const long long next_ckpt = rules.checkpoint_every_time > 0 ? index_after(t, rules.checkpoint_every_time) : 1;
  if (p.next_checkpoint != next_ckpt)
    bad("next checkpoint index " + std::to_string(p.next_checkpoint) + " is not " + std::to_string(next_ckpt) +
        " at t = " + fmt_g(t));
  const auto& g = p.guard;
  if (!(std::isfinite(g.W0) && g.W0 >= 0 && g.t_last >= 0 && g.t_last <= t && std::isfinite(g.current_budget) &&
        g.current_budget >= 0 && std::isfinite(g.incident_budget) && g.incident_budget >= 0))
    bad("the energy guard's values are out of range");
  if (rules.monitors) {
    try {
      if (!same_bits(p.monitors.at("t").get<double>(), t) || p.monitors.at("steps").get<long long>() != c.step)
        bad("the monitors' step and time are not the checkpoint's");
    } catch (const nlohmann::json::exception& e) {
      bad(printable_text(e.what()));
    }
  }
  return p;
}

}  // namespace dgmax
