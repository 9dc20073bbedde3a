// The config schema: one entry per key path a config may hold, with its type, default, unit,
// allowed values, a description and an example. `dgmax doc config` prints it
// (docs/config-reference.md); tests/unit/io/config_schema_test.cpp holds it to the loaders both
// ways (every key a loader accepts is here, every key here is accepted).
//
// The loaders keep their own key lists next to the code that reads the keys: a list taken from
// here would let a key be documented and accepted but never read (silently ignored), which the
// two-way test cannot see, while a key added to a loader alone or to the schema alone fails it.
#pragma once

#include <string>
#include <vector>

namespace dgmax {

struct ConfigKey {
  // Dotted key path. `<tag>` / `<name>`: any name the user chooses; `[]`: each entry of a list.
  std::string path;         // "materials.<tag>.eps", "monitors[].frequencies"
  std::string type;         // "number", "list of 3 numbers", "constant expression", "map", ...
  std::string default_value;  // the value when absent, or "required" / "none"
  std::string unit;         // "length", "time", "1/time", "cycles/time", "relative"; "" unitless
  std::string allowed;      // the range or the choices the loader accepts
  std::string description;  // one or two sentences
  std::string example;      // a valid value, as YAML
};

// In section order; a map or list comes before its keys.
const std::vector<ConfigKey>& config_schema();

// The entry that a key path names: a concrete one ("materials.slab.eps", "monitors[2].name",
// also "monitors.name") or the pattern itself; a list entry ("monitors[2]") is documented by the
// list's. nullptr when none does.
const ConfigKey* find_config_key(const std::string& path);

// The section a key belongs to: its first path component ("monitors" for "monitors[].name").
std::string config_key_section(const std::string& path);

// The path of the map or list holding `path` ("monitors" for "monitors[].name"); "" at the top.
std::string config_key_parent(const std::string& path);

}  // namespace dgmax
