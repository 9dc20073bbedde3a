// read_gmsh's placement of the high-order nodes from the curved surface alone
// (solver/mesh/blend_curved_nodes.hpp): on meshes/sphere_rcs_pec.geo at geometry orders 2, 3 and 4
// exactly the elements with an edge on the sphere are curved, none is tangled, the sphere's nodes
// stay on it, neighbours see the same face points bit for bit, and the cylinder's volume from
// meshes/cylinder.geo converges to π R² L.
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
#include "solver/mesh/msh_reader.hpp"
#include "same_mesh.hpp"
#include "temp_path.hpp"

namespace dgmax {
namespace {

// meshes/sphere_rcs_pec.geo at its defaults (4,191 tets, the sphere's surface sized by its
// curvature): the sphere's centre is the origin. (On meshes/sphere_in_box.geo, sized without
// regard to the curvature, the blend tangles an element and read_gmsh falls back to Gmsh's passes:
// gmsh_straighten_test.cpp.)
constexpr double kSphereRadius = 0.25;

const MeshData& sphere_mesh(int q) {
  static std::map<int, MeshData> cache;
  auto it = cache.find(q);
  if (it == cache.end())
    it = cache.emplace(q, setup_mesh(read_gmsh(std::string(DGMAX_SOURCE_DIR) + "/meshes/sphere_rcs_pec.geo", 0, q),
                                     0, GeometryFactors::Stored, ElementOrder::Input))
             .first;
  return it->second;
}

class GmshBlend : public ::testing::TestWithParam<int> {};

double distance_to_sphere(const Vec3& x) {
  return std::abs(std::hypot(x[0], x[1], x[2]) - kSphereRadius);
}

// Curved exactly where an edge lies on the sphere (an element touching it at a vertex keeps its
// straight-sided map); the Jacobian stays well away from zero; every lattice point of a face on
// the sphere is on the sphere (those are Gmsh's nodes, kept).
TEST_P(GmshBlend, OnlyTheElementsWithAnEdgeOnTheSphereAreCurved) {
  const int q = GetParam();
  const MeshData& md = sphere_mesh(q);
  const Mesh& m = md.mesh;
  const int K = m.num_elements();
  EXPECT_GT(md.curved.min_scaled, 0.3);
  int with_face_on_sphere = 0, checked_points = 0;
  double off_sphere = 0;
  const auto ijl = lattice_points(q);
  for (int k = 0; k < K; ++k) {
    int on_sphere = 0;
    for (int v : m.elements[k]) on_sphere += distance_to_sphere(m.vertices[v]) < 1e-9;
    if (m.is_curved(k)) {
      EXPECT_GE(on_sphere, 2) << "element " << k;  // an edge on the sphere at least
    }
    if (on_sphere < 3) continue;
    ++with_face_on_sphere;  // a face on the sphere: the element must follow it
    ASSERT_TRUE(m.is_curved(k)) << "element " << k;
    const Vec3* row = m.curved_row(k);
    for (std::size_t p = 0; p < ijl.size(); ++p) {
      const test::PointKey key = test::point_key(m, k, ijl[p]);
      bool on_face = true;
      for (const auto& [v, w] : key) on_face = on_face && distance_to_sphere(m.vertices[v]) < 1e-9;
      if (!on_face) continue;
      off_sphere = std::max(off_sphere, distance_to_sphere(row[p]));
      ++checked_points;
    }
  }
  std::printf("q = %d: %d of %d elements curved (%d with a face on the sphere), smallest scaled Jacobian %.4f\n", q,
              m.num_curved(), K, with_face_on_sphere, md.curved.min_scaled);
  EXPECT_GT(with_face_on_sphere, 20);
  EXPECT_GT(checked_points, 20 * lattice_size(q) / 4);
  EXPECT_LT(off_sphere, 1e-12);
  EXPECT_LT(m.num_curved(), K / 2);
  EXPECT_NE(m.high_order_nodes.find("blend"), std::string::npos) << m.high_order_nodes;
}

// Two curved neighbours hold the same lattice points on their common face, bit for bit; a curved
// element's face shared with an affine one is flat: its lattice points on the affine map.
TEST_P(GmshBlend, NeighboursSeeTheSameFacePoints) {
  const Mesh& m = sphere_mesh(GetParam()).mesh;
  test::expect_conforming_face_points(m, 1000, 100);
}

double mesh_volume(const Mesh& m) {
  const CurvedMeasures measures = curved_measures(m);
  double volume = 0;
  for (int k = 0; k < m.num_elements(); ++k)
    volume += m.is_curved(k) ? measures.volume[m.curved_index[k]] : signed_volume(m, k);
  return volume;
}

// meshes/cylinder.geo (R = 1, L = 1): the volume at geometry order 2 against π, at sizes 0.5
// and 0.25.
TEST(GmshBlendCylinder, VolumeConverges) {
  const std::string geo = std::string(DGMAX_SOURCE_DIR) + "/meshes/cylinder.geo";
  double error[2], straight_error[2];
  int i = 0;
  for (const double size : {0.5, 0.25}) {
    const MeshData md = setup_mesh(read_gmsh(geo, size, 2));
    const MeshData straight = setup_mesh(read_gmsh(geo, size, 1));
    error[i] = std::abs(mesh_volume(md.mesh) - std::numbers::pi);
    straight_error[i] = std::abs(mesh_volume(straight.mesh) - std::numbers::pi);
    std::printf("size %g: %d of %d elements curved, volume error %.3e (straight-sided %.3e)\n", size,
                md.mesh.num_curved(), md.mesh.num_elements(), error[i], straight_error[i]);
    EXPECT_LT(md.mesh.num_curved(), md.mesh.num_elements());
    ++i;
  }
  EXPECT_LT(error[1], straight_error[1] / 100);
  EXPECT_LT(error[1], error[0] / 8);
}

// read_gmsh's write_msh (`dgmax info --write-msh`): the file read back without Gmsh is the same
// Mesh bit for bit, with the blended nodes (sphere_rcs_pec.geo, q = 3) and on the fallback path
// (sphere_in_box.geo at size 0.2, q = 2: Gmsh's passes, then the straightening).
TEST(GmshWriteMsh, ReadBackIsTheSameMesh) {
  const std::string dir = test::unique_temp_dir("write_msh");
  struct Case {
    const char* geo;
    double size;
    int q;
  };
  for (const Case& c : {Case{"sphere_rcs_pec.geo", 0, 3}, Case{"sphere_in_box.geo", 0.2, 2}}) {
    const std::string out = dir + "/" + c.geo + ".msh";
    const Mesh made = read_gmsh(std::string(DGMAX_SOURCE_DIR) + "/meshes/" + c.geo, c.size, c.q, out);
    Mesh back = read_msh(out);  // every element curved, as any high-order file
    back.source = made.source;
    drop_affine_elements(back);
    EXPECT_GT(made.num_curved(), 0) << c.geo;
    test::expect_same_mesh(made, back, c.geo);
  }
}

INSTANTIATE_TEST_SUITE_P(GeometryOrders, GmshBlend, ::testing::Values(2, 3, 4));

}  // namespace
}  // namespace dgmax
