// The config schema (solver/io/config_schema.hpp) against the loaders, both ways: every key a
// loader accepts is documented, and every documented key is accepted with its example value. The
// loaders keep their own key lists (config_schema.hpp says why), so adding a key to a loader
// without a schema entry fails the first test, and a schema entry no loader takes the second.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "solver/io/config_keys.hpp"
#include "solver/io/config_schema.hpp"
#include "solver/io/key_check_log.hpp"
#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"
#include "solver/mesh/element_order.hpp"
#include "solver/util/strings.hpp"

using namespace dgmax;
namespace fs = std::filesystem;

namespace {

// The configs the first test parses: the shipped ones and the two kitchen sinks, which between
// them reach every check_keys call (the test proves it from the source).
std::vector<std::string> configs_to_parse() {
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(fs::path(DGMAX_SOURCE_DIR) / "configs"))
    if (entry.path().extension() == ".yaml") paths.push_back(entry.path().string());
  paths.push_back(std::string(DGMAX_TEST_DATA_DIR) + "/kitchen_sink.yaml");
  paths.push_back(std::string(DGMAX_TEST_DATA_DIR) + "/kitchen_sink_user_flux.yaml");
  return paths;
}

// "context.key" for each key the recorded checks allowed that has no schema entry (once each).
std::vector<std::string> undocumented_keys(const std::vector<KeyCheck>& checks) {
  std::vector<std::string> missing;
  for (const KeyCheck& c : checks)
    for (const std::string& key : c.allowed) {
      const std::string path = c.context == "config" ? key : c.context + "." + key;
      const std::string line = path + " (accepted by the check_keys call at " + c.file + ":" + std::to_string(c.line) + ")";
      if (!find_config_key(path) && std::find(missing.begin(), missing.end(), line) == missing.end())
        missing.push_back(line);
    }
  return missing;
}

struct CallSite {
  std::string file;  // relative to the source tree: solver/io/mesh_spec.cpp
  int line;
};

// Every `.check_keys(` call in solver/, found in the source text.
std::vector<CallSite> check_keys_call_sites() {
  std::vector<CallSite> sites;
  const fs::path root(DGMAX_SOURCE_DIR);
  for (const auto& entry : fs::recursive_directory_iterator(root / "solver")) {
    if (entry.path().extension() != ".cpp" && entry.path().extension() != ".hpp") continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (line.find(".check_keys(") != std::string::npos)
        sites.push_back({fs::relative(entry.path(), root).string(), n});
  }
  return sites;
}

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The call sites no recorded check came from (a check's line is its call's first line, or the
// next two for a call written over several lines).
std::vector<std::string> unreached(const std::vector<CallSite>& sites, const std::vector<KeyCheck>& checks) {
  std::vector<std::string> out;
  for (const CallSite& s : sites) {
    bool reached = false;
    for (const KeyCheck& c : checks)
      reached = reached || (ends_with(c.file, s.file) && c.line >= s.line && c.line <= s.line + 2);
    if (!reached) out.push_back(s.file + ":" + std::to_string(s.line));
  }
  return out;
}

std::string lines(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += "  " + i + "\n";
  return s;
}

}  // namespace

