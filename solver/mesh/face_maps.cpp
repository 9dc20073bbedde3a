#include "solver/mesh/face_maps.hpp"

#include "solver/mesh/curved_geometry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "solver/mesh/geometry.hpp"
#include "solver/mesh/parallel_fill.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

// Barycentric coordinates of a reference point with respect to the reference vertices 0..3 (the
// weights of map_to_physical).
std::array<double, 4> barycentric(double r, double s, double t) {
  return {-(1 + r + s + t) / 2, (1 + r) / 2, (1 + s) / 2, (1 + t) / 2};
}

// Index of the vertex permutation sigma (sigma[m] = position in the neighbour's face-vertex triple
// of this face's vertex m) among 012, 021, 102, 120, 201, 210.
int permutation_code(const int sigma[3]) { return 2 * sigma[0] + (sigma[1] > sigma[2] ? 1 : 0); }

// node[f][f2][p][j]: the face node of reference face f2 that sits where face node j of face f
// sits when the two faces are glued with vertex permutation p. Built once per call by matching
// barycentric coordinates on the reference element (the warp & blend face nodes are symmetric);
// an entry is -1 when no node matches (then that face falls back to the coordinate search).
class FaceNodePermutations {
 public:
  explicit FaceNodePermutations(const RefElement& ref) : Nfp_(ref.Nfp) {
    // face-vertex barycentrics of every face node
    std::vector<std::array<double, 3>> lam(4 * static_cast<size_t>(Nfp_));
    for (int f = 0; f < 4; ++f)
      for (int j = 0; j < Nfp_; ++j) {
        const int i = ref.Fmask(j, f);
        const auto L = barycentric(ref.r[i], ref.s[i], ref.t[i]);
        for (int m = 0; m < 3; ++m) lam[f * Nfp_ + j][m] = L[kFaceVertices[f][m]];
      }
    static constexpr int kSigma[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                         {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    table_.assign(4 * 4 * 6 * static_cast<size_t>(Nfp_), -1);
    for (int f = 0; f < 4; ++f)
      for (int f2 = 0; f2 < 4; ++f2)
        for (int p = 0; p < 6; ++p) {
          const int* sigma = kSigma[p];
          for (int j = 0; j < Nfp_; ++j) {
            std::array<double, 3> mu;  // the node's barycentrics in the neighbour's vertex order
            for (int m = 0; m < 3; ++m) mu[sigma[m]] = lam[f * Nfp_ + j][m];
            int best = -1, matches = 0;
            for (int j2 = 0; j2 < Nfp_; ++j2) {
              const auto& l2 = lam[f2 * Nfp_ + j2];
              const double d = std::max({std::abs(l2[0] - mu[0]), std::abs(l2[1] - mu[1]),
                                         std::abs(l2[2] - mu[2])});
              if (d < 1e-9) {
                best = j2;
                ++matches;
              }
            }
            if (matches == 1) at(f, f2, p)[j] = best;
          }
        }
  }
  int* at(int f, int f2, int p) { return &table_[((f * 4 + f2) * 6 + p) * static_cast<size_t>(Nfp_)]; }
  const int* at(int f, int f2, int p) const {
    return &table_[((f * 4 + f2) * 6 + p) * static_cast<size_t>(Nfp_)];
  }

 private:
  int Nfp_;
  std::vector<int> table_;
};

double dist2(double ax, double ay, double az, double bx, double by, double bz) {
  return (ax - bx) * (ax - bx) + (ay - by) * (ay - by) + (az - bz) * (az - bz);
}

// Square of the longest edge of face f of element k.
double face_size2(const Mesh& mesh, int k, int f) {
  const auto& e = mesh.elements[k];
  const Vec3& a = mesh.vertices[e[kFaceVertices[f][0]]];
  const Vec3& b = mesh.vertices[e[kFaceVertices[f][1]]];
  const Vec3& c = mesh.vertices[e[kFaceVertices[f][2]]];
  return std::max({dist2(a[0], a[1], a[2], b[0], b[1], b[2]), dist2(b[0], b[1], b[2], c[0], c[1], c[2]),
                   dist2(a[0], a[1], a[2], c[0], c[1], c[2])});
}

// Longest edge of face f of element k (as the tolerance of the nearest-node search).
double face_size(const Mesh& mesh, int k, int f) {
  const auto fv = face_vertices(mesh, k, f);
  double h = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b)
      h = std::max(h, std::hypot(fv[a][0] - fv[b][0], fv[a][1] - fv[b][1], fv[a][2] - fv[b][2]));
  return h;
}

Vec3 periodic_shift(const Mesh& mesh, const Connectivity& conn, int k, int f) {
  Vec3 shift{0, 0, 0};
  const int p = conn.face_periodic[k][f];
  if (p >= 0) {
    const PeriodicPair& pair = mesh.periodic[p];
    const double sign = conn.face_tag[k][f] == pair.tag_a ? 1.0 : -1.0;
    for (int d = 0; d < 3; ++d) shift[d] = sign * pair.shift[d];
  }
  return shift;
}

// The coordinate search: for every face node of (k, f) the closest face node of (k2, f2), which
// must lie within tol. Writes vmapP for the face and returns -1, or returns the first face node
// without a partner (then *bad_d is its closest distance). No allocation, no throw.
int search_face(const RefElement& ref, const NodeCoords& xyz, int k, int f, int k2, int f2,
                const Vec3& shift, double tol, int* vmapP_face, double* bad_d) {
  const int Np = ref.Np, Nfp = ref.Nfp;
  for (int j = 0; j < Nfp; ++j) {
    const size_t nM = static_cast<size_t>(k) * Np + ref.Fmask(j, f);
    const double x = xyz.x[nM] + shift[0], y = xyz.y[nM] + shift[1], z = xyz.z[nM] + shift[2];
    int best = -1;
    double best_d = std::numeric_limits<double>::infinity();
    for (int j2 = 0; j2 < Nfp; ++j2) {
      const int nP = k2 * Np + ref.Fmask(j2, f2);
      const double d = std::hypot(xyz.x[nP] - x, xyz.y[nP] - y, xyz.z[nP] - z);
      if (d < best_d) {
        best_d = d;
        best = nP;
      }
    }
    if (!(best_d <= tol)) {
      *bad_d = best_d;
      return j;
    }
    vmapP_face[j] = best;
  }
  return -1;
}

// Position in the neighbour face's vertex triple of each vertex of face (k, f): by vertex id for
// ordinary faces, by shifted position (within sqrt(tol2)) for periodic ones. False when some
// vertex has no partner.
bool face_vertex_permutation(const Mesh& mesh, int k, int f, int k2, int f2, bool periodic,
                             const Vec3& shift, double tol2, int sigma[3]) {
  const auto& e = mesh.elements[k];
  const auto& e2 = mesh.elements[k2];
  int used = 0;
  for (int m = 0; m < 3; ++m) {
    const int a = e[kFaceVertices[f][m]];
    sigma[m] = -1;
    if (!periodic) {
      for (int n = 0; n < 3; ++n)
        if (e2[kFaceVertices[f2][n]] == a) sigma[m] = n;
    } else {
      const Vec3& x = mesh.vertices[a];
      for (int n = 0; n < 3; ++n) {
        const Vec3& y = mesh.vertices[e2[kFaceVertices[f2][n]]];
        if (dist2(x[0] + shift[0], x[1] + shift[1], x[2] + shift[2], y[0], y[1], y[2]) <= tol2)
          sigma[m] = n;
      }
    }
    if (sigma[m] < 0 || (used & (1 << sigma[m]))) return false;
    used |= 1 << sigma[m];
  }
  return true;
}

}  // namespace

