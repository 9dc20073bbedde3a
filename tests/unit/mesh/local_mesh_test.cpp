// The local mesh of one part (solver/mesh/local_mesh.hpp): halo lists that both sides agree on
// without communication, ghosts exactly the off-part neighbours, elements / geometry / tags equal
// to the global ones bit for bit, and the decisive check: the right-hand side of the ref (and the
// generated cpu) backend on each local problem, with the ghosts filled from the global state,
// equals the global right-hand side on every owned element bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "mixed_problem.hpp"
#include "partition_meshes.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/mesh/curved_warp.hpp"
#include "solver/mesh/local_mesh.hpp"
#include "solver/physics/probes.hpp"
#include "solver/physics/problem.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

using GlobalFace = std::pair<long long, int>;  // (global element, face)

std::vector<MeshData> all_parts(const MeshData& md, const Partition& p) {
  std::vector<MeshData> parts;
  for (int r = 0; r < p.parts; ++r) parts.push_back(extract_local_mesh(md, p, r));
  return parts;
}

std::vector<GlobalFace> to_global(const MeshData& local, const std::vector<HaloFace>& list) {
  std::vector<GlobalFace> g;
  for (const HaloFace& h : list) g.push_back({local.halo.global_element[h.element], h.face});
  return g;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

// For every pair of parts: r's send list to s is s's receive list from r, entry by entry in
// global terms; every face of an owned element toward another part is sent exactly once; the
// ghosts are exactly the off-part face neighbours; the element order is interior, edge, ghosts.
TEST(LocalMesh, HaloListsAgreeAndCoverEveryCutFace) {
  for (const auto& [name, md] : partition_test_meshes())
    for (const std::string& method : partition_methods())
      for (int P = 2; P <= 7; ++P) {
        SCOPED_TRACE(name + ", " + method + ", P = " + std::to_string(P));
        const Partition p = partition_mesh(md, P, {}, method);
        const PartitionQuality pq = partition_quality(md, p);
        const std::vector<MeshData> parts = all_parts(md, p);
        const auto& E = md.conn.EToE;
        for (int r = 0; r < P; ++r) {
          const MeshData& L = parts[r];
          const Halo& h = L.halo;
          ASSERT_EQ(h.rank, r);
          ASSERT_EQ(h.parts, P);
          const int K = L.mesh.num_elements();
          ASSERT_EQ(static_cast<int>(h.global_element.size()), K);
          ASSERT_EQ(L.owned_elements(), h.K_owned);
          EXPECT_EQ(h.K_owned, pq.elements[r]);
          EXPECT_EQ(K - h.K_owned, pq.ghosts[r]);
          EXPECT_EQ(h.faces_sent(), pq.halo_faces[r]);
          EXPECT_EQ(static_cast<int>(h.neighbours.size()), pq.neighbours[r]);
          EXPECT_TRUE(std::is_sorted(h.neighbours.begin(), h.neighbours.end()));
          // order and ownership
          for (int k = 0; k < K; ++k) {
            const long long g = h.global_element[k];
            const bool owned = k < h.K_owned;
            EXPECT_EQ(p.part[g] == r, owned) << "local " << k;
            bool touches = false;
            for (int f = 0; f < 4; ++f) touches = touches || (E[g][f] >= 0 && p.part[E[g][f]] != r);
            if (owned) {
              EXPECT_EQ(touches, k >= h.K_interior) << "local " << k;
            }
            if (k > 0 && k != h.K_interior && k != h.K_owned) {
              EXPECT_LT(h.global_element[k - 1], g) << "not increasing within its group at " << k;
            }
          }
          // ghosts = off-part neighbours of owned elements
          std::set<long long> expected_ghosts, ghosts(h.global_element.begin() + h.K_owned, h.global_element.end());
          std::multiset<GlobalFace> cut_faces;  // (owned element, face) toward another part
          for (int k = 0; k < h.K_owned; ++k) {
            const long long g = h.global_element[k];
            for (int f = 0; f < 4; ++f)
              if (E[g][f] >= 0 && p.part[E[g][f]] != r) {
                expected_ghosts.insert(E[g][f]);
                cut_faces.insert({g, f});
              }
          }
          EXPECT_EQ(ghosts, expected_ghosts);
          std::multiset<GlobalFace> sent;
          ASSERT_EQ(h.send.size(), h.neighbours.size());
          ASSERT_EQ(h.recv.size(), h.neighbours.size());
          for (size_t i = 0; i < h.neighbours.size(); ++i) {
            const int s = h.neighbours[i];
            ASSERT_NE(s, r);
            EXPECT_FALSE(h.send[i].empty());
            for (const HaloFace& f : h.send[i]) {
              ASSERT_TRUE(f.element >= h.K_interior && f.element < h.K_owned) << f.element;
              const long long g = h.global_element[f.element];
              EXPECT_EQ(p.part[E[g][f.face]], s);  // sent to the owner of the neighbour
              sent.insert({g, f.face});
            }
            for (const HaloFace& f : h.recv[i]) {
              ASSERT_TRUE(f.element >= h.K_owned && f.element < K) << f.element;
              EXPECT_EQ(p.part[h.global_element[f.element]], s);
              // the ghost's face f touches an owned element of this part, both ways in the local mesh
              const int nb = L.conn.EToE[f.element][f.face];
              ASSERT_TRUE(nb >= 0 && nb < h.K_owned);
              EXPECT_EQ(L.conn.EToE[nb][L.conn.EToF[f.element][f.face]], f.element);
            }
            // s's view of r
            const Halo& hs = parts[s].halo;
            const auto it = std::find(hs.neighbours.begin(), hs.neighbours.end(), r);
            ASSERT_NE(it, hs.neighbours.end()) << "part " << s << " does not list " << r;
            const size_t j = it - hs.neighbours.begin();
            EXPECT_EQ(to_global(L, h.send[i]), to_global(parts[s], hs.recv[j])) << r << " → " << s;
            EXPECT_EQ(to_global(L, h.recv[i]), to_global(parts[s], hs.send[j])) << s << " → " << r;
            const auto sorted = to_global(L, h.send[i]);
            EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
          }
          EXPECT_EQ(sent, cut_faces);  // each exactly once
        }
      }
}

// Elements, vertices, geometry, tags and connectivity of each part against the global mesh.
TEST(LocalMesh, ElementsGeometryTagsAndLinksMatchTheGlobalMesh) {
  for (const auto& [name, md] : partition_test_meshes())
    for (int P : {2, 3, 5}) {
      SCOPED_TRACE(name + ", P = " + std::to_string(P));
      const Partition p = partition_mesh(md, P, {}, "sfc");
      std::map<int, long long> boundary_by_tag;  // over the owned elements of all parts
      long long owned_total = 0;
      for (int r = 0; r < P; ++r) {
        const MeshData L = extract_local_mesh(md, p, r);
        const Halo& h = L.halo;
        const int K = L.mesh.num_elements();
        owned_total += h.K_owned;
        EXPECT_EQ(L.mesh.volume_tag_names, md.mesh.volume_tag_names);
        EXPECT_EQ(L.mesh.boundary_tag_names, md.mesh.boundary_tag_names);
        EXPECT_EQ(L.mesh.periodic.size(), md.mesh.periodic.size());
        // vertices: exactly those used, increasing global order (checked through coordinates)
        std::vector<char> used(L.mesh.num_vertices(), 0);
        for (const auto& e : L.mesh.elements)
          for (int v : e) used[v] = 1;
        EXPECT_EQ(std::count(used.begin(), used.end(), 1), L.mesh.num_vertices());
        int interior = 0, periodic = 0, boundary = 0;
        for (int k = 0; k < K; ++k) {
          const long long g = h.global_element[k];
          for (int i = 0; i < 4; ++i)
            for (int d = 0; d < 3; ++d)
              EXPECT_TRUE(same_bits(L.mesh.vertices[L.mesh.elements[k][i]][d],
                                    md.mesh.vertices[md.mesh.elements[g][i]][d]));
          EXPECT_EQ(L.mesh.element_tag[k], md.mesh.element_tag[g]);
          EXPECT_TRUE(same_bits(L.geom.J[k], md.geom.J[g]));
          for (int i = 0; i < 9; ++i) EXPECT_TRUE(same_bits(L.geom.drdx[k][i], md.geom.drdx[g][i]));
          for (int f = 0; f < 4; ++f) {
            EXPECT_TRUE(same_bits(L.geom.sJ[k][f], md.geom.sJ[g][f]));
            EXPECT_TRUE(same_bits(L.geom.Fscale[k][f], md.geom.Fscale[g][f]));
            for (int d = 0; d < 3; ++d) EXPECT_TRUE(same_bits(L.geom.normal[k][f][d], md.geom.normal[g][f][d]));
            const int nb = L.conn.EToE[k][f];
            const int gnb = md.conn.EToE[g][f];
            if (nb == k && L.conn.EToF[k][f] == f) {  // a self-link: only ghosts, toward elements not here
              EXPECT_GE(k, h.K_owned);
              ASSERT_GE(gnb, 0);
              EXPECT_EQ(std::count(h.global_element.begin(), h.global_element.end(), gnb), 0);
              EXPECT_EQ(L.conn.face_tag[k][f], -1);
              EXPECT_EQ(L.conn.face_periodic[k][f], -1);
              continue;
            }
            EXPECT_EQ(L.conn.face_tag[k][f], md.conn.face_tag[g][f]);
            EXPECT_EQ(L.conn.face_periodic[k][f], md.conn.face_periodic[g][f]);
            EXPECT_EQ(L.conn.EToF[k][f], md.conn.EToF[g][f]);
            if (gnb < 0) {
              EXPECT_EQ(nb, -1);
              ++boundary;
              if (k < h.K_owned) ++boundary_by_tag[md.conn.face_tag[g][f]];
            } else {
              ASSERT_GE(nb, 0);
              EXPECT_EQ(h.global_element[nb], gnb);
              ++(L.conn.face_periodic[k][f] >= 0 ? periodic : interior);
            }
          }
        }
        EXPECT_EQ(L.conn.interior_faces, interior / 2);
        EXPECT_EQ(L.conn.periodic_faces, periodic / 2);
        EXPECT_EQ(L.conn.boundary_faces, boundary);
        // tagged faces: each is a face of a local element, in the global list's order
        for (const TaggedFace& t : L.mesh.tagged_faces) {
          std::array<int, 3> a = t.v;
          std::sort(a.begin(), a.end());
          bool found = false;
          for (int k = 0; k < K && !found; ++k)
            for (int f = 0; f < 4 && !found; ++f) {
              std::array<int, 3> b{L.mesh.elements[k][kFaceVertices[f][0]], L.mesh.elements[k][kFaceVertices[f][1]],
                                   L.mesh.elements[k][kFaceVertices[f][2]]};
              std::sort(b.begin(), b.end());
              found = a == b;
            }
          EXPECT_TRUE(found);
        }
      }
      EXPECT_EQ(owned_total, md.mesh.num_elements());
      // the owned boundary faces of all parts are the global ones, tag by tag
      std::map<int, long long> global_by_tag;
      for (int k = 0; k < md.mesh.num_elements(); ++k)
        for (int f = 0; f < 4; ++f)
          if (md.conn.EToE[k][f] < 0) ++global_by_tag[md.conn.face_tag[k][f]];
      EXPECT_EQ(boundary_by_tag, global_by_tag);
    }
}

TEST(LocalMesh, OnePartIsACopyWithAnEmptyHalo) {
  const MeshData md = box_md({3, 2, 2}, {true, false, false});
  const MeshData L = extract_local_mesh(md, partition_mesh(md, 1, {}, "sfc"), 0);
  EXPECT_FALSE(L.halo.partitioned());
  EXPECT_EQ(L.halo.K_owned, -1);
  EXPECT_TRUE(L.halo.global_element.empty());
  EXPECT_EQ(L.owned_elements(), md.mesh.num_elements());
  EXPECT_EQ(L.mesh.elements, md.mesh.elements);
  EXPECT_EQ(L.conn.EToE, md.conn.EToE);
  EXPECT_EQ(L.conn.periodic_faces, md.conn.periodic_faces);
}

bool same_geometry(const ElementGeometry& a, const ElementGeometry& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;  // all doubles, no padding
}

// A partitioned run sets the whole mesh up without storing its geometric factors
// (GeometryFactors::Checked): the same mesh and links, no factors, the same checks; each part
// computes its own, bit for bit those of a whole mesh that stores them; and the per-element
// factors a whole-mesh search asks for (element_geometry, holding_elements) are the stored ones.
TEST(LocalMesh, AWholeMeshWithoutStoredFactorsGivesTheSameParts) {
  BoxSpec spec;
  spec.cells = {5, 4, 4};
  spec.periodic = {true, false, true};
  const MeshData stored = setup_mesh(make_box_mesh(spec), 1);
  const MeshData bare = setup_mesh(make_box_mesh(spec), 1, GeometryFactors::Checked);
  ASSERT_TRUE(stored.has_geometry());
  EXPECT_FALSE(bare.has_geometry());
  EXPECT_TRUE(bare.geom.J.empty() && bare.geom.drdx.empty() && bare.geom.normal.empty() && bare.geom.sJ.empty() &&
              bare.geom.Fscale.empty());
  EXPECT_EQ(bare.mesh.elements, stored.mesh.elements);
  EXPECT_EQ(bare.conn.EToE, stored.conn.EToE);
  EXPECT_EQ(bare.conn.EToF, stored.conn.EToF);
  const int K = stored.mesh.num_elements();
  for (int k = 0; k < K; ++k) {
    const ElementGeometry s = element_geometry(stored, k);
    ASSERT_TRUE(same_geometry(element_geometry(bare, k), s)) << "element " << k;
    ASSERT_TRUE(same_bits(s.J, stored.geom.J[k]));
  }
  for (const Vec3& x : {Vec3{0.31, 0.77, 0.05}, Vec3{0.5, 0.5, 0.5}, Vec3{1, 0, 1}, Vec3{1.5, 0.2, 0.2}}) {
    const std::vector<PointLocation> a = holding_elements(stored, x), b = holding_elements(bare, x);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].element, b[i].element);
      EXPECT_TRUE(same_bits(a[i].r, b[i].r) && same_bits(a[i].s, b[i].s) && same_bits(a[i].t, b[i].t));
    }
  }
  for (int P : {1, 3}) {
    const Partition p = partition_mesh(stored, P, {}, "sfc");
    ASSERT_EQ(partition_mesh(bare, P, {}, "sfc").part, p.part);
    for (int r = 0; r < P; ++r) {
      const MeshData a = extract_local_mesh(stored, p, r), b = extract_local_mesh(bare, p, r);
      ASSERT_TRUE(b.has_geometry());
      ASSERT_EQ(a.mesh.num_elements(), b.mesh.num_elements());
      for (int k = 0; k < a.mesh.num_elements(); ++k)
        ASSERT_TRUE(same_geometry(element_geometry(a, k), element_geometry(b, k))) << "part " << r << ", element " << k;
    }
  }
}

