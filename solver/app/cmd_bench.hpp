// `dgmax bench`: time RK stages of each backend on a box mesh and compare with the roofline floor.
#pragma once

#include <CLI/CLI.hpp>

namespace dgmax {

void add_bench_command(CLI::App& app);

}  // namespace dgmax
