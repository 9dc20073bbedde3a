// Where the layer's coefficients are constant (pml_point: the middle of each element's extent), a
// cube's tetrahedra share them; the layer reports the share of its elements that are such
// tetrahedra, and a run says so when most are not (an unstructured layer reflects from its oblique
// faces).
#include <gtest/gtest.h>

#include "codegen/emit/pml_profile.hpp"
#include "solver/mesh/box.hpp"
#include "solver/physics/pml.hpp"

namespace dgmax {
namespace {

// Every tetrahedron of the box mesher's cubes has its vertices at its extent's corners, and all six
// of a cube get the cube's centre as their coefficients' point.
TEST(PmlCells, TheBoxMeshersTetrahedraShareTheirCubesPoint) {
  BoxSpec spec;
  spec.lower = {0, 0, 0};
  spec.upper = {2, 1, 1};
  spec.cells = {2, 1, 1};
  const Mesh m = make_box_mesh(spec);
  ASSERT_EQ(m.num_elements(), 12);
  int in_first = 0;
  for (int k = 0; k < m.num_elements(); ++k) {
    EXPECT_TRUE(element_at_cell_corners(m, k)) << k;
    double v[12], x[3];
    for (int n = 0; n < 4; ++n)
      for (int d = 0; d < 3; ++d) v[3 * n + d] = m.vertices[m.elements[k][n]][d];
    codegen::pml_point(v, x);
    EXPECT_TRUE(x[0] == 0.5 || x[0] == 1.5) << k << ": " << x[0];  // its cube's centre
    in_first += x[0] == 0.5;
    EXPECT_EQ(x[1], 0.5);
    EXPECT_EQ(x[2], 0.5);
  }
  EXPECT_EQ(in_first, 6);
}

// A tetrahedron with a vertex inside its extent is not a cube's; its point is still its extent's middle.
TEST(PmlCells, AVertexInsideTheExtentIsNoCellCorner) {
  Mesh m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, 0.2, 1}};
  m.elements = {{0, 1, 2, 3}};
  EXPECT_FALSE(element_at_cell_corners(m, 0));
  double v[12], x[3];
  for (int n = 0; n < 4; ++n)
    for (int d = 0; d < 3; ++d) v[3 * n + d] = m.vertices[n][d];
  codegen::pml_point(v, x);
  EXPECT_EQ(x[0], 0.5);
  EXPECT_EQ(x[1], 0.5);
  EXPECT_EQ(x[2], 0.5);
  m.vertices[3] = {1, 1, 1};
  EXPECT_TRUE(element_at_cell_corners(m, 0));
}

}  // namespace
}  // namespace dgmax
