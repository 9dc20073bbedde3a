#include "solver/io/config_keys.hpp"

namespace dgmax {

const std::vector<std::string>& config_top_level_keys() {
  static const std::vector<std::string> keys = {
      "mesh",    "discretization", "constants", "materials", "boundaries", "initial",
      "exact",   "incident",       "sources",   "time",      "output",     "backend",
      "flux",    "boundary_states", "pml", "tfsf", "probes", "monitors", "partition"};
  return keys;
}

void check_top_level_keys(const YamlDoc& doc) {
  doc.check_keys(doc.root(), config_top_level_keys(), "config");
}

}  // namespace dgmax
