// Fuzz target: the YAML config loader (solver/io/yaml_doc) and the config schema
// (solver/io/run_config parse_run_config, mesh_spec, constants, materials, boundaries, flux and
// boundary-state lowering, field expressions). Input: a YAML document; when its first line is
// `#set KEY=VALUE`, that assignment is applied first, like `dgmax run --set KEY=VALUE`.
// Checked beyond "no crash": the field expressions of an accepted config lower without error
// (FieldExpr::to_field: "cannot fail after parsing").
#include <cstddef>
#include <cstdint>
#include <string>

#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"
#include "fuzz_common.hpp"

using namespace dgmax;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  RunConfig cfg;
  try {
    YamlDoc doc = YamlDoc::load_string(text, "fuzz.yaml");
    if (text.rfind("#set ", 0) == 0) doc.apply_override(text.substr(5, text.find('\n') - 5));
    cfg = parse_run_config(doc);
  } catch (const UserError& e) {
    fuzz::exercise(e);
    return 0;
  }
  try {
    for (const auto* f : {&cfg.initial, &cfg.exact, &cfg.incident, &cfg.current})
      if (f->has_value()) (void)(*f)->to_field(cfg.constants);
  } catch (const UserError& e) {
    fuzz::finding("an accepted config's field does not lower: " + e.render());
  }
  return 0;
}
