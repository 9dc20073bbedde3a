#include "solver/physics/probes.hpp"

#include <algorithm>
#include <limits>

#include "solver/element/basis.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

PointLocation locate_point(const MeshData& md, const Vec3& x, double tol, int count,
                           const std::vector<long long>* number) {
  const Mesh& mesh = md.mesh;
  const bool stored = md.has_geometry();
  PointLocation best;
  best.min_barycentric = -std::numeric_limits<double>::infinity();
  const int K = count < 0 ? mesh.num_elements() : count;
  for (int k = 0; k < K; ++k) {
    const Vec3& v0 = mesh.vertices[mesh.elements[k][0]];
    const std::array<double, 9> g = stored ? md.geom.drdx[k] : element_geometry(mesh, k).drdx;  // d r_j / d x_d at [3 j + d]
    double rst[3];
    for (int j = 0; j < 3; ++j)
      rst[j] = -1 + g[3 * j] * (x[0] - v0[0]) + g[3 * j + 1] * (x[1] - v0[1]) + g[3 * j + 2] * (x[2] - v0[2]);
    // barycentric coordinates: vertex 0, then vertices 1..3
    const double lam = std::min({-(1 + rst[0] + rst[1] + rst[2]) / 2, (1 + rst[0]) / 2, (1 + rst[1]) / 2, (1 + rst[2]) / 2});
    if (lam > best.min_barycentric ||
        (number && lam == best.min_barycentric && best.element >= 0 && (*number)[k] < (*number)[best.element]))
      best = {k, rst[0], rst[1], rst[2], lam};
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
  const Comm& comm = world();
  const auto& global = p.md->halo.global_element;
  for (const ProbePointSpec& pt : points) {
    // over the owned elements, then over all ranks (every rank calls the same reductions)
    constexpr double kTol = 1e-9;
    PointLocation loc = locate_point(*p.md, pt.at, std::numeric_limits<double>::infinity(), p.K_owned(),
                                     comm.parallel() ? &global : nullptr);
    bool mine = true;
    if (comm.parallel()) {
      const double best = comm.max(loc.min_barycentric);
      const double id = loc.element >= 0 && loc.min_barycentric == best ? static_cast<double>(global[loc.element])
                                                                         : std::numeric_limits<double>::infinity();
      const double owner_id = comm.min(id);
      mine = id == owner_id;
      if (best < -kTol) loc.element = -1;
    } else if (loc.min_barycentric < -kTol) {
      loc.element = -1;
    }
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
    set.elements.push_back(mine ? loc.element : 0);
    std::vector<double> w = interpolation_weights(*p.ref, loc.r, loc.s, loc.t);
    if (!mine) std::fill(w.begin(), w.end(), 0.0);  // another rank's probe: this rank adds 0
    set.weights.insert(set.weights.end(), w.begin(), w.end());
  }
  return set;
}

}  // namespace dgmax
