// Point probes: location (interior points, points on faces and vertices, a point outside with its
// message), interpolation weights exact for degree N, and the ref and cpu backends' probe samples
// of an interpolated degree-N polynomial field at random points (exact to rounding).
#include <gtest/gtest.h>

#include <random>

#include "expect_user_error.hpp"
#include "monitor_cases.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/element/basis.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(ProbeWeights, InterpolateDegreeNPolynomialsExactly) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (int N = 1; N <= 8; ++N) {
    const RefElement& ref = ref_element(N);
    double err = 0;
    for (int trial = 0; trial < 20; ++trial) {
      // a random point of the reference tetrahedron (barycentric, normalised)
      double l[4], sum = 0;
      for (double& v : l) sum += (v = u(rng));
      const double r = -1 + 2 * l[1] / sum, s = -1 + 2 * l[2] / sum, t = -1 + 2 * l[3] / sum;
      const std::vector<double> w = interpolation_weights(ref, r, s, t);
      auto g = [N](double a, double b, double c) { return std::pow(0.2 + 0.3 * a - 0.25 * b + 0.4 * c, N) + (N >= 2 ? a * b : 0.0); };
      double value = 0;
      for (int i = 0; i < ref.Np; ++i) value += w[i] * g(ref.r[i], ref.s[i], ref.t[i]);
      err = std::max(err, std::abs(value - g(r, s, t)));
    }
    EXPECT_LE(err, 1e-12) << "N = " << N;
  }
}

TEST(ProbeLocation, FindsInteriorFaceAndVertexPointsAndRefusesOutsideOnes) {
  const Problem p = odd_box_problem(2);
  const Mesh& mesh = p.md->mesh;
  // the centroid of element 5: inside it, barycentric coordinates 1/4
  Vec3 c{0, 0, 0};
  for (int v : mesh.elements[5])
    for (int d = 0; d < 3; ++d) c[d] += mesh.vertices[v][d] / 4;
  std::vector<PointLocation> held = holding_elements(*p.md, c);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].element, 5);
  EXPECT_NEAR(held[0].min_barycentric, 0.25, 1e-14);
  const Vec3 back = map_to_physical(mesh, 5, held[0].r, held[0].s, held[0].t);
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(back[d], c[d], 1e-14);
  // a vertex of the mesh, a point on a cell face (x = 0), a corner of the domain: found in every
  // element that holds it, each with a smallest barycentric coordinate of 0 (to rounding) and
  // reference coordinates that map back to the point
  for (const Vec3& x : {mesh.vertices[mesh.elements[7][1]], Vec3{0.0, 0.1, 0.05}, Vec3{0.5, 0.5, 0.7}}) {
    held = holding_elements(*p.md, x);
    ASSERT_FALSE(held.empty());
    for (const PointLocation& loc : held) {
      EXPECT_NEAR(loc.min_barycentric, 0, 1e-14);
      const Vec3 y = map_to_physical(mesh, loc.element, loc.r, loc.s, loc.t);
      for (int d = 0; d < 3; ++d) EXPECT_NEAR(y[d], x[d], 1e-14);
    }
  }
  // just outside (1e-6 beyond the face z = 0.7) and far away
  EXPECT_TRUE(holding_elements(*p.md, {0.1, 0.1, 0.7 + 1e-6}).empty());
  EXPECT_TRUE(holding_elements(*p.md, {2, 0, 0}).empty());
  // the run's message: the probe's name, point and config location, with a hint
  SourceLocation where{"probes.yaml", 7, 9, "    - {name: far, at: [2, 0, 0]}"};
  const UserError e = expect_hinted_user_error([&] { make_probe_set(p, {{"ok", c, {}}, {"far", {2, 0, 0}, where}}); },
                                               {"probe 'far'", "(2, 0, 0)", "outside the mesh"});
  EXPECT_EQ(e.where().file, "probes.yaml");
  EXPECT_EQ(e.where().line, 7);
  EXPECT_NE(e.hint().find("[-0.5, 0.5] x [-0.5, 0.5] x [-0.5, 0.7]"), std::string::npos) << e.hint();
}

TEST(ProbeSamples, RefAndCpuAreExactForDegreeNFields) {
  for (int N : {1, 3, 5}) {
    const Problem p = odd_box_problem(N);
    RefBackend ref(p);
    const double e_ref = probe_polynomial_error(p, ref, 50, N);
    const double e_cpu = probe_polynomial_error(p, *make_cpu_backend(p, false), 50, N);
    const double e_f32 = probe_polynomial_error(p, *make_cpu_backend(p, true), 50, N);
    std::cout << "N = " << N << ": probe error ref " << e_ref << ", cpu " << e_cpu << ", cpu fp32 " << e_f32 << "\n";
    EXPECT_LE(e_ref, 1e-13) << "N = " << N;
    EXPECT_LE(e_cpu, 1e-13) << "N = " << N;
    EXPECT_LE(e_f32, 1e-6) << "N = " << N;
  }
}

