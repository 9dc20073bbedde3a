// Connectivity and geometric factors on random affine meshes.
#include <gtest/gtest.h>

#include <cmath>

#include "random_mesh.hpp"
#include "solver/mesh/connectivity.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/refine.hpp"

using namespace dgmax;

namespace {

double dist(const Vec3& a, const Vec3& b) { return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }

void expect_consistent(const MeshData& md) {
  const auto& c = md.conn;
  for (int k = 0; k < md.mesh.num_elements(); ++k)
    for (int f = 0; f < 4; ++f) {
      const int k2 = c.EToE[k][f], f2 = c.EToF[k][f];
      if (k2 < 0) {
        EXPECT_GE(c.face_tag[k][f], 0);
        continue;
      }
      // neighbour of neighbour is self
      EXPECT_EQ(c.EToE[k2][f2], k);
      EXPECT_EQ(c.EToF[k2][f2], f);
      // the two faces have the same vertices (up to the periodic shift)
      auto a = face_vertices(md.mesh, k, f);
      auto b = face_vertices(md.mesh, k2, f2);
      Vec3 shift{0, 0, 0};
      if (c.face_periodic[k][f] >= 0) {
        const auto& p = md.mesh.periodic[c.face_periodic[k][f]];
        const double sign = c.face_tag[k][f] == p.tag_a ? 1 : -1;
        for (int d = 0; d < 3; ++d) shift[d] = sign * p.shift[d];
      }
      for (auto& x : a) {
        for (int d = 0; d < 3; ++d) x[d] += shift[d];
        EXPECT_LT(std::min({dist(x, b[0]), dist(x, b[1]), dist(x, b[2])}), 1e-12);
      }
      // outward normals opposite
      for (int d = 0; d < 3; ++d)
        EXPECT_NEAR(md.geom.normal[k][f][d], -md.geom.normal[k2][f2][d], 1e-12);
      // same area from both sides
      EXPECT_NEAR(md.geom.sJ[k][f], md.geom.sJ[k2][f2], 1e-12 * md.geom.sJ[k][f]);
    }
}

}  // namespace

TEST(Connectivity, RandomAffineMeshesAreConsistent) {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    auto rm = test::random_affine_mesh(3, seed);
    const MeshData md = setup_mesh(rm.mesh);
    expect_consistent(md);
    double vol = 0;
    for (int k = 0; k < md.mesh.num_elements(); ++k) vol += md.geom.volume(k);
    EXPECT_NEAR(vol, rm.volume, 1e-12 * rm.volume);
    EXPECT_EQ(md.conn.boundary_faces, 2 * 2 * (3 * 4 + 3 * 3 + 4 * 3));
  }
}

TEST(Connectivity, PeriodicAndRefinedMeshesAreConsistent) {
  BoxSpec spec;
  spec.cells = {2, 3, 2};
  spec.periodic = {true, true, false};
  spec.upper = {2, 1, 0.5};
  expect_consistent(setup_mesh(make_box_mesh(spec)));
  expect_consistent(setup_mesh(make_box_mesh(spec), 1));
  expect_consistent(setup_mesh(test::random_affine_mesh(2, 7).mesh, 2));
}

TEST(Geometry, ClosedSurfacePerElementAndFaceAreas) {
  auto rm = test::random_affine_mesh(3, 11);
  const MeshData md = setup_mesh(rm.mesh);
  for (int k = 0; k < md.mesh.num_elements(); ++k) {
    Vec3 sum{0, 0, 0};
    for (int f = 0; f < 4; ++f) {
      // sJ · (reference face parameter area 2) = physical face area
      auto v = face_vertices(md.mesh, k, f);
      const double e1[3] = {v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]};
      const double e2[3] = {v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]};
      const double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                            e1[0] * e2[1] - e1[1] * e2[0]};
      const double area = 0.5 * std::sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
      EXPECT_NEAR(2 * md.geom.sJ[k][f], area, 1e-12 * area);
      EXPECT_NEAR(md.geom.Fscale[k][f], md.geom.sJ[k][f] / md.geom.J[k], 1e-12 * md.geom.Fscale[k][f]);
      // normal is perpendicular to the face and points away from the opposite vertex
      const double n_dot_e1 = md.geom.normal[k][f][0] * e1[0] + md.geom.normal[k][f][1] * e1[1] +
                              md.geom.normal[k][f][2] * e1[2];
      EXPECT_NEAR(n_dot_e1, 0, 1e-12);
      for (int d = 0; d < 3; ++d) sum[d] += md.geom.normal[k][f][d] * md.geom.sJ[k][f];
    }
    // sum over faces of n·sJ vanishes (closed surface)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(sum[d], 0, 1e-13);
  }
}

TEST(Geometry, ReferenceElementMapsToItself) {
  Mesh m;
  m.vertices = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
  m.elements = {{0, 1, 2, 3}};
  m.element_tag = {m.add_volume_tag("domain")};
  const MeshData md = setup_mesh(m);
  EXPECT_DOUBLE_EQ(md.geom.J[0], 1.0);
  for (int i = 0; i < 9; ++i) EXPECT_DOUBLE_EQ(md.geom.drdx[0][i], (i % 4 == 0) ? 1.0 : 0.0);
  const double s3 = 1 / std::sqrt(3.0);
  const Vec3 expected[4] = {{0, 0, -1}, {0, -1, 0}, {s3, s3, s3}, {-1, 0, 0}};
  for (int f = 0; f < 4; ++f)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(md.geom.normal[0][f][d], expected[f][d], 1e-15);
  EXPECT_NEAR(md.geom.sJ[0][2], std::sqrt(3.0), 1e-15);
  EXPECT_EQ(md.mesh.boundary_tag_names, std::vector<std::string>{"untagged"});
}

TEST(Refine, EightChildrenSameVolumeAndTags) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  const Mesh coarse = make_box_mesh(spec);
  const Mesh fine = refine_uniform(coarse);
  EXPECT_EQ(fine.num_elements(), 8 * coarse.num_elements());
  EXPECT_EQ(fine.tagged_faces.size(), 4 * coarse.tagged_faces.size());
  const MeshData md = setup_mesh(fine);
  double vol = 0, vmin = 1e300, vmax = 0;
  for (int k = 0; k < md.mesh.num_elements(); ++k) {
    vol += md.geom.volume(k);
    vmin = std::min(vmin, md.geom.volume(k));
    vmax = std::max(vmax, md.geom.volume(k));
  }
  EXPECT_NEAR(vol, 1.0, 1e-13);
  // every child has 1/8 of its parent's volume
  EXPECT_NEAR(vmin, 1.0 / 48 / 8, 1e-15);
  EXPECT_NEAR(vmax, 1.0 / 48 / 8, 1e-15);
  // same box, same boundary: tags kept, face counts x4
  EXPECT_EQ(md.conn.boundary_faces, 4 * 2 * 6 * 4);
  EXPECT_EQ(md.mesh.boundary_tag_names.size(), 6u);
  // refining the 2^3 box equals a 4^3 box in vertex count
  EXPECT_EQ(md.mesh.num_vertices(), 5 * 5 * 5);
}
