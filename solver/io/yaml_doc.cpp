#include "solver/io/yaml_doc.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) lines.push_back(line);
  return lines;
}

}  // namespace

YamlDoc YamlDoc::load_string(const std::string& text, const std::string& name) {
  YamlDoc doc;
  doc.path_ = name;
  doc.lines_ = split_lines(text);
  try {
    doc.root_ = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SourceLocation where{name, e.mark.line + 1, e.mark.column + 1, {}};
    if (e.mark.line >= 0 && e.mark.line < static_cast<int>(doc.lines_.size()))
      where.snippet = doc.lines_[e.mark.line];
    throw UserError("invalid YAML: " + e.msg, where, "check indentation, colons and brackets");
  }
  if (doc.root_.IsNull()) doc.root_ = YAML::Node(YAML::NodeType::Map);
  if (!doc.root_.IsMap())
    throw UserError("the config must be a YAML mapping (key: value lines)", {name, 1, 1, {}});
  doc.reject_duplicate_keys(doc.root_);
  return doc;
}

// yaml-cpp keeps both entries of a repeated key and lookups return the first: reject them, or the
// second value would be silently ignored.
void YamlDoc::reject_duplicate_keys(const YAML::Node& node) const {
  if (node.IsMap()) {
    std::map<std::string, YAML::Node> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (auto it = seen.find(key); it != seen.end() && kv.first.IsScalar())
        throw UserError("duplicate key '" + key + "'", at(kv.first),
                        "first defined at line " + std::to_string(at(it->second).line) +
                            "; merge the two entries");
      seen.emplace(key, kv.first);
      reject_duplicate_keys(kv.second);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) reject_duplicate_keys(item);
  }
}

YamlDoc YamlDoc::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UserError("cannot open config file '" + path + "'", {},
                    "check the path (it is relative to the current directory)");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_string(ss.str(), path);
}

SourceLocation YamlDoc::at(const YAML::Node& node) const {
  SourceLocation where{path_, 0, 0, {}};
  if (!node.IsDefined()) return where;
  for (const auto& o : overrides_)
    if (o.node.is(node)) return {"--set " + o.assignment, 0, 0, {}};
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return where;
  where.line = m.line + 1;
  where.column = m.column + 1;
  if (m.line < static_cast<int>(lines_.size())) where.snippet = lines_[m.line];
  return where;
}

UserError YamlDoc::error(const YAML::Node& node, const std::string& message,
                         const std::string& hint) const {
  return UserError(message, at(node), hint);
}

void YamlDoc::check_keys(const YAML::Node& node, const std::vector<std::string>& allowed,
                         const std::string& context) const {
  if (!node.IsMap()) throw error(node, "'" + context + "' must be a mapping (key: value)");
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string valid;
    for (const auto& a : allowed) valid += (valid.empty() ? "" : ", ") + a;
    const std::string close = closest_match(key, allowed);
    std::string hint = close.empty() ? "valid keys: " + valid
                                     : "did you mean '" + close + "'? valid keys: " + valid;
    throw error(kv.first, "unknown key '" + key + "' in '" + context + "'", hint);
  }
}

double YamlDoc::as_double(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) throw error(node, "'" + what + "' must be a number");
  const std::string text = node.Scalar();
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw error(node, "'" + what + "' must be a finite number, got '" + text + "'");
}

int YamlDoc::as_int(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) throw error(node, "'" + what + "' must be an integer");
  const std::string text = node.Scalar();
  try {
    size_t used = 0;
    const long v = std::stol(text, &used);
    if (used == text.size() && v >= -2147483647L && v <= 2147483647L) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  throw error(node, "'" + what + "' must be an integer, got '" + text + "'");
}

std::string YamlDoc::as_string(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) throw error(node, "'" + what + "' must be a single value (a string)");
  return node.Scalar();
}

