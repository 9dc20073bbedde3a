// Mesh refusals a user can cause carry a hint (the user guide: "a message ... and a hint" for every user
// error): paths, sizes, refinement, box size and a damaged mesh.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "expect_user_error.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/validate.hpp"
#include "temp_path.hpp"

namespace dgmax {
namespace {

using test::expect_hinted_user_error;

void expect_hint(const UserError& e, const std::string& part) {
  EXPECT_NE(e.hint().find(part), std::string::npos) << "hint lacks \"" << part << "\":\n" << e.render();
}

Mesh one_tetrahedron() {
  Mesh m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  m.elements = {{0, 1, 2, 3}};
  m.element_tag = {0};
  m.volume_tag_names = {"domain"};
  m.source = "t.msh";
  return m;
}

TEST(MeshHints, PathsAndSizes) {
  expect_hint(expect_hinted_user_error([] { load_mesh_file(""); }, {"mesh file path is empty"}), "mesh.file");
  expect_hint(expect_hinted_user_error([] { require_readable_file(""); }, {"mesh file path is empty"}),
              "the path of a file");
  const std::string dir = test::unique_temp_dir("dgmax_mesh_hints") + "d.msh";
  std::filesystem::create_directories(dir);
  expect_hint(expect_hinted_user_error([&] { load_mesh_file(dir); }, {"is a directory, not a file"}),
              "a file in it");
  expect_hint(expect_hinted_user_error([] { load_mesh_file("x.geo", -1); }, {"must be positive"}), "mesh.size");
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST(MeshHints, RefinementAndBoxSize) {
  expect_hint(expect_hinted_user_error([] { setup_mesh(one_tetrahedron(), 7); }, {"mesh.refine must be between 0 and 6"}),
              "finer mesh");
  BoxSpec spec;
  spec.cells = {1000, 1000, 1000};
  expect_hint(expect_hinted_user_error([&] { make_box_mesh(spec); }, {"elements is too large"}), "mesh.box.cells");
}

TEST(MeshHints, DamagedMesh) {
  Mesh m = one_tetrahedron();
  m.vertices[2][1] = std::numeric_limits<double>::quiet_NaN();
  expect_hint(expect_hinted_user_error([&] { check_basic(m); }, {"vertex 2 has a non-finite coordinate"}), "damaged");
  m = one_tetrahedron();
  m.elements[0][3] = 9;
  expect_hint(expect_hinted_user_error([&] { check_basic(m); }, {"refers to vertex 9, but there are 4 vertices"}),
              "damaged");
}

}  // namespace
}  // namespace dgmax