NodeCoords node_coordinates(const Mesh& mesh, const RefElement& ref) {
  const int K = mesh.num_elements(), Np = ref.Np;
  NodeCoords c;
  c.Np = Np;
  // the weights of map_to_physical, so that the coordinates are bit for bit the same
  std::vector<std::array<double, 4>> w(Np);
  for (int i = 0; i < Np; ++i) w[i] = barycentric(ref.r[i], ref.s[i], ref.t[i]);
  const size_t n = static_cast<size_t>(K) * Np;
  resize_parallel(c.x, n);
  resize_parallel(c.y, n);
  resize_parallel(c.z, n);
  double* X = c.x.data();
  double* Y = c.y.data();
  double* Z = c.z.data();
#pragma omp parallel for schedule(static)
  for (int k = 0; k < K; ++k) {
    const auto& e = mesh.elements[k];
    const Vec3* v[4] = {&mesh.vertices[e[0]], &mesh.vertices[e[1]], &mesh.vertices[e[2]],
                        &mesh.vertices[e[3]]};
    const size_t base = static_cast<size_t>(k) * Np;
    for (int i = 0; i < Np; ++i) {
      double p[3] = {0, 0, 0};
      for (int m = 0; m < 4; ++m)
        for (int d = 0; d < 3; ++d) p[d] += w[i][m] * (*v[m])[d];
      X[base + i] = p[0];
      Y[base + i] = p[1];
      Z[base + i] = p[2];
    }
  }
  // curved elements: their own map, through the lattice
  const Eigen::MatrixXd L = mesh.curved_index.empty() ? Eigen::MatrixXd() : curved_interpolation(mesh, ref);
  for (int k = 0; k < K; ++k) {
    if (!mesh.is_curved(k)) continue;
    const auto P = curved_node_positions(mesh, k, L);  // [Np][3]
    const size_t base = static_cast<size_t>(k) * Np;
    for (int i = 0; i < Np; ++i) {
      X[base + i] = P(i, 0);
      Y[base + i] = P(i, 1);
      Z[base + i] = P(i, 2);
    }
  }
  return c;
}