std::vector<double> YamlDoc::as_doubles(const YAML::Node& node, size_t n,
                                        const std::string& what) const {
  if (!node.IsSequence() || node.size() != n)
    throw error(node, "'" + what + "' must be a list of " + std::to_string(n) + " numbers",
                "e.g. [0, 0, 0]");
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(as_double(node[i], what + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<int> YamlDoc::as_ints(const YAML::Node& node, size_t n, const std::string& what) const {
  if (!node.IsSequence() || node.size() != n)
    throw error(node, "'" + what + "' must be a list of " + std::to_string(n) + " integers",
                "e.g. [4, 4, 4]");
  std::vector<int> out;
  for (size_t i = 0; i < n; ++i) out.push_back(as_int(node[i], what + "[" + std::to_string(i) + "]"));
  return out;
}

dsl::ExprSource YamlDoc::expr_source(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar())
    throw error(node, "'" + what + "' must be an expression (a number or a quoted string)",
                "e.g. \"sin(pi*x)*cos(omega*t)\"");
  dsl::ExprSource src{node.Scalar(), at(node)};
  const auto& snip = src.origin.snippet;
  const int col = src.origin.column;  // 1-based
  if (col >= 1 && col <= static_cast<int>(snip.size()) && (snip[col - 1] == '"' || snip[col - 1] == '\''))
    ++src.origin.column;  // skip the opening quote
  // The caret mapping needs the text to appear verbatim on the line; otherwise (escapes, block
  // scalars) quote the expression itself in messages.
  if (src.origin.line > 0 &&
      (src.origin.column < 1 || snip.compare(src.origin.column - 1, src.text.size(), src.text) != 0)) {
    src.origin.line = 0;
    src.origin.snippet.clear();
  }
  return src;
}

void YamlDoc::apply_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError("malformed --set '" + assignment + "'", {}, "write --set key.path=value, e.g. --set discretization.order=3");
  const std::string path = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  YAML::Node parsed;
  try {
    parsed = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw UserError("--set " + path + ": the value '" + value + "' is not valid YAML: " + e.msg);
  }
  std::vector<std::string> keys;
  std::stringstream ss(path);
  std::string key;
  while (std::getline(ss, key, '.')) {
    if (key.empty()) throw UserError("malformed key path '" + path + "' in --set", {}, "e.g. --set time.final=2");
    keys.push_back(key);
  }
  // Walk down, creating maps as needed (yaml-cpp nodes are references into the tree).
  std::vector<YAML::Node> chain{root_};
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    YAML::Node next = chain.back()[keys[i]];
    if (next.IsDefined() && !next.IsNull() && !next.IsMap())
      throw UserError("--set " + path + ": '" + keys[i] + "' is not a mapping in the config");
    if (!next.IsDefined() || next.IsNull()) {
      chain.back()[keys[i]] = YAML::Node(YAML::NodeType::Map);
      next = chain.back()[keys[i]];
    }
    chain.push_back(next);
  }
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    // maps created for this path (no file position) are attributed to the option
    if (chain[i + 1].Mark().line < 0 || chain[i + 1].Mark().is_null()) track_override(chain[i + 1], assignment);
  }
  // remove first: assigning to an existing node would rewrite every YAML alias of it too
  chain.back().remove(keys.back());
  chain.back()[keys.back()] = parsed;
  track_override(chain.back()[keys.back()], assignment);
  for (const auto& kv : chain.back())
    if (kv.first.IsScalar() && kv.first.Scalar() == keys.back()) track_override(kv.first, assignment);
  if (keys.size() == 1 || chain.size() > 1)
    for (size_t i = 0; i + 1 < chain.size(); ++i)
      for (const auto& kv : chain[i])
        if (kv.first.IsScalar() && kv.first.Scalar() == keys[i] && kv.first.Mark().is_null())
          track_override(kv.first, assignment);
}

void YamlDoc::track_override(const YAML::Node& node, const std::string& assignment) {
  overrides_.push_back({node, assignment});
  if (node.IsMap())
    for (const auto& kv : node) {
      track_override(kv.first, assignment);
      track_override(kv.second, assignment);
    }
  else if (node.IsSequence())
    for (const auto& item : node) track_override(item, assignment);
}

}  // namespace dgmax
