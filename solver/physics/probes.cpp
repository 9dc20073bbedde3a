#include "solver/physics/probes.hpp"

#include <algorithm>
#include <limits>

#include "solver/element/basis.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

PointLocation locate_point(const Mesh& mesh, const Geometry& geom, const Vec3& x, double tol) {
  PointLocation best;
  best.min_barycentric = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const Vec3& v0 = mesh.vertices[mesh.elements[k][0]];
    const auto& g = geom.drdx[k];  // d r_j / d x_d at [3 j + d]
    double rst[3];
    for (int j = 0; j < 3; ++j)
      rst[j] = -1 + g[3 * j] * (x[0] - v0[0]) + g[3 * j + 1] * (x[1] - v0[1]) + g[3 * j + 2] * (x[2] - v0[2]);
    // barycentric coordinates: vertex 0, then vertices 1..3
    const double lam = std::min({-(1 + rst[0] + rst[1] + rst[2]) / 2, (1 + rst[0]) / 2, (1 + rst[1]) / 2, (1 + rst[2]) / 2});
    if (lam > best.min_barycentric) best = {k, rst[0], rst[1], rst[2], lam};
  }
  if (best.min_barycentric < -tol) best.element = -1;
  return best;
}

std::vector<double> interpolation_weights(const RefElement& ref, double r, double s, double t) {
  Eigen::VectorXd vr(1), vs(1), vt(1);
  vr << r;
  vs << s;
  vt << t;
  const Eigen::RowVectorXd w = vandermonde_3d(ref.N, vr, vs, vt) * ref.invV;  // [1][Np]
  return std::vector<double>(w.data(), w.data() + w.size());
}

ProbeSet make_probe_set(const Problem& p, const std::vector<ProbePointSpec>& points) {
  const Mesh& mesh = p.md->mesh;
  ProbeSet set;
  for (const ProbePointSpec& pt : points) {
    const PointLocation loc = locate_point(mesh, p.md->geom, pt.at);
    if (loc.element < 0) {
      Vec3 lo = mesh.vertices.empty() ? Vec3{} : mesh.vertices[0], hi = lo;
      for (const Vec3& v : mesh.vertices)
        for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], v[d]), hi[d] = std::max(hi[d], v[d]);
      throw UserError("probe '" + pt.name + "' at (" + fmt_g(pt.at[0]) + ", " + fmt_g(pt.at[1]) + ", " +
                          fmt_g(pt.at[2]) + ") lies outside the mesh " + mesh.source,
                      pt.where,
                      "move the point into the mesh; its bounding box is [" + fmt_g(lo[0]) + ", " + fmt_g(hi[0]) +
                          "] x [" + fmt_g(lo[1]) + ", " + fmt_g(hi[1]) + "] x [" + fmt_g(lo[2]) + ", " +
                          fmt_g(hi[2]) + "]");
    }
    set.names.push_back(pt.name);
    set.points.push_back(pt.at);
    set.elements.push_back(loc.element);
    const std::vector<double> w = interpolation_weights(*p.ref, loc.r, loc.s, loc.t);
    set.weights.insert(set.weights.end(), w.begin(), w.end());
  }
  return set;
}

}  // namespace dgmax
