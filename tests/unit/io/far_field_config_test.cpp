// The `far_field:` key of a closed-surface monitor (solver/io/far_field_config.hpp): lists, ranges
// and the full sphere parse into the angles they spell; each mistake is one located message that
// names the key, with a hint.
#include <gtest/gtest.h>

#include "expect_user_error.hpp"
#include "solver/io/run_config.hpp"

using namespace dgmax;
using dgmax::test::expect_hinted_user_error;

namespace {

const std::string kFarMesh = "mesh: {box: {cells: [2, 2, 2]}}\n";
const std::string kFarBox = "surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}, frequencies: [1]";

// The far-field grid of a single surface monitor with `far_field: <value>`.
FarFieldGrid grid_of(const std::string& value) {
  const RunConfig cfg = parse_run_config(
      YamlDoc::load_string(kFarMesh + "monitors:\n  - {name: m, " + kFarBox + ", far_field: " + value + "}\n", "f.yaml"));
  return cfg.monitors.at(0).far_field;
}

// The error of `far_field: <value>` names `words` and sits on line 3 (the monitor's line) at
// column `column` (1-based; 0: any).
void expect_far_error(const std::string& value, std::initializer_list<std::string> words, int column = 0) {
  const UserError e = expect_hinted_user_error([&] { grid_of(value); }, words);
  EXPECT_EQ(e.where().file, "f.yaml") << e.render();
  EXPECT_EQ(e.where().line, 3) << e.render();
  if (column > 0) {
    EXPECT_EQ(e.where().column, column) << e.render();
  }
}

// The column of `far_field: <value>`'s text `part` in the monitor's line.
int column_of(const std::string& value, const std::string& part) {
  const std::string line = "  - {name: m, " + kFarBox + ", far_field: " + value + "}";
  return static_cast<int>(line.find(part)) + 1;
}

}  // namespace

TEST(FarFieldConfig, AbsentIsTheDefaultCuts) {
  const RunConfig cfg = parse_run_config(
      YamlDoc::load_string(kFarMesh + "monitors:\n  - {name: m, " + kFarBox + "}\n", "f.yaml"));
  EXPECT_TRUE(cfg.monitors.at(0).far_field.is_default());
}

TEST(FarFieldConfig, ListsRangesAndTheSphere) {
  FarFieldGrid g = grid_of("{theta: {from: 0, to: 180, step: 2}, phi: [0, 45, 90]}");
  ASSERT_EQ(g.theta_deg.size(), 91u);
  EXPECT_EQ(g.theta_deg[1], 2);
  EXPECT_EQ(g.theta_deg[45], 90);
  EXPECT_EQ(g.theta_deg.back(), 180);
  EXPECT_EQ(g.phi_deg, (std::vector<double>{0, 45, 90}));

  g = grid_of("{theta: [30, 60.5], phi: {from: -90, to: 90, step: 22.5}}");
  EXPECT_EQ(g.theta_deg, (std::vector<double>{30, 60.5}));
  EXPECT_EQ(g.phi_deg, (std::vector<double>{-90, -67.5, -45, -22.5, 0, 22.5, 45, 67.5, 90}));

  // one of the two: the other is the default's (theta every 5 degrees, phi = 0 and 90)
  g = grid_of("{theta: [90]}");
  EXPECT_EQ(g.theta_deg, (std::vector<double>{90}));
  EXPECT_EQ(g.phi_deg, (std::vector<double>{0, 90}));
  g = grid_of("{phi: [45]}");
  EXPECT_EQ(g.theta_deg.size(), 37u);
  EXPECT_EQ(g.theta_deg[7], 35);
  EXPECT_EQ(g.phi_deg, (std::vector<double>{45}));

  // the sphere: theta 0..180 (poles included), phi 0..360 - step (360 is phi = 0 again)
  g = grid_of("{sphere: 7.5}");
  ASSERT_EQ(g.theta_deg.size(), 25u);
  ASSERT_EQ(g.phi_deg.size(), 48u);
  EXPECT_EQ(g.theta_deg[1], 7.5);
  EXPECT_EQ(g.theta_deg.back(), 180);
  EXPECT_EQ(g.phi_deg.back(), 352.5);
  // a range of one angle, and a grid of exactly the bound: 1000 x 1000 = 1e6 directions
  EXPECT_EQ(grid_of("{theta: {from: 10, to: 10, step: 1}, phi: [0]}").theta_deg, (std::vector<double>{10}));
  g = grid_of("{theta: {from: 0, to: 179.82, step: 0.18}, phi: {from: 0, to: 359.64, step: 0.36}}");
  EXPECT_EQ(g.theta_deg.size() * g.phi_deg.size(), 1000000u);
}

