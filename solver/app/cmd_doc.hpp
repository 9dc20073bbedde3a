// `dgmax doc config [KEY]`: the config reference from the schema, as Markdown
// (docs/config-reference.md is its output), or one key's entry.
#pragma once

#include <CLI/CLI.hpp>

namespace dgmax {

void add_doc_command(CLI::App& app);

}  // namespace dgmax
