#include "solver/mesh/refine.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "solver/mesh/geometry.hpp"
#include "solver/mesh/parallel_fill.hpp"

namespace dgmax {
namespace {

// The 6 edges of a tetrahedron in the order the midpoints are numbered: (0,1) (0,2) (0,3) (1,2)
// (1,3) (2,3).
constexpr int kEdges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

double dist2(const Vec3& a, const Vec3& b) {
  return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
         (a[2] - b[2]) * (a[2] - b[2]);
}

Vec3 midpoint(const Vec3& x, const Vec3& y) {
  return {(x[0] + y[0]) / 2, (x[1] + y[1]) / 2, (x[2] + y[2]) / 2};
}

// An edge occurrence in the bucket of its smaller vertex: the larger vertex and the occurrence
// number 6k + e (element k, edge e).
struct EdgeOcc {
  int hi;
  long long occ;
  bool operator<(const EdgeOcc& o) const { return hi != o.hi ? hi < o.hi : occ < o.occ; }
};

}  // namespace

// Midpoints are numbered as a serial pass would create them: old vertices first, then the
// midpoints of element edges in order of first use (elements in order, edges in kEdges order),
// then midpoints that only tagged triangles need. The edges are found by a counting sort on the
// smaller vertex instead of a map, and the children are written in parallel.
Mesh refine_uniform(const Mesh& mesh) {
  const int K = mesh.num_elements();
  const int Nv = mesh.num_vertices();
  Mesh out;
  out.volume_tag_names = mesh.volume_tag_names;
  out.boundary_tag_names = mesh.boundary_tag_names;
  out.periodic = mesh.periodic;
  out.source = mesh.source + " refined";

  // ---- edges: bucket the 6K occurrences by smaller vertex, sort each bucket ----------------
  const long long n_occ = 6LL * K;
  std::vector<long long> start(static_cast<size_t>(Nv) + 1, 0);
  {
    std::vector<int> count(Nv, 0);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; ++k)
      for (const auto& ed : kEdges) {
        const int lo = std::min(mesh.elements[k][ed[0]], mesh.elements[k][ed[1]]);
#pragma omp atomic
        ++count[lo];
      }
    for (int v = 0; v < Nv; ++v) start[v + 1] = start[v] + count[v];
  }
  std::vector<EdgeOcc> occ;
  resize_parallel(occ, static_cast<size_t>(n_occ));
  {
    std::vector<long long> next(start.begin(), start.end() - 1);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; ++k)
      for (int e = 0; e < 6; ++e) {
        const int a = mesh.elements[k][kEdges[e][0]], b = mesh.elements[k][kEdges[e][1]];
        long long slot;
#pragma omp atomic capture
        slot = next[std::min(a, b)]++;
        occ[slot] = {std::max(a, b), 6LL * k + e};
      }
  }
  // first[o]: 1 when occurrence o is its edge's first; owner[o]: its edge's first occurrence
  std::vector<long long> owner;
  std::vector<int> first_rank;
  resize_parallel(owner, static_cast<size_t>(n_occ));
  resize_parallel(first_rank, static_cast<size_t>(n_occ));
#pragma omp parallel for schedule(dynamic, 1024)
  for (int v = 0; v < Nv; ++v) {
    EdgeOcc* b = occ.data() + start[v];
    const long long n = start[v + 1] - start[v];
    std::sort(b, b + n);
    for (long long i = 0; i < n;) {
      long long j = i + 1;
      while (j < n && b[j].hi == b[i].hi) ++j;
      first_rank[b[i].occ] = 1;
      for (long long m = i; m < j; ++m) owner[b[m].occ] = b[i].occ;
      i = j;
    }
  }
  // exclusive prefix sum: the rank of each first occurrence among all first occurrences
  long long n_edges = 0;
  for (long long o = 0; o < n_occ; ++o) {
    const int is_first = first_rank[o];
    first_rank[o] = static_cast<int>(n_edges);
    n_edges += is_first;
  }
  auto edge_vertex = [&](long long o) { return Nv + first_rank[owner[o]]; };

  resize_parallel(out.vertices, static_cast<size_t>(Nv) + n_edges);
  std::copy(mesh.vertices.begin(), mesh.vertices.end(), out.vertices.begin());
#pragma omp parallel for schedule(static)
  for (int k = 0; k < K; ++k)
    for (int e = 0; e < 6; ++e) {
      const long long o = 6LL * k + e;
      if (owner[o] != o) continue;
      out.vertices[edge_vertex(o)] = midpoint(mesh.vertices[mesh.elements[k][kEdges[e][0]]],
                                              mesh.vertices[mesh.elements[k][kEdges[e][1]]]);
    }

  // ---- children ------------------------------------------------------------------------------
  resize_parallel(out.elements, 8 * static_cast<size_t>(K));
  resize_parallel(out.element_tag, 8 * static_cast<size_t>(K));
#pragma omp parallel for schedule(static)
  for (int k = 0; k < K; ++k) {
    const auto& v = mesh.elements[k];
    int m[4][4];  // m[i][j]: midpoint of edge (v_i, v_j)
    for (int e = 0; e < 6; ++e) {
      const int i = kEdges[e][0], j = kEdges[e][1];
      m[i][j] = m[j][i] = edge_vertex(6LL * k + e);
    }
    const int tag = mesh.element_tag[k];
    size_t child = 8 * static_cast<size_t>(k);
    auto emit = [&](std::array<int, 4> e) {
      out.elements[child] = e;
      out.element_tag[child] = tag;
      // keep the parent's orientation (children of the octahedron may come out flipped)
      if (signed_volume(out, static_cast<int>(child)) < 0) std::swap(out.elements[child][2], out.elements[child][3]);
      ++child;
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

  // ---- tagged triangles: midpoints of element edges, or new ones in order of first use -------
  std::map<std::pair<int, int>, int> extra;
  auto mid = [&](int a, int b) {
    const int lo = std::min(a, b), hi = std::max(a, b);
    if (lo >= 0 && hi < Nv) {
      const EdgeOcc* first = occ.data() + start[lo];
      const EdgeOcc* last = occ.data() + start[lo + 1];
      const EdgeOcc* it = std::lower_bound(first, last, EdgeOcc{hi, -1});
      if (it != last && it->hi == hi) return edge_vertex(it->occ);
    }
    auto [it, inserted] = extra.emplace(std::make_pair(lo, hi), out.num_vertices());
    if (inserted) out.vertices.push_back(midpoint(out.vertices[a], out.vertices[b]));
    return it->second;
  };
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
