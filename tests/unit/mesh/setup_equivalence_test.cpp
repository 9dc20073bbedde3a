// The fast set-up algorithms (bucketed face matching, face maps by vertex permutation, refinement
// by an edge sort, OpenMP loops) against the straightforward ones they replaced, kept here as
// oracles: connectivity by one sort of all faces and a map of tags, face maps by a nearest-node
// search, refinement with a map of edge midpoints. Results must be identical, for any thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "expect_user_error.hpp"
#include "random_mesh.hpp"
#include "solver/element/reference_element.hpp"
#include "solver/mesh/connectivity.hpp"
#include "solver/mesh/face_maps.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/refine.hpp"
#include "solver/mesh/validate.hpp"

using namespace dgmax;

namespace {

// ---- oracles: the former implementations ------------------------------------------------------

using Key = std::array<int, 3>;

Key sorted_key(int a, int b, int c) {
  Key key{a, b, c};
  std::sort(key.begin(), key.end());
  return key;
}

double dist(const Vec3& a, const Vec3& b) { return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }

// Connectivity before periodic gluing (gluing is shared code): EToE, EToF, face_tag, counts.
Connectivity oracle_connectivity(Mesh& mesh) {
  const int K = mesh.num_elements();
  Connectivity c;
  c.EToE.assign(K, {-1, -1, -1, -1});
  c.EToF.assign(K, {-1, -1, -1, -1});
  c.face_tag.assign(K, {-1, -1, -1, -1});
  c.face_periodic.assign(K, {-1, -1, -1, -1});
  struct FaceRecord {
    Key key;
    int k, f;
  };
  std::vector<FaceRecord> faces;
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      const auto& e = mesh.elements[k];
      faces.push_back({sorted_key(e[kFaceVertices[f][0]], e[kFaceVertices[f][1]], e[kFaceVertices[f][2]]), k, f});
    }
  std::sort(faces.begin(), faces.end(), [](const FaceRecord& a, const FaceRecord& b) {
    return a.key != b.key ? a.key < b.key : (a.k != b.k ? a.k < b.k : a.f < b.f);
  });
  std::map<Key, int> tag_of;
  for (const auto& t : mesh.tagged_faces) tag_of[sorted_key(t.v[0], t.v[1], t.v[2])] = t.tag;
  int untagged = -1;
  for (size_t i = 0; i < faces.size();) {
    size_t j = i;
    while (j < faces.size() && faces[j].key == faces[i].key) ++j;
    if (j - i == 2) {
      const auto& a = faces[i];
      const auto& b = faces[i + 1];
      c.EToE[a.k][a.f] = b.k;
      c.EToF[a.k][a.f] = b.f;
      c.EToE[b.k][b.f] = a.k;
      c.EToF[b.k][b.f] = a.f;
      ++c.interior_faces;
    } else {
      const auto& a = faces[i];
      auto it = tag_of.find(a.key);
      int tag = -1;
      if (it != tag_of.end()) {
        tag = it->second;
      } else {
        if (untagged < 0) untagged = mesh.add_boundary_tag(kUntaggedTag);
        tag = untagged;
      }
      c.face_tag[a.k][a.f] = tag;
      ++c.boundary_faces;
    }
    i = j;
  }
  return c;
}

// vmapP by searching, for every face node, the closest node of the neighbour's face.
std::vector<int> oracle_vmapP(const MeshData& md, const RefElement& ref, const NodeCoords& xyz) {
  const Mesh& mesh = md.mesh;
  const auto& conn = md.conn;
  const int K = mesh.num_elements(), Np = ref.Np, Nfp = ref.Nfp;
  std::vector<int> vmapP(static_cast<size_t>(K) * 4 * Nfp);
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      const int k2 = conn.EToE[k][f], f2 = conn.EToF[k][f];
      Vec3 shift{0, 0, 0};
      if (conn.face_periodic[k][f] >= 0) {
        const PeriodicPair& pair = mesh.periodic[conn.face_periodic[k][f]];
        const double sign = conn.face_tag[k][f] == pair.tag_a ? 1.0 : -1.0;
        for (int d = 0; d < 3; ++d) shift[d] = sign * pair.shift[d];
      }
      const auto fv = face_vertices(mesh, k, f);
      const double tol = 1e-7 * std::max({dist(fv[0], fv[1]), dist(fv[0], fv[2]), dist(fv[1], fv[2])});
      for (int j = 0; j < Nfp; ++j) {
        const int nM = k * Np + ref.Fmask(j, f);
        int& out = vmapP[(static_cast<size_t>(k) * 4 + f) * Nfp + j];
        out = nM;
        if (k2 < 0) continue;
        const Vec3 x{xyz.x[nM] + shift[0], xyz.y[nM] + shift[1], xyz.z[nM] + shift[2]};
        double best_d = std::numeric_limits<double>::infinity();
        for (int j2 = 0; j2 < Nfp; ++j2) {
          const int nP = k2 * Np + ref.Fmask(j2, f2);
          const double d = dist(x, {xyz.x[nP], xyz.y[nP], xyz.z[nP]});
          if (d < best_d) {
            best_d = d;
            out = nP;
          }
        }
        EXPECT_LE(best_d, tol) << "oracle: element " << k << " face " << f << " node " << j;
      }
    }
  return vmapP;
}

