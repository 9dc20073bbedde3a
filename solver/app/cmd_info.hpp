// `dgmax info MESH|CONFIG`: mesh statistics, human-readable or as one JSON object.
#pragma once

#include <CLI/CLI.hpp>

namespace dgmax {

void add_info_command(CLI::App& app);

}  // namespace dgmax