// Face nodes are matched by the permutation that takes the face's vertices to its neighbour's
// and a table of how that permutation moves the reference face nodes (built by matching
// barycentric coordinates to 1e-9). Faces glued through shared vertex ids then coincide node for
// node by construction; periodic faces are matched by shifted vertex positions and every node is
// checked by position (1e-7 · face size). A face whose vertices do not match, or a failed check,
// falls back to the nearest-node search, so the result is that of a nearest-node search of every
// face node (tests/unit/mesh/setup_equivalence_test.cpp compares the two).
FaceMaps build_face_maps(const MeshData& md, const RefElement& ref, const NodeCoords& xyz) {
  const Mesh& mesh = md.mesh;
  const auto& conn = md.conn;
  const int K = mesh.num_elements(), Np = ref.Np, Nfp = ref.Nfp;
  FaceMaps m;
  m.Nfp = Nfp;
  resize_parallel(m.vmapM, static_cast<size_t>(K) * 4 * Nfp);
  resize_parallel(m.vmapP, m.vmapM.size());
  const FaceNodePermutations perms(ref);

  // first face (4k + f) whose nodes have no partner, K*4 if none
  long long first_bad = 4LL * K;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      const size_t face = static_cast<size_t>(k) * 4 + f;
      int* M = &m.vmapM[face * Nfp];
      int* P = &m.vmapP[face * Nfp];
      for (int j = 0; j < Nfp; ++j) M[j] = P[j] = k * Np + ref.Fmask(j, f);
      const int k2 = conn.EToE[k][f], f2 = conn.EToF[k][f];
      if (k2 < 0) continue;
      const bool periodic = conn.face_periodic[k][f] >= 0;
      const Vec3 shift = periodic_shift(mesh, conn, k, f);
      // periodic faces: vertices matched and nodes checked within 1e-7 times this face's size
      const double tol2 = periodic ? 1e-14 * face_size2(mesh, k, f) : 0.0;
      int sigma[3];
      bool ok = face_vertex_permutation(mesh, k, f, k2, f2, periodic, shift, tol2, sigma);
      if (ok) {
        const int* node = perms.at(f, f2, permutation_code(sigma));
        for (int j = 0; j < Nfp && ok; ++j) {
          ok = node[j] >= 0;
          if (!ok) break;
          const int nP = k2 * Np + ref.Fmask(node[j], f2);
          if (periodic) {
            const size_t nM = static_cast<size_t>(M[j]);
            ok = dist2(xyz.x[nM] + shift[0], xyz.y[nM] + shift[1], xyz.z[nM] + shift[2],
                       xyz.x[nP], xyz.y[nP], xyz.z[nP]) <= tol2;
          }
          P[j] = nP;
        }
      }
      if (!ok) {
        double bad_d = 0;
        const double tol = 1e-7 * face_size(mesh, k, f);
        if (search_face(ref, xyz, k, f, k2, f2, shift, tol, P, &bad_d) >= 0)
          first_bad = std::min(first_bad, static_cast<long long>(face));
      }
    }

  if (first_bad < 4LL * K) {  // the message of the first face without a partner
    const int k = static_cast<int>(first_bad / 4), f = static_cast<int>(first_bad % 4);
    const int k2 = conn.EToE[k][f], f2 = conn.EToF[k][f];
    const double tol = 1e-7 * face_size(mesh, k, f);
    double best_d = 0;
    std::vector<int> scratch(Nfp);
    const int j = search_face(ref, xyz, k, f, k2, f2, periodic_shift(mesh, conn, k, f), tol,
                              scratch.data(), &best_d);
    DGMAX_ASSERT(j >= 0, "face maps: the face search disagrees with itself");
    throw UserError("face node " + std::to_string(j) + " of element " + std::to_string(k) +
                        " face " + std::to_string(f) + " has no partner on element " +
                        std::to_string(k2) + " face " + std::to_string(f2) + " (closest node " +
                        fmt_g(best_d) + " away, tolerance " + fmt_g(tol) + ")",
                    {mesh.source}, "the faces do not coincide: the mesh is not conforming");
  }
  return m;
}

}  // namespace dgmax
