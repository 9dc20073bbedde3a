#include "solver/io/far_field_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dgmax {

namespace {

struct AngleRange {
  const char* name;  // "theta" or "phi"
  double lo, hi;     // allowed degrees
};
constexpr AngleRange kTheta{"theta", 0, 180}, kPhi{"phi", -360, 360};

std::string fmt_deg(double v) { return fmt::format("{}", v); }
std::string fmt_count(double n) { return fmt::format("{}", static_cast<long long>(n)); }

// A finite number of degrees (the range check is the caller's).
double degrees(const YamlDoc& doc, const YAML::Node& node, const std::string& what) {
  try {
    return doc.as_double(node, what);
  } catch (const UserError& e) {
    throw UserError(e.message(), e.where(), "angles are finite numbers of degrees, e.g. 45 or 22.5");
  }
}

double angle(const YamlDoc& doc, const YAML::Node& node, const std::string& what, const AngleRange& r) {
  const double v = degrees(doc, node, what);
  if (v < r.lo || v > r.hi)
    throw doc.error(node, "'" + what + "' = " + fmt_deg(v) + " degrees is outside [" + fmt_deg(r.lo) + ", " +
                              fmt_deg(r.hi) + "]",
                    std::string(r.name) + " is in degrees from " + fmt_deg(r.lo) + " to " + fmt_deg(r.hi));
  return v;
}

// A list of angles or a range {from, to, step}.
std::vector<double> angles(const YamlDoc& doc, const YAML::Node& node, const std::string& what, const AngleRange& r) {
  const std::string example = std::string(r.name) + ": [0, 45, 90] or " + r.name + ": {from: 0, to: 90, step: 5}";
  std::vector<double> out;
  if (node.IsSequence()) {
    if (node.size() == 0) throw doc.error(node, "'" + what + "' is an empty list", "give at least one angle: " + example);
    if (static_cast<double>(node.size()) > kMaxFarFieldDirections)
      throw doc.error(node, "'" + what + "' lists more than " + fmt_count(kMaxFarFieldDirections) + " angles",
                      "use fewer angles");
    for (size_t i = 0; i < node.size(); ++i) out.push_back(angle(doc, node[i], what + "[" + std::to_string(i) + "]", r));
    return out;
  }
  if (!node.IsMap()) throw doc.error(node, "'" + what + "' must be a list of angles or a range", example);
  doc.check_keys(node, {"from", "to", "step"}, what);
  for (const char* key : {"from", "to", "step"})
    if (!node[key])
      throw doc.error(node, "'" + what + "' needs from, to and step (degrees)", "e.g. {from: 0, to: 90, step: 5}");
  const double from = angle(doc, node["from"], what + ".from", r), to = angle(doc, node["to"], what + ".to", r);
  const double step = degrees(doc, node["step"], what + ".step");
  if (!(step > 0))
    throw doc.error(node["step"], "'" + what + ".step' must be > 0, got " + fmt_deg(step), "e.g. step: 5 (degrees)");
  if (to < from)
    throw doc.error(node["to"], "'" + what + ".to' (" + fmt_deg(to) + ") is below from (" + fmt_deg(from) + ")",
                    "a range runs upwards: from ≤ to");
  const double n = (to - from) / step;
  if (n + 1 > kMaxFarFieldDirections)
    throw doc.error(node["step"], "'" + what + "' has more than " + fmt_count(kMaxFarFieldDirections) + " angles",
                    "use a larger step");
  const long count = std::lround(n);
  if (std::abs(n - static_cast<double>(count)) > 1e-9 * std::max(1.0, n))
    throw doc.error(node["step"], "'" + what + ".step' = " + fmt_deg(step) + " does not divide to - from = " +
                                      fmt_deg(to - from),
                    "choose a step that divides the span, or list the angles");
  for (long i = 0; i <= count; ++i)
    out.push_back(i == count ? to : from + (to - from) * static_cast<double>(i) / static_cast<double>(count));
  return out;
}

}  // namespace

FarFieldGrid parse_far_field(const YamlDoc& doc, const YAML::Node& node, const std::string& what) {
  const std::string example = "e.g. far_field: {theta: {from: 0, to: 180, step: 2}, phi: [0, 90]} or far_field: {sphere: 5}";
  if (!node.IsMap()) throw doc.error(node, "'" + what + "' must be a map of theta and phi, or {sphere: STEP}", example);
  doc.check_keys(node, {"theta", "phi", "sphere"}, what);
  if (const YAML::Node s = node["sphere"]) {
    if (node["theta"] || node["phi"])
      throw doc.error(node, "'" + what + "' has sphere and theta/phi", "sphere: STEP is the whole grid; drop theta and phi");
    const double step = degrees(doc, s, what + ".sphere");
    const double n = 180 / step;
    if (!(step > 0) || step > 180 || std::abs(n - std::round(n)) > 1e-9 * n)
      throw doc.error(s, "'" + what + ".sphere' = " + fmt_deg(step) + " degrees does not divide 180",
                      "a step in degrees such as 1, 2, 5 or 10");
    if ((n + 1) * 2 * n > kMaxFarFieldDirections)
      throw doc.error(s, "'" + what + ".sphere' = " + fmt_deg(step) + " gives more than " +
                             fmt_count(kMaxFarFieldDirections) + " directions",
                      "use a larger step");
    return sphere_grid(step);
  }
  if (!node["theta"] && !node["phi"]) throw doc.error(node, "'" + what + "' needs theta and/or phi, or sphere", example);
  FarFieldGrid g;
  g.theta_deg = node["theta"] ? angles(doc, node["theta"], what + ".theta", kTheta) : std::vector<double>{};
  g.phi_deg = node["phi"] ? angles(doc, node["phi"], what + ".phi", kPhi) : std::vector<double>{0, 90};
  if (g.theta_deg.empty())
    for (int i = 0; i <= 36; ++i) g.theta_deg.push_back(5.0 * i);
  const double count = static_cast<double>(g.theta_deg.size()) * static_cast<double>(g.phi_deg.size());
  if (count > kMaxFarFieldDirections)
    throw doc.error(node, "'" + what + "' has " + fmt_count(count) + " directions (theta × phi), more than " +
                              fmt_count(kMaxFarFieldDirections),
                    "use fewer angles or larger steps");
  return g;
}

}  // namespace dgmax
