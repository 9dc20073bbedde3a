// `dgmax tune`: search the cuda plan space (or with --backend cpu the cpu backend's) for a config's
// problem or a benchmark box, print every plan tried (time, GDOF/s, % of the roofline floor, or why
// it was refused), and keep the fastest in the tuning database for `dgmax run` and `dgmax bench`.
#pragma once

#include <CLI/CLI.hpp>

namespace dgmax {

void add_tune_command(CLI::App& app);

}  // namespace dgmax
