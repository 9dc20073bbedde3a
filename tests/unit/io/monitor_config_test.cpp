// The `probes:` and `monitors:` sections: a valid config parses into the specs; each mistake is
// one located message (file:line:column) with the key path.
#include <gtest/gtest.h>

#include "expect_user_error.hpp"
#include "solver/io/mesh_spec.hpp"
#include "solver/io/run_config.hpp"

using namespace dgmax;
using dgmax::test::expect_user_error;

namespace {

const std::string kMesh = "mesh: {box: {cells: [2, 2, 2]}}\n";

RunConfig parse(const std::string& text) { return parse_run_config(YamlDoc::load_string(kMesh + text, "m.yaml")); }

// The error of `text`, which must name `words`, at line `line` (of the whole text, mesh line = 1).
void expect_error_at(const std::string& text, std::initializer_list<std::string> words, int line) {
  const UserError e = expect_user_error([&] { parse(text); }, words);
  EXPECT_EQ(e.where().file, "m.yaml") << e.render();
  EXPECT_EQ(e.where().line, line) << e.render();
}

}  // namespace

TEST(MonitorConfig, ParsesProbesAndMonitors) {
  const RunConfig cfg = parse(
      "probes:\n"
      "  every: 0.01\n"
      "  points:\n"
      "    - {name: center, at: [0.5, 0.5, 0.5]}\n"
      "    - {name: p1, at: [0.3, 0, 1e-1]}\n"
      "monitors:\n"
      "  - name: box_dft\n"
      "    surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}\n"
      "    frequencies: [0.5, 1.0, 1.5]\n"
      "  - {name: vol, volume: domain, frequencies: [0]}\n");
  EXPECT_EQ(cfg.probes.every, 0.01);
  ASSERT_EQ(cfg.probes.points.size(), 2u);
  EXPECT_EQ(cfg.probes.points[1].name, "p1");
  EXPECT_EQ(cfg.probes.points[1].at[2], 0.1);
  EXPECT_EQ(cfg.probes.points[1].where.line, 6);
  ASSERT_EQ(cfg.monitors.size(), 2u);
  EXPECT_EQ(cfg.monitors[0].kind, MonitorSpec::SurfaceBox);
  EXPECT_EQ(cfg.monitors[0].upper[1], 0.75);
  EXPECT_EQ(cfg.monitors[0].frequencies, (std::vector<double>{0.5, 1.0, 1.5}));
  EXPECT_EQ(cfg.monitors[1].kind, MonitorSpec::Volume);
  EXPECT_EQ(cfg.monitors[1].volume_tag, "domain");
  EXPECT_TRUE(parse("backend: cpu\n").probes.empty());
}

TEST(MonitorConfig, EachMistakeIsOneLocatedMessage) {
  expect_error_at("probes:\n  points:\n    - {name: a, at: [0, 0, 0]}\n    - {name: a, at: [1, 0, 0]}\n",
                  {"the name 'a' is used twice", "probes.points"}, 5);
  expect_error_at("probes:\n  points:\n    - {name: a, at: [0, .nan, 0]}\n", {"probes.points[0].at[1]", "finite"}, 4);
  expect_error_at("probes:\n  points:\n    - {name: a, at: [0, 0]}\n", {"probes.points[0].at", "3 numbers"}, 4);
  expect_error_at("probes:\n  points:\n    - {at: [0, 0, 0]}\n", {"probes.points[0]", "needs a name"}, 4);
  expect_error_at("probes:\n  points:\n    - {name: 'a b', at: [0, 0, 0]}\n", {"not a valid name"}, 4);
  expect_error_at("probes:\n  every: -1\n  points: [{name: a, at: [0, 0, 0]}]\n", {"'probes.every' must be ≥ 0"}, 3);
  expect_error_at("probes:\n  evry: 1\n", {"evry"}, 3);
  expect_error_at("probes: {every: 1}\n", {"'probes.points' must be a list"}, 2);
  expect_error_at("monitors:\n  - {name: m, volume: domain}\n", {"'monitors[0]' needs frequencies"}, 3);
  expect_error_at("monitors:\n  - {name: m, volume: domain, frequencies: []}\n", {"needs frequencies"}, 3);
  expect_error_at("monitors:\n  - {name: m, volume: domain, frequencies: [1, -2]}\n",
                  {"'monitors[0].frequencies[1]' is negative"}, 3);
  expect_error_at("monitors:\n  - {name: m, volume: domain, frequencies: [.inf]}\n",
                  {"monitors[0].frequencies[0]", "finite"}, 3);
  expect_error_at("monitors:\n  - {name: m, frequencies: [1]}\n", {"needs one of surface or volume"}, 3);
  expect_error_at("monitors:\n  - {name: m, volume: a, surface: {box: {lower: [0,0,0], upper: [1,1,1]}}, frequencies: [1]}\n",
                  {"needs one of surface or volume"}, 3);
  expect_error_at("monitors:\n  - {name: m, surface: {box: {lower: [0,0,0], upper: [1,0,1]}}, frequencies: [1]}\n",
                  {"is empty", "upper[1]"}, 3);
  expect_error_at("monitors:\n  - {name: m, volume: domain, frequencies: [1]}\n  - {name: m, volume: domain, frequencies: [1]}\n",
                  {"the name 'm' is used twice"}, 4);
  expect_error_at("monitors: {name: m}\n", {"'monitors' must be a list"}, 2);
}

TEST(MonitorConfig, UnknownVolumeTagIsNamedWhereItWasWritten) {
  const RunConfig cfg = parse("monitors:\n  - {name: m, volume: sphere, frequencies: [1]}\n");
  auto md = std::make_shared<const MeshData>(load_mesh(cfg.mesh));
  Problem p = make_problem(md, 1);
  const UserError e = dgmax::test::expect_hinted_user_error([&] { apply_physics(cfg, p); }, {"volume tag 'sphere'"});
  EXPECT_EQ(e.where().line, 3);
}
