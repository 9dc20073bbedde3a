// The config reference printed from the schema (config_schema.hpp): the whole of it as Markdown
// (`dgmax doc config`, committed as docs/config-reference.md) or one key for a terminal
// (`dgmax doc config KEY`).
#pragma once

#include <string>

namespace dgmax {

// The command that prints the reference; the generated file's header names it.
inline constexpr const char* kConfigReferenceCommand = "dgmax doc config";

std::string config_reference_markdown();

// The entry of `path` ("materials.slab.eps" or the pattern "materials.<tag>.eps") and of the keys
// below it, as plain text. UserError for a path the schema lacks, with the closest key.
std::string config_key_text(const std::string& path);

}  // namespace dgmax
