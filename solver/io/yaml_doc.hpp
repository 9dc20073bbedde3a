// A parsed YAML file that remembers where each node came from, so every config error can name
// file:line:column, show the line with a caret, and suggest the closest valid key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <source_location>
#include <string>
#include <vector>

#include "codegen/dsl/expr_source.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

// Limits on a config, so hostile or mistaken input (a huge file, /dev/zero, an alias bomb, deep
// nesting) fails fast with a message instead of exhausting time or memory. Real configs are a few
// kB, nest 4-5 levels and use a handful of anchors.
inline constexpr size_t kMaxConfigBytes = 1 << 20;  // 1 MiB
inline constexpr int kMaxYamlDepth = 64;            // nested mappings/sequences
inline constexpr int kMaxYamlAliases = 1000;        // *alias uses

class YamlDoc {
 public:
  // Throws UserError for unreadable files (with the reason), files over kMaxConfigBytes, YAML
  // syntax errors, and input dgmax would misread: a second document, duplicate keys, keys that are
  // not plain names (mappings, lists, aliases, null, control characters), tags (!!foo, !custom),
  // nesting deeper than kMaxYamlDepth, more than kMaxYamlAliases aliases, NUL bytes. All located.
  static YamlDoc load_file(const std::string& path);
  static YamlDoc load_string(const std::string& text, const std::string& name);

  const YAML::Node& root() const { return root_; }
  const std::string& path() const { return path_; }

  // Location of a node (its first character) with the source line as snippet.
  SourceLocation at(const YAML::Node& node) const;

  // UserError located at `node`.
  UserError error(const YAML::Node& node, const std::string& message, const std::string& hint = {}) const;

  // Rejects keys of map `node` outside `allowed`; names the closest allowed key. `context` is the
  // key path of the map, e.g. "mesh.box". Also rejects a non-map node. Each check, with its call
  // site, goes to the live KeyCheckLog if any (key_check_log.hpp: how the schema test finds every
  // key a loader accepts).
  void check_keys(const YAML::Node& node, const std::vector<std::string>& allowed, const std::string& context,
                  std::source_location site = std::source_location::current()) const;

  // Typed scalars with located errors. `what` is the key path used in messages.
  double as_double(const YAML::Node& node, const std::string& what) const;
  int as_int(const YAML::Node& node, const std::string& what) const;
  std::string as_string(const YAML::Node& node, const std::string& what) const;
  // A sequence of exactly n numbers.
  std::vector<double> as_doubles(const YAML::Node& node, size_t n, const std::string& what) const;
  std::vector<int> as_ints(const YAML::Node& node, size_t n, const std::string& what) const;

  // A scalar holding an expression, with the location of its first character (inside the quotes
  // of a quoted scalar) so expression errors put the caret under the right character.
  dsl::ExprSource expr_source(const YAML::Node& node, const std::string& what) const;

  // `--set a.b.c=value`: replaces (or creates) the node at the dotted key path; `value` is parsed
  // as YAML ("8", "[8, 8, 8]", "{alpha: 0.5}"). Throws UserError for a malformed assignment. Only
  // the named path changes: a key that is, or lies inside, a YAML alias (*name) or its anchor
  // (&name) is set there alone, the anchor's other uses keep the file's value.
  void apply_override(const std::string& assignment);

  // How many nodes --set has replaced or created so far, each counted once however many YAML
  // aliases name it (what bounds the work of an alias bomb in a --set value; for tests).
  size_t override_node_count() const { return overrides_.size(); }

 private:
  // Nodes created or replaced by --set, with the assignment they came from: their errors name
  // the option instead of a (wrong) place in the file.
  struct Override {
    YAML::Node node;
    std::string assignment;
  };
  void track_override(const YAML::Node& node, const std::string& assignment);
  // Replaces the map parent[key] by a copy of itself (the same key and value nodes) and returns it.
  static YAML::Node unshare(YAML::Node parent, const std::string& key);
  // Where a file position is, with its line as snippet (left out when absurdly long).
  SourceLocation location(int line0, int column0) const;
  // Lays the scalar's text over its source (quotes, escapes, folded lines), so expression errors
  // find their file position; false when the text cannot be found there (then messages quote it).
  bool map_scalar_positions(const YAML::Node& node, dsl::ExprSource& src) const;

  YAML::Node root_;
  std::string path_;
  std::vector<std::string> lines_;
  std::vector<Override> overrides_;
  std::set<int> anchored_;  // file offsets of the anchored nodes (&name)
};

}  // namespace dgmax
