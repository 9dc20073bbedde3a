#include "solver/mesh/connectivity.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "solver/mesh/parallel_fill.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

using Key = std::array<int, 3>;

Key sorted_key(int a, int b, int c) {
  if (a > b) std::swap(a, b);
  if (b > c) std::swap(b, c);
  if (a > b) std::swap(a, b);
  return {a, b, c};
}

Key face_key(const std::array<int, 4>& e, int f) {
  return sorted_key(e[kFaceVertices[f][0]], e[kFaceVertices[f][1]], e[kFaceVertices[f][2]]);
}

// A face in the bucket of its smallest vertex: the other two vertex ids (ascending), its element
// and local face.
struct BucketFace {
  int b, c, k, f;
  bool operator<(const BucketFace& o) const {
    return b != o.b ? b < o.b : c != o.c ? c < o.c : k != o.k ? k < o.k : f < o.f;
  }
};

struct TagEntry {
  Key key;
  long long index;  // position in Mesh::tagged_faces
  int tag;
  bool operator<(const TagEntry& o) const { return key != o.key ? key < o.key : index < o.index; }
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
// `outer`: the faces on the outer surface before any gluing, in increasing (k, f).
void glue_periodic(const Mesh& mesh, int pair_index, const std::vector<std::pair<int, int>>& outer,
                   Connectivity& c) {
  const PeriodicPair& p = mesh.periodic[pair_index];
  std::vector<std::pair<int, int>> side_a, side_b;  // (k, f)
  for (auto [k, f] : outer) {
    if (!c.is_boundary(k, f) || c.face_periodic[k][f] >= 0) continue;
    if (c.face_tag[k][f] == p.tag_a) side_a.push_back({k, f});
    if (c.face_tag[k][f] == p.tag_b) side_b.push_back({k, f});
  }
  const std::string& name_a = mesh.boundary_tag_names[p.tag_a];
  const std::string& name_b = mesh.boundary_tag_names[p.tag_b];
  if (side_a.size() != side_b.size())
    throw UserError("periodic boundaries '" + name_a + "' and '" + name_b + "' have " +
                    std::to_string(side_a.size()) + " and " + std::to_string(side_b.size()) +
                    " faces; periodic sides need matching meshes",
                    {}, "mesh the two sides alike (in Gmsh: a Periodic Surface constraint between them)");
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
  const int Nv = mesh.num_vertices();
  Connectivity c;
  assign_parallel(c.EToE, K, {-1, -1, -1, -1});
  assign_parallel(c.EToF, K, {-1, -1, -1, -1});
  assign_parallel(c.face_tag, K, {-1, -1, -1, -1});
  assign_parallel(c.face_periodic, K, {-1, -1, -1, -1});

  long long bad_vertex = -1;  // first element referring to a vertex that does not exist
#pragma omp parallel for schedule(static) reduction(max : bad_vertex)
  for (int k = 0; k < K; ++k)
    for (int v : mesh.elements[k])
      if (v < 0 || v >= Nv) bad_vertex = std::max(bad_vertex, static_cast<long long>(K) - k);
  if (bad_vertex >= 0) {
    const int k = static_cast<int>(K - bad_vertex);
    throw UserError("element " + std::to_string(k) + " refers to a vertex outside 0.." +
                        std::to_string(Nv - 1),
                    {mesh.source}, "the mesh's element list does not match its vertex list");
  }

  // Faces bucketed by their smallest vertex id (a counting sort), each bucket sorted by the other
  // two ids, then element and local face: the order of a sort of all faces by (sorted vertex
  // triple, element, face), built without one big sort and the same for any thread count.
  std::vector<long long> start(static_cast<size_t>(Nv) + 1, 0);
  {
    std::vector<int> count(Nv, 0);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; ++k)
      for (int f = 0; f < 4; ++f) {
        const Key key = face_key(mesh.elements[k], f);
#pragma omp atomic
        ++count[key[0]];
      }
    for (int v = 0; v < Nv; ++v) start[v + 1] = start[v] + count[v];
  }
  std::vector<BucketFace> faces;
  resize_parallel(faces, static_cast<size_t>(start[Nv]));
  {
    std::vector<long long> next(start.begin(), start.end() - 1);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; ++k)
      for (int f = 0; f < 4; ++f) {
        const Key key = face_key(mesh.elements[k], f);
        long long slot;
#pragma omp atomic capture
        slot = next[key[0]]++;
        faces[slot] = {key[1], key[2], k, f};
      }
  }

  // Match within each bucket; remember the first bucket (in vertex order) that holds a face of
  // more than two elements or an element meeting itself, and report it below as a serial scan of
  // all faces in sorted order would.
  int first_bad = Nv;
  long long interior = 0, boundary = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(min : first_bad) reduction(+ : interior, boundary)
  for (int v = 0; v < Nv; ++v) {
    BucketFace* b = faces.data() + start[v];
    const long long n = start[v + 1] - start[v];
    std::sort(b, b + n);
    for (long long i = 0; i < n;) {
      long long j = i + 1;
      while (j < n && b[j].b == b[i].b && b[j].c == b[i].c) ++j;
      if (j - i > 2 || (j - i == 2 && b[i].k == b[i + 1].k)) {
        first_bad = std::min(first_bad, v);
      } else if (j - i == 2) {
        c.EToE[b[i].k][b[i].f] = b[i + 1].k;
        c.EToF[b[i].k][b[i].f] = b[i + 1].f;
        c.EToE[b[i + 1].k][b[i + 1].f] = b[i].k;
        c.EToF[b[i + 1].k][b[i + 1].f] = b[i].f;
        ++interior;
      } else {
        ++boundary;
      }
      i = j;
    }
  }
  if (first_bad < Nv) {
    const BucketFace* b = faces.data() + start[first_bad];
    const long long n = start[first_bad + 1] - start[first_bad];
    for (long long i = 0; i < n;) {
      long long j = i + 1;
      while (j < n && b[j].b == b[i].b && b[j].c == b[i].c) ++j;
      if (j - i > 2) {
        std::string who;
        for (long long m = i; m < j; ++m) who += (m > i ? ", " : "") + std::to_string(b[m].k);
        throw UserError("face with vertices " + std::to_string(first_bad) + ", " +
                            std::to_string(b[i].b) + ", " + std::to_string(b[i].c) +
                            " is shared by " + std::to_string(j - i) + " elements (" + who + ")",
                        {mesh.source}, "a conforming tetrahedral mesh has at most two elements per face");
      }
      if (j - i == 2 && b[i].k == b[i + 1].k)
        throw UserError("element " + std::to_string(b[i].k) + " has two identical faces",
                        {mesh.source}, "the element repeats a vertex");
      i = j;
    }
    DGMAX_ASSERT(false, "connectivity: a bad face bucket without a bad face");
  }
  faces = {};
  c.interior_faces = static_cast<int>(interior);
  c.boundary_faces = static_cast<int>(boundary);

  // Boundary tags by sorted vertex triple; when one triangle is listed more than once the last
  // entry wins.
  std::vector<TagEntry> tags(mesh.tagged_faces.size());
  for (size_t i = 0; i < tags.size(); ++i) {
    const auto& t = mesh.tagged_faces[i];
    tags[i] = {sorted_key(t.v[0], t.v[1], t.v[2]), static_cast<long long>(i), t.tag};
  }
  std::sort(tags.begin(), tags.end());
  long long untagged_faces = 0;
