#include "solver/mesh/validate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "solver/mesh/geometry.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

double longest_edge(const Mesh& mesh, int k) {
  double h = 0;
  const auto& e = mesh.elements[k];
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      h = std::max(h, norm(sub(mesh.vertices[e[i]], mesh.vertices[e[j]])));
  return h;
}

std::string where_in(const Mesh& mesh) { return mesh.source.empty() ? "mesh" : "mesh '" + mesh.source + "'"; }

// Is point p (in the triangle's plane) inside triangle (a,b,c)? Strictly, with a relative margin.
bool inside_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = cross(sub(b, a), sub(c, a));
  const double area2 = dot(n, n);
  const double eps = 1e-9;
  const double l0 = dot(cross(sub(b, p), sub(c, p)), n) / area2;
  const double l1 = dot(cross(sub(c, p), sub(a, p)), n) / area2;
  const double l2 = 1 - l0 - l1;
  return l0 > eps && l1 > eps && l2 > eps;
}

}  // namespace

void check_basic(const Mesh& mesh) {
  if (mesh.elements.empty())
    throw UserError(where_in(mesh) + " has no elements", {mesh.source},
                    "check that the mesh contains tetrahedra (3D elements)");
  if (mesh.element_tag.size() != mesh.elements.size())
    throw InternalError("element_tag has " + std::to_string(mesh.element_tag.size()) +
                        " entries for " + std::to_string(mesh.elements.size()) + " elements");
  for (size_t i = 0; i < mesh.vertices.size(); ++i)
    for (double x : mesh.vertices[i])
      if (!std::isfinite(x))
        throw UserError(where_in(mesh) + ": vertex " + std::to_string(i) +
                        " has a non-finite coordinate", {mesh.source});
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const auto& e = mesh.elements[k];
    for (int i = 0; i < 4; ++i) {
      if (e[i] < 0 || e[i] >= mesh.num_vertices())
        throw UserError(where_in(mesh) + ": element " + std::to_string(k) + " refers to vertex " +
                        std::to_string(e[i]) + ", but there are " +
                        std::to_string(mesh.num_vertices()) + " vertices", {mesh.source});
      for (int j = 0; j < i; ++j)
        if (e[i] == e[j])
          throw UserError(where_in(mesh) + ": element " + std::to_string(k) +
                          " uses vertex " + std::to_string(e[i]) + " twice", {mesh.source},
                          "the element is degenerate; fix or remove it");
    }
  }
}

int orient_elements(Mesh& mesh) {
  int flipped = 0;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const double vol = signed_volume(mesh, k);
    const double h = longest_edge(mesh, k);
    if (!(std::abs(vol) > 1e-12 * h * h * h))
      throw UserError(where_in(mesh) + ": element " + std::to_string(k) +
                          " is degenerate (volume " + fmt_g(vol) + ", longest edge " + fmt_g(h) + ")",
                      {mesh.source}, "its four vertices are (nearly) coplanar; re-mesh this region");
    if (vol < 0) {
      std::swap(mesh.elements[k][2], mesh.elements[k][3]);
      ++flipped;
    }
  }
  return flipped;
}