// How we know every check_keys call was reached: the source is searched for them, and each
// must have recorded a check while the configs were parsed.
TEST(ConfigSchema, EveryKeyALoaderAcceptsIsDocumented) {
  KeyCheckLog log;
  for (const std::string& path : configs_to_parse()) {
    SCOPED_TRACE(path);
    EXPECT_NO_THROW(parse_run_config(YamlDoc::load_file(path)));
  }
  const std::vector<KeyCheck> checks = log.checks();
  const std::vector<CallSite> sites = check_keys_call_sites();
  EXPECT_GE(sites.size(), 20u);  // the search found the loaders' calls
  EXPECT_EQ(unreached(sites, checks), std::vector<std::string>{})
      << "check_keys calls no parsed config reached; extend tests/data/kitchen_sink*.yaml:\n"
      << lines(unreached(sites, checks));
  const std::vector<std::string> missing = undocumented_keys(checks);
  EXPECT_TRUE(missing.empty()) << "keys a loader accepts but the schema lacks; add an entry for each to "
                                  "solver/io/config_schema.cpp and regenerate docs/config-reference.md:\n"
                               << lines(missing);
  // each checked map is itself documented, as a map or as an entry of a list of maps
  for (const KeyCheck& c : checks) {
    if (c.context == "config") continue;
    const ConfigKey* key = find_config_key(c.context);
    ASSERT_NE(key, nullptr) << c.context;
    EXPECT_NE(key->type.find("map"), std::string::npos)  // "map", "list of maps", "integer or map", ...
        << c.context << " is checked as a map but documented as " << key->type;
  }
}

// The controls of the test above: it names an undocumented key, and an unreached call.
TEST(ConfigSchema, AnUndocumentedOrUnreachedKeyIsReported) {
  const YamlDoc doc = YamlDoc::load_string("{eps: 2, chi: 1}", "c.yaml");
  std::vector<KeyCheck> checks;
  {
    KeyCheckLog log;
    doc.check_keys(doc.root(), {"eps", "mu", "sigma", "chi"}, "materials.glass");
    checks = log.checks();
  }
  const std::vector<std::string> missing = undocumented_keys(checks);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].rfind("materials.glass.chi (accepted by the check_keys call at ", 0), 0u) << missing[0];
  const std::vector<CallSite> sites = check_keys_call_sites();
  EXPECT_EQ(unreached(sites, {}).size(), sites.size());
  // a check outside solver/ (this file) reaches none of them
  EXPECT_EQ(unreached(sites, checks).size(), sites.size());
}

// ---- every documented key is accepted --------------------------------------------------------