// The check without storage refuses what the stored computation refuses, with the same message.
TEST(LocalMesh, AWholeMeshWithoutStoredFactorsIsCheckedTheSame) {
  Mesh m;
  m.source = "flat.msh";
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 2, 2}};
  m.elements = {{0, 1, 2, 3}, {1, 2, 3, 4}};
  m.element_tag = {0, 0};
  m.volume_tag_names = {"default"};
  Mesh flat = m;
  flat.vertices[1] = {0, 0, 0};  // element 0 loses its volume: both checks name it, not element 1
  EXPECT_NO_THROW(compute_geometry(m));
  EXPECT_NO_THROW(check_jacobians(m));
  std::string stored_msg, checked_msg;
  try {
    compute_geometry(flat);
  } catch (const UserError& e) {
    stored_msg = e.what();
  }
  try {
    check_jacobians(flat);
  } catch (const UserError& e) {
    checked_msg = e.what();
  }
  EXPECT_NE(stored_msg.find("element 0 has non-positive Jacobian"), std::string::npos) << stored_msg;
  EXPECT_EQ(checked_msg, stored_msg);
}

namespace {

// What a test problem sets on the global problem; the local problems copy it element by element.
using Configure = std::function<void(Problem&)>;

// Global and local right-hand sides of `backend` ("ref" or "cpu"): the number of owned-element
// values that differ in any bit, over all parts.
long long owned_rhs_mismatches(const MeshData& global_md, int N, int P, const std::string& method,
                               const Configure& configure, const std::string& backend, unsigned seed) {
  auto gmd = std::make_shared<const MeshData>(global_md);
  Problem gp = make_problem(gmd, N);
  configure(gp);
  const Fields q = random_state(gp, seed);
  const double t = 0.37;
  Fields rg;
  if (backend == "ref") {
    RefBackend(gp).rhs(q, t, rg);
  } else {
    make_cpu_backend(gp, false)->rhs(q, t, rg);
  }

  const Partition part = partition_mesh(*gmd, P, {}, method);
  long long mismatches = 0;
  for (int r = 0; r < P; ++r) {
    auto lmd = std::make_shared<const MeshData>(extract_local_mesh(*gmd, part, r));
    Problem lp = make_problem(lmd, N);
    lp.fluxes = gp.fluxes;
    lp.current = gp.current;
    lp.incident = gp.incident;
    const auto& ge = lmd->halo.global_element;
    const int Np = lp.Np();
    Fields ql(lp.K(), Np);
    for (int k = 0; k < lp.K(); ++k) {
      lp.material[k] = gp.material[ge[k]];
      lp.bc[k] = gp.bc[ge[k]];
      for (int c = 0; c < kNumComponents; ++c) std::copy_n(q.comp(ge[k], c), Np, ql.comp(k, c));
    }
    Fields rl;
    if (backend == "ref") {
      RefBackend(lp).rhs(ql, t, rl);
    } else {
      make_cpu_backend(lp, false)->rhs(ql, t, rl);
    }
    for (int k = 0; k < lmd->halo.K_owned; ++k)
      for (int c = 0; c < kNumComponents; ++c)
        for (int i = 0; i < Np; ++i)
          mismatches += !same_bits(rl(k, c, i), rg(ge[k], c, i));
  }
  return mismatches;
}

// Boundary conditions by tag name: xmin/xmax absorbing, ymin PMC, the rest PEC; materials by
// volume tag with a per-element perturbation (eps, mu differ from element to element).
void tagged_setup(Problem& p) {
  const Mesh& m = p.md->mesh;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int k = 0; k < p.K(); ++k) {
    p.material[k] = Material{1 + m.element_tag[k] + u(rng), 1 + 0.5 * u(rng), 0};
    for (int f = 0; f < 4; ++f) {
      const int tag = p.md->conn.face_tag[k][f];
      if (!p.md->conn.is_boundary(k, f) || tag < 0) continue;
      const std::string& name = m.boundary_tag_names[tag];
      p.bc[k][f] = name == "xmin" || name == "xmax" ? BcKind::Absorbing
                   : name == "ymin"                 ? BcKind::Pmc
                                                    : BcKind::Pec;
    }
  }
}

}  // namespace

