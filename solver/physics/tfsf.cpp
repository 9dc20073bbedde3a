#include "solver/physics/tfsf.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "solver/physics/dft_monitor.hpp"
#include "solver/physics/pml.hpp"

namespace dgmax {

TfsfSurface build_tfsf_surface(const TfsfSpec& spec, const MeshData& md, const PmlLayer* pml, bool has_incident) {
  const std::string what = fmt::format("the tfsf box [{:.6g}, {:.6g}] x [{:.6g}, {:.6g}] x [{:.6g}, {:.6g}]",
                                       spec.lower[0], spec.upper[0], spec.lower[1], spec.upper[1], spec.lower[2],
                                       spec.upper[2]);
  if (!has_incident)
    throw UserError("tfsf: the total-field/scattered-field box needs the incident field, but the config has no "
                    "'incident' section",
                    spec.where, "add incident: {E: [...], H: [...]} with the plane wave to inject");
  for (int d = 0; d < 3; ++d)
    if (!(spec.upper[d] > spec.lower[d]))
      throw UserError(what + ": 'upper' must exceed 'lower' in every direction", spec.where, "");
  const int K = md.mesh.num_elements();
  TfsfSurface s;
  s.index_of.assign(static_cast<size_t>(K), -1);
  std::vector<std::array<std::int8_t, 4>> sign(static_cast<size_t>(K), {0, 0, 0, 0});
  for (const BoxFace& b : box_surface_faces(md, spec.lower, spec.upper, what, spec.where)) {
    const int k = b.element, f = b.face;
    const int kP = md.conn.EToE[k][f];
    if (md.conn.is_boundary(k, f) || kP < 0)
      throw UserError(what + " has a face on the mesh's outer boundary: there is no scattered-field region beyond it",
                      spec.where, "put the box strictly inside the mesh, with elements on both sides of each face");
    sign[k][f] = 1;
    sign[kP][md.conn.EToF[k][f]] = -1;
    ++s.faces;
  }
  for (int k = 0; k < K; ++k)
    if (sign[k][0] || sign[k][1] || sign[k][2] || sign[k][3]) {
      if (pml && pml->slot_of[k] >= 0)
        throw UserError(what + " touches the perfectly matched layer (element " + std::to_string(k) + ")", spec.where,
                        "put the box inside the layer's inner box, with at least one element between them");
      s.index_of[k] = static_cast<int>(s.elements.size());
      s.elements.push_back(k);
      s.sign.insert(s.sign.end(), sign[k].begin(), sign[k].end());
    }
  return s;
}

TfsfSurface localize_tfsf_surface(const TfsfSurface& whole, const MeshData& local) {
  if (!local.halo.partitioned()) return whole;
  TfsfSurface out;
  out.faces = whole.faces;
  out.index_of.assign(static_cast<size_t>(local.mesh.num_elements()), -1);
  for (int k = 0; k < local.owned_elements(); ++k) {
    const int e = whole.index_of[static_cast<size_t>(local.halo.global_index(k))];
    if (e < 0) continue;
    out.index_of[static_cast<size_t>(k)] = static_cast<int>(out.elements.size());
    out.elements.push_back(k);
    out.sign.insert(out.sign.end(), whole.sign.begin() + 4 * e, whole.sign.begin() + 4 * e + 4);
  }
  return out;
}

}  // namespace dgmax
