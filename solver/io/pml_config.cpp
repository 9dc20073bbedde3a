#include "solver/io/pml_config.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dgmax {

std::optional<PmlSpec> parse_pml_config(const YamlDoc& doc, const YAML::Node& node, const MeshSpec& mesh, double cfl) {
  const bool box_layer = mesh.pml_thickness > 0;
  if (!node.IsDefined() || node.IsNull()) {
    if (!box_layer) return std::nullopt;
    PmlSpec spec;
    spec.regions = {"pml"};
    // errors about the layer (the time step) point at mesh.box.pml, whose location comes first
    spec.where = mesh.region_where.empty() ? SourceLocation{doc.path()} : mesh.region_where.front();
    return spec;
  }
  if (!node.IsMap())
    throw doc.error(node, "'pml' must be a mapping", "e.g. pml: {thickness: 0.3, order: 3, reflection: 1e-6}");
  doc.check_keys(node, {"regions", "thickness", "order", "reflection", "sigma_max", "kappa", "alpha"}, "pml");
  PmlSpec spec;
  spec.where = doc.at(node);
  if (const YAML::Node r = node["regions"]; r.IsDefined()) {
    if (!r.IsSequence() || r.size() == 0)
      throw doc.error(r, "'pml.regions' must be a non-empty list of volume tags", "e.g. regions: [pml]");
    for (size_t i = 0; i < r.size(); ++i) spec.regions.push_back(doc.as_string(r[i], "pml.regions"));
  }
  auto number = [&](const char* key, double& out) {
    if (const YAML::Node v = node[key]; v.IsDefined()) out = doc.as_double(v, std::string("pml.") + key);
  };
  number("thickness", spec.thickness);
  number("order", spec.order);
  number("reflection", spec.reflection);
  number("sigma_max", spec.sigma_max);
  number("kappa", spec.kappa);
  number("alpha", spec.alpha);
  // the ranges (as build_pml_layer checks them) at each key's own location
  auto check = [&](const char* key, bool ok, const std::string& what, const char* hint) {
    if (node[key].IsDefined() && !ok) throw doc.error(node[key], "pml: " + what, hint);
  };
  check("order", spec.order >= 0 && spec.order <= 10, fmt::format("order {} is outside [0, 10]", spec.order),
        "2 to 4 is usual");
  check("reflection", spec.reflection > 0 && spec.reflection < 1,
        fmt::format("reflection {} is not in (0, 1)", spec.reflection), "the target reflection, e.g. 1e-6");
  check("kappa", spec.kappa >= 1, fmt::format("kappa {} is not >= 1", spec.kappa), "1 means no real stretching");
  check("alpha", spec.alpha >= 0, fmt::format("alpha {} is not a finite value >= 0", spec.alpha),
        "a small positive shift such as 0.05 damps static fields");
  check("thickness", spec.thickness >= 0, fmt::format("thickness {} is not a finite value > 0", spec.thickness),
        "the layer's thickness in length units; or regions: [...]");
  if (node["sigma_max"].IsDefined() && node["reflection"].IsDefined())
    throw doc.error(node["sigma_max"], "'pml' has both 'sigma_max' and 'reflection'", "give one of them");
  if (node["sigma_max"].IsDefined() && !(spec.sigma_max > 0))
    throw doc.error(node["sigma_max"], "'pml.sigma_max' must be positive", "leave it out to derive it from 'reflection'");
  if (node["kappa"].IsDefined() && spec.kappa * cfl > kMaxPmlKappaCfl)
    throw doc.error(node["kappa"],
                    fmt::format("pml: kappa {} cannot be stable with time.cfl = {}: kappa multiplies the layer's "
                                "right-hand side, and kappa x cfl must stay at most {}",
                                spec.kappa, cfl, kMaxPmlKappaCfl),
                    fmt::format("lower kappa to at most {:.3g}, or time.cfl to at most {:.3g}", kMaxPmlKappaCfl / cfl,
                                kMaxPmlKappaCfl / spec.kappa));
  // the keys that set the damping rate, for the time-step check's message
  for (const char* key : {"sigma_max", "reflection"})
    if (node[key].IsDefined() && spec.sigma_where.file.empty()) spec.sigma_where = doc.at(node[key]);
  if (node["alpha"].IsDefined()) spec.alpha_where = doc.at(node["alpha"]);
  if (spec.regions.empty() && spec.thickness == 0 && box_layer) spec.regions = {"pml"};
  return spec;
}

}  // namespace dgmax
