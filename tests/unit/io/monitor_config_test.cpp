// The `probes:` and `monitors:` sections: a valid config parses into the specs; each mistake is
// one located message (file:line:column) with the key path.
#include <gtest/gtest.h>

#include <cmath>

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

// A name becomes a file name (far_field_<name>.csv) or a column heading: one longer than a file
// name may be (255 bytes, less the 14 of "far_field_" and ".csv") is refused at its line, before the
// run, not by the file system after it. The longest allowed name passes.
TEST(MonitorConfig, NamesLongerThanAFileNameAllowsAreRefusedAtTheirLine) {
  ASSERT_EQ(kMaxOutputNameLength, 241u);
  const std::string longest = "m" + std::string(240, 'x'), over = longest + "x";
  for (const std::string& name : {over, "m" + std::string(9999, 'x')}) {
    const std::string count = std::to_string(name.size());
    const UserError m = expect_user_error(
        [&] { parse("monitors:\n  - {name: " + name + ", volume: domain, frequencies: [1]}\n"); },
        {"the name of 'monitors[0]' has " + count + " characters, more than the 241 a name may have"});
    EXPECT_EQ(m.where().line, 3) << m.render();
    EXPECT_NE(m.hint().find("far_field_<name>.csv"), std::string::npos) << m.render();
    EXPECT_LT(m.render().size(), 1000u) << "the name is not echoed:\n" << m.render().substr(0, 2000);
    expect_error_at("probes:\n  points:\n    - {name: " + name + ", at: [0, 0, 0]}\n",
                    {"the name of 'probes.points[0]' has " + count + " characters"}, 4);
  }
  const RunConfig cfg = parse("monitors:\n  - {name: " + longest + ", volume: domain, frequencies: [1]}\n"
                              "probes: {points: [{name: " + longest + ", at: [0, 0, 0]}]}\n");
  EXPECT_EQ(cfg.monitors.at(0).name.size(), 241u);
  EXPECT_EQ(cfg.probes.points.at(0).name.size(), 241u);
}

// Each frequency keeps its own line: a check that needs the run's time step still points at it.
TEST(MonitorConfig, FrequenciesAboveTheNyquistLimitAreRefusedAtTheirLine) {
  const RunConfig cfg = parse("monitors:\n  - name: m\n    volume: domain\n    frequencies:\n      - 1\n      - 30\n");
  ASSERT_EQ(cfg.monitors.at(0).frequency_where.size(), 2u);
  // dt = 0.01: the DFT's samples resolve up to 1 / (2 dt) = 50; dt = 0.02: up to 25
  EXPECT_NO_THROW(check_monitor_frequencies(cfg.monitors, 0.01));
  const UserError e = expect_user_error([&] { check_monitor_frequencies(cfg.monitors, 0.02); },
                                        {"'monitors[0].frequencies[1]' = 30 is above 25, the highest frequency the "
                                         "time step dt = 0.02 samples (1 / (2 dt))"});
  EXPECT_EQ(e.where().file, "m.yaml");
  EXPECT_EQ(e.where().line, 7) << e.render();
  EXPECT_EQ(e.where().column, 9) << e.render();
  EXPECT_FALSE(e.hint().empty());
}

// A closed-surface monitor's radiated power integrates over 2 n^2 far-field directions with
// n = ceil(2 pi f R) + 10: f = 1e300 overflowed n (an internal error after the whole run, or inf
// in every row of the CSV). Refused at the frequency's line when 2 n^2 exceeds the far-field grid's
// limit of 1e6 directions, i.e. 2 pi f R > 697; here R = sqrt(3) * 0.75 = 1.299.
TEST(MonitorConfig, FrequencyTooHighForTheFarFieldIsRefusedAtItsLine) {
  const std::string box = "monitors:\n  - name: m\n    surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}\n";
  const double R = std::sqrt(3.0) * 0.75, limit = (std::sqrt(1e6 / 2) - 10) / (2 * M_PI * R);  // 85.41
  EXPECT_NEAR(limit, 85.41, 0.005);
  // 2 pi 85 R = 693.8: n = 704, 991,232 directions; 2 pi 86 R = 701.9: n = 712, 1,013,888
  EXPECT_EQ(far_field_power_directions(85.0, R), 991232.0);
  EXPECT_EQ(far_field_power_directions(86.0, R), 1013888.0);
  EXPECT_NO_THROW(parse(box + "    frequencies: [1, 85]\n"));
  for (const char* f : {"86", "1e300"}) {
    const UserError e = expect_user_error([&] { parse(box + "    frequencies: [1, " + std::string(f) + "]\n"); },
                                          {"'monitors[0].frequencies[1]' = ", "is too high for the far field of this box",
                                           "(R = 1.299, its farthest corner from the origin) must stay below 697"});
    EXPECT_EQ(e.where().line, 5) << e.render();
    EXPECT_NE(e.hint().find("use a frequency below 85.41 for this box"), std::string::npos) << e.render();
  }
  // a volume monitor has no far field: its limit is the time step's (above)
  EXPECT_NO_THROW(parse("monitors:\n  - {name: v, volume: domain, frequencies: [1e300]}\n"));
}
