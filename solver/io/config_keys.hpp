// The top-level keys of a dgmax config (the schema contract; sections are parsed by their owners).
#pragma once

#include <string>
#include <vector>

#include "solver/io/yaml_doc.hpp"

namespace dgmax {

const std::vector<std::string>& config_top_level_keys();

// Unknown top-level key → UserError naming the closest valid key.
void check_top_level_keys(const YamlDoc& doc);

}  // namespace dgmax