// A point inside an element reads its interpolant; a point on a face shared by two elements, on an
// edge or at a vertex reads the mean of every element's trace there. The state is one constant per
// element (element k: k + 1 in Ex, -(k + 1) / 2 in Hz), so each element's trace is its constant;
// the holders come from the mesh's own topology (the elements listing the vertex, the two sides of
// a face), not from the barycentric search under test.
TEST(ProbeSet, SharedPointsReadTheMeanOfTheirElementsTraces) {
  const Problem p = odd_box_problem(2);
  const Mesh& mesh = p.md->mesh;
  Fields q(p.K(), p.Np());
  for (int k = 0; k < p.K(); ++k)
    for (int i = 0; i < p.Np(); ++i) q(k, 0, i) = k + 1, q(k, 5, i) = -(k + 1) / 2.0;
  // the vertex with the most elements around it
  std::vector<std::vector<int>> around(mesh.vertices.size());
  for (int k = 0; k < p.K(); ++k)
    for (int v : mesh.elements[k]) around[static_cast<size_t>(v)].push_back(k);
  size_t vtx = 0;
  for (size_t v = 0; v < around.size(); ++v)
    if (around[v].size() > around[vtx].size()) vtx = v;
  ASSERT_GE(around[vtx].size(), 8u);
  // a face of element 5 with a neighbour: its centroid lies in the two elements only
  int f5 = 0;
  while (p.md->conn.EToE[5][f5] < 0) ++f5;
  const std::array<Vec3, 3> fv = face_vertices(mesh, 5, f5);
  Vec3 face{}, centroid = element_centroid(mesh, 5);
  for (const Vec3& v : fv)
    for (int d = 0; d < 3; ++d) face[d] += v[d] / 3;
  const std::vector<std::vector<int>> expected = {{5}, {5, p.md->conn.EToE[5][f5]}, around[vtx]};
  const ProbeSet set = make_probe_set(p, {{"inside", centroid, {}}, {"face", face, {}}, {"vertex", mesh.vertices[vtx], {}}});
  ASSERT_EQ(set.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    std::vector<int> got;
    for (size_t s = 0; s < set.elements.size(); ++s)
      if (set.probe[s] == static_cast<int>(i)) got.push_back(set.elements[s]);
    std::vector<int> want = expected[i];
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << set.names[i];
    EXPECT_EQ(set.holders[i], static_cast<int>(want.size())) << set.names[i];
  }
  for (const bool single : {false, true}) {
    auto be = single ? make_cpu_backend(p, true) : std::unique_ptr<Backend>(new RefBackend(p));
    be->set_state(q);
    be->probe_setup(set.elements, set.weights);
    std::vector<double> samples;
    be->probe_sample(samples);
    ASSERT_EQ(samples.size(), set.elements.size() * 6);
    const std::vector<double> v = set.combine(samples);
    ASSERT_EQ(v.size(), 18u);
    for (size_t i = 0; i < 3; ++i) {
      double mean = 0;
      for (int k : expected[i]) mean += k + 1;
      mean /= static_cast<double>(expected[i].size());
      const double tol = single ? 1e-5 * mean : 1e-13 * mean;
      EXPECT_NEAR(v[i * 6 + 0], mean, tol) << set.names[i] << (single ? " fp32" : "");
      EXPECT_NEAR(v[i * 6 + 5], -mean / 2, tol) << set.names[i];
      for (int c = 1; c < 5; ++c) EXPECT_EQ(v[i * 6 + c], 0.0) << set.names[i];
    }
  }
}

// holding_elements: every element around a vertex, in element order; none for a point outside.
TEST(ProbeLocation, HoldingElementsAreTheElementsAroundAVertex) {
  const Problem p = odd_box_problem(1);
  const Mesh& mesh = p.md->mesh;
  for (int v : {mesh.elements[0][2], mesh.elements[11][0], mesh.elements[p.K() - 1][3]}) {
    std::vector<int> want;
    for (int k = 0; k < p.K(); ++k)
      if (std::find(mesh.elements[k].begin(), mesh.elements[k].end(), v) != mesh.elements[k].end()) want.push_back(k);
    std::vector<int> got;
    for (const PointLocation& loc : holding_elements(*p.md, mesh.vertices[v])) got.push_back(loc.element);
    EXPECT_EQ(got, want) << "vertex " << v;
  }
  EXPECT_TRUE(holding_elements(*p.md, {2, 0, 0}).empty());
}
