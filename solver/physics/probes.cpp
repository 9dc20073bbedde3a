#include "solver/physics/probes.hpp"

#include <algorithm>
#include <cmath>

#include "solver/element/basis.hpp"
#include "solver/mesh/curved_lattice.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

namespace {

// Solves x(r) = x on curved element k's map by Newton's method from rst (at most 30 steps, to
// 1e-14 of the element's size); leaves rst where it went (a point outside stays outside).
void newton_on_map(const Mesh& mesh, int k, const Vec3& x, double rst[3]) {
  const int q = mesh.geometry_order, nq = lattice_size(q);
  const Vec3* row = mesh.curved_row(k);
  double size = 0;
  for (int v = 1; v < 4; ++v)
    for (int d = 0; d < 3; ++d) size = std::max(size, std::abs(row[0][d] - mesh.vertices[mesh.elements[k][v]][d]));
  for (int it = 0; it < 30; ++it) {
    Eigen::VectorXd r(1), s(1), t(1);
    r << rst[0];
    s << rst[1];
    t << rst[2];
    const Eigen::MatrixXd L = lattice_interpolation(q, r, s, t);  // [1][Nq]
    Eigen::MatrixXd Lr, Ls, Lt;
    lattice_gradient(q, r, s, t, Lr, Ls, Lt);
    Eigen::Vector3d f = Eigen::Vector3d::Zero();
    Eigen::Matrix3d J = Eigen::Matrix3d::Zero();  // J(d, a) = d x_d / d r_a
    for (int m = 0; m < nq; ++m)
      for (int d = 0; d < 3; ++d) {
        f(d) += L(0, m) * row[m][d];
        J(d, 0) += Lr(0, m) * row[m][d];
        J(d, 1) += Ls(0, m) * row[m][d];
        J(d, 2) += Lt(0, m) * row[m][d];
      }
    for (int d = 0; d < 3; ++d) f(d) = x[d] - f(d);
    const Eigen::Vector3d step = J.partialPivLu().solve(f);
    for (int a = 0; a < 3; ++a) rst[a] += step(a);
    if (!(f.norm() > 1e-14 * size)) return;
  }
}

// x in element k: its reference coordinates and its smallest barycentric coordinate.
PointLocation place_in(const MeshData& md, int k, const Vec3& x) {
  const Mesh& mesh = md.mesh;
  const Vec3& v0 = mesh.vertices[mesh.elements[k][0]];
  const std::array<double, 9> g = md.has_geometry() ? md.geom.drdx[k] : element_geometry(mesh, k).drdx;  // d r_j / d x_d at [3 j + d]
  double rst[3];
  for (int j = 0; j < 3; ++j)
    rst[j] = -1 + g[3 * j] * (x[0] - v0[0]) + g[3 * j + 1] * (x[1] - v0[1]) + g[3 * j + 2] * (x[2] - v0[2]);
  // barycentric coordinates: vertex 0, then vertices 1..3
  auto smallest = [](const double* r) {
    return std::min({-(1 + r[0] + r[1] + r[2]) / 2, (1 + r[0]) / 2, (1 + r[1]) / 2, (1 + r[2]) / 2});
  };
  // a curved element: Newton on its map from the straight-sided guess, where that guess is near
  if (mesh.is_curved(k) && smallest(rst) > -0.25) newton_on_map(mesh, k, x, rst);
  return {k, rst[0], rst[1], rst[2], smallest(rst)};
}

}  // namespace

std::vector<PointLocation> holding_elements(const MeshData& md, const Vec3& x, double tol, int count) {
  std::vector<PointLocation> out;
  const int K = count < 0 ? md.mesh.num_elements() : count;
  for (int k = 0; k < K; ++k) {
    const PointLocation here = place_in(md, k, x);
    if (here.min_barycentric >= -tol) out.push_back(here);
  }
  return out;
}

std::vector<double> interpolation_weights(const RefElement& ref, double r, double s, double t) {
  Eigen::VectorXd vr(1), vs(1), vt(1);
  vr << r;
  vs << s;
  vt << t;
  const Eigen::RowVectorXd w = vandermonde_3d(ref.N, vr, vs, vt) * ref.invV;  // [1][Np]
  return std::vector<double>(w.data(), w.data() + w.size());
}

