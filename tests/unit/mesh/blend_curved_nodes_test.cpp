// blend_curved_nodes (solver/mesh/blend_curved_nodes.hpp) without Gmsh: the blend reproduces a map
// of its own form from the boundary nodes alone, with the vertices in any global order; on a box
// whose top is a curved surface, the surface's nodes are kept bit for bit, neighbours agree bit
// for bit, only the elements with an edge on the surface stay curved, and the volume converges
// at the geometry's order.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <numbers>
#include <random>
#include <vector>

#include "solver/mesh/blend_curved_nodes.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/geometry.hpp"

namespace dgmax {
namespace {

using Counts = std::array<int, 4>;  // a lattice point's barycentric counts on local vertices 0..3

std::vector<Counts> counts(int q) {
  std::vector<Counts> out;
  for (const auto& [i, j, l] : lattice_points(q)) out.push_back({q - i - j - l, i, j, l});
  return out;
}

// The map of the header's form, written out here: one curved edge (local 0, 1), one curved face
// (local 0, 1, 2), with ψ and φ given by coefficients of powers (ψ: of s; φ: of u^m v^n).
struct OwnForm {
  std::array<Vec3, 4> x;     // vertices
  std::array<int, 4> id;     // their global ids
  std::vector<Vec3> psi;     // [q-1] powers of s
  std::vector<Vec3> phi;     // [(q-1)(q-2)/2] u^m v^n, m outer
  int q;

