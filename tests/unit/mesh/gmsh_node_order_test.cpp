// gmsh_tet_node_coordinates / gmsh_tet_lattice_nodes (msh_node_order.hpp) and the MSH type numbers
// of the complete tetrahedra and triangles (msh_element_types.hpp) against Gmsh's own tables:
// gmsh::model::mesh::getElementProperties' name, order, node count and localNodeCoord.
#include <gmsh.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <clocale>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/msh_element_types.hpp"
#include "solver/mesh/msh_node_order.hpp"

namespace dgmax {
namespace {

// Gmsh initialized for one test; the locale and thread count it changes are restored.
class GmshTables : public ::testing::Test {
 protected:
  void SetUp() override {
    locale_ = std::setlocale(LC_ALL, nullptr);
#ifdef _OPENMP
    threads_ = omp_get_max_threads();
#endif
    gmsh::initialize(0, nullptr, false);
    gmsh::option::setNumber("General.Terminal", 0);
  }
  void TearDown() override {
    gmsh::finalize();
    std::setlocale(LC_ALL, locale_.c_str());
#ifdef _OPENMP
    omp_set_num_threads(threads_);
#endif
  }
  struct Properties {
    std::string name;
    int dim = 0, order = 0, nodes = 0, primary = 0;
    std::vector<double> coords;
  };
  static Properties properties(int type) {
    Properties p;
    gmsh::model::mesh::getElementProperties(type, p.name, p.dim, p.order, p.nodes, p.coords, p.primary);
    return p;
  }
  std::string locale_;
  int threads_ = 1;
};

TEST_F(GmshTables, TetrahedronTypesAreGmshsCompleteOnes) {
  for (int q = 1; q <= kMaxGeometryOrder; ++q) {
    SCOPED_TRACE("order " + std::to_string(q));
    const int type = msh_tetrahedron_type(q);
    const Properties p = properties(type);
    EXPECT_EQ(p.name, "Tetrahedron " + std::to_string(lattice_size(q)));
    EXPECT_EQ(p.dim, 3);
    EXPECT_EQ(p.order, q);
    EXPECT_EQ(p.nodes, lattice_size(q));
    EXPECT_EQ(p.primary, 4);
    const MshElementType t = msh_element_type(type);
    EXPECT_TRUE(msh_complete_simplex(t));
    EXPECT_EQ(t.nodes, p.nodes);
    EXPECT_EQ(t.order, q);
  }
}

TEST_F(GmshTables, TriangleTypesAreGmshsCompleteOnes) {
  for (int q = 1; q <= kMaxGeometryOrder; ++q) {
    SCOPED_TRACE("order " + std::to_string(q));
    const int type = msh_triangle_type(q);
    const Properties p = properties(type);
    EXPECT_EQ(p.name, "Triangle " + std::to_string((q + 1) * (q + 2) / 2));
    EXPECT_EQ(p.dim, 2);
    EXPECT_EQ(p.order, q);
    EXPECT_EQ(p.nodes, (q + 1) * (q + 2) / 2);
    EXPECT_TRUE(msh_complete_simplex(msh_element_type(type)));
  }
}

// Gmsh's incomplete (serendipity) tetrahedra and triangles are the types msh_complete_simplex
// refuses: every tetrahedron and triangle type of the table whose node count is not its order's
// complete one, and Gmsh calls each of them by that node count.
TEST_F(GmshTables, IncompleteTypesAreTheOnesWithFewerNodes) {
  std::vector<int> incomplete;
  for (int type = 1; type <= 140; ++type) {
    const MshElementType t = msh_element_type(type);
    const std::string family = t.family;
    if (t.nodes == 0 || t.order == 0 || (family != "tetrahedron" && family != "triangle")) continue;
    const Properties p = properties(type);
    EXPECT_EQ(p.nodes, t.nodes) << type;
    EXPECT_EQ(p.order, t.order) << type;
    if (!msh_complete_simplex(t)) incomplete.push_back(type);
    else if (family == "tetrahedron") EXPECT_EQ(type, msh_tetrahedron_type(t.order));
    else EXPECT_EQ(type, msh_triangle_type(t.order));
  }
  // Gmsh 4.8: triangles 20, 22, 24, 52..56; tetrahedra 32, 33, 79..83 and the 16-node one (137)
  EXPECT_EQ(incomplete, (std::vector<int>{20, 22, 24, 32, 33, 52, 53, 54, 55, 56, 79, 80, 81, 82, 83, 137}));
}

TEST_F(GmshTables, NodeCoordinatesAreGmshsForEveryOrder) {
  for (int q = 1; q <= kMaxGeometryOrder; ++q) {
    SCOPED_TRACE("order " + std::to_string(q));
    const Properties p = properties(msh_tetrahedron_type(q));
    const std::vector<std::array<double, 3>> ours = gmsh_tet_node_coordinates(q);
    ASSERT_EQ(3 * ours.size(), p.coords.size());
    double worst = 0;
    for (size_t n = 0; n < ours.size(); ++n)
      for (int d = 0; d < 3; ++d) worst = std::max(worst, std::abs(ours[n][d] - p.coords[3 * n + d]));
    EXPECT_LT(worst, 1e-14);
  }
}

// Lattice point (i, j, l) is the Gmsh node at q·(u, v, w) = (i, j, l), read from Gmsh's own
// coordinates; the corners are nodes 0..3.
TEST_F(GmshTables, LatticeNodesSitAtTheLatticePoints) {
  for (int q = 1; q <= kMaxGeometryOrder; ++q) {
    SCOPED_TRACE("order " + std::to_string(q));
    const Properties p = properties(msh_tetrahedron_type(q));
    const std::vector<int> node = gmsh_tet_lattice_nodes(q);
    const std::vector<std::array<int, 3>> ijl = lattice_points(q);
    ASSERT_EQ(node.size(), ijl.size());
    std::vector<int> sorted = node;
    std::sort(sorted.begin(), sorted.end());
    for (size_t n = 0; n < sorted.size(); ++n) EXPECT_EQ(sorted[n], static_cast<int>(n));
    for (size_t m = 0; m < node.size(); ++m)
      for (int d = 0; d < 3; ++d) EXPECT_NEAR(q * p.coords[3 * node[m] + d], ijl[m][d], 1e-12) << m;
    EXPECT_EQ(node[lattice_index(q, 0, 0, 0)], 0);
    EXPECT_EQ(node[lattice_index(q, q, 0, 0)], 1);
    EXPECT_EQ(node[lattice_index(q, 0, q, 0)], 2);
    EXPECT_EQ(node[lattice_index(q, 0, 0, q)], 3);
  }
}

}  // namespace
}  // namespace dgmax
