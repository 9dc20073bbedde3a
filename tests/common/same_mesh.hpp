// Two meshes equal field by field, vertices and curved lattices bit for bit (the two .msh readers,
// dgmax's own and the one through Gmsh, must agree exactly).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax::test {

inline std::vector<std::array<int, 4>> tagged_faces_of(const Mesh& m) {  // {v0, v1, v2, tag}
  std::vector<std::array<int, 4>> out;
  for (const TaggedFace& f : m.tagged_faces) out.push_back({f.v[0], f.v[1], f.v[2], f.tag});
  return out;
}

// memcmp of an empty vector would pass a null pointer (undefined behaviour), so compare sizes first.
inline bool same_bits(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0);
}

inline void expect_same_mesh(const Mesh& a, const Mesh& b, const std::string& what) {
  ASSERT_EQ(a.vertices.size(), b.vertices.size()) << what;
  EXPECT_TRUE(same_bits(a.vertices, b.vertices)) << what;
  EXPECT_EQ(a.elements, b.elements) << what;
  EXPECT_EQ(a.element_tag, b.element_tag) << what;
  EXPECT_EQ(a.volume_tag_names, b.volume_tag_names) << what;
  EXPECT_EQ(a.boundary_tag_names, b.boundary_tag_names) << what;
  EXPECT_EQ(tagged_faces_of(a), tagged_faces_of(b)) << what;
  EXPECT_EQ(a.periodic.size(), b.periodic.size()) << what;
  EXPECT_EQ(a.source, b.source) << what;
  EXPECT_EQ(a.geometry_order, b.geometry_order) << what;
  EXPECT_EQ(a.curved_index, b.curved_index) << what;
  ASSERT_EQ(a.curved_points.size(), b.curved_points.size()) << what;
  EXPECT_TRUE(same_bits(a.curved_points, b.curved_points)) << what;
}

}  // namespace dgmax::test