TEST(FarFieldConfig, EachMistakeIsOneLocatedMessageAtItsKey) {
  const std::string big = "{theta: {from: 0, to: 180, step: 0.18}, phi: {from: 0, to: 359.64, step: 0.36}}";
  expect_far_error(big, {"'monitors[0].far_field' has 1001000 directions", "more than 1000000"},
                   column_of(big, "{theta"));
  expect_far_error("{sphere: 0.1}", {"'monitors[0].far_field.sphere' = 0.1 gives more than 1000000 directions"},
                   column_of("{sphere: 0.1}", "0.1"));
  const std::string theta_high = "{theta: [0, 190]}";
  expect_far_error(theta_high, {"'monitors[0].far_field.theta[1]' = 190 degrees is outside [0, 180]"},
                   column_of(theta_high, "190"));
  expect_far_error("{theta: [-1]}", {"far_field.theta[0]' = -1 degrees is outside [0, 180]"});
  expect_far_error("{phi: [400]}", {"'monitors[0].far_field.phi[0]' = 400 degrees is outside [-360, 360]"});
  expect_far_error("{theta: {from: 0, to: 200, step: 5}}", {"'monitors[0].far_field.theta.to' = 200", "outside"});
  const std::string nan = "{theta: [.nan]}";
  expect_far_error(nan, {"'monitors[0].far_field.theta[0]' must be a finite number"}, column_of(nan, ".nan"));
  expect_far_error("{phi: {from: 0, to: .inf, step: 1}}", {"'monitors[0].far_field.phi.to' must be a finite number"});
  expect_far_error("{theta: []}", {"'monitors[0].far_field.theta' is an empty list"});
  const std::string zero = "{theta: {from: 0, to: 90, step: 0}}";
  expect_far_error(zero, {"'monitors[0].far_field.theta.step' must be > 0, got 0"}, column_of(zero, "0}}"));
  expect_far_error("{phi: {from: 0, to: 90, step: -5}}", {"'monitors[0].far_field.phi.step' must be > 0, got -5"});
  expect_far_error("{theta: {from: 0, to: 90, step: 7}}",
                   {"'monitors[0].far_field.theta.step' = 7 does not divide to - from = 90"});
  expect_far_error("{theta: {from: 90, to: 0, step: 5}}", {"'monitors[0].far_field.theta.to' (0) is below from (90)"});
  expect_far_error("{theta: {from: 0, step: 5}}", {"'monitors[0].far_field.theta' needs from, to and step"});
  expect_far_error("{theta: {from: 0, to: 90, stp: 5}}", {"unknown key 'stp' in 'monitors[0].far_field.theta'"});
  expect_far_error("{theta: 5}", {"'monitors[0].far_field.theta' must be a list of angles or a range"});
  expect_far_error("{sphere: 7}", {"'monitors[0].far_field.sphere' = 7 degrees does not divide 180"});
  expect_far_error("{sphere: 0}", {"does not divide 180"});
  expect_far_error("{sphere: -5}", {"does not divide 180"});
  expect_far_error("{sphere: 5, phi: [0]}", {"'monitors[0].far_field' has sphere and theta/phi"});
  expect_far_error("{}", {"'monitors[0].far_field' needs theta and/or phi, or sphere"});
  expect_far_error("[0, 90]", {"'monitors[0].far_field' must be a map"});
  expect_far_error("{thetas: [0]}", {"unknown key 'thetas' in 'monitors[0].far_field'"});
  // a volume monitor has no far field: the error is at the key
  const std::string vol = "  - {name: v, volume: domain, frequencies: [1], far_field: {sphere: 5}}\n";
  const UserError e = expect_hinted_user_error(
      [&] { parse_run_config(YamlDoc::load_string(kFarMesh + "monitors:\n" + vol, "f.yaml")); },
      {"'monitors[0].far_field' needs a closed surface, but this is a volume monitor"});
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.where().column, static_cast<int>(vol.find("{sphere")) + 1);
}