// Upwind flux, PEC / PMC / absorbing faces, heterogeneous media, on the plain, periodic and tagged
// boxes, N = 1..3, P = 2, 3, 5: the ref backend's owned rows are those of the global problem.
TEST(LocalMesh, RefRhsOnOwnedElementsEqualsTheGlobalRhs) {
  for (const auto& [name, md] : partition_test_meshes())
    for (const std::string& method : partition_methods())
      for (int N = 1; N <= 3; ++N)
        for (int P : {2, 3, 5}) {
          SCOPED_TRACE(name + ", " + method + ", N = " + std::to_string(N) + ", P = " + std::to_string(P));
          EXPECT_EQ(owned_rhs_mismatches(md, N, P, method, tagged_setup, "ref", 10 * N + P), 0);
        }
}

// Every boundary condition (incident included), a current source, random materials and a random
// affine mesh (mixed_problem.hpp), central and upwind fluxes.
TEST(LocalMesh, RefRhsWithSourcesAndEveryBoundaryCondition) {
  const auto mixed = [](const char* flux, double alpha) {
    return [flux, alpha](Problem& p) {
      const Problem m = mixed_problem(p.N, 3, flux, alpha);
      p.fluxes = m.fluxes;
      p.material = m.material;
      p.bc = m.bc;
      p.current = m.current;
      p.incident = m.incident;
    };
  };
  const MeshData md = setup_mesh(random_affine_mesh(2, 3).mesh);  // the mesh of mixed_problem(N, 3)
  for (int N = 1; N <= 3; ++N)
    for (int P : {2, 4}) {
      EXPECT_EQ(owned_rhs_mismatches(md, N, P, "sfc", mixed("upwind", 1), "ref", N), 0) << N << " " << P;
      EXPECT_EQ(owned_rhs_mismatches(md, N, P, "sfc", mixed("central", 0), "ref", N), 0) << N << " " << P;
    }
}

