// `dgmax run [CONFIG] [--backend B] [--set key=value]... [--output DIR]`
#pragma once

#include <CLI/CLI.hpp>

namespace dgmax {

void add_run_command(CLI::App& app);

}  // namespace dgmax
