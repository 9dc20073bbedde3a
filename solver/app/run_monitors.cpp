#include "solver/app/run_monitors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <iostream>
#include <stdexcept>

#include "solver/io/monitor_writer.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/physics/dft_gather.hpp"
#include "solver/physics/far_field_grid.hpp"
#include "solver/physics/near_to_far.hpp"

namespace dgmax {

RunMonitors::RunMonitors(const RunConfig& cfg, const Problem& p, Backend& backend, std::string out_dir,
                         std::vector<DftMonitor> dft)
    : backend_(backend),
      out_dir_(std::move(out_dir)),
      probes_(make_probe_set(p, cfg.probes.points)),
      probe_every_(cfg.probes.every),
      log_(probes_.names),
      dft_(std::move(dft)) {
  if (!probes_.elements.empty()) backend_.probe_setup(probes_.elements, probes_.weights);
  for (const MonitorSpec& spec : cfg.monitors) {
    far_grids_.push_back(spec.far_field);
    frequency_where_.push_back(spec.frequency_where);
  }
  DGMAX_ASSERT(far_grids_.size() == dft_.size(), "the DFT monitors are the config's, in its order");
  for (const DftMonitor& m : dft_) {
    dft_sets_.push_back(backend_.dft_add(m.nodes, m.frequencies));
    if (p.incident) incident_.emplace_back(p.incident.eval, m.frequencies);
    if (world().parallel()) whole_.push_back(gather_monitor_points(m));
  }
}

RunMonitors::~RunMonitors() {
  if (written_ || probes_.size() == 0 || !world().root()) return;
  try {
    log_.write(out_dir_ + "/probes.csv");
  } catch (const std::exception& e) {
    std::cerr << "warning: could not write " << out_dir_ << "/probes.csv: " << e.what() << "\n";
  }
}

// A probe sample over all ranks: each rank samples the elements it owns that hold a point, and
// the means over every holder come out the same on any number of ranks (ProbeSet::combine).
void RunMonitors::sample_probes(double t) {
  std::vector<double> v;  // [S][6]
  if (!probes_.elements.empty()) backend_.probe_sample(v);
  log_.append(t, probes_.combine(v));
}

void RunMonitors::start(double t) {
  if (probes_.size() == 0) return;
  sample_probes(t);
}

void RunMonitors::after_step(double t, double dt, long long step) {
  if (!dft_.empty()) backend_.dft_accumulate(t, dt);
  for (IncidentDft& inc : incident_) inc.accumulate(t, dt);
  t_last_ = t;
  steps_ = step;
  if (probes_.size() == 0) return;
  if (probe_every_ > 0) {
    if (t < static_cast<double>(next_probe_) * probe_every_ * (1 - 1e-12)) return;
    next_probe_ = static_cast<long long>(std::floor(t / probe_every_ * (1 + 1e-12))) + 1;
  }
  sample_probes(t);
}

nlohmann::json RunMonitors::progress() const {
  nlohmann::json j = {{"probes_csv", log_.text()}, {"next_probe", next_probe_}, {"t", t_last_}, {"steps", steps_}};
  for (size_t i = 0; i < dft_.size(); ++i) {
    std::vector<double> re, im;
    backend_.dft_get(dft_sets_[i], re, im);
    gather_dft_sums(dft_[i], re, im);  // [F][whole points][6]: the record is rank 0's, restorable on any ranks
    j["dft"].push_back({{"name", dft_[i].name}, {"re", re}, {"im", im}});
    if (i < incident_.size()) j["dft"].back()["incident"] = incident_[i].to_json();
  }
  return j;
}

namespace {

bool finite_pattern(const FarFieldPattern& pat) {
  if (!std::isfinite(pat.power) || !std::isfinite(std::abs(pat.incident))) return false;
  for (const FarField& F : pat.fields)
    if (!std::isfinite(std::abs(F.E_theta)) || !std::isfinite(std::abs(F.E_phi))) return false;
  return true;
}

// This rank's points [F][M][6] out of the whole monitor's sums [F][whole_points][6].
std::vector<double> own_points(const DftMonitor& m, const std::vector<double>& whole) {
  const size_t F = m.frequencies.size(), W = static_cast<size_t>(m.whole_points), M = m.index.size();
  if (whole.size() != F * W * 6)
    throw std::runtime_error("monitor '" + m.name + "' has " + std::to_string(whole.size()) + " DFT sums, expected " +
                             std::to_string(F * W * 6));
  std::vector<double> out(F * M * 6);
  for (size_t f = 0; f < F; ++f)
    for (size_t p = 0; p < M; ++p)
      std::copy_n(whole.begin() + static_cast<long>((f * W + static_cast<size_t>(m.index[p])) * 6), 6,
                  out.begin() + static_cast<long>((f * M + p) * 6));
  return out;
}

}  // namespace

void RunMonitors::restore(const nlohmann::json& j, double t) {
  log_.restore(j.at("probes_csv").get<std::string>(), t);
  next_probe_ = j.at("next_probe").get<long long>();
  t_last_ = j.at("t").get<double>();
  steps_ = j.at("steps").get<long long>();
  for (size_t i = 0; i < dft_.size(); ++i) {
    const nlohmann::json& d = j.at("dft").at(i);
    backend_.dft_set(dft_sets_[i], own_points(dft_[i], d.at("re").get<std::vector<double>>()),
                     own_points(dft_[i], d.at("im").get<std::vector<double>>()));
    if (i < incident_.size()) {
      // a checkpoint from before the incident DFT existed: no rcs column rather than a wrong one
      if (!d.contains("incident")) {
        incident_.clear();
        continue;
      }
      incident_[i].from_json(d.at("incident"));
    }
  }
}

// far_field_<name>.csv for each closed-surface monitor: the near-to-far transform of its DFT at each
// positive frequency on the monitor's far_field grid (default: the cuts phi = 0 and 90 deg every 5
// degrees), and its radiated power both ways ("far_field" in summary.json). With an incident field,
// each pattern carries |DFT of E_inc| at the origin, which adds the rcs column (left out for a
// monitor where it is 0 at some frequency: no incident wave to normalize by); without one, the
// power adds the directivity columns (left out where it is 0 at some frequency).
void RunMonitors::write_far_fields(const std::vector<MonitorResult>& results) {
  far_field_ = nlohmann::json::object();
  for (size_t m = 0; m < results.size(); ++m) {
    const MonitorResult& r = results[m];
    if (!r.monitor->surface) continue;
    const SurfaceDft dft = surface_dft(*r.monitor, r.re, r.im);
    std::vector<FarFieldPattern> patterns;
    const std::vector<FarFieldDirection> dirs = far_field_directions(far_grids_.at(m));
    nlohmann::json powers = nlohmann::json::array();
    for (size_t f = 0; f < dft.frequencies.size(); ++f) {
      if (!(dft.frequencies[f] > 0)) continue;
      FarFieldPattern pat;
      pat.frequency = dft.frequencies[f];
      pat.directions = dirs;
      pat.fields = far_field(dft, f, dirs);
      if (m < incident_.size()) pat.incident = incident_[m].amplitude(f);
      pat.power = radiated_power(dft, f, power_quadrature_points(dft, f));
      if (!finite_pattern(pat) || !std::isfinite(surface_power(dft, f)))
        throw UserError(fmt::format("the far field of monitor '{}' at frequency {} is not finite", r.monitor->name,
                                    pat.frequency),
                        f < frequency_where_.at(m).size() ? frequency_where_[m][f] : SourceLocation{},
                        "its DFT sums overflowed: the fields are too large for this frequency's far field; lower "
                        "the source amplitude or the frequency");
      powers.push_back({{"frequency", pat.frequency}, {"power_far", pat.power}, {"power_surface", surface_power(dft, f)}});
      patterns.push_back(std::move(pat));
    }
    bool normalized = true, powered = true;
    for (const FarFieldPattern& pat : patterns) {
      normalized = normalized && std::abs(pat.incident) > 0;
      powered = powered && pat.power > 0;
    }
    for (FarFieldPattern& pat : patterns) {
      if (!normalized) pat.incident = 0;
      if (normalized || !powered) pat.power = 0;  // a scattering pattern has its rcs, not a directivity
    }
    if (patterns.empty()) continue;
    const std::string csv = "far_field_" + r.monitor->name + ".csv";
    write_far_field_csv(out_dir_ + "/" + csv, patterns);
    far_field_[r.monitor->name] = {{"csv", csv}, {"directions", dirs.size()}, {"powers", powers}};
  }
}

std::string far_field_report(const nlohmann::json& far_field) {
  std::string out;
  for (const auto& [name, m] : far_field.items()) {
    out += fmt::format("       far field of '{}': {} ({} directions); radiated power\n", name,
                       m.at("csv").get<std::string>(), m.at("directions").get<size_t>());
    for (const nlohmann::json& p : m.at("powers")) {
      const double far = p.at("power_far").get<double>(), surf = p.at("power_surface").get<double>();
      out += fmt::format("         f = {:<8g} {:.6e} over the far-field sphere, {:.6e} through the surface",
                         p.at("frequency").get<double>(), far, surf);
      out += surf != 0 ? fmt::format(" ({:+.2f}%)\n", 100 * (far / surf - 1)) : "\n";
    }
  }
  return out;
}

void RunMonitors::write(double t, long long steps, bool final) {
  if (probes_.size() > 0 && world().root()) log_.write(out_dir_ + "/probes.csv");  // rank 0's: the samples are summed
  if (!dft_.empty()) {
    std::vector<MonitorResult> results(dft_.size());
    for (size_t i = 0; i < dft_.size(); ++i) {
      results[i].monitor = whole_.empty() ? &dft_[i] : &whole_[i];
      backend_.dft_get(dft_sets_[i], results[i].re, results[i].im);
      gather_dft_sums(dft_[i], results[i].re, results[i].im);  // several ranks: all of them on rank 0
    }
    if (world().root()) {
      write_monitors_h5(out_dir_ + "/monitors.h5", results, t, steps);
      if (final) write_far_fields(results);
    }
  }
  written_ = final;
}

}  // namespace dgmax
