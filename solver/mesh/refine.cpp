#include "solver/mesh/refine.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "solver/mesh/geometry.hpp"

namespace dgmax {
namespace {

class MidpointTable {
 public:
  explicit MidpointTable(Mesh& out) : out_(out) {}
  int operator()(int a, int b) {
    const auto key = std::minmax(a, b);
    auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    const Vec3& x = out_.vertices[a];
    const Vec3& y = out_.vertices[b];
    out_.vertices.push_back({(x[0] + y[0]) / 2, (x[1] + y[1]) / 2, (x[2] + y[2]) / 2});
    const int id = out_.num_vertices() - 1;
    ids_.emplace(key, id);
    return id;
  }

 private:
  Mesh& out_;
  std::map<std::pair<int, int>, int> ids_;
};

double dist2(const Vec3& a, const Vec3& b) {
  return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
         (a[2] - b[2]) * (a[2] - b[2]);
}

}  // namespace

Mesh refine_uniform(const Mesh& mesh) {
  Mesh out;
  out.vertices = mesh.vertices;
  out.volume_tag_names = mesh.volume_tag_names;
  out.boundary_tag_names = mesh.boundary_tag_names;
  out.periodic = mesh.periodic;
  out.source = mesh.source + " refined";
  out.elements.reserve(8 * mesh.elements.size());
  out.element_tag.reserve(8 * mesh.elements.size());
  MidpointTable mid(out);

  for (int k = 0; k < mesh.num_elements(); ++k) {
    const auto& v = mesh.elements[k];
    int m[4][4];  // m[i][j]: midpoint of edge (v_i, v_j)
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) m[i][j] = m[j][i] = mid(v[i], v[j]);
    const int tag = mesh.element_tag[k];
    auto emit = [&](std::array<int, 4> e) {
      out.elements.push_back(e);
      out.element_tag.push_back(tag);
      // keep the parent's orientation (children of the octahedron may come out flipped)
      if (signed_volume(out, out.num_elements() - 1) < 0) std::swap(out.elements.back()[2], out.elements.back()[3]);
    };
    // corner tets: scaled copies of the parent, same orientation
    emit({v[0], m[0][1], m[0][2], m[0][3]});
    emit({m[0][1], v[1], m[1][2], m[1][3]});
    emit({m[0][2], m[1][2], v[2], m[2][3]});
    emit({m[0][3], m[1][3], m[2][3], v[3]});
    // octahedron: opposite vertex pairs (01,23), (02,13), (03,12); cut along the shortest one
    const std::pair<int, int> pairs[3] = {{m[0][1], m[2][3]}, {m[0][2], m[1][3]}, {m[0][3], m[1][2]}};
    int best = 0;
    for (int p = 1; p < 3; ++p)
      if (dist2(out.vertices[pairs[p].first], out.vertices[pairs[p].second]) <
          dist2(out.vertices[pairs[best].first], out.vertices[pairs[best].second]))
        best = p;
    const auto [a, b] = pairs[best];
    const auto [c1, c1o] = pairs[(best + 1) % 3];
    const auto [c2, c2o] = pairs[(best + 2) % 3];
    const int ring[4] = {c1, c2, c1o, c2o};  // consecutive ring vertices are octahedron neighbours
    for (int i = 0; i < 4; ++i) emit({a, b, ring[i], ring[(i + 1) % 4]});
  }

  out.tagged_faces.reserve(4 * mesh.tagged_faces.size());
  for (const auto& t : mesh.tagged_faces) {
    const int u = t.v[0], v = t.v[1], w = t.v[2];
    const int uv = mid(u, v), vw = mid(v, w), uw = mid(u, w);
    out.tagged_faces.push_back({{u, uv, uw}, t.tag});
    out.tagged_faces.push_back({{uv, v, vw}, t.tag});
    out.tagged_faces.push_back({{uw, vw, w}, t.tag});
    out.tagged_faces.push_back({{uv, vw, uw}, t.tag});
  }
  return out;
}

}  // namespace dgmax