// Refinement with a map of edge midpoints, numbered in order of first use.
Mesh oracle_refine(const Mesh& mesh) {
  Mesh out;
  out.vertices = mesh.vertices;
  out.volume_tag_names = mesh.volume_tag_names;
  out.boundary_tag_names = mesh.boundary_tag_names;
  out.periodic = mesh.periodic;
  out.source = mesh.source + " refined";
  std::map<std::pair<int, int>, int> ids;
  auto mid = [&](int a, int b) {
    const auto key = std::minmax(a, b);
    auto it = ids.find(key);
    if (it != ids.end()) return it->second;
    const Vec3 x = out.vertices[a], y = out.vertices[b];
    out.vertices.push_back({(x[0] + y[0]) / 2, (x[1] + y[1]) / 2, (x[2] + y[2]) / 2});
    ids.emplace(key, out.num_vertices() - 1);
    return out.num_vertices() - 1;
  };
  auto d2 = [&](int a, int b) {
    const Vec3& x = out.vertices[a];
    const Vec3& y = out.vertices[b];
    return (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]);
  };
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const auto& v = mesh.elements[k];
    int m[4][4];
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) m[i][j] = m[j][i] = mid(v[i], v[j]);
    auto emit = [&](std::array<int, 4> e) {
      out.elements.push_back(e);
      out.element_tag.push_back(mesh.element_tag[k]);
      if (signed_volume(out, out.num_elements() - 1) < 0) std::swap(out.elements.back()[2], out.elements.back()[3]);
    };
    emit({v[0], m[0][1], m[0][2], m[0][3]});
    emit({m[0][1], v[1], m[1][2], m[1][3]});
    emit({m[0][2], m[1][2], v[2], m[2][3]});
    emit({m[0][3], m[1][3], m[2][3], v[3]});
    const std::pair<int, int> pairs[3] = {{m[0][1], m[2][3]}, {m[0][2], m[1][3]}, {m[0][3], m[1][2]}};
    int best = 0;
    for (int p = 1; p < 3; ++p)
      if (d2(pairs[p].first, pairs[p].second) < d2(pairs[best].first, pairs[best].second)) best = p;
    const auto [a, b] = pairs[best];
    const int ring[4] = {pairs[(best + 1) % 3].first, pairs[(best + 2) % 3].first,
                         pairs[(best + 1) % 3].second, pairs[(best + 2) % 3].second};
    for (int i = 0; i < 4; ++i) emit({a, b, ring[i], ring[(i + 1) % 4]});
  }
  for (const auto& t : mesh.tagged_faces) {
    const int u = t.v[0], v = t.v[1], w = t.v[2];
    const int uv = mid(u, v), vw = mid(v, w), uw = mid(u, w);
    out.tagged_faces.push_back({{u, uv, uw}, t.tag});
    out.tagged_faces.push_back({{uv, v, vw}, t.tag});
    out.tagged_faces.push_back({{uw, vw, w}, t.tag});
    out.tagged_faces.push_back({{uv, vw, uw}, t.tag});
  }
  return out;
}

// ---- test meshes ------------------------------------------------------------------------------

// Every element's vertices in a random order (orientation is then fixed by orient_elements), so
// that neighbouring faces meet in every vertex permutation.
Mesh shuffled(Mesh mesh, unsigned seed) {
  std::mt19937 rng(seed);
  for (auto& e : mesh.elements) std::shuffle(e.begin(), e.end(), rng);
  return mesh;
}

std::vector<std::pair<std::string, Mesh>> test_meshes() {
  std::vector<std::pair<std::string, Mesh>> out;
  out.push_back({"random affine", test::random_affine_mesh(3, 1).mesh});
  out.push_back({"random affine, shuffled", shuffled(test::random_affine_mesh(3, 2).mesh, 2)});
  BoxSpec periodic;
  periodic.cells = {3, 2, 4};
  periodic.upper = {2, 1, 0.5};
  periodic.periodic = {true, true, true};
  out.push_back({"periodic box", make_box_mesh(periodic)});
  out.push_back({"periodic box, shuffled", shuffled(make_box_mesh(periodic), 3)});
  BoxSpec mixed;
  mixed.cells = {2, 3, 3};
  mixed.periodic = {false, true, false};
  mixed.regions = {{"slab", {0, 0, 0.3}, {1, 1, 0.7}}};
  out.push_back({"half periodic box with a region", shuffled(make_box_mesh(mixed), 4)});
  out.push_back({"refined random", refine_uniform(test::random_affine_mesh(2, 5).mesh)});
  // tags: one triangle tagged twice (the last tag wins), some boundary faces untagged
  Mesh tags = test::random_affine_mesh(2, 6).mesh;
  const int extra = tags.add_boundary_tag("extra");
  tags.tagged_faces.push_back({tags.tagged_faces[3].v, extra});
  tags.tagged_faces.erase(tags.tagged_faces.begin() + 10, tags.tagged_faces.begin() + 14);
  out.push_back({"retagged and untagged faces", tags});
  return out;
}

