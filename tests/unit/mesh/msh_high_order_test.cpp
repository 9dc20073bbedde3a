// High-order (curved) tetrahedra read without Gmsh (read_msh): a 10-node file gives the lattice of
// its nodes and stays straight-sided after setup when its edges are straight; a 4-node file gives
// today's Mesh; mixed orders, incomplete elements, a tangled element and a mesh.geometry_order
// that differs from the file's order are refused with their messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "expect_user_error.hpp"
#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/msh_reader.hpp"
#include "temp_path.hpp"

namespace dgmax {
namespace {

using test::expect_hinted_user_error;

std::string test_data(const std::string& name) { return std::string(DGMAX_TEST_DATA_DIR) + "/" + name; }

std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class MshHighOrder : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::unique_temp_dir("dgmax_msh_high_order_test"); }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ + name, std::ios::binary) << bytes;
    return dir_ + name;
  }
  // second_order_tets.msh with `extra` element lines appended (the element count raised to match)
  std::string with_elements(const std::string& name, const std::string& extra, int added) const {
    std::string text = slurp_file(test_data("second_order_tets.msh"));
    text.replace(text.find("$Elements\n2\n"), 12, "$Elements\n" + std::to_string(2 + added) + "\n");
    text.insert(text.find("$EndElements"), extra);
    return write(name, text);
  }
  std::string dir_;
};

// The fixture's two 10-node tets have their edge nodes at the midpoints (Gmsh order: edges 01 12
// 20 30 32 31): vertices are the 5 corner nodes only, each tet's lattice holds its 10 nodes at
// the lattice's places, and setup finds both affine.
TEST_F(MshHighOrder, SecondOrderTetsGiveTheirLattice) {
  const Mesh m = read_msh(test_data("second_order_tets.msh"));
  EXPECT_EQ(m.geometry_order, 2);
  ASSERT_EQ(m.num_vertices(), 5);
  ASSERT_EQ(m.num_elements(), 2);
  EXPECT_EQ(m.elements[0], (std::array<int, 4>{0, 1, 2, 3}));
  EXPECT_EQ(m.elements[1], (std::array<int, 4>{1, 2, 3, 4}));
  ASSERT_EQ(m.curved_index, (std::vector<int>{0, 1}));
  ASSERT_EQ(m.curved_points.size(), 2u * lattice_size(2));
  // lattice point (i, j, l) of an order-2 element is the average of the corners its barycentric
  // coordinates name: with straight edges, x = λ0 v0 + λ1 v1 + λ2 v2 + λ3 v3
  for (int k = 0; k < 2; ++k) {
    const Vec3* row = m.curved_row(k);
    const auto ijl = lattice_points(2);
    for (size_t p = 0; p < ijl.size(); ++p) {
      const double l[4] = {(2.0 - ijl[p][0] - ijl[p][1] - ijl[p][2]) / 2, ijl[p][0] / 2.0, ijl[p][1] / 2.0,
                           ijl[p][2] / 2.0};
      for (int d = 0; d < 3; ++d) {
        double x = 0;
        for (int v = 0; v < 4; ++v) x += l[v] * m.vertices[m.elements[k][v]][d];
        EXPECT_EQ(row[p][d], x) << "element " << k << " point " << p;
      }
    }
  }
  const MeshData md = setup_mesh(m, 0, GeometryFactors::Stored, ElementOrder::Input);
  EXPECT_EQ(md.mesh.num_curved(), 0);
  EXPECT_EQ(md.mesh.geometry_order, 2);
  EXPECT_EQ(md.curved.curved, 0);
}

TEST_F(MshHighOrder, FirstOrderFileGivesNoCurvedElements) {
  const Mesh m = read_msh(test_data("two_tets_v4.msh"));
  EXPECT_EQ(m.geometry_order, 1);
  EXPECT_TRUE(m.curved_index.empty());
  EXPECT_TRUE(m.curved_points.empty());
}

TEST_F(MshHighOrder, MixedOrdersAreRefusedWithBothKinds) {
  // a 4-node tet on an entity of its own beside the two 10-node ones
  const std::string tets = with_elements("mixed_tets.msh", "3 4 2 1 2 2 3 4 5\n", 1);
  const UserError e = expect_hinted_user_error([&] { read_msh(tets); },
                                               {"mixed_tets.msh", "mixes element orders",
                                                "1 tetrahedron (4-node) of order 1",
                                                "2 tetrahedra (10-node) of order 2"});
  EXPECT_NE(e.hint().find("Mesh.ElementOrder"), std::string::npos) << e.hint();
  // tets of order 2, a triangle of order 3
  const std::string tri = with_elements("mixed_tri.msh", "3 21 2 0 3 1 2 3 4 5 6 7 8 9 10\n", 1);
  expect_hinted_user_error([&] { read_msh(tri); },
                           {"mixed_tri.msh", "mixes element orders", "1 triangle (10-node) of order 3",
                            "2 tetrahedra (10-node) of order 2"});
}

TEST_F(MshHighOrder, IncompleteElementsAreRefused) {
  // Gmsh's 9-node (incomplete cubic) triangle
  const std::string tri = with_elements("incomplete.msh", "3 20 2 0 3 1 2 3 4 5 6 7 8 9\n", 1);
  const UserError e = expect_hinted_user_error([&] { read_msh(tri); },
                                               {"incomplete.msh", "1 triangle (9-node)", "incomplete (serendipity)"});
  EXPECT_NE(e.hint().find("Mesh.SecondOrderIncomplete = 0"), std::string::npos) << e.hint();
  // and the 16-node (incomplete cubic) tetrahedron
  const std::string tet = with_elements("incomplete_tet.msh", "3 137 2 1 3 1 2 3 4 5 6 7 8 9 10 11 12 13 14 1 2\n", 1);
  expect_hinted_user_error([&] { read_msh(tet); }, {"1 tetrahedron (16-node)", "incomplete (serendipity)"});
}

// A mid-edge node moved far outside its tet folds the element: setup's Jacobian check names it.
TEST_F(MshHighOrder, TangledElementIsNamed) {
  std::string text = slurp_file(test_data("second_order_tets.msh"));
  text.replace(text.find("\n6 0.5 0 0\n"), 11, "\n6 0.5 3 3\n");
  const std::string path = write("tangled.msh", text);
  const Mesh m = read_msh(path);
  expect_hinted_user_error([&] { setup_mesh(m, 0, GeometryFactors::Stored, ElementOrder::Input); },
                           {"tangled.msh", "curved element 0 is tangled or inverted"});
}

TEST_F(MshHighOrder, GeometryOrderMustMatchTheFile) {
  const std::string path = test_data("second_order_tets.msh");
  EXPECT_EQ(load_mesh_file(path, 0, 2).geometry_order, 2);
  EXPECT_EQ(load_mesh_file(path, 0, 0).geometry_order, 2);
  const UserError e = expect_hinted_user_error([&] { load_mesh_file(path, 0, 3); },
                                               {"mesh.geometry_order is 3", "second_order_tets.msh",
                                                "elements of order 2"});
  EXPECT_EQ(e.where().file, path);
  expect_hinted_user_error([&] { load_mesh_file(test_data("two_tets_v4.msh"), 0, 2); },
                           {"mesh.geometry_order is 2", "elements of order 1"});
}

}  // namespace
}  // namespace dgmax