void check_conforming(const Mesh& mesh, const Connectivity& conn) {
  // Unglued boundary faces, binned by the cell of their centroid on a grid of the largest face size.
  struct Face {
    int k, f;
    std::array<Vec3, 3> v;
    Vec3 c, n;  // centroid, unit normal (outward)
    double h;
  };
  std::vector<Face> faces;
  double hmax = 0;
  for (int k = 0; k < mesh.num_elements(); ++k)
    for (int f = 0; f < 4; ++f) {
      if (!conn.is_boundary(k, f)) continue;
      Face F{k, f, face_vertices(mesh, k, f), {}, {}, 0};
      for (int d = 0; d < 3; ++d) F.c[d] = (F.v[0][d] + F.v[1][d] + F.v[2][d]) / 3;
      F.n = cross(sub(F.v[1], F.v[0]), sub(F.v[2], F.v[0]));
      // orient outward: away from the vertex not on this face
      const int opposite = mesh.elements[k][6 - kFaceVertices[f][0] - kFaceVertices[f][1] - kFaceVertices[f][2]];
      const double len = norm(F.n) * (dot(F.n, sub(F.c, mesh.vertices[opposite])) < 0 ? -1 : 1);
      for (double& x : F.n) x /= len;
      F.h = std::max({norm(sub(F.v[0], F.v[1])), norm(sub(F.v[1], F.v[2])), norm(sub(F.v[0], F.v[2]))});
      hmax = std::max(hmax, F.h);
      faces.push_back(F);
    }
  if (faces.empty()) return;
  auto cell_of = [hmax](const Vec3& x) {
    return std::array<long long, 3>{static_cast<long long>(std::floor(x[0] / hmax)),
                                    static_cast<long long>(std::floor(x[1] / hmax)),
                                    static_cast<long long>(std::floor(x[2] / hmax))};
  };
  std::map<std::array<long long, 3>, std::vector<int>> grid;
  for (size_t i = 0; i < faces.size(); ++i) grid[cell_of(faces[i].c)].push_back(static_cast<int>(i));

  for (const Face& a : faces) {
    const auto cell = cell_of(a.c);
    for (long long dx = -1; dx <= 1; ++dx)
      for (long long dy = -1; dy <= 1; ++dy)
        for (long long dz = -1; dz <= 1; ++dz) {
          auto it = grid.find({cell[0] + dx, cell[1] + dy, cell[2] + dz});
          if (it == grid.end()) continue;
          for (int j : it->second) {
            const Face& b = faces[j];
            if (b.k == a.k && b.f == a.f) continue;
            // facing each other and coplanar (relative to the smaller face)
            const double tol = 1e-8 * std::min(a.h, b.h);
            if (dot(a.n, b.n) > -1 + 1e-8) continue;
            if (std::abs(dot(sub(a.c, b.v[0]), b.n)) > tol) continue;
            // a's centroid inside b (covers hanging nodes and coincident duplicates)
            if (!inside_triangle(a.c, b.v[0], b.v[1], b.v[2])) continue;
            const bool same_shape = std::abs(a.h - b.h) <= tol * 1e3;
            throw UserError(
                where_in(mesh) + " is not conforming: element " + std::to_string(a.k) + " face " +
                    std::to_string(a.f) + " lies on element " + std::to_string(b.k) + " face " +
                    std::to_string(b.f) + " but they share no face",
                {mesh.source},
                same_shape ? "the two faces coincide but use different vertices: merge duplicate "
                             "vertices (Gmsh: Coherence Mesh)"
                           : "hanging nodes: dgmax needs a conforming mesh (every interior face "
                             "shared by exactly two elements)");
          }
        }
  }
}

void check_tags_exist(const Mesh& mesh, const std::vector<TagReference>& refs) {
  for (const auto& ref : refs) {
    if (ref.name == "default") continue;
    const bool volume = ref.kind == TagReference::Volume;
    if (!volume && ref.name == kAllBoundaryTag) continue;
    const auto& names = volume ? mesh.volume_tag_names : mesh.boundary_tag_names;
    if (std::find(names.begin(), names.end(), ref.name) != names.end()) continue;
    std::string have;
    for (const auto& n : names) have += (have.empty() ? "" : ", ") + n;
    std::string hint = "the mesh has " + std::string(volume ? "volume" : "boundary") +
                       " tags: " + (have.empty() ? "(none)" : have);
    const std::string close = closest_match(ref.name, names);
    if (!close.empty()) hint = "did you mean '" + close + "'? " + hint;
    throw UserError(std::string(volume ? "volume" : "boundary") + " tag '" + ref.name +
                        "' does not exist in " + where_in(mesh),
                    ref.where, hint);
  }
}

}  // namespace dgmax
