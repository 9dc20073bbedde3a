#include "solver/mesh/connectivity.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "solver/util/error.hpp"

namespace dgmax {
namespace {

using Key = std::array<int, 3>;

Key sorted_key(int a, int b, int c) {
  Key key{a, b, c};
  std::sort(key.begin(), key.end());
  return key;
}

struct FaceRecord {
  Key key;
  int k, f;
};

std::string element_face(int k, int f) {
  return "element " + std::to_string(k) + " face " + std::to_string(f);
}

Vec3 centroid(const std::array<Vec3, 3>& v) {
  return {(v[0][0] + v[1][0] + v[2][0]) / 3, (v[0][1] + v[1][1] + v[2][1]) / 3,
          (v[0][2] + v[1][2] + v[2][2]) / 3};
}

double dist(const Vec3& a, const Vec3& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]));
}

double longest_edge(const std::array<Vec3, 3>& v) {
  return std::max({dist(v[0], v[1]), dist(v[1], v[2]), dist(v[0], v[2])});
}

// Glues the boundary faces of tag a to those of tag b (x_b = x_a + shift) by centroid lookup in
// a hash grid, then checks that every vertex has a partner.
void glue_periodic(const Mesh& mesh, int pair_index, Connectivity& c) {
  const PeriodicPair& p = mesh.periodic[pair_index];
  std::vector<std::pair<int, int>> side_a, side_b;  // (k, f)
  for (int k = 0; k < mesh.num_elements(); ++k)
    for (int f = 0; f < 4; ++f) {
      if (!c.is_boundary(k, f) || c.face_periodic[k][f] >= 0) continue;
      if (c.face_tag[k][f] == p.tag_a) side_a.push_back({k, f});
      if (c.face_tag[k][f] == p.tag_b) side_b.push_back({k, f});
    }
  const std::string& name_a = mesh.boundary_tag_names[p.tag_a];
  const std::string& name_b = mesh.boundary_tag_names[p.tag_b];
  if (side_a.size() != side_b.size())
    throw UserError("periodic boundaries '" + name_a + "' and '" + name_b + "' have " +
                    std::to_string(side_a.size()) + " and " + std::to_string(side_b.size()) +
                    " faces; periodic sides need matching meshes");
  if (side_a.empty()) return;

  double h = 0;
  for (auto [k, f] : side_b) h = std::max(h, longest_edge(face_vertices(mesh, k, f)));
  auto cell_of = [h](const Vec3& x) {
    return std::array<long long, 3>{std::llround(std::floor(x[0] / h)),
                                    std::llround(std::floor(x[1] / h)),
                                    std::llround(std::floor(x[2] / h))};
  };
  std::map<std::array<long long, 3>, std::vector<int>> grid;  // cell → indices into side_b
  for (size_t i = 0; i < side_b.size(); ++i)
    grid[cell_of(centroid(face_vertices(mesh, side_b[i].first, side_b[i].second)))].push_back(
        static_cast<int>(i));

  std::vector<char> used(side_b.size(), 0);
  for (auto [k, f] : side_a) {
    auto va = face_vertices(mesh, k, f);
    for (auto& v : va)
      for (int d = 0; d < 3; ++d) v[d] += p.shift[d];
    const Vec3 ca = centroid(va);
    const double tol = 1e-6 * longest_edge(va);
    const auto cell = cell_of(ca);
    int match = -1;
    for (long long dx = -1; dx <= 1 && match < 0; ++dx)
      for (long long dy = -1; dy <= 1 && match < 0; ++dy)
        for (long long dz = -1; dz <= 1 && match < 0; ++dz) {
          auto it = grid.find({cell[0] + dx, cell[1] + dy, cell[2] + dz});
          if (it == grid.end()) continue;
          for (int i : it->second) {
            auto vb = face_vertices(mesh, side_b[i].first, side_b[i].second);
            if (dist(ca, centroid(vb)) > tol) continue;
            bool all = true;
            for (const auto& x : va)
              all = all && (dist(x, vb[0]) < tol || dist(x, vb[1]) < tol || dist(x, vb[2]) < tol);
            if (all) {
              match = i;
              break;
            }
          }
        }
    if (match < 0 || used[match])
      throw UserError("periodic face " + element_face(k, f) + " on '" + name_a +
                          "' has no partner on '" + name_b + "' at the shifted position",
                      {}, "periodic sides need node-for-node matching surface meshes");
    used[match] = 1;
    auto [k2, f2] = side_b[match];
    c.EToE[k][f] = k2;
    c.EToF[k][f] = f2;
    c.EToE[k2][f2] = k;
    c.EToF[k2][f2] = f;
    c.face_periodic[k][f] = c.face_periodic[k2][f2] = static_cast<int8_t>(pair_index);
    ++c.periodic_faces;
  }
}

}  // namespace