namespace {

// Enough of a section for a key set in it to be parsed through; some sections have two forms
// that exclude each other (a box or a file), and a key needs one of them.
const std::map<std::string, std::vector<std::string>> kScaffolds = {
    {"mesh",
     {"mesh: {box: {cells: [2, 2, 2], regions: [{tag: slab, lower: [0, 0, 0], upper: [1, 1, 0.5]}]}}\n",
      "mesh: {file: cube.geo}\n"}},
    {"discretization", {"discretization: {order: 2}\n"}},
    {"materials", {"materials: {default: {eps: 1}}\n"}},
    {"boundaries", {"boundaries: {default: pec}\n"}},
    {"boundary_states", {"boundary_states: {sample: {E: \"-E.int\", H: \"H.int\"}}\n"}},
    {"flux", {"flux: {E: \"cross(n, jump(H))/2\", H: \"cross(n, jump(E))/2\"}\n"}},
    {"exact", {"exact: {E: [\"0\", \"0\", \"0\"], H: [\"0\", \"0\", \"0\"]}\n"}},
    {"incident", {"incident: {E: [\"0\", \"0\", \"0\"], H: [\"0\", \"0\", \"0\"]}\n"}},
    {"sources", {"sources: {J: [\"0\", \"0\", \"0\"]}\n"}},
    {"pml", {"pml: {regions: [pml]}\n"}},
    {"tfsf",
     {"incident: {E: [\"0\", \"0\", \"0\"], H: [\"0\", \"0\", \"0\"]}\n"
      "tfsf: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}\n"}},
    {"probes", {"probes: {points: [{name: c, at: [0, 0, 0]}]}\n"}},
    {"monitors",
     {"monitors: [{name: m, surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}, "
      "frequencies: [1]}]\n",
      "monitors: [{name: m, volume: domain, frequencies: [1]}]\n",
      "monitors: [{name: m, surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}, "
      "frequencies: [1], far_field: {theta: {from: 0, to: 180, step: 5}, phi: {from: 0, to: 90, step: 45}}}]\n"}},
};

const char* kBase = "constants: {omega: \"sqrt(2)*pi\"}\n";  // time.final's example uses omega
const char* kBoxMesh = "mesh: {box: {cells: [2, 2, 2]}}\n";

// The configs to try for a key of `section`.
std::vector<std::string> scaffolds_for(const std::string& section) {
  const auto it = kScaffolds.find(section);
  const std::vector<std::string> forms = it != kScaffolds.end() ? it->second : std::vector<std::string>{""};
  std::vector<std::string> out;
  for (const std::string& form : forms) out.push_back(std::string(kBase) + (section == "mesh" ? "" : kBoxMesh) + form);
  return out;
}

// A concrete path for a pattern: each <name> becomes `sample`, each [] the first entry.
std::string concrete(const std::string& pattern) {
  return std::regex_replace(std::regex_replace(pattern, std::regex("<[a-z]+>"), "sample"), std::regex("\\[\\]"), "[0]");
}

// node[path] = value, for paths through list entries (`monitors[0].name`), which --set cannot
// name; the scaffold holds the list.
void set_through_lists(YAML::Node node, const std::vector<std::string>& parts, size_t i, const YAML::Node& value) {
  const std::string& part = parts[i];
  const size_t bracket = part.find('[');
  const std::string name = part.substr(0, bracket);
  const bool last = i + 1 == parts.size();
  if (bracket == std::string::npos) {
    if (last) {
      node[name] = value;
      return;
    }
    if (!node[name].IsMap()) node[name] = YAML::Node(YAML::NodeType::Map);
    set_through_lists(node[name], parts, i + 1, value);
    return;
  }
  const size_t index = std::stoul(part.substr(bracket + 1));
  YAML::Node list = node[name];
  if (!list.IsSequence() || list.size() <= index) throw UserError("the scaffold has no " + part);
  if (last) {
    list[index] = value;
    return;
  }
  set_through_lists(list[index], parts, i + 1, value);
}

void set_key(YamlDoc& doc, const std::string& path, const std::string& example) {
  if (path.find('[') == std::string::npos) return doc.apply_override(path + "=" + example);  // as --set does
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  YAML::Node root = doc.root();
  set_through_lists(root, parts, 0, YAML::Load(example));
}

// Maps whose keys are names the user chooses (`materials.<tag>`): no check_keys call checks them.
bool holds_free_names(const std::string& map_path) {
  for (const ConfigKey& key : config_schema())
    if (config_key_parent(key.path) == map_path && key.path.back() == '>') return true;
  return false;
}

}  // namespace

TEST(ConfigSchema, EveryDocumentedKeyIsAcceptedWithItsExample) {
  for (const ConfigKey& key : config_schema()) {
    const std::string path = concrete(key.path);
    const std::string parent = config_key_parent(key.path);
    const std::string leaf = path.substr(path.rfind('.') + 1);
    std::string failures;
    bool loaded = false;
    for (const std::string& text : scaffolds_for(config_key_section(key.path))) {
      YamlDoc doc = YamlDoc::load_string(text, "c.yaml");
      KeyCheckLog log;
      try {
        set_key(doc, path, key.example);
        parse_run_config(doc);
      } catch (const UserError& e) {
        failures += e.render();
        continue;
      }
      loaded = true;
      // the map holding the key was checked, and its loader allowed the key
      if (holds_free_names(parent)) break;
      bool checked = false;
      for (const KeyCheck& c : log.checks()) {
        const ConfigKey* holder = c.context == "config" ? nullptr : find_config_key(c.context);
        if (!(parent.empty() ? c.context == "config" : holder && holder->path == parent)) continue;
        checked = true;
        EXPECT_NE(std::find(c.allowed.begin(), c.allowed.end(), leaf.substr(0, leaf.find('[')) ), c.allowed.end())
            << key.path << ": its map was checked without it";
      }
      EXPECT_TRUE(checked) << key.path << ": no check_keys call checked '" << (parent.empty() ? "config" : parent)
                           << "', so the test cannot tell whether its loader accepts the key";
      break;
    }
    EXPECT_TRUE(loaded) << key.path << " = " << key.example
                        << " is refused (as --set " << path << "=" << key.example << "):\n"
                        << failures;
  }
}