namespace {

[[noreturn]] void throw_outside(const Mesh& mesh, const ProbePointSpec& pt) {
  Vec3 lo = mesh.vertices.empty() ? Vec3{} : mesh.vertices[0], hi = lo;
  for (const Vec3& v : mesh.vertices)
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], v[d]), hi[d] = std::max(hi[d], v[d]);
  throw UserError("probe '" + pt.name + "' at (" + fmt_g(pt.at[0]) + ", " + fmt_g(pt.at[1]) + ", " + fmt_g(pt.at[2]) +
                      ") lies outside the mesh " + mesh.source,
                  pt.where,
                  "move the point into the mesh; its bounding box is [" + fmt_g(lo[0]) + ", " + fmt_g(hi[0]) + "] x [" +
                      fmt_g(lo[1]) + ", " + fmt_g(hi[1]) + "] x [" + fmt_g(lo[2]) + ", " + fmt_g(hi[2]) + "]");
}

}  // namespace

ProbeSet make_probe_set(const Problem& p, const std::vector<ProbePointSpec>& points) {
  constexpr double kTol = 1e-9;
  const Comm& comm = world();
  const auto& global = p.md->halo.global_element;
  auto number = [&](int k) { return comm.parallel() ? global[k] : static_cast<long long>(k); };
  ProbeSet set;
  // this rank's holders of every point, then every rank's (probe, global element) pairs
  std::vector<std::vector<PointLocation>> mine(points.size());
  std::vector<long long> pairs;  // [probe, global element]...
  for (size_t i = 0; i < points.size(); ++i) {
    mine[i] = holding_elements(*p.md, points[i].at, kTol, p.K_owned());
    for (const PointLocation& loc : mine[i]) pairs.insert(pairs.end(), {static_cast<long long>(i), number(loc.element)});
  }
  if (comm.parallel()) pairs = comm.gather_all(pairs);
  std::vector<std::vector<long long>> ids(points.size());  // [P] the global numbers of the holders, ascending
  for (size_t j = 0; j + 1 < pairs.size(); j += 2) ids[static_cast<size_t>(pairs[j])].push_back(pairs[j + 1]);
  for (size_t i = 0; i < points.size(); ++i) {
    const ProbePointSpec& pt = points[i];
    if (ids[i].empty()) throw_outside(p.md->mesh, pt);
    std::sort(ids[i].begin(), ids[i].end());
    set.names.push_back(pt.name);
    set.points.push_back(pt.at);
    set.holders.push_back(static_cast<int>(ids[i].size()));
    for (const PointLocation& loc : mine[i]) {
      set.elements.push_back(loc.element);
      const std::vector<double> w = interpolation_weights(*p.ref, loc.r, loc.s, loc.t);
      set.weights.insert(set.weights.end(), w.begin(), w.end());
      set.probe.push_back(static_cast<int>(i));
      set.slot.push_back(static_cast<int>(std::lower_bound(ids[i].begin(), ids[i].end(), number(loc.element)) - ids[i].begin()));
    }
  }
  return set;
}

std::vector<double> ProbeSet::combine(const std::vector<double>& samples) const {
  DGMAX_ASSERT(samples.size() == elements.size() * 6, "probe samples are not [S][6]");
  const size_t M = holders.empty() ? 0 : static_cast<size_t>(*std::max_element(holders.begin(), holders.end()));
  // [P][M][6]: each holder's sample in its slot; 0 + x keeps every rank's sum bitwise (and -0 as +0)
  std::vector<double> slots(size() * M * 6, 0.0);
  for (size_t s = 0; s < elements.size(); ++s)
    for (int c = 0; c < 6; ++c) slots[(static_cast<size_t>(probe[s]) * M + static_cast<size_t>(slot[s])) * 6 + c] += samples[s * 6 + c];
  if (world().parallel()) world().sum(slots.data(), static_cast<int>(slots.size()));
  std::vector<double> out(size() * 6);
  for (size_t i = 0; i < size(); ++i)
    for (int c = 0; c < 6; ++c) {
      double sum = 0;
      for (size_t j = 0; j < static_cast<size_t>(holders[i]); ++j) sum += slots[(i * M + j) * 6 + c];
      out[i * 6 + c] = sum / holders[i];
    }
  return out;
}

}  // namespace dgmax
