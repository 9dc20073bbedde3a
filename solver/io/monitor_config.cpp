#include "solver/io/monitor_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

#include "codegen/dsl/constants.hpp"
#include "codegen/dsl/expr_source.hpp"
#include "solver/io/far_field_config.hpp"

namespace dgmax {
namespace {

// A probe or monitor name: it becomes a CSV column prefix or an HDF5 group.
std::string parse_name(const YamlDoc& doc, const YAML::Node& entry, const std::string& what,
                       std::set<std::string>& seen, const std::string& example) {
  if (!entry["name"]) throw doc.error(entry, "'" + what + "' needs a name", "e.g. " + example);
  const std::string name = doc.as_string(entry["name"], what + ".name");
  if (name.size() > kMaxOutputNameLength)
    throw doc.error(entry["name"], fmt::format("the name of '{}' has {} characters, more than the {} a name may have",
                                               what, name.size(), kMaxOutputNameLength),
                    "names become file names (far_field_<name>.csv: at most 255 bytes) and column headings; "
                    "use a shorter name");
  if (!dsl::is_identifier(name))
    throw doc.error(entry["name"], "'" + dsl::quote_for_message(name, 40) + "' is not a valid name for '" + what + "'",
                    "use letters, digits and '_', starting with a letter");
  if (!seen.insert(name).second)
    throw doc.error(entry["name"], "the name '" + name + "' is used twice in '" + what.substr(0, what.find('[')) + "'",
                    "give every entry its own name");
  return name;
}

// The farthest corner of the box from the origin: the farthest of its surface points.
double farthest_corner(const Vec3& lower, const Vec3& upper) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) r2 += std::max(lower[d] * lower[d], upper[d] * upper[d]);
  return std::sqrt(r2);
}

Vec3 parse_point(const YamlDoc& doc, const YAML::Node& node, const std::string& what) {
  const std::vector<double> v = doc.as_doubles(node, 3, what);
  return {v[0], v[1], v[2]};
}

}  // namespace

double far_field_power_directions(double frequency, double radius) {
  const double n = std::ceil(2 * std::numbers::pi * frequency * radius) + 10;
  return 2 * n * n;
}

ProbesSpec parse_probes(const YamlDoc& doc, const YAML::Node& node) {
  ProbesSpec spec;
  if (node.IsNull()) return spec;
  doc.check_keys(node, {"every", "points"}, "probes");
  if (node["every"]) {
    spec.every = doc.as_double(node["every"], "probes.every");
    if (spec.every < 0) throw doc.error(node["every"], "'probes.every' must be ≥ 0 (0: every step)");
  }
  const YAML::Node pts = node["points"];
  if (!pts || !pts.IsSequence() || pts.size() == 0)
    throw doc.error(pts ? pts : node, "'probes.points' must be a list of {name, at}",
                    "e.g. points: [{name: center, at: [0, 0, 0]}]");
  std::set<std::string> seen;
  for (size_t i = 0; i < pts.size(); ++i) {
    const YAML::Node e = pts[i];
    const std::string what = "probes.points[" + std::to_string(i) + "]";
    doc.check_keys(e, {"name", "at"}, what);
    ProbePointSpec p;
    p.name = parse_name(doc, e, what, seen, "{name: center, at: [0, 0, 0]}");
    if (!e["at"]) throw doc.error(e, "'" + what + "' needs at: [x, y, z]", "e.g. {name: center, at: [0, 0, 0]}");
    p.at = parse_point(doc, e["at"], what + ".at");
    p.where = doc.at(e);
    spec.points.push_back(p);
  }
  return spec;
}