// The schema is well formed: every entry says everything, sits under a documented map or list,
// and is found by its own path and by a concrete one.
TEST(ConfigSchema, EntriesAreCompleteAndNested) {
  std::set<std::string> seen;
  for (const ConfigKey& key : config_schema()) {
    EXPECT_TRUE(seen.insert(key.path).second) << key.path << " twice";
    EXPECT_FALSE(key.type.empty() || key.default_value.empty() || key.description.empty() || key.example.empty())
        << key.path;
    const std::string parent = config_key_parent(key.path);
    if (!parent.empty()) {
      EXPECT_TRUE(seen.count(parent)) << key.path << ": '" << parent << "' must come before it";
    }
    EXPECT_EQ(find_config_key(key.path), &key);
    EXPECT_EQ(find_config_key(concrete(key.path)), &key) << concrete(key.path);
  }
  // every top-level key of the loader is a section
  for (const std::string& top : config_top_level_keys()) EXPECT_TRUE(seen.count(top)) << top;
}

TEST(ConfigSchema, FindsConcreteAndShorthandPaths) {
  EXPECT_EQ(find_config_key("materials.glass.eps")->path, "materials.<tag>.eps");
  EXPECT_EQ(find_config_key("monitors[12].surface.box.upper")->path, "monitors[].surface.box.upper");
  EXPECT_EQ(find_config_key("monitors.frequencies")->path, "monitors[].frequencies");
  EXPECT_EQ(find_config_key("boundaries.xmin")->path, "boundaries.<tag>");
  EXPECT_EQ(find_config_key("monitors[3]")->path, "monitors");  // an entry: the list documents it
  EXPECT_EQ(find_config_key("monitors[x].name"), nullptr);
  EXPECT_EQ(find_config_key("materials.glass.chi"), nullptr);
  EXPECT_EQ(find_config_key("mesh.box.cels"), nullptr);
  EXPECT_EQ(config_key_parent("monitors[].surface"), "monitors");
  EXPECT_EQ(config_key_section("monitors[].surface.box"), "monitors");
}

// ---- documented defaults -----------------------------------------------------------------------

namespace {

// The documented default without its remark: "0 (first and last only)" -> "0".
std::string default_value_of(const ConfigKey& key) {
  const std::string& d = key.default_value;
  return d.substr(0, d.find(" ("));
}

bool same_value(const std::string& documented, const std::string& loaded) {
  try {
    size_t a = 0, b = 0;
    const double x = std::stod(documented, &a), y = std::stod(loaded, &b);
    if (a == documented.size() && b == loaded.size()) return x == y;
  } catch (const std::exception&) {
  }
  return documented == loaded;
}

std::vector<std::string> as_texts(std::initializer_list<double> values) {
  std::vector<std::string> out;
  for (const double v : values) out.push_back(fmt_g(v));
  return out;
}

}  // namespace

