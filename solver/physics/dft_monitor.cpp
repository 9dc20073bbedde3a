#include "solver/physics/dft_monitor.hpp"

#include <algorithm>
#include <cmath>

#include "solver/mesh/connectivity.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/local_mesh.hpp"
#include "solver/physics/probes.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

std::string box_text(const MonitorSpec& s) {
  return "[" + fmt_g(s.lower[0]) + ", " + fmt_g(s.upper[0]) + "] x [" + fmt_g(s.lower[1]) + ", " + fmt_g(s.upper[1]) +
         "] x [" + fmt_g(s.lower[2]) + ", " + fmt_g(s.upper[2]) + "]";
}

// Face f of element k as monitor points: its Nfp nodes, normal n, weights sJ * rowsum(face mass);
// `first`: the whole monitor's index of its first node.
void add_face(const Problem& p, int k, int f, const Vec3& n, long first, DftMonitor& m) {
  const RefElement& ref = *p.ref;
  const double sJ = p.md->geom.sJ[k][f];
  for (int i = 0; i < ref.Nfp; ++i) {
    const long node = static_cast<long>(k) * ref.Np + ref.Fmask(i, f);
    m.nodes.push_back(node);
    m.points.push_back({{p.xyz.x[node], p.xyz.y[node], p.xyz.z[node]}, n, sJ * ref.face_mass[f].row(i).sum()});
    m.index.push_back(first + i);
  }
}

// The box's faces found on the whole mesh, kept where this rank owns the inside element.
void make_box_surface(const Problem& p, const MonitorSpec& s, const MeshData& whole, DftMonitor& m) {
  const std::vector<BoxFace> faces = box_surface_faces(
      whole, s.lower, s.upper, "the box " + box_text(s) + " of monitor '" + s.name + "'", s.region_where);
  const std::vector<int> local = owned_local_index(*p.md, whole.mesh.num_elements());
  const long Nfp = p.ref->Nfp;
  for (size_t j = 0; j < faces.size(); ++j)
    if (const int k = local[static_cast<size_t>(faces[j].element)]; k >= 0)
      add_face(p, k, faces[j].face, faces[j].normal, static_cast<long>(j) * Nfp, m);
  m.whole_points = static_cast<long>(faces.size()) * Nfp;
}

// Element k's volume weights w_i = ∫ l_i dV, [Np]: J × the mass matrix's row sums for an affine
// element, the quadrature of curved_geometry.hpp with the curved J for a curved one (exact: J is a
// polynomial).
Eigen::VectorXd volume_weights(const Problem& p, int k, const Eigen::VectorXd& mass_rows) {
  if (!p.is_curved(k)) return p.md->geom.J[k] * mass_rows;
  const CurvedQuadrature& Q = p.curved->quad;
  const Eigen::Map<const Eigen::VectorXd> J(&p.curved->Jq[static_cast<size_t>(p.curved->slot_of[k]) * Q.Nq], Q.Nq);
  return Q.Vq.transpose() * Q.w.cwiseProduct(J);
}

// The tagged elements counted on the whole mesh (the one-rank order), the owned ones kept.
void make_volume(const Problem& p, const MonitorSpec& s, const MeshData& whole, DftMonitor& m) {
  const Mesh& mesh = whole.mesh;
  const RefElement& ref = *p.ref;
  const int tag = mesh.volume_tag(s.volume_tag);
  std::vector<long> ordinal(static_cast<size_t>(mesh.num_elements()), -1);  // among the tagged elements
  long tagged = 0;
  for (int k = 0; k < mesh.num_elements(); ++k)
    if (mesh.element_tag[k] == tag) ordinal[static_cast<size_t>(k)] = tagged++;
  if (tagged == 0)
    throw UserError("volume tag '" + s.volume_tag + "' of monitor '" + s.name + "' tags no element of " + mesh.source,
                    s.region_where, "name a volume tag of the mesh (dgmax info lists them)");
  const Eigen::VectorXd mass_rows = ref.M.rowwise().sum();
  for (int k = 0; k < p.K_owned(); ++k) {
    const long o = ordinal[static_cast<size_t>(p.md->halo.global_index(k))];
    if (o < 0) continue;
    const Eigen::VectorXd w = volume_weights(p, k, mass_rows);
    for (int i = 0; i < ref.Np; ++i) {
      const long node = static_cast<long>(k) * ref.Np + i;
      m.nodes.push_back(node);
      m.points.push_back({{p.xyz.x[node], p.xyz.y[node], p.xyz.z[node]}, {0, 0, 0}, w[i]});
      m.index.push_back(o * ref.Np + i);
    }
  }
  m.whole_points = tagged * ref.Np;
}

}  // namespace

