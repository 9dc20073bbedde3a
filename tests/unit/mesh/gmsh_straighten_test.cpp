// read_gmsh's fallback where the blend of the high-order nodes (blend_curved_nodes.hpp) would tangle
// an element: Gmsh's untangling passes, then the straightening of the nodes away from curved
// surfaces (solver/mesh/straighten_far_nodes.hpp). meshes/sphere_in_box.geo at size 0.2 (about the
// sphere's radius) and geometry order 2 takes that path: only the elements at the sphere stay
// curved, and neighbours see the same face points bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/mesh/gmsh_reader.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "curved_face_points.hpp"

namespace dgmax {
namespace {

constexpr double kSphereRadius = 0.25, kSize = 0.2;  // meshes/sphere_in_box.geo: centre (0.5, 0.5, 0.5)

const MeshData& sphere_in_box_order_2() {
  static const MeshData md = setup_mesh(
      read_gmsh(std::string(DGMAX_SOURCE_DIR) + "/meshes/sphere_in_box.geo", kSize, 2), 0, GeometryFactors::Stored,
      ElementOrder::Input);
  return md;
}

double distance_to_sphere(const Vec3& x) {
  return std::abs(std::hypot(x[0] - 0.5, x[1] - 0.5, x[2] - 0.5) - kSphereRadius);
}

TEST(GmshStraighten, OnlyTheElementsAtTheSphereStayCurved) {
  const MeshData& md = sphere_in_box_order_2();
  const Mesh& m = md.mesh;
  const int K = m.num_elements(), curved = m.num_curved();
  EXPECT_GT(md.curved.min_scaled, 0.1);  // Gmsh's optimiser's own threshold (Mesh.HighOrderThresholdMin)
  int with_face_on_sphere = 0;
  double farthest = 0;  // over the curved elements, of their nearest vertex's distance to the sphere
  for (int k = 0; k < K; ++k) {
    int on_sphere = 0;
    double nearest = 1e300;
    for (int v : m.elements[k]) {
      const double d = distance_to_sphere(m.vertices[v]);
      on_sphere += d < 1e-9;
      nearest = std::min(nearest, d);
    }
    if (on_sphere >= 3) {  // a face on the sphere: the element must follow it
      ++with_face_on_sphere;
      EXPECT_TRUE(m.is_curved(k)) << "element " << k;
    }
    if (m.is_curved(k)) farthest = std::max(farthest, nearest);
  }
  std::printf("%d of %d elements curved (%d with a face on the sphere), the farthest %.3f from the sphere\n", curved,
              K, with_face_on_sphere, farthest);
  EXPECT_GT(with_face_on_sphere, 20);
  EXPECT_LE(farthest, kSize);                 // within one element size of the sphere
  EXPECT_LT(curved, K / 2);                   // all 1234 were curved without the straightening
  // the report says which placement was used and why
  EXPECT_NE(m.high_order_nodes.find("Gmsh's high-order optimisation"), std::string::npos) << m.high_order_nodes;
  EXPECT_NE(m.high_order_nodes.find("scaled Jacobian of -"), std::string::npos) << m.high_order_nodes;
}

// Two curved neighbours hold the same lattice points on their common face, bit for bit; a curved
// element's face shared with an affine one is flat: its lattice points on the affine map.
TEST(GmshStraighten, NeighboursSeeTheSameFacePoints) {
  const Mesh& m = sphere_in_box_order_2().mesh;
  test::expect_conforming_face_points(m, 1000, 100);
}

}  // namespace
}  // namespace dgmax
