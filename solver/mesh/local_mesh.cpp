#include "solver/mesh/local_mesh.hpp"

#include "solver/mesh/curved_lattice.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>

#include "solver/util/error.hpp"

namespace dgmax {
namespace {

using FaceKey = std::array<int, 3>;

FaceKey sorted_face(const std::array<int, 4>& e, int f) {
  FaceKey t{e[kFaceVertices[f][0]], e[kFaceVertices[f][1]], e[kFaceVertices[f][2]]};
  std::sort(t.begin(), t.end());
  return t;
}

// Local elements in the order local_mesh.hpp gives; *K_interior and *K_owned set.
std::vector<int> local_elements(const MeshData& g, const Partition& p, int rank, int* K_interior, int* K_owned) {
  const int K = g.mesh.num_elements();
  const auto& E = g.conn.EToE;
  std::vector<int> interior, edge, ghosts;
  for (int k = 0; k < K; ++k) {
    if (p.part[k] != rank) continue;
    bool touches = false;
    for (int f = 0; f < 4; ++f) {
      const int nb = E[k][f];
      if (nb >= 0 && p.part[nb] != rank) {
        touches = true;
        ghosts.push_back(nb);
      }
    }
    (touches ? edge : interior).push_back(k);
  }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  *K_interior = static_cast<int>(interior.size());
  *K_owned = static_cast<int>(interior.size() + edge.size());
  std::vector<int> all = std::move(interior);
  all.insert(all.end(), edge.begin(), edge.end());
  all.insert(all.end(), ghosts.begin(), ghosts.end());
  return all;
}

// Vertices, elements, tags of the local elements `elems` (global indices, local order).
Mesh local_mesh_part(const Mesh& g, const std::vector<int>& elems) {
  Mesh m;
  std::vector<int> vmap(g.num_vertices(), -1);  // global → local vertex
  for (int k : elems)
    for (int v : g.elements[k]) vmap[v] = 0;
  int nv = 0;
  for (int v = 0; v < g.num_vertices(); ++v)
    if (vmap[v] == 0) {
      vmap[v] = nv++;
      m.vertices.push_back(g.vertices[v]);
    }
  m.elements.reserve(elems.size());
  m.element_tag.reserve(elems.size());
  for (int k : elems) {
    const auto& e = g.elements[k];
    m.elements.push_back({vmap[e[0]], vmap[e[1]], vmap[e[2]], vmap[e[3]]});
    m.element_tag.push_back(g.element_tag[k]);
  }
  // tagged faces that are faces of local elements, in their global order
  std::vector<FaceKey> faces;
  faces.reserve(4 * elems.size());
  for (int k : elems)
    for (int f = 0; f < 4; ++f) faces.push_back(sorted_face(g.elements[k], f));
  std::sort(faces.begin(), faces.end());
  for (const TaggedFace& t : g.tagged_faces) {
    FaceKey key = t.v;
    std::sort(key.begin(), key.end());
    if (!std::binary_search(faces.begin(), faces.end(), key)) continue;
    m.tagged_faces.push_back({{vmap[t.v[0]], vmap[t.v[1]], vmap[t.v[2]]}, t.tag});
  }
  m.volume_tag_names = g.volume_tag_names;
  m.boundary_tag_names = g.boundary_tag_names;
  m.periodic = g.periodic;
  m.source = g.source;
  // the local elements' curved rows, in local order
  m.geometry_order = g.geometry_order;
  if (!g.curved_index.empty()) {
    const int nq = lattice_size(g.geometry_order);
    m.curved_index.assign(elems.size(), -1);
    for (size_t i = 0; i < elems.size(); ++i)
      if (g.is_curved(elems[i])) {
        m.curved_index[i] = static_cast<int>(m.curved_points.size() / nq);
        m.curved_points.insert(m.curved_points.end(), g.curved_row(elems[i]), g.curved_row(elems[i]) + nq);
      }
    if (m.curved_points.empty()) m.curved_index.clear();
  }
  return m;
}

// Connectivity of the local elements, re-indexed (see local_mesh.hpp for the self-links).
Connectivity local_connectivity(const Connectivity& gc, const std::vector<int>& elems,
                                const std::vector<int>& to_local) {
  const int K = static_cast<int>(elems.size());
  Connectivity c;
  c.EToE.assign(K, {-1, -1, -1, -1});
  c.EToF.assign(K, {-1, -1, -1, -1});
  c.face_tag.assign(K, {-1, -1, -1, -1});
  c.face_periodic.assign(K, {-1, -1, -1, -1});
  long long interior = 0, periodic = 0, boundary = 0;  // face sides, each face counted from both sides
  for (int k = 0; k < K; ++k) {
    const int gk = elems[k];
    for (int f = 0; f < 4; ++f) {
      const int nb = gc.EToE[gk][f];
      if (nb < 0) {
        c.face_tag[k][f] = gc.face_tag[gk][f];
        c.face_periodic[k][f] = gc.face_periodic[gk][f];
        ++boundary;
      } else if (to_local[nb] >= 0) {
        c.EToE[k][f] = to_local[nb];
        c.EToF[k][f] = gc.EToF[gk][f];
        c.face_tag[k][f] = gc.face_tag[gk][f];
        c.face_periodic[k][f] = gc.face_periodic[gk][f];
        ++(c.face_periodic[k][f] >= 0 ? periodic : interior);
      } else {  // a ghost's face to an element that is not here
        c.EToE[k][f] = k;
        c.EToF[k][f] = f;
      }
    }
  }
  c.interior_faces = static_cast<int>(interior / 2);
  c.periodic_faces = static_cast<int>(periodic / 2);
  c.boundary_faces = static_cast<int>(boundary);
  return c;
}

// Send and receive lists (see local_mesh.hpp for the order).
Halo local_halo(const MeshData& g, const Partition& p, int rank, const std::vector<int>& elems,
                const std::vector<int>& to_local, int K_interior, int K_owned) {
  Halo h;
  h.rank = rank;
  h.parts = p.parts;
  h.K_owned = K_owned;
  h.K_interior = K_interior;
  h.global_element.assign(elems.begin(), elems.end());
  const auto& E = g.conn.EToE;
  const auto& F = g.conn.EToF;
  std::vector<int> slot(p.parts, -1);  // part → index in neighbours
  for (int k = K_interior; k < K_owned; ++k)
    for (int f = 0; f < 4; ++f) {
      const int nb = E[elems[k]][f];
      if (nb >= 0 && p.part[nb] != rank) slot[p.part[nb]] = 0;
    }
  for (int r = 0; r < p.parts; ++r)
    if (slot[r] == 0) {
      slot[r] = static_cast<int>(h.neighbours.size());
      h.neighbours.push_back(r);
    }
  h.send.resize(h.neighbours.size());
  h.recv.resize(h.neighbours.size());
  // owned elements in increasing global index and faces in increasing order: already sorted
  for (int k = K_interior; k < K_owned; ++k) {
    const int gk = elems[k];
    for (int f = 0; f < 4; ++f) {
      const int nb = E[gk][f];
      if (nb < 0 || p.part[nb] == rank) continue;
      const int r = slot[p.part[nb]];
      h.send[r].push_back({k, f});
      h.recv[r].push_back({to_local[nb], F[gk][f]});
    }
  }
  for (auto& list : h.recv)
    std::sort(list.begin(), list.end(), [&](const HaloFace& a, const HaloFace& b) {
      return std::make_pair(elems[a.element], a.face) < std::make_pair(elems[b.element], b.face);
    });
  return h;
}

}  // namespace

MeshData extract_local_mesh(const MeshData& global, const Partition& p, int rank) {
  const int K = global.mesh.num_elements();
  DGMAX_ASSERT(!global.halo.partitioned(), "extract_local_mesh: the mesh is already a part of a partitioned mesh");
  DGMAX_ASSERT(static_cast<int>(p.part.size()) == K && p.parts >= 1,
               "extract_local_mesh: the partition is of another mesh");
  DGMAX_ASSERT(rank >= 0 && rank < p.parts, "extract_local_mesh: rank " + std::to_string(rank) +
                                                " outside 0.." + std::to_string(p.parts - 1));
  if (p.parts == 1) {
    MeshData copy = global;
    copy.halo = Halo{};
    if (!copy.has_geometry()) copy.geom = compute_geometry(copy.mesh);
    return copy;
  }
  int K_interior = 0, K_owned = 0;
  const std::vector<int> elems = local_elements(global, p, rank, &K_interior, &K_owned);
  std::vector<int> to_local(K, -1);
  for (size_t i = 0; i < elems.size(); ++i) to_local[elems[i]] = static_cast<int>(i);

  MeshData md;
  md.mesh = local_mesh_part(global.mesh, elems);
  md.conn = local_connectivity(global.conn, elems, to_local);
  md.geom = compute_geometry(md.mesh);
  md.reoriented = global.reoriented;
  md.halo = local_halo(global, p, rank, elems, to_local, K_interior, K_owned);
  return md;
}

std::vector<int> owned_local_index(const MeshData& local, int K_whole) {
  std::vector<int> out(static_cast<size_t>(K_whole), -1);
  for (int k = 0; k < local.owned_elements(); ++k) {
    const long long g = local.halo.global_index(k);
    DGMAX_ASSERT(g >= 0 && g < K_whole, "owned_local_index: element " + std::to_string(k) + " is not in the whole mesh");
    out[static_cast<size_t>(g)] = k;
  }
  return out;
}

}  // namespace dgmax
