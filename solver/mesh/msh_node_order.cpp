#include "solver/mesh/msh_node_order.hpp"

#include <cmath>
#include <string>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

using Point2 = std::array<int, 2>;
using Point3 = std::array<int, 3>;

// Gmsh's tetrahedron edges and faces (MTetrahedron::edges_tetra / faces_tetra).
constexpr int kGmshTetEdges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
constexpr int kGmshTetFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {3, 1, 2}};
constexpr int kGmshTriEdges[3][2] = {{0, 1}, {1, 2}, {2, 0}};

// The nodes of Gmsh's complete triangle of order p >= 0 as integer points (times p): vertices,
// the edges 0-1, 1-2, 2-0, then the interior as a triangle of order p-3 shifted by (1, 1).
std::vector<Point2> triangle_points(int p) {
  std::vector<Point2> pts = {{0, 0}};
  if (p == 0) return pts;
  pts.push_back({p, 0});
  pts.push_back({0, p});
  for (const auto& e : kGmshTriEdges) {
    const Point2 a = pts[e[0]], b = pts[e[1]];
    for (int i = 1; i < p; ++i)
      pts.push_back({a[0] + (b[0] - a[0]) / p * i, a[1] + (b[1] - a[1]) / p * i});
  }
  if (p > 2)
    for (const Point2& x : triangle_points(p - 3)) pts.push_back({x[0] + 1, x[1] + 1});
  return pts;
}

// The same for the tetrahedron of order p >= 0 (times p).
std::vector<Point3> tet_points(int p) {
  std::vector<Point3> pts = {{0, 0, 0}};
  if (p == 0) return pts;
  pts.push_back({p, 0, 0});
  pts.push_back({0, p, 0});
  pts.push_back({0, 0, p});
  const auto step = [&](int from, int to, int d) { return (pts[to][d] - pts[from][d]) / p; };
  for (const auto& e : kGmshTetEdges)
    for (int i = 1; i < p; ++i) {
      Point3 x;
      for (int d = 0; d < 3; ++d) x[d] = pts[e[0]][d] + step(e[0], e[1], d) * i;
      pts.push_back(x);
    }
  if (p > 2) {
    const std::vector<Point2> inner = triangle_points(p - 3);
    for (const auto& f : kGmshTetFaces)
      for (const Point2& uv : inner) {
        Point3 x;
        for (int d = 0; d < 3; ++d)
          x[d] = pts[f[0]][d] + step(f[0], f[1], d) * (uv[0] + 1) + step(f[0], f[2], d) * (uv[1] + 1);
        pts.push_back(x);
      }
  }
  if (p > 3)
    for (const Point3& x : tet_points(p - 4)) pts.push_back({x[0] + 1, x[1] + 1, x[2] + 1});
  return pts;
}

}  // namespace

std::vector<std::array<double, 3>> gmsh_tet_node_coordinates(int q) {
  DGMAX_ASSERT(q >= 1 && q <= kMaxGeometryOrder, "no Gmsh tetrahedron of order " + std::to_string(q));
  const std::vector<Point3> pts = tet_points(q);
  DGMAX_ASSERT(static_cast<int>(pts.size()) == lattice_size(q), "Gmsh's tetrahedron has a wrong node count");
  std::vector<std::array<double, 3>> uvw(pts.size());
  for (size_t n = 0; n < pts.size(); ++n)
    for (int d = 0; d < 3; ++d) uvw[n][d] = static_cast<double>(pts[n][d]) / q;
  return uvw;
}

std::vector<int> gmsh_tet_lattice_nodes(int q) {
  const std::vector<std::array<double, 3>> uvw = gmsh_tet_node_coordinates(q);
  std::vector<int> node(uvw.size(), -1);
  for (size_t n = 0; n < uvw.size(); ++n) {
    std::array<int, 3> ijl;
    for (int d = 0; d < 3; ++d) {
      const double x = q * uvw[n][d];
      ijl[d] = static_cast<int>(std::lround(x));
      DGMAX_ASSERT(std::fabs(x - ijl[d]) <= 1e-9 && ijl[d] >= 0,
                   "Gmsh node " + std::to_string(n) + " of order " + std::to_string(q) + " is off the lattice");
    }
    DGMAX_ASSERT(ijl[0] + ijl[1] + ijl[2] <= q, "Gmsh node outside the reference tetrahedron");
    const int m = lattice_index(q, ijl[0], ijl[1], ijl[2]);
    DGMAX_ASSERT(node[m] < 0, "two Gmsh nodes at lattice point " + std::to_string(m));
    node[m] = static_cast<int>(n);
  }
  return node;  // every point is taken: Nq distinct points of the Nq-point lattice
}

}  // namespace dgmax
