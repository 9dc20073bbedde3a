#include "solver/mesh/straighten_far_nodes.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <unordered_set>
#include <utility>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

// Element k's straight-sided lattice: point (i, j, l) at Σ λ_v x_v over the vertices with λ_v > 0
// (λ = (q - i - j - l, i, j, l) / q), summed in increasing vertex id. [Nq]
std::vector<Vec3> straight_lattice(const Mesh& mesh, int k, const std::vector<std::array<int, 3>>& points, int q) {
  std::vector<Vec3> out(points.size());
  for (std::size_t m = 0; m < points.size(); ++m) {
    const auto [i, j, l] = points[m];
    std::array<std::pair<int, int>, 4> weight{{{mesh.elements[k][0], q - i - j - l},
                                               {mesh.elements[k][1], i},
                                               {mesh.elements[k][2], j},
                                               {mesh.elements[k][3], l}}};
    std::sort(weight.begin(), weight.end());
    Vec3 x{0, 0, 0};
    for (const auto& [v, w] : weight)
      if (w > 0)
        for (int d = 0; d < 3; ++d) x[d] += static_cast<double>(w) / q * mesh.vertices[v][d];
    out[m] = x;
  }
  return out;
}

// Layers of elements from the seeds (0), through shared faces; INT_MAX where no seed reaches. [K]
// (Vertex neighbours made layers of 2.6x the seeds' count on meshes/sphere_rcs_pec.geo: bench/NOTES.md,
// "2026-12-06 — Affine elements away from the curved surface".)
std::vector<int> element_layers(const Mesh& mesh, const std::vector<char>& seed) {
  const int K = mesh.num_elements();
  std::vector<std::vector<int>> at_vertex(mesh.vertices.size());
  for (int k = 0; k < K; ++k)
    for (int v : mesh.elements[k]) at_vertex[v].push_back(k);
  std::vector<int> layer(K, INT_MAX), front;
  for (int k = 0; k < K; ++k)
    if (seed[k]) {
      layer[k] = 0;
      front.push_back(k);
    }
  for (int n = 1; !front.empty(); ++n) {
    std::vector<int> next;
    for (int k : front)
      for (int v : mesh.elements[k])
        for (int e : at_vertex[v])
          if (layer[e] == INT_MAX) {
            int shared = 0;
            for (int a : mesh.elements[k])
              for (int b : mesh.elements[e]) shared += a == b;
            if (shared < 3) continue;  // not a face neighbour
            layer[e] = n;
            next.push_back(e);
          }
    front = std::move(next);
  }
  return layer;
}

}  // namespace

StraightenResult straighten_far_nodes(Mesh& mesh, const std::vector<std::size_t>& node_tag,
                                      const std::vector<char>& seed, int max_layers) {
  StraightenResult result;
  const int K = mesh.num_elements(), q = mesh.geometry_order;
  if (q < 2 || K == 0) return result;
  const std::size_t Nq = static_cast<std::size_t>(lattice_size(q));
  DGMAX_ASSERT(mesh.curved_index.size() == static_cast<std::size_t>(K) && mesh.curved_points.size() == K * Nq &&
                   node_tag.size() == K * Nq && seed.size() == static_cast<std::size_t>(K),
               "straighten_far_nodes needs every element curved, in element order");
  for (int k = 0; k < K; ++k) DGMAX_ASSERT(mesh.curved_index[k] == k, "straighten_far_nodes: rows out of order");

  const JacobianSamples samples = jacobian_samples(q);
  std::vector<double> sign(K);
  for (int k = 0; k < K; ++k) {
    sign[k] = signed_volume(mesh, k) < 0 ? -1 : 1;  // the orientation of its vertices
    result.min_scaled_before = std::min(result.min_scaled_before, element_jacobian(mesh, k, samples, sign[k]).scaled);
  }
  result.min_scaled_after = result.min_scaled_before;

  const std::vector<int> layer = element_layers(mesh, seed);
  const std::vector<std::array<int, 3>> points = lattice_points(q);
  const std::vector<Vec3> given = mesh.curved_points;  // [K][Nq]
  for (int n = 0; n <= max_layers; ++n) {
    std::unordered_set<std::size_t> moved;  // the nodes of the elements outside
    for (int k = 0; k < K; ++k)
      if (layer[k] > n) moved.insert(node_tag.begin() + k * Nq, node_tag.begin() + (k + 1) * Nq);
    if (moved.empty()) break;  // every element inside: the mesh as given
    double worst = 1;
    for (int k = 0; k < K; ++k) {
      const std::vector<Vec3> straight = straight_lattice(mesh, k, points, q);
      for (std::size_t m = 0; m < Nq; ++m)
        mesh.curved_points[k * Nq + m] =
            layer[k] > n || moved.count(node_tag[k * Nq + m]) ? straight[m] : given[k * Nq + m];
      if (layer[k] <= n) worst = std::min(worst, element_jacobian(mesh, k, samples, sign[k]).scaled);
    }
    if (worst >= result.min_scaled_before) {
      result.layers = n;
      result.min_scaled_after = worst;
      drop_affine_elements(mesh);
      return result;
    }
  }
  mesh.curved_points = given;
  return result;
}

}  // namespace dgmax