template <class F>
auto with_threads(int n, F f) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(n);
  auto result = f();
  omp_set_num_threads(saved);
  return result;
}

}  // namespace

TEST(SetupEquivalence, ConnectivityEqualsOneSortOfAllFaces) {
  for (auto& [name, raw] : test_meshes()) {
    SCOPED_TRACE(name);
    Mesh mesh = raw;
    check_basic(mesh);
    orient_elements(mesh);
    Mesh oracle_mesh = mesh;
    const Connectivity want = oracle_connectivity(oracle_mesh);
    for (int threads : {1, 3}) {
      Mesh m = mesh;
      const Connectivity got = with_threads(threads, [&] { return build_connectivity(m); });
      EXPECT_EQ(m.boundary_tag_names, oracle_mesh.boundary_tag_names);
      EXPECT_EQ(got.interior_faces, want.interior_faces);
      EXPECT_EQ(got.boundary_faces + 2 * got.periodic_faces, want.boundary_faces);
      for (int k = 0; k < m.num_elements(); ++k)
        for (int f = 0; f < 4; ++f) {
          EXPECT_EQ(got.face_tag[k][f], want.face_tag[k][f]) << k << " " << f;
          if (got.face_periodic[k][f] >= 0) continue;  // glued afterwards
          EXPECT_EQ(got.EToE[k][f], want.EToE[k][f]) << k << " " << f;
          EXPECT_EQ(got.EToF[k][f], want.EToF[k][f]) << k << " " << f;
        }
    }
  }
}

TEST(SetupEquivalence, FaceMapsEqualNearestNodeSearch) {
  for (auto& [name, raw] : test_meshes()) {
    SCOPED_TRACE(name);
    const MeshData md = setup_mesh(raw);
    for (int N : {1, 2, 4, 7}) {
      SCOPED_TRACE("N = " + std::to_string(N));
      const RefElement& ref = ref_element(N);
      const NodeCoords xyz = node_coordinates(md.mesh, ref);
      // node coordinates are the affine map of the reference nodes, bit for bit
      for (int k = 0; k < md.mesh.num_elements(); k += 7)
        for (int i = 0; i < ref.Np; ++i) {
          const Vec3 p = map_to_physical(md.mesh, k, ref.r[i], ref.s[i], ref.t[i]);
          ASSERT_EQ(xyz.x[k * ref.Np + i], p[0]);
          ASSERT_EQ(xyz.y[k * ref.Np + i], p[1]);
          ASSERT_EQ(xyz.z[k * ref.Np + i], p[2]);
        }
      const std::vector<int> want = oracle_vmapP(md, ref, xyz);
      for (int threads : {1, 3}) {
        const FaceMaps fm = with_threads(threads, [&] { return build_face_maps(md, ref, xyz); });
        ASSERT_EQ(fm.vmapP, want);
        for (int k = 0; k < md.mesh.num_elements(); ++k)
          for (int f = 0; f < 4; ++f)
            for (int j = 0; j < ref.Nfp; ++j)
              ASSERT_EQ(fm.vmapM[(k * 4 + f) * ref.Nfp + j], k * ref.Np + ref.Fmask(j, f));
      }
    }
  }
}

TEST(SetupEquivalence, FaceMapsOfHighOrdersUseEveryPermutation) {
  // every pair of faces in every relative orientation, at orders whose face nodes are many
  const MeshData md = setup_mesh(shuffled(test::random_affine_mesh(2, 9).mesh, 9));
  for (int N : {10, 15}) {
    const RefElement& ref = ref_element(N);
    const NodeCoords xyz = node_coordinates(md.mesh, ref);
    EXPECT_EQ(build_face_maps(md, ref, xyz).vmapP, oracle_vmapP(md, ref, xyz)) << "N = " << N;
  }
}

