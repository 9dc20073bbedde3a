#include "solver/mesh/validate.hpp"

#include "solver/mesh/curved_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "solver/mesh/geometry.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

constexpr const char* kDamagedHint = "the mesh file is damaged or was cut short: write it again with Gmsh";

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
  const int Nv = mesh.num_vertices(), K = mesh.num_elements();
  // the first offender of each kind is found in parallel, then reported as a serial scan would
  int bad_vertex = Nv;
#pragma omp parallel for schedule(static) reduction(min : bad_vertex)
  for (int i = 0; i < Nv; ++i)
    for (double x : mesh.vertices[i])
      if (!std::isfinite(x)) bad_vertex = std::min(bad_vertex, i);
  if (bad_vertex < Nv)
    throw UserError(where_in(mesh) + ": vertex " + std::to_string(bad_vertex) +
                    " has a non-finite coordinate", {mesh.source}, kDamagedHint);
  auto element_ok = [&](int k) {
    const auto& e = mesh.elements[k];
    for (int i = 0; i < 4; ++i) {
      if (e[i] < 0 || e[i] >= Nv) return false;
      for (int j = 0; j < i; ++j)
        if (e[i] == e[j]) return false;
    }
    return true;
  };
  int bad_element = K;
#pragma omp parallel for schedule(static) reduction(min : bad_element)
  for (int k = 0; k < K; ++k)
    if (!element_ok(k)) bad_element = std::min(bad_element, k);
  if (bad_element == K) return;
  const int k = bad_element;
  const auto& e = mesh.elements[k];
  for (int i = 0; i < 4; ++i) {
    if (e[i] < 0 || e[i] >= Nv)
      throw UserError(where_in(mesh) + ": element " + std::to_string(k) + " refers to vertex " +
                      std::to_string(e[i]) + ", but there are " + std::to_string(Nv) +
                      " vertices", {mesh.source}, kDamagedHint);
    for (int j = 0; j < i; ++j)
      if (e[i] == e[j])
        throw UserError(where_in(mesh) + ": element " + std::to_string(k) + " uses vertex " +
                        std::to_string(e[i]) + " twice", {mesh.source},
                        "the element is degenerate; fix or remove it");
  }
}

int orient_elements(Mesh& mesh) {
  const int K = mesh.num_elements();
  std::vector<signed char> flip(K, 0);
  int first_degenerate = K;
#pragma omp parallel for schedule(static) reduction(min : first_degenerate)
  for (int k = 0; k < K; ++k) {
    const double vol = signed_volume(mesh, k);
    const double h = longest_edge(mesh, k);
    if (!(std::abs(vol) > 1e-12 * h * h * h))
      first_degenerate = std::min(first_degenerate, k);
    else
      flip[k] = vol < 0;
  }
  // as a serial pass: the elements before a degenerate one are flipped, the rest left alone
  int flipped = 0;
#pragma omp parallel for schedule(static) reduction(+ : flipped)
  for (int k = 0; k < first_degenerate; ++k)
    if (flip[k]) {
      swap_element_vertices(mesh, k, 2, 3);
      ++flipped;
    }
  if (first_degenerate < K) {
    const int k = first_degenerate;
    const double vol = signed_volume(mesh, k);
    const double h = longest_edge(mesh, k);
    throw UserError(where_in(mesh) + ": element " + std::to_string(k) +
                        " is degenerate (volume " + fmt_g(vol) + ", longest edge " + fmt_g(h) + ")",
                    {mesh.source}, "its four vertices are (nearly) coplanar; re-mesh this region");
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
  using Cell = std::array<long long, 3>;
  auto cell_of = [hmax](const Vec3& x) {
    return Cell{static_cast<long long>(std::floor(x[0] / hmax)),
                static_cast<long long>(std::floor(x[1] / hmax)),
                static_cast<long long>(std::floor(x[2] / hmax))};
  };
  // the grid as (cell, face index) sorted: a cell's faces are a range, in increasing index
  std::vector<std::pair<Cell, int>> grid(faces.size());
  for (size_t i = 0; i < faces.size(); ++i) grid[i] = {cell_of(faces[i].c), static_cast<int>(i)};
  std::sort(grid.begin(), grid.end());

  // The first face of b's cell neighbourhood that face a lies on (-1 if none), in the order
  // cells (dx, dy, dz) then faces by index.
  auto lies_on = [&](const Face& a) {
    const Cell cell = cell_of(a.c);
    for (long long dx = -1; dx <= 1; ++dx)
      for (long long dy = -1; dy <= 1; ++dy)
        for (long long dz = -1; dz <= 1; ++dz) {
          const Cell nb{cell[0] + dx, cell[1] + dy, cell[2] + dz};
          auto it = std::lower_bound(grid.begin(), grid.end(), std::pair<Cell, int>{nb, -1});
          for (; it != grid.end() && it->first == nb; ++it) {
            const Face& b = faces[it->second];
            if (b.k == a.k && b.f == a.f) continue;
            // facing each other and coplanar (relative to the smaller face)
            const double tol = 1e-8 * std::min(a.h, b.h);
            if (dot(a.n, b.n) > -1 + 1e-8) continue;
            if (std::abs(dot(sub(a.c, b.v[0]), b.n)) > tol) continue;
            // a's centroid inside b (covers hanging nodes and coincident duplicates)
            if (!inside_triangle(a.c, b.v[0], b.v[1], b.v[2])) continue;
            return it->second;
          }
        }
    return -1;
  };
  const int n = static_cast<int>(faces.size());
  int first_bad = n;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : first_bad)
  for (int i = 0; i < n; ++i)
    if (i < first_bad && lies_on(faces[i]) >= 0) first_bad = std::min(first_bad, i);
  if (first_bad == n) return;
  const Face& a = faces[first_bad];
  const Face& b = faces[lies_on(a)];
  const double tol = 1e-8 * std::min(a.h, b.h);
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