  Vec3 operator()(const std::array<double, 4>& l) const {
    Vec3 out{0, 0, 0};
    for (int v = 0; v < 4; ++v)
      for (int d = 0; d < 3; ++d) out[d] += l[v] * x[v][d];
    const int a = id[0] < id[1] ? 0 : 1, b = 1 - a;  // the edge from its lower global id
    const double s = (1 + l[b] - l[a]) / 2;
    for (int p = 0; p < q - 1; ++p)
      for (int d = 0; d < 3; ++d) out[d] += l[0] * l[1] * std::pow(s, p) * psi[p][d];
    std::array<int, 3> f{0, 1, 2};
    std::sort(f.begin(), f.end(), [&](int i, int j) { return id[i] < id[j]; });
    const double u = l[f[0]] + l[3] / 3, w = l[f[1]] + l[3] / 3;
    int c = 0;
    for (int m = 0; m <= q - 3; ++m)
      for (int n = 0; m + n <= q - 3; ++n, ++c)
        for (int d = 0; d < 3; ++d) out[d] += l[0] * l[1] * l[2] * std::pow(u, m) * std::pow(w, n) * phi[c][d];
    return out;
  }
};

TEST(BlendCurvedNodes, ReproducesAMapOfItsOwnFormFromTheBoundaryNodes) {
  std::mt19937 rng(53);
  std::uniform_real_distribution<double> small(-0.05, 0.05);
  for (int q = 2; q <= 6; ++q)
    for (const std::array<int, 4> id : {std::array<int, 4>{0, 1, 2, 3}, {3, 1, 0, 2}, {2, 3, 1, 0}}) {
      Mesh mesh;
      mesh.vertices = {{0.1, 0, 0}, {1, 0.1, 0}, {0.2, 1, 0.1}, {0.1, 0.2, 1}};
      mesh.elements = {{0, 1, 2, 3}};
      OwnForm form;
      form.q = q;
      for (int v = 0; v < 4; ++v) {
        mesh.elements[0][v] = id[v];
        form.id[v] = id[v];
      }
      std::vector<Vec3> vertices(4);
      for (int v = 0; v < 4; ++v) vertices[id[v]] = mesh.vertices[v];
      for (int v = 0; v < 4; ++v) form.x[v] = vertices[id[v]];
      mesh.vertices = vertices;
      for (int p = 0; p < q - 1; ++p) form.psi.push_back({small(rng), small(rng), small(rng)});
      for (int p = 0; p < (q - 1) * (q - 2) / 2; ++p) form.phi.push_back({small(rng), small(rng), small(rng)});

      mesh.geometry_order = q;
      const std::vector<Counts> c = counts(q);
      const std::size_t Nq = c.size();
      mesh.curved_index = {0};
      mesh.curved_points.resize(Nq);
      std::vector<char> on_curved(Nq, 0);
      std::vector<Vec3> truth(Nq);
      for (std::size_t m = 0; m < Nq; ++m) {
        std::array<double, 4> l;
        for (int v = 0; v < 4; ++v) l[v] = static_cast<double>(c[m][v]) / q;
        truth[m] = form(l);
        // the nodes of face (0, 1, 2), edges included, are the boundary data; the rest is noise
        on_curved[m] = c[m][3] == 0;
        mesh.curved_points[m] = on_curved[m] ? truth[m] : Vec3{truth[m][0] + 0.3, truth[m][1], truth[m][2] - 0.2};
      }
      const BlendResult result = blend_curved_nodes(mesh, on_curved);
      EXPECT_EQ(result.curved_elements, 1);
      EXPECT_EQ(result.curved_edges, 3);  // the face's edges (two of them straight: ψ = 0)
      EXPECT_EQ(result.curved_faces, q >= 3 ? 1 : 0);
      double worst = 0;
      for (std::size_t m = 0; m < Nq; ++m)
        for (int d = 0; d < 3; ++d) worst = std::max(worst, std::abs(mesh.curved_points[m][d] - truth[m][d]));
      EXPECT_LT(worst, 1e-13) << "q = " << q << ", ids " << id[0] << id[1] << id[2] << id[3];
    }
}

// The unit cube in n³ cells whose top z = 1 is replaced by the surface z = 1 + w(x, y); the top's
// lattice points are on the surface and marked, every other point straight-sided.
constexpr double kAmplitude = 0.08;
double surface(double x, double y) {
  return kAmplitude * std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y);
}

Mesh curved_top_box(int n, int q, std::vector<char>& on_curved) {
  BoxSpec spec;
  spec.cells = {n, n, n};
  Mesh mesh = make_box_mesh(spec);
  const std::vector<Vec3> straight_vertices = mesh.vertices;
  for (Vec3& v : mesh.vertices)
    if (v[2] == 1) v[2] += surface(v[0], v[1]);
  const std::vector<Counts> c = counts(q);
  const std::size_t Nq = c.size(), K = mesh.elements.size();
  mesh.geometry_order = q;
  mesh.curved_index.resize(K);
  mesh.curved_points.resize(K * Nq);
  on_curved.assign(K * Nq, 0);
  for (std::size_t k = 0; k < K; ++k) {
    mesh.curved_index[k] = static_cast<int>(k);
    for (std::size_t m = 0; m < Nq; ++m) {
      Vec3 x{0, 0, 0};
      bool on_top = true;
      for (int v = 0; v < 4; ++v) {
        const Vec3& p = straight_vertices[mesh.elements[k][v]];
        if (c[m][v] > 0) on_top = on_top && p[2] == 1;
        for (int d = 0; d < 3; ++d) x[d] += static_cast<double>(c[m][v]) / q * p[d];
      }
      if (on_top) {
        x[2] = 1 + surface(x[0], x[1]);
        on_curved[k * Nq + m] = 1;
      }
      mesh.curved_points[k * Nq + m] = x;
    }
  }
  return mesh;
}

class BlendCurvedTop : public ::testing::TestWithParam<int> {};

TEST_P(BlendCurvedTop, KeepsTheSurfaceAndNeighboursAgreeBitForBit) {
  const int q = GetParam(), n = 3;
  std::vector<char> on_curved;
  Mesh mesh = curved_top_box(n, q, on_curved);
  const std::vector<Vec3> given = mesh.curved_points;
  const std::size_t Nq = static_cast<std::size_t>(lattice_size(q));
  const std::vector<Counts> c = counts(q);
  const BlendResult result = blend_curved_nodes(mesh, on_curved);

  int curved = 0;
  std::map<std::vector<std::pair<int, int>>, Vec3> seen;  // a point by its (vertex, count) pairs
  int compared = 0;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    // its vertices on the top (w vanishes on the top's rim, so they are counted by their marks)
    int flagged_vertices = 0;
    for (int v = 0; v < 4; ++v) {
      Counts corner{0, 0, 0, 0};
      corner[v] = q;
      const int m = lattice_index(q, corner[1], corner[2], corner[3]);
      flagged_vertices += on_curved[static_cast<std::size_t>(k) * Nq + m];
    }
    // a face on the top is curved; an edge on it too, unless it lies on the top's rim (w = 0 there)
    if (flagged_vertices >= 3) {
      EXPECT_TRUE(mesh.is_curved(k)) << "element " << k;
    }
    if (mesh.is_curved(k)) {
      EXPECT_GE(flagged_vertices, 2) << "element " << k;
    }
    curved += mesh.is_curved(k);
    if (!mesh.is_curved(k)) continue;
    const Vec3* row = mesh.curved_row(k);
    for (std::size_t m = 0; m < Nq; ++m) {
      if (on_curved[k * Nq + m]) {
        EXPECT_EQ(std::memcmp(row[m].data(), given[k * Nq + m].data(), sizeof(Vec3)), 0) << "element " << k;
      }
      std::vector<std::pair<int, int>> key;
      for (int v = 0; v < 4; ++v)
        if (c[m][v] > 0) key.emplace_back(mesh.elements[k][v], c[m][v]);
      std::sort(key.begin(), key.end());
      if (key.size() == 4) continue;  // inside the element: not shared
      const auto [it, inserted] = seen.emplace(key, row[m]);
      if (!inserted) {
        ++compared;
        EXPECT_EQ(std::memcmp(it->second.data(), row[m].data(), sizeof(Vec3)), 0) << "element " << k;
      }
    }
  }
  EXPECT_EQ(result.curved_elements, curved);
  EXPECT_GT(curved, 2 * n * n);  // the top's 2n² faces' elements and more
  EXPECT_GT(compared, 100);
  EXPECT_NO_THROW(check_curved_jacobians(mesh));
}

// The box's volume, 1 + ∫ w = 1 + amplitude (2/π)², on 2³ and 4³ cells: the error falls at
// least as h^(q+1) (the surface interpolated at degree q), and at q = 2 far below the faceted top's.
TEST_P(BlendCurvedTop, VolumeConvergesAtTheGeometrysOrder) {
  const int q = GetParam();
  const double exact = 1 + kAmplitude * 4 / (std::numbers::pi * std::numbers::pi);
  double error[2];
  for (int i = 0; i < 2; ++i) {
    std::vector<char> on_curved;
    Mesh mesh = curved_top_box(2 << i, q, on_curved);
    blend_curved_nodes(mesh, on_curved);
    const CurvedMeasures measures = curved_measures(mesh);
    double volume = 0;
    for (int k = 0; k < mesh.num_elements(); ++k)
      volume += mesh.is_curved(k) ? measures.volume[mesh.curved_index[k]] : std::abs(signed_volume(mesh, k));
    error[i] = std::abs(volume - exact);
  }
  std::printf("q = %d: volume error %.3e -> %.3e\n", q, error[0], error[1]);
  EXPECT_LT(error[1], error[0] / std::pow(2.0, q + 1) * 1.5);
}

INSTANTIATE_TEST_SUITE_P(GeometryOrders, BlendCurvedTop, ::testing::Values(2, 3, 4, 5));

}  // namespace
}  // namespace dgmax
