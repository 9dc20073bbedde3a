#include "solver/mesh/face_maps.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "solver/mesh/geometry.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

NodeCoords node_coordinates(const Mesh& mesh, const RefElement& ref) {
  const int K = mesh.num_elements(), Np = ref.Np;
  NodeCoords c;
  c.Np = Np;
  c.x.resize(static_cast<size_t>(K) * Np);
  c.y.resize(c.x.size());
  c.z.resize(c.x.size());
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const Vec3 p = map_to_physical(mesh, k, ref.r[i], ref.s[i], ref.t[i]);
      const size_t n = static_cast<size_t>(k) * Np + i;
      c.x[n] = p[0];
      c.y[n] = p[1];
      c.z[n] = p[2];
    }
  return c;
}

FaceMaps build_face_maps(const MeshData& md, const RefElement& ref, const NodeCoords& xyz) {
  const Mesh& mesh = md.mesh;
  const auto& conn = md.conn;
  const int K = mesh.num_elements(), Np = ref.Np, Nfp = ref.Nfp;
  FaceMaps m;
  m.Nfp = Nfp;
  m.vmapM.resize(static_cast<size_t>(K) * 4 * Nfp);
  m.vmapP.resize(m.vmapM.size());
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f)
      for (int j = 0; j < Nfp; ++j) {
        const size_t slot = (static_cast<size_t>(k) * 4 + f) * Nfp + j;
        m.vmapM[slot] = k * Np + ref.Fmask(j, f);
        m.vmapP[slot] = m.vmapM[slot];
      }

  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      const int k2 = conn.EToE[k][f], f2 = conn.EToF[k][f];
      if (k2 < 0) continue;
      Vec3 shift{0, 0, 0};
      const int p = conn.face_periodic[k][f];
      if (p >= 0) {
        const PeriodicPair& pair = mesh.periodic[p];
        const double sign = conn.face_tag[k][f] == pair.tag_a ? 1.0 : -1.0;
        for (int d = 0; d < 3; ++d) shift[d] = sign * pair.shift[d];
      }
      // tolerance relative to this face's size
      const auto fv = face_vertices(mesh, k, f);
      double h = 0;
      for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b)
          h = std::max(h, std::hypot(fv[a][0] - fv[b][0], fv[a][1] - fv[b][1], fv[a][2] - fv[b][2]));
      const double tol = 1e-7 * h;
      for (int j = 0; j < Nfp; ++j) {
        const int nM = k * Np + ref.Fmask(j, f);
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
        if (!(best_d <= tol))
          throw UserError("face node " + std::to_string(j) + " of element " + std::to_string(k) +
                              " face " + std::to_string(f) + " has no partner on element " +
                              std::to_string(k2) + " face " + std::to_string(f2) +
                              " (closest node " + fmt_g(best_d) + " away, tolerance " + fmt_g(tol) + ")",
                          {mesh.source}, "the faces do not coincide: the mesh is not conforming");
        m.vmapP[(static_cast<size_t>(k) * 4 + f) * Nfp + j] = best;
      }
    }
  return m;
}

}  // namespace dgmax
