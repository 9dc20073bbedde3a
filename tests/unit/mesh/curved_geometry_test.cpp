// The curved elements' geometry: the lattice, the vertex swaps, the per-node factors' polynomial
// exactness (a polynomial of degree p in x is one of degree p·q in r: its gradient is exact where
// p·q <= N) and the nodal Jacobian's integral (the volume, exact where 3(q - 1) <= N).
#include <gtest/gtest.h>

#include <cmath>

#include "curved_box.hpp"
#include "expect_user_error.hpp"
#include "solver/element/reference_element.hpp"
#include "solver/mesh/curved_geometry.hpp"
#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(CurvedLattice, IndexSizeAndReferencePoints) {
  for (int q = 1; q <= kMaxGeometryOrder; ++q) {
    const auto pts = lattice_points(q);
    ASSERT_EQ(static_cast<int>(pts.size()), lattice_size(q));
    for (int m = 0; m < lattice_size(q); ++m) EXPECT_EQ(lattice_index(q, pts[m][0], pts[m][1], pts[m][2]), m);
    // vertex 0 first, vertex 3 last
    EXPECT_EQ(lattice_index(q, 0, 0, 0), 0);
    EXPECT_EQ(lattice_index(q, 0, 0, q), lattice_size(q) - 1);
  }
}

TEST(CurvedLattice, InterpolatesPolynomialsOfItsOrderExactly) {
  for (int q = 1; q <= 6; ++q) {
    Eigen::VectorXd lr, ls, lt;
    lattice_reference_points(q, lr, ls, lt);
    const RefElement& ref = ref_element(8);
    const Eigen::MatrixXd L = lattice_interpolation(q, ref.r, ref.s, ref.t);
    auto f = [q](double r, double s, double t) { return std::pow(1 + r, q) - 2 * std::pow(s, q - 1) * t + (q >= 2 ? r * s : r); };
    Eigen::VectorXd F(lr.size());
    for (int m = 0; m < lr.size(); ++m) F(m) = f(lr(m), ls(m), lt(m));
    const Eigen::VectorXd at_nodes = L * F;
    for (int i = 0; i < ref.Np; ++i) EXPECT_NEAR(at_nodes(i), f(ref.r(i), ref.s(i), ref.t(i)), 1e-11) << "q = " << q;
  }
}

TEST(CurvedLattice, VertexSwapPermutesBarycentricCoordinates) {
  const int q = 4;
  const auto pts = lattice_points(q);
  const auto perm = lattice_vertex_swap(q, 2, 3);
  for (int m = 0; m < lattice_size(q); ++m) {  // swapping vertices 2 and 3 swaps j and l
    const auto& a = pts[m];
    const auto& b = pts[perm[m]];
    EXPECT_EQ(a[0], b[0]);
    EXPECT_EQ(a[1], b[2]);
    EXPECT_EQ(a[2], b[1]);
  }
}

TEST(CurvedMesh, ReorientedCurvedElementsKeepTheirShape) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  const Mesh original = warped_box_mesh(spec, 3, 0.1);
  Mesh mesh = original;
  for (int k = 0; k < mesh.num_elements(); k += 2) swap_element_vertices(mesh, k, 2, 3);
  // the same point of space at the swapped reference point
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const double r = -0.4, s = -0.3, t = -0.1;
    const Vec3 a = map_element(original, k, r, s, t);
    const Vec3 b = k % 2 == 0 ? map_element(mesh, k, r, t, s) : map_element(mesh, k, r, s, t);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(a[d], b[d], 1e-13);
  }
}

TEST(CurvedMesh, StraightElementsAreDroppedAndCurvedOnesKept) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  Mesh mesh = warped_box_mesh(spec, 2, 0.0);  // a warp of amplitude 0: every element affine
  EXPECT_EQ(drop_affine_elements(mesh), 0);
  EXPECT_TRUE(mesh.curved_index.empty());
  Mesh curved = warped_box_mesh(spec, 2, 0.1);
  EXPECT_EQ(drop_affine_elements(curved), curved.num_elements());
  const MeshData md = setup_mesh(curved);
  EXPECT_EQ(md.curved.curved, curved.num_elements());
  EXPECT_GT(md.curved.min_scaled, 0.3);
  EXPECT_LE(md.curved.max_scaled, 1.0);
}