std::array<Vec3, 3> face_vertices(const Mesh& mesh, int k, int f) {
  const auto& e = mesh.elements[k];
  return {mesh.vertices[e[kFaceVertices[f][0]]], mesh.vertices[e[kFaceVertices[f][1]]],
          mesh.vertices[e[kFaceVertices[f][2]]]};
}

Connectivity build_connectivity(Mesh& mesh) {
  const int K = mesh.num_elements();
  Connectivity c;
  c.EToE.assign(K, {-1, -1, -1, -1});
  c.EToF.assign(K, {-1, -1, -1, -1});
  c.face_tag.assign(K, {-1, -1, -1, -1});
  c.face_periodic.assign(K, {-1, -1, -1, -1});

  std::vector<FaceRecord> faces;
  faces.reserve(4 * static_cast<size_t>(K));
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      const auto& e = mesh.elements[k];
      faces.push_back({sorted_key(e[kFaceVertices[f][0]], e[kFaceVertices[f][1]],
                                  e[kFaceVertices[f][2]]),
                       k, f});
    }
  std::sort(faces.begin(), faces.end(), [](const FaceRecord& a, const FaceRecord& b) {
    return a.key != b.key ? a.key < b.key : (a.k != b.k ? a.k < b.k : a.f < b.f);
  });

  // Boundary tags by sorted vertex triple.
  std::map<Key, int> tag_of;
  for (const auto& t : mesh.tagged_faces) tag_of[sorted_key(t.v[0], t.v[1], t.v[2])] = t.tag;

  int untagged = -1;
  for (size_t i = 0; i < faces.size();) {
    size_t j = i;
    while (j < faces.size() && faces[j].key == faces[i].key) ++j;
    const size_t n = j - i;
    if (n > 2) {
      std::string who;
      for (size_t m = i; m < j; ++m) who += (m > i ? ", " : "") + std::to_string(faces[m].k);
      throw UserError("face with vertices " + std::to_string(faces[i].key[0]) + ", " +
                          std::to_string(faces[i].key[1]) + ", " + std::to_string(faces[i].key[2]) +
                          " is shared by " + std::to_string(n) + " elements (" + who + ")",
                      {mesh.source}, "a conforming tetrahedral mesh has at most two elements per face");
    }
    if (n == 2) {
      const auto& a = faces[i];
      const auto& b = faces[i + 1];
      if (a.k == b.k)
        throw UserError("element " + std::to_string(a.k) + " has two identical faces",
                        {mesh.source}, "the element repeats a vertex");
      c.EToE[a.k][a.f] = b.k;
      c.EToF[a.k][a.f] = b.f;
      c.EToE[b.k][b.f] = a.k;
      c.EToF[b.k][b.f] = a.f;
      ++c.interior_faces;
    } else {
      const auto& a = faces[i];
      auto it = tag_of.find(a.key);
      int tag = -1;
      if (it != tag_of.end()) {
        tag = it->second;
      } else {
        if (untagged < 0) untagged = mesh.add_boundary_tag(kUntaggedTag);
        tag = untagged;
      }
      c.face_tag[a.k][a.f] = tag;
      ++c.boundary_faces;
    }
    i = j;
  }

  for (size_t p = 0; p < mesh.periodic.size(); ++p) glue_periodic(mesh, static_cast<int>(p), c);
  c.boundary_faces -= 2 * c.periodic_faces;
  return c;
}

}  // namespace dgmax