// The generated cpu backend computes all K rows (the ghosts' are meaningless): its owned rows
// on each part equal its global rows bit for bit.
TEST(LocalMesh, CpuRhsOnOwnedElementsEqualsTheGlobalRhs) {
  for (const auto& [name, md] : partition_test_meshes())
    for (int N : {1, 3}) {
      SCOPED_TRACE(name + ", N = " + std::to_string(N));
      EXPECT_EQ(owned_rhs_mismatches(md, N, 3, "sfc", tagged_setup, "cpu", 5 + N), 0);
    }
}

// Curved elements (every element of a warped box; a ball's worth in a straight one): each part
// carries its elements' curved rows, lays every face's quadrature out as the whole mesh does (by
// the vertices' global order: local vertices keep it), and its owned rows of the ref backend's
// right-hand side are the global ones bit for bit.
TEST(LocalMesh, CurvedElementsKeepTheirRowsRankingsAndRhs) {
  BoxSpec spec;
  spec.cells = {3, 3, 3};
  Mesh box = make_box_mesh(spec), ball = box;
  warp_mesh(box, 2, box_warp(spec.lower, spec.upper, 0.1));
  warp_mesh(ball, 3, ball_warp({0.5, 0.5, 0.5}, 0.3, 0.1));
  for (Mesh* mesh : {&box, &ball}) {
    const MeshData md = setup_mesh(*mesh);
    const int N = md.mesh.geometry_order;
    ASSERT_GT(md.mesh.num_curved(), 0);
    const CurvedFactors global = compute_curved_factors(md.mesh, ref_element(N));
    for (int P : {2, 3}) {
      SCOPED_TRACE("q = N = " + std::to_string(N) + ", P = " + std::to_string(P));
      const Partition part = partition_mesh(md, P, {}, "sfc");
      for (int r = 0; r < P; ++r) {
        const MeshData local = extract_local_mesh(md, part, r);
        const CurvedFactors lc = compute_curved_factors(local.mesh, ref_element(N));
        for (int k = 0; k < local.mesh.num_elements(); ++k) {
          const int g = static_cast<int>(local.halo.global_element[k]);
          ASSERT_EQ(local.mesh.is_curved(k), md.mesh.is_curved(g)) << k;
          if (!md.mesh.is_curved(g)) continue;
          const int lk = lc.slot_of[k], gk = global.slot_of[g];
          for (int f = 0; f < 4; ++f) EXPECT_EQ(lc.ranking[4 * lk + f], global.ranking[4 * gk + f]) << k << " " << f;
        }
      }
      EXPECT_EQ(owned_rhs_mismatches(md, N, P, "sfc", tagged_setup, "ref", 3 + P), 0);
    }
  }
}
