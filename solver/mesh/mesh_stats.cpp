#include "solver/mesh/mesh_stats.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/geometry.hpp"

namespace dgmax {

double element_quality(const Mesh& mesh, int k) {
  const auto& e = mesh.elements[k];
  Eigen::Vector3d p[4];
  for (int i = 0; i < 4; ++i) p[i] = Eigen::Vector3d(mesh.vertices[e[i]].data());
  const double vol = std::abs(signed_volume(mesh, k));
  double area = 0;
  for (const auto& fv : kFaceVertices)
    area += 0.5 * (p[fv[1]] - p[fv[0]]).cross(p[fv[2]] - p[fv[0]]).norm();
  const double r_in = 3 * vol / area;
  // circumcentre c: 2 (p_i - p_0) · c = |p_i|² - |p_0|², i = 1..3
  Eigen::Matrix3d A;
  Eigen::Vector3d b;
  for (int i = 1; i <= 3; ++i) {
    A.row(i - 1) = 2 * (p[i] - p[0]).transpose();
    b[i - 1] = p[i].squaredNorm() - p[0].squaredNorm();
  }
  const Eigen::Vector3d c = A.partialPivLu().solve(b);
  const double r_out = (c - p[0]).norm();
  return 3 * r_in / r_out;
}

MeshStats compute_stats(const MeshData& md) {
  const Mesh& mesh = md.mesh;
  MeshStats s;
  s.elements = mesh.num_elements();
  s.vertices = mesh.num_vertices();
  s.reoriented = md.reoriented;
  s.interior_faces = md.conn.interior_faces;
  s.boundary_faces = md.conn.boundary_faces;
  s.periodic_face_pairs = md.conn.periodic_faces;
  s.h_min = s.volume_min = s.quality_min = std::numeric_limits<double>::infinity();
  double quality_sum = 0;
  std::vector<long long> per_volume_tag(mesh.volume_tag_names.size(), 0);
  std::vector<double> volume_per_tag(mesh.volume_tag_names.size(), 0.0);
  const CurvedMeasures curved = curved_measures(mesh);  // on their curved maps
  for (int k = 0; k < mesh.num_elements(); ++k) {
    double h = 0;
    const auto& e = mesh.elements[k];
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        const auto& a = mesh.vertices[e[i]];
        const auto& b = mesh.vertices[e[j]];
        h = std::max(h, std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
      }
    s.h_min = std::min(s.h_min, h);
    s.h_max = std::max(s.h_max, h);
    const double v = mesh.is_curved(k) ? curved.volume[mesh.curved_index[k]] : md.geom.volume(k);
    s.volume_min = std::min(s.volume_min, v);
    s.volume_max = std::max(s.volume_max, v);
    s.volume_total += v;
    const double q = element_quality(mesh, k);
    s.quality_min = std::min(s.quality_min, q);
    quality_sum += q;
    ++per_volume_tag[mesh.element_tag[k]];
    volume_per_tag[mesh.element_tag[k]] += v;
  }
  s.quality_mean = quality_sum / std::max<long long>(1, s.elements);

  std::vector<long long> per_boundary_tag(mesh.boundary_tag_names.size(), 0);
  std::vector<double> area_per_tag(mesh.boundary_tag_names.size(), 0.0);
  double area_total = 0;
  for (int k = 0; k < mesh.num_elements(); ++k)
    for (int f = 0; f < 4; ++f)
      if (md.conn.is_boundary(k, f)) {
        const double area = mesh.is_curved(k) ? curved.area[mesh.curved_index[k]][f]
                                              : 2 * md.geom.sJ[k][f];  // reference face parameter area is 2
        ++per_boundary_tag[md.conn.face_tag[k][f]];
        area_per_tag[md.conn.face_tag[k][f]] += area;
        area_total += area;
      }
  for (size_t t = 0; t < per_boundary_tag.size(); ++t)
    s.boundary_tags.push_back({mesh.boundary_tag_names[t], per_boundary_tag[t], area_per_tag[t]});
  s.boundary_tags.push_back({kAllBoundaryTag, s.boundary_faces, area_total});
  for (size_t t = 0; t < per_volume_tag.size(); ++t)
    s.volume_tags.push_back({mesh.volume_tag_names[t], per_volume_tag[t], volume_per_tag[t]});
  return s;
}

}  // namespace dgmax