// Every default the schema states is what the loader gives a config that leaves the key out; a
// key with a stated default but no check here fails the test.
TEST(ConfigSchema, DocumentedDefaultsAreTheLoadersDefaults) {
  const RunConfig cfg = parse_run_config(YamlDoc::load_string(
      "mesh: {box: {}}\nmaterials: {default: {}}\ninitial: {}\npml: {regions: [pml]}\n"
      "probes: {points: [{name: c, at: [0, 0, 0]}]}\n",
      "c.yaml"));
  const BoxSpec& box = *cfg.mesh.box;
  const Material& m = cfg.materials.at("default").value;
  const PmlSpec& pml = *cfg.pml;
  const std::map<std::string, std::function<std::vector<std::string>()>> loaded = {
      {"mesh.box.lower", [&] { return as_texts({box.lower[0], box.lower[1], box.lower[2]}); }},
      {"mesh.box.upper", [&] { return as_texts({box.upper[0], box.upper[1], box.upper[2]}); }},
      {"mesh.box.cells", [&] { return as_texts({1.0 * box.cells[0], 1.0 * box.cells[1], 1.0 * box.cells[2]}); }},
      {"mesh.size", [&] { return as_texts({cfg.mesh.size}); }},
      {"mesh.refine", [&] { return as_texts({1.0 * cfg.mesh.refine}); }},
      {"mesh.numbering", [&] { return std::vector<std::string>{element_order_name(cfg.mesh.numbering)}; }},
      {"discretization.order", [&] { return as_texts({1.0 * cfg.order}); }},
      {"discretization.precision",
       [&] { return std::vector<std::string>{cfg.precision == Precision::Double ? "double" : "single"}; }},
      {"discretization.flux", [&] { return std::vector<std::string>{cfg.flux_name}; }},
      {"materials.<tag>.eps", [&] { return as_texts({m.eps}); }},
      {"materials.<tag>.mu", [&] { return as_texts({m.mu}); }},
      {"materials.<tag>.sigma", [&] { return as_texts({m.sigma}); }},
      {"boundaries.<tag>",
       [&] { return std::vector<std::string>{cfg.boundaries.at("default") == BcKind::Pec ? "pec" : "not pec"}; }},
      {"initial.E", [&] { return std::vector<std::string>{cfg.initial->sources[0].text, cfg.initial->sources[1].text,
                                                          cfg.initial->sources[2].text}; }},
      {"initial.H", [&] { return std::vector<std::string>{cfg.initial->sources[3].text, cfg.initial->sources[4].text,
                                                          cfg.initial->sources[5].text}; }},
      {"time.final", [&] { return as_texts({cfg.t_final}); }},
      {"time.cfl", [&] { return as_texts({cfg.cfl}); }},
      {"output.dir", [&] { return std::vector<std::string>{cfg.out_dir}; }},
      {"output.vtk_every", [&] { return as_texts({cfg.vtk_every}); }},
      {"output.format", [&] { return std::vector<std::string>{cfg.out_format}; }},
      {"output.energy_every", [&] { return as_texts({1.0 * cfg.energy_every}); }},
      {"backend", [&] { return std::vector<std::string>{cfg.backend}; }},
      {"partition", [&] { return std::vector<std::string>{cfg.partition}; }},
      {"pml.thickness", [&] { return as_texts({pml.thickness}); }},
      {"pml.order", [&] { return as_texts({pml.order}); }},
      {"pml.reflection", [&] { return as_texts({pml.reflection}); }},
      {"pml.kappa", [&] { return as_texts({pml.kappa}); }},
      {"pml.alpha", [&] { return as_texts({pml.alpha}); }},
      {"probes.every", [&] { return as_texts({cfg.probes.every}); }},
  };
  int compared = 0;
  for (const ConfigKey& key : config_schema()) {
    const std::string d = default_value_of(key);
    if (d.rfind("required", 0) == 0 || d.rfind("none", 0) == 0 || key.type == "map") continue;
    const auto it = loaded.find(key.path);
    if (it == loaded.end()) {
      ADD_FAILURE() << key.path << " documents the default '" << key.default_value << "' but this test has no check of it";
      continue;
    }
    const YAML::Node doc = YAML::Load(d);
    std::vector<std::string> documented;
    if (doc.IsSequence())
      for (const auto& v : doc) documented.push_back(v.Scalar());
    else
      documented.push_back(doc.Scalar());
    const std::vector<std::string> actual = it->second();
    ASSERT_EQ(documented.size(), actual.size()) << key.path;
    for (size_t i = 0; i < actual.size(); ++i)
      EXPECT_TRUE(same_value(documented[i], actual[i]))
          << key.path << ": documented default " << documented[i] << ", the loader gives " << actual[i];
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(loaded.size()));
}