std::vector<MonitorSpec> parse_monitors(const YamlDoc& doc, const YAML::Node& node, std::vector<TagReference>& tag_refs) {
  std::vector<MonitorSpec> out;
  if (node.IsNull()) return out;
  const std::string example = "- {name: box_dft, surface: {box: {lower: [0,0,0], upper: [1,1,1]}}, frequencies: [1.0]}";
  if (!node.IsSequence()) throw doc.error(node, "'monitors' must be a list of monitors", example);
  std::set<std::string> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node e = node[i];
    const std::string what = "monitors[" + std::to_string(i) + "]";
    doc.check_keys(e, {"name", "surface", "volume", "frequencies", "far_field"}, what);
    MonitorSpec m;
    m.name = parse_name(doc, e, what, seen, example);
    m.where = doc.at(e);
    if (e["surface"].IsDefined() == e["volume"].IsDefined())
      throw doc.error(e, "'" + what + "' needs one of surface or volume",
                      "surface: {box: {lower: [...], upper: [...]}} or volume: <volume tag>");
    if (const YAML::Node s = e["surface"]) {
      doc.check_keys(s, {"box"}, what + ".surface");
      const YAML::Node b = s["box"];
      if (!b) throw doc.error(s, "'" + what + ".surface' needs box: {lower: [...], upper: [...]}");
      doc.check_keys(b, {"lower", "upper"}, what + ".surface.box");
      if (!b["lower"] || !b["upper"])
        throw doc.error(b, "'" + what + ".surface.box' needs lower and upper", "e.g. {lower: [0, 0, 0], upper: [1, 1, 1]}");
      m.kind = MonitorSpec::SurfaceBox;
      m.lower = parse_point(doc, b["lower"], what + ".surface.box.lower");
      m.upper = parse_point(doc, b["upper"], what + ".surface.box.upper");
      for (int d = 0; d < 3; ++d)
        if (!(m.lower[d] < m.upper[d]))
          throw doc.error(b["upper"], "'" + what + ".surface.box' is empty: upper[" + std::to_string(d) +
                                          "] must be larger than lower[" + std::to_string(d) + "]");
      m.region_where = doc.at(b);
      if (e["far_field"]) m.far_field = parse_far_field(doc, e["far_field"], what + ".far_field");
    } else {
      if (e["far_field"])
        throw doc.error(e["far_field"], "'" + what + ".far_field' needs a closed surface, but this is a volume monitor",
                        "use far_field on a monitor with surface: {box: ...}, or drop it here");
      m.kind = MonitorSpec::Volume;
      m.volume_tag = doc.as_string(e["volume"], what + ".volume");
      m.region_where = doc.at(e["volume"]);
      tag_refs.push_back({TagReference::Volume, m.volume_tag, m.region_where});
    }
    const YAML::Node f = e["frequencies"];
    if (!f || !f.IsSequence() || f.size() == 0)
      throw doc.error(f ? f : e, "'" + what + "' needs frequencies: a list of at least one frequency",
                      "e.g. frequencies: [0.5, 1.0]");
    for (size_t j = 0; j < f.size(); ++j) {
      const double v = doc.as_double(f[j], what + ".frequencies[" + std::to_string(j) + "]");
      if (v < 0)
        throw doc.error(f[j], "'" + what + ".frequencies[" + std::to_string(j) + "]' is negative",
                        "frequencies are ≥ 0 (cycles per unit time); X(-f) is the conjugate of X(f) for real fields");
      if (m.kind == MonitorSpec::SurfaceBox) {
        const double R = farthest_corner(m.lower, m.upper);
        if (far_field_power_directions(v, R) > kMaxFarFieldDirections) {
          const double kR_max = std::sqrt(kMaxFarFieldDirections / 2) - 10;  // 2 pi f R below this
          throw doc.error(f[j],
                          fmt::format("'{}.frequencies[{}]' = {} is too high for the far field of this box: "
                                      "2 pi f R = {:.4g} (R = {:.4g}, its farthest corner from the origin) must "
                                      "stay below {:.0f}, so that the radiated power's quadrature stays within "
                                      "{:.0f} directions",
                                      what, j, v, 2 * std::numbers::pi * v * R, R, kR_max, kMaxFarFieldDirections),
                          fmt::format("use a frequency below {:.4g} for this box, or center the box on the origin",
                                      kR_max / (2 * std::numbers::pi * R)));
        }
      }
      m.frequencies.push_back(v);
      m.frequency_where.push_back(doc.at(f[j]));
    }
    out.push_back(m);
  }
  return out;
}

void check_monitor_frequencies(const std::vector<MonitorSpec>& monitors, double dt) {
  const double nyquist = 1 / (2 * dt);
  for (size_t i = 0; i < monitors.size(); ++i) {
    const MonitorSpec& m = monitors[i];
    for (size_t j = 0; j < m.frequencies.size(); ++j)
      if (m.frequencies[j] > nyquist)
        throw UserError(fmt::format("'monitors[{}].frequencies[{}]' = {} is above {:.4g}, the highest frequency the "
                                    "time step dt = {:.4g} samples (1 / (2 dt)): the DFT would measure an alias",
                                    i, j, m.frequencies[j], nyquist, dt),
                        j < m.frequency_where.size() ? m.frequency_where[j] : m.where,
                        "use frequencies below 1 / (2 dt); the mesh resolves far lower ones (a few points per "
                        "wavelength), so a frequency near this limit needs a finer mesh or a higher order anyway");
  }
}

}  // namespace dgmax
