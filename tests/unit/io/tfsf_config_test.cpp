// Bad total-field/scattered-field input: one message each, with its location and a hint.
#include <gtest/gtest.h>

#include <string>

#include "config_problem.hpp"
#include "expect_user_error.hpp"
#include "solver/physics/tfsf.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

std::string config(const std::string& tfsf, bool incident = true, const std::string& box_extra = "") {
  return "mesh:\n  box: {lower: [-0.5, -0.5, -0.5], upper: [0.5, 0.5, 0.5], cells: [4, 4, 4]" + box_extra +
         "}\ndiscretization: {order: 1}\n" +
         (incident ? "incident:\n  E: [\"0\", \"sin(x - t)\", \"0\"]\n  H: [\"0\", \"0\", \"sin(x - t)\"]\n" : "") + tfsf;
}

int line_of(const UserError& e) { return e.where().line; }

}  // namespace

TEST(TfsfConfig, BoxOnMeshFacesIsAccepted) {
  const auto c = config_problem(config("tfsf: {box: {lower: [-0.25, -0.25, -0.25], upper: [0.25, 0.25, 0.25]}}\n"));
  ASSERT_TRUE(c->p.tfsf);
  EXPECT_EQ(c->p.tfsf->faces, 6 * 4 * 2);  // 6 box faces of 2x2 cells, 2 triangles each
}

TEST(TfsfConfig, NeedsTheIncidentField) {
  const UserError e = expect_hinted_user_error(
      [] { config_problem(config("tfsf: {box: {lower: [-0.25, -0.25, -0.25], upper: [0.25, 0.25, 0.25]}}\n", false)); },
      {"'tfsf' needs the incident field"});
  EXPECT_EQ(line_of(e), 4);
}

TEST(TfsfConfig, MalformedBlocks) {
  expect_hinted_user_error([] { config_problem(config("tfsf: 3\n")); }, {"'tfsf' must be a mapping"});
  expect_user_error([] { config_problem(config("tfsf: {box: {lower: [0, 0, 0], upper: [1, 1, 1]}, size: 2}\n")); },
                    {"size"});
  expect_hinted_user_error([] { config_problem(config("tfsf: {sphere: 1}\n")); }, {"sphere"});
  expect_hinted_user_error([] { config_problem(config("tfsf: {box: {lower: [0, 0, 0]}}\n")); }, {"needs lower and upper"});
  expect_hinted_user_error([] { config_problem(config("tfsf: {box: {lower: [0, 0, 0], upper: [0.25, 0, 0.25]}}\n")); },
                           {"must exceed 'lower'"});
}

TEST(TfsfConfig, BoxNotMadeOfMeshFacesIsNotClosed) {
  const UserError e = expect_hinted_user_error(
      [] { config_problem(config("tfsf: {box: {lower: [-0.2, -0.25, -0.25], upper: [0.25, 0.25, 0.25]}}\n")); },
      {"tfsf box", "surface not closed / not made of mesh faces"});
  EXPECT_EQ(line_of(e), 7);
}

TEST(TfsfConfig, BoxOnTheOuterBoundaryHasNoScatteredSide) {
  expect_hinted_user_error(
      [] { config_problem(config("tfsf: {box: {lower: [-0.5, -0.25, -0.25], upper: [0.25, 0.25, 0.25]}}\n")); },
      {"outer boundary"});
}

TEST(TfsfConfig, BoxOutsideTheMesh) {
  expect_hinted_user_error(
      [] { config_problem(config("tfsf: {box: {lower: [-0.75, -0.25, -0.25], upper: [0.25, 0.25, 0.25]}}\n")); },
      {"not inside the mesh"});
}

TEST(TfsfConfig, BoxTouchingTheLayer) {
  expect_hinted_user_error(
      [] {
        config_problem(config("tfsf: {box: {lower: [-0.5, -0.25, -0.25], upper: [0.25, 0.25, 0.25]}}\n", true, ", pml: 0.25"));
      },
      {"touches the perfectly matched layer"});
}
