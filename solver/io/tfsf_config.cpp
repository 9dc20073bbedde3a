#include "solver/io/tfsf_config.hpp"

namespace dgmax {

std::optional<TfsfSpec> parse_tfsf_config(const YamlDoc& doc, const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return std::nullopt;
  const char* example = "e.g. tfsf: {box: {lower: [-0.3, -0.3, -0.3], upper: [0.3, 0.3, 0.3]}}";
  if (!node.IsMap()) throw doc.error(node, "'tfsf' must be a mapping", example);
  doc.check_keys(node, {"box"}, "tfsf");
  const YAML::Node box = node["box"];
  if (!box.IsDefined() || !box.IsMap()) throw doc.error(node, "'tfsf' needs box: {lower: [...], upper: [...]}", example);
  doc.check_keys(box, {"lower", "upper"}, "tfsf.box");
  if (!box["lower"] || !box["upper"]) throw doc.error(box, "'tfsf.box' needs lower and upper", example);
  TfsfSpec spec;
  const auto lo = doc.as_doubles(box["lower"], 3, "tfsf.box.lower");
  const auto hi = doc.as_doubles(box["upper"], 3, "tfsf.box.upper");
  for (int d = 0; d < 3; ++d) {
    spec.lower[d] = lo[d], spec.upper[d] = hi[d];
    if (!(hi[d] > lo[d]))
      throw doc.error(box["upper"], "'tfsf.box.upper' must exceed 'lower' in every direction", example);
  }
  spec.where = doc.at(node);
  return spec;
}

}  // namespace dgmax