// A box warped inside with its faces kept (box_warp vanishes on them): the faces on the box's
// boundary stay on their vertices' affine map, the inner faces bend; an affine element's faces
// are all affine.
TEST(CurvedMesh, FacesOnTheKeptBoxFacesAreAffine) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  const MeshData md = setup_mesh(warped_box_mesh(spec, 3, 0.1));
  ASSERT_EQ(md.mesh.num_curved(), md.mesh.num_elements());
  int boundary = 0, bent = 0;
  for (int k = 0; k < md.mesh.num_elements(); ++k)
    for (int f = 0; f < 4; ++f) {
      if (md.conn.is_boundary(k, f)) {
        EXPECT_TRUE(face_is_affine(md.mesh, k, f)) << k << " " << f;
        ++boundary;
      } else {
        bent += !face_is_affine(md.mesh, k, f);
      }
    }
  EXPECT_EQ(boundary, 2 * 6 * 4);  // 2 triangles per cell face, 4 cell faces per box face
  EXPECT_GT(bent, md.mesh.num_elements());
  const MeshData straight = setup_mesh(make_box_mesh(spec));
  for (int f = 0; f < 4; ++f) EXPECT_TRUE(face_is_affine(straight.mesh, 0, f));
}

TEST(CurvedMesh, TangledElementIsRefusedWithItsPosition) {
  BoxSpec spec;
  spec.cells = {1, 1, 1};
  Mesh mesh = warped_box_mesh(spec, 2, 0.05);
  // an edge midpoint pulled far through the element folds its map
  const int q = 2, k = 3;
  mesh.curved_points[static_cast<size_t>(mesh.curved_index[k]) * lattice_size(q) + lattice_index(q, 1, 0, 0)] = {5, 5, 5};
  expect_user_error([&] { setup_mesh(mesh); }, {"curved element 3", "tangled or inverted", "Jacobian is"});
}

namespace {
// Largest error of the nodal gradient of f(x) = x^a y^b z^c over a warped box's elements.
double gradient_error(int N, int q, int a, int b, int c) {
  BoxSpec spec;
  spec.cells = {2, 1, 1};
  const Problem p = warped_box_problem(spec, N, q, 0.12, 1.0);
  const RefElement& ref = *p.ref;
  const CurvedFactors& cf = *p.curved;
  double worst = 0;
  for (int k = 0; k < p.K(); ++k) {
    const int cs = cf.slot_of[k];
    Eigen::VectorXd u(p.Np());
    std::vector<std::array<double, 3>> exact(p.Np());
    for (int i = 0; i < p.Np(); ++i) {
      const size_t n = static_cast<size_t>(k) * p.Np() + i;
      const double x = p.xyz.x[n], y = p.xyz.y[n], z = p.xyz.z[n];
      u(i) = std::pow(x, a) * std::pow(y, b) * std::pow(z, c);
      exact[i] = {a * std::pow(x, a - 1) * std::pow(y, b) * std::pow(z, c),
                  b * std::pow(x, a) * std::pow(y, b - 1) * std::pow(z, c),
                  c * std::pow(x, a) * std::pow(y, b) * std::pow(z, c - 1)};
    }
    const Eigen::VectorXd ur = ref.Dr * u, us = ref.Ds * u, ut = ref.Dt * u;
    for (int i = 0; i < p.Np(); ++i)
      for (int d = 0; d < 3; ++d) {
        const double g = cf.metric(cs, d, i) * ur(i) + cf.metric(cs, 3 + d, i) * us(i) + cf.metric(cs, 6 + d, i) * ut(i);
        worst = std::max(worst, std::abs(g - exact[i][d]));
      }
  }
  return worst;
}
}  // namespace

TEST(CurvedGeometry, GradientsOfPolynomialsAreExactWhereTheMapAllows) {
  // degree p fields on maps of order q: exact to rounding when p·q <= N, and not when p·q > N
  for (int q = 2; q <= 4; ++q)  // (q = 1 warps give affine elements: no curved factors)
    for (int N = q; N <= 5; ++N)
      for (int deg = 1; deg * q <= N; ++deg) {
        EXPECT_LT(gradient_error(N, q, deg, 0, 0), 1e-10) << "N " << N << " q " << q << " x^" << deg;
        EXPECT_LT(gradient_error(N, q, 0, deg, 0), 1e-10) << "N " << N << " q " << q << " y^" << deg;
        if (deg >= 2) {
          EXPECT_LT(gradient_error(N, q, 1, deg - 1, 0), 1e-10) << "N " << N << " q " << q;
        }
      }
  EXPECT_GT(gradient_error(3, 2, 2, 0, 0), 1e-6);  // degree 4 in r: not exact at N = 3
}

