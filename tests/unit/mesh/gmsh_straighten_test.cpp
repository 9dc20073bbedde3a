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

// A lattice point of element k by the vertices it sits between: sorted (vertex id, λ·q) of the
// nonzero weights. Two elements name a shared point alike.
using PointKey = std::vector<std::pair<int, int>>;
PointKey point_key(const Mesh& m, int k, const std::array<int, 3>& ijl) {
  const int q = m.geometry_order;
  const int lambda[4] = {q - ijl[0] - ijl[1] - ijl[2], ijl[0], ijl[1], ijl[2]};
  PointKey key;
  for (int c = 0; c < 4; ++c)
    if (lambda[c] > 0) key.emplace_back(m.elements[k][c], lambda[c]);
  std::sort(key.begin(), key.end());
  return key;
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
  const int q = m.geometry_order;
  const auto ijl = lattice_points(q);
  std::map<std::array<int, 3>, std::vector<int>> face_elements;  // sorted vertices -> elements
  for (int k = 0; k < m.num_elements(); ++k)
    for (int opposite = 0; opposite < 4; ++opposite) {
      std::array<int, 3> f;
      for (int c = 0, i = 0; c < 4; ++c)
        if (c != opposite) f[i++] = m.elements[k][c];
      std::sort(f.begin(), f.end());
      face_elements[f].push_back(k);
    }
  std::map<PointKey, Vec3> seen;  // face points of curved elements
  int compared = 0, flat_faces = 0;
  double worst_flat = 0;
  for (const auto& [face, elements] : face_elements) {
    if (elements.size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      const int k = elements[side], other = elements[1 - side];
      if (!m.is_curved(k)) continue;
      const Vec3* row = m.curved_row(k);
      for (std::size_t p = 0; p < ijl.size(); ++p) {
        const PointKey key = point_key(m, k, ijl[p]);
        bool on_face = true;
        for (const auto& [v, w] : key) on_face = on_face && std::find(face.begin(), face.end(), v) != face.end();
        if (!on_face) continue;
        if (m.is_curved(other)) {
          const auto [it, inserted] = seen.emplace(key, row[p]);
          if (!inserted) {
            ++compared;
            EXPECT_EQ(std::memcmp(it->second.data(), row[p].data(), sizeof(Vec3)), 0) << "element " << k;
          }
        } else {
          const double r = -1 + 2.0 * ijl[p][0] / q, s = -1 + 2.0 * ijl[p][1] / q, t = -1 + 2.0 * ijl[p][2] / q;
          const Vec3 x = map_to_physical(m, k, r, s, t);
          for (int d = 0; d < 3; ++d) worst_flat = std::max(worst_flat, std::abs(x[d] - row[p][d]));
        }
      }
      flat_faces += !m.is_curved(other);
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(flat_faces, 100);
  EXPECT_LT(worst_flat, 1e-15);  // rounding of coordinates of size 1
}

}  // namespace
}  // namespace dgmax