TEST(SetupEquivalence, FaceMapsReportAFaceWithoutPartnerLikeTheSearch) {
  // A neighbour pointer that names the wrong element: the permutation fails, the search runs and
  // reports the first bad face with the search's message.
  MeshData md = setup_mesh(test::random_affine_mesh(2, 3).mesh);
  int k = 0;
  while (md.conn.EToE[k][0] < 0) ++k;
  const int wrong = (md.conn.EToE[k][0] + 5) % md.mesh.num_elements();
  md.conn.EToE[k][0] = wrong;
  const RefElement& ref = ref_element(3);
  const NodeCoords xyz = node_coordinates(md.mesh, ref);
  for (int threads : {1, 3}) {
    const UserError e = test::expect_user_error(
        [&] { with_threads(threads, [&] { return build_face_maps(md, ref, xyz); }); },
        {"of element " + std::to_string(k) + " face 0 has no partner on element " + std::to_string(wrong),
         "tolerance"});
    EXPECT_NE(e.hint().find("not conforming"), std::string::npos);
  }
}

TEST(SetupEquivalence, RefinementEqualsMidpointMap) {
  std::vector<std::pair<std::string, Mesh>> meshes = test_meshes();
  // a tagged triangle whose edges are not all element edges gets its own midpoints
  Mesh odd = test::random_affine_mesh(2, 8).mesh;
  odd.tagged_faces.push_back({{0, 7, 20}, odd.add_boundary_tag("odd")});
  meshes.push_back({"odd tagged triangle", odd});
  for (auto& [name, raw] : meshes) {
    SCOPED_TRACE(name);
    Mesh mesh = raw;
    orient_elements(mesh);
    const Mesh want = oracle_refine(mesh);
    for (int threads : {1, 3}) {
      const Mesh got = with_threads(threads, [&] { return refine_uniform(mesh); });
      EXPECT_EQ(got.vertices, want.vertices);  // bit for bit, same numbering
      EXPECT_EQ(got.elements, want.elements);
      EXPECT_EQ(got.element_tag, want.element_tag);
      ASSERT_EQ(got.tagged_faces.size(), want.tagged_faces.size());
      for (size_t i = 0; i < got.tagged_faces.size(); ++i) {
        EXPECT_EQ(got.tagged_faces[i].v, want.tagged_faces[i].v);
        EXPECT_EQ(got.tagged_faces[i].tag, want.tagged_faces[i].tag);
      }
      EXPECT_EQ(got.boundary_tag_names, want.boundary_tag_names);
      EXPECT_EQ(got.source, want.source);
    }
  }
}

TEST(SetupEquivalence, RefinedConnectivityAndFaceMapsMatchTheOracles) {
  // refine twice, then the whole set-up, against the oracles at every step
  BoxSpec spec;
  spec.cells = {2, 2, 3};
  spec.periodic = {true, false, true};
  const Mesh coarse = shuffled(make_box_mesh(spec), 11);
  const MeshData md = with_threads(3, [&] { return setup_mesh(coarse, 2); });
  Mesh m = coarse;
  orient_elements(m);
  m = oracle_refine(oracle_refine(m));
  EXPECT_EQ(md.mesh.elements, m.elements);
  EXPECT_EQ(md.mesh.vertices, m.vertices);
  const Connectivity want = oracle_connectivity(m);
  EXPECT_EQ(md.conn.interior_faces, want.interior_faces);
  for (int k = 0; k < m.num_elements(); ++k)
    for (int f = 0; f < 4; ++f)
      if (md.conn.face_periodic[k][f] < 0) {
        EXPECT_EQ(md.conn.EToE[k][f], want.EToE[k][f]);
        EXPECT_EQ(md.conn.EToF[k][f], want.EToF[k][f]);
      }
  const RefElement& ref = ref_element(3);
  const NodeCoords xyz = node_coordinates(md.mesh, ref);
  EXPECT_EQ(with_threads(3, [&] { return build_face_maps(md, ref, xyz); }).vmapP, oracle_vmapP(md, ref, xyz));
}

TEST(SetupEquivalence, FirstErrorIsReportedForAnyThreadCount) {
  // two defects: the message names the first, as a serial scan would
  Mesh m = test::random_affine_mesh(3, 4).mesh;
  m.elements[40] = {m.elements[40][0], m.elements[40][1], m.elements[40][1], m.elements[40][3]};
  m.elements[10] = {m.elements[10][0], m.elements[10][0], m.elements[10][2], m.elements[10][3]};
  for (int threads : {1, 3})
    test::expect_user_error([&] { with_threads(threads, [&] { return setup_mesh(m); }); },
                            {"element 10 uses vertex"});
  Mesh flat = test::random_affine_mesh(3, 4).mesh;
  for (int k : {50, 20}) {  // collapse two elements onto a plane
    auto& e = flat.elements[k];
    flat.vertices.push_back(flat.vertices[e[0]]);
    e[3] = flat.num_vertices() - 1;
  }
  for (int threads : {1, 3})
    test::expect_user_error([&] { with_threads(threads, [&] { return setup_mesh(flat); }); },
                            {"element 20 is degenerate"});
}