TEST(CurvedGeometry, NodalJacobianIntegratesTheVolumeExactly) {
  // the warp keeps the box: volume 1 whatever the curving; exact when J (degree 3(q-1)) is
  // interpolated exactly at the N nodes
  for (int q = 1; q <= 3; ++q)
    for (int N = std::max(q, 3 * (q - 1)); N <= 7; ++N) {
      BoxSpec spec;
      spec.cells = {2, 2, 1};
      const Problem p = warped_box_problem(spec, N, q, 0.1, 1.0);
      std::vector<double> one(p.Np(), 1.0);
      double volume = 0;
      for (int k = 0; k < p.K(); ++k) volume += p.inner(k, one.data(), one.data());
      EXPECT_NEAR(volume, 1.0, 1e-12) << "N " << N << " q " << q;
    }
}

TEST(CurvedGeometry, NormalsAreUnitAndOpposedAcrossFaces) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  const Problem p = warped_box_problem(spec, 4, 3, 0.1, 1.0);
  const CurvedFactors& cf = *p.curved;
  const int Nfp = p.Nfp(), Np = p.Np();
  for (int k = 0; k < p.K(); ++k)
    for (int f = 0; f < 4; ++f) {
      if (p.md->conn.is_boundary(k, f)) continue;
      for (int j = 0; j < Nfp; ++j) {
        const int slot = (k * 4 + f) * Nfp + j;
        const int nodeP = p.maps.vmapP[slot], kP = nodeP / Np;
        const int fP = p.md->conn.EToF[k][f];
        // the neighbour's face node at the same point
        int jP = -1;
        for (int m = 0; m < Nfp; ++m)
          if (p.maps.vmapM[(kP * 4 + fP) * Nfp + m] == nodeP) jP = m;
        ASSERT_GE(jP, 0);
        const double* n = cf.face_normal(cf.slot_of[k], f, j);
        const double* m = cf.face_normal(cf.slot_of[kP], fP, jP);
        EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-13);
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(n[d], -m[d], 1e-11);
        EXPECT_NEAR(cf.face_sJ(cf.slot_of[k], f, j), cf.face_sJ(cf.slot_of[kP], fP, jP), 1e-11);
      }
    }
}

TEST(CurvedMesh, MeasuresAreTheCurvedVolumeAndAreas) {
  // the warp keeps the unit box: the curved volumes sum to 1 and the boundary faces' areas to 6,
  // while element by element they differ from the straight-sided ones through the same vertices
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  const MeshData md = setup_mesh(warped_box_mesh(spec, 3, 0.12));
  const CurvedMeasures m = curved_measures(md.mesh);
  ASSERT_EQ(static_cast<int>(m.volume.size()), md.mesh.num_elements());
  double volume = 0, differs = 0, boundary = 0;
  for (int k = 0; k < md.mesh.num_elements(); ++k) {
    volume += m.volume[md.mesh.curved_index[k]];
    differs = std::max(differs, std::abs(m.volume[md.mesh.curved_index[k]] - md.geom.volume(k)));
    for (int f = 0; f < 4; ++f)
      if (md.conn.is_boundary(k, f)) boundary += m.area[md.mesh.curved_index[k]][f];
  }
  EXPECT_NEAR(volume, 1.0, 1e-12);
  EXPECT_NEAR(boundary, 6.0, 1e-12);
  EXPECT_GT(differs, 1e-4);
}

TEST(CurvedGeometry, AMapThatFoldsAtTheNodesIsRefusedWithItsElement) {
  // the factors' own check (the set-up check samples the lattice; this one every node and point)
  BoxSpec spec;
  spec.cells = {1, 1, 1};
  Mesh mesh = warped_box_mesh(spec, 2, 0.05);
  const int q = 2, k = 4;
  mesh.curved_points[static_cast<size_t>(mesh.curved_index[k]) * lattice_size(q) + lattice_index(q, 1, 1, 0)] = {-3, -3, -3};
  expect_user_error([&] { compute_curved_factors(mesh, ref_element(3)); },
                    {"curved element 4", "has a Jacobian that is not positive", "order 2", "order-3 nodes"});
}