std::vector<BoxFace> box_surface_faces(const MeshData& md, const Vec3& lower, const Vec3& upper, const std::string& what,
                                       const SourceLocation& where) {
  std::vector<BoxFace> faces;
  const Mesh& mesh = md.mesh;
  const auto& conn = md.conn;
  double extent = 0;
  for (int d = 0; d < 3; ++d) extent = std::max(extent, upper[d] - lower[d]);
  const double tol = 1e-9 * extent;
  for (int c = 0; c < 8; ++c) {
    const Vec3 x = {c & 1 ? upper[0] : lower[0], c & 2 ? upper[1] : lower[1], c & 4 ? upper[2] : lower[2]};
    if (holding_elements(md, x).empty())
      throw UserError(what + " is not inside the mesh " + mesh.source + ": its corner (" + fmt_g(x[0]) + ", " +
                          fmt_g(x[1]) + ", " + fmt_g(x[2]) + ") lies outside",
                      where, "choose a box inside the computational domain, with faces on mesh faces");
  }
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      const double plane = side ? upper[d] : lower[d];
      Vec3 n{0, 0, 0};
      n[d] = side ? 1 : -1;
      double covered = 0, area = 1;
      for (int e = 0; e < 3; ++e)
        if (e != d) area *= upper[e] - lower[e];
      for (int k = 0; k < mesh.num_elements(); ++k)
        for (int f = 0; f < 4; ++f) {
          const auto fv = face_vertices(mesh, k, f);
          bool on = true;
          for (const Vec3& v : fv) {
            on = on && std::abs(v[d] - plane) <= tol;
            for (int e = 0; e < 3; ++e)
              if (e != d) on = on && v[e] >= lower[e] - tol && v[e] <= upper[e] + tol;
          }
          if (!on) continue;
          const double inward = (element_centroid(mesh, k)[d] - plane) * (side ? -1 : 1);
          if (inward <= 0) {
            if (conn.is_boundary(k, f))
              throw UserError(what + " is not inside the mesh: its face " + std::string(side ? "+" : "-") + "xyz"[d] +
                                  " lies on the outer boundary with the mesh outside the box",
                              where, "choose a box inside the computational domain");
            continue;
          }
          // the surface's weights, normals and area are the straight-sided face's
          if (!face_is_affine(mesh, k, f)) {
            const Vec3 c = element_centroid(mesh, k);
            throw UserError(what + ": its face " + std::string(side ? "+" : "-") + "xyz"[d] + " crosses a curved face " +
                                "(face " + std::to_string(f) + " of element " + std::to_string(k) + ", centroid (" +
                                fmt_g(c[0]) + ", " + fmt_g(c[1]) + ", " + fmt_g(c[2]) + "))",
                            where,
                            "put the box on straight-sided elements: keep the curved object inside it with at least "
                            "one element between them");
          }
          covered += 2 * element_geometry(md, k).sJ[f];  // sJ: face area / 2
          faces.push_back({k, f, n});
        }
      if (std::abs(covered - area) > 1e-9 * area)
        throw UserError(what + ": surface not closed / not made of mesh faces: mesh faces cover " + fmt_g(covered) +
                            " of the area " + fmt_g(area) + " of its face " + std::string(side ? "+" : "-") + "xyz"[d] +
                            " (" + "xyz"[d] + " = " + fmt_g(plane) + ")",
                        where,
                        "put the box faces on planes of mesh faces (for a box mesh: on cell boundaries; for a "
                        "Gmsh mesh: embed the box surface in the geometry)");
    }
  return faces;
}

DftMonitor make_dft_monitor(const Problem& p, const MonitorSpec& spec, const MeshData& whole) {
  DftMonitor m;
  m.name = spec.name;
  m.surface = spec.kind == MonitorSpec::SurfaceBox;
  m.frequencies = spec.frequencies;
  if (m.surface) make_box_surface(p, spec, whole, m);
  else make_volume(p, spec, whole, m);
  return m;
}

DftMonitor make_dft_monitor(const Problem& p, const MonitorSpec& spec) { return make_dft_monitor(p, spec, *p.md); }

SurfaceDft surface_dft(const DftMonitor& m, const std::vector<double>& re, const std::vector<double>& im) {
  const size_t F = m.frequencies.size(), M = m.points.size();
  DGMAX_ASSERT(re.size() == F * M * 6 && im.size() == re.size(), "DFT accumulators are not [F][M][6]");
  SurfaceDft out;
  out.frequencies = m.frequencies;
  out.points = m.points;
  out.E.resize(F * M * 3);
  out.H.resize(F * M * 3);
  for (size_t f = 0; f < F; ++f)
    for (size_t p = 0; p < M; ++p)
      for (int c = 0; c < 3; ++c) {
        const size_t a = (f * M + p) * 6 + c;
        out.E[out.at(f, p, c)] = {re[a], im[a]};
        out.H[out.at(f, p, c)] = {re[a + 3], im[a + 3]};
      }
  return out;
}

template <class Real>
void accumulate_dft(const Real* q, int Np, const std::vector<long>& nodes, const std::vector<double>& frequencies,
                    double t, double dt, double* re, double* im) {
  const long M = static_cast<long>(nodes.size());
  for (size_t f = 0; f < frequencies.size(); ++f) {
    const double theta = 2 * M_PI * frequencies[f] * t;
    const double c = std::cos(theta), s = std::sin(theta);
    double* ref = re + f * M * 6;
    double* imf = im + f * M * 6;
#pragma omp parallel for schedule(static) if (M > 4096)
    for (long m = 0; m < M; ++m) {
      const long k = nodes[m] / Np, i = nodes[m] % Np;
      for (int comp = 0; comp < 6; ++comp) {
        const double x = static_cast<double>(q[(k * 6 + comp) * Np + i]) * dt;
        ref[m * 6 + comp] += x * c;
        imf[m * 6 + comp] -= x * s;
      }
    }
  }
}

template void accumulate_dft<float>(const float*, int, const std::vector<long>&, const std::vector<double>&, double,
                                    double, double*, double*);
template void accumulate_dft<double>(const double*, int, const std::vector<long>&, const std::vector<double>&, double,
                                     double, double*, double*);

}  // namespace dgmax
