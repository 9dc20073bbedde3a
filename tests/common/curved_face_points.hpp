// Checks of a curved mesh's shared faces, for the tests of read_gmsh's node placements: elements
// by face, lattice points named by the vertices they sit between, and the conformity check (curved
// neighbours hold the same face points bit for bit; a curved element's face shared with an affine
// one is flat).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/mesh/mesh.hpp"

namespace dgmax::test {

// Each face (its sorted vertex ids) -> the elements holding it, in increasing element index.
inline std::map<std::array<int, 3>, std::vector<int>> elements_by_face(const Mesh& m) {
  std::map<std::array<int, 3>, std::vector<int>> out;
  for (int k = 0; k < m.num_elements(); ++k)
    for (int opposite = 0; opposite < 4; ++opposite) {
      std::array<int, 3> f;
      for (int c = 0, i = 0; c < 4; ++c)
        if (c != opposite) f[i++] = m.elements[k][c];
      std::sort(f.begin(), f.end());
      out[f].push_back(k);
    }
  return out;
}

// A lattice point (i, j, l) of element k by the vertices it sits between: sorted (vertex id, λ·q)
// of the nonzero weights. Two elements name a shared point alike.
using PointKey = std::vector<std::pair<int, int>>;
inline PointKey point_key(const Mesh& m, int k, const std::array<int, 3>& ijl) {
  const int q = m.geometry_order;
  const int lambda[4] = {q - ijl[0] - ijl[1] - ijl[2], ijl[0], ijl[1], ijl[2]};
  PointKey key;
  for (int c = 0; c < 4; ++c)
    if (lambda[c] > 0) key.emplace_back(m.elements[k][c], lambda[c]);
  std::sort(key.begin(), key.end());
  return key;
}

// Two curved neighbours hold the same lattice points on their common face, bit for bit; a curved
// element's face shared with an affine one is flat (its lattice points on the affine map, to
// rounding). Expects at least min_compared shared points and min_flat such flat faces.
inline void expect_conforming_face_points(const Mesh& m, int min_compared, int min_flat) {
  const int q = m.geometry_order;
  const auto ijl = lattice_points(q);
  std::map<PointKey, Vec3> seen;  // face points of curved elements
  int compared = 0, flat_faces = 0;
  double worst_flat = 0;
  for (const auto& [face, elements] : elements_by_face(m)) {
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
  EXPECT_GT(compared, min_compared);
  EXPECT_GT(flat_faces, min_flat);
  EXPECT_LT(worst_flat, 1e-15);  // rounding of coordinates of size 1
}

}  // namespace dgmax::test