#pragma omp parallel for schedule(static) reduction(+ : untagged_faces)
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      if (c.EToE[k][f] >= 0) continue;
      const Key key = face_key(mesh.elements[k], f);
      // the last entry with this key
      auto it = std::upper_bound(tags.begin(), tags.end(), key,
                                 [](const Key& x, const TagEntry& t) { return x < t.key; });
      if (it != tags.begin() && std::prev(it)->key == key)
        c.face_tag[k][f] = std::prev(it)->tag;
      else
        ++untagged_faces;
    }
  if (untagged_faces > 0) {
    const int untagged = mesh.add_boundary_tag(kUntaggedTag);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; ++k)
      for (int f = 0; f < 4; ++f)
        if (c.EToE[k][f] < 0 && c.face_tag[k][f] < 0) c.face_tag[k][f] = untagged;
  }

  if (!mesh.periodic.empty()) {
    std::vector<std::pair<int, int>> outer;  // boundary faces (k, f) in increasing order
    outer.reserve(static_cast<size_t>(c.boundary_faces));
    for (int k = 0; k < K; ++k)
      for (int f = 0; f < 4; ++f)
        if (c.EToE[k][f] < 0) outer.push_back({k, f});
    for (size_t p = 0; p < mesh.periodic.size(); ++p)
      glue_periodic(mesh, static_cast<int>(p), outer, c);
  }
  c.boundary_faces -= 2 * c.periodic_faces;
  return c;
}

}  // namespace dgmax
