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
  PointLocation loc = locate_point(*p.md, c);
  EXPECT_EQ(loc.element, 5);
  EXPECT_NEAR(loc.min_barycentric, 0.25, 1e-14);
  const Vec3 back = map_to_physical(mesh, 5, loc.r, loc.s, loc.t);
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(back[d], c[d], 1e-14);
  // a vertex of the mesh, a point on a cell face (x = 0), a corner of the domain: found, with a
  // smallest barycentric coordinate of 0 (to rounding)
  for (const Vec3& x : {mesh.vertices[mesh.elements[7][1]], Vec3{0.0, 0.1, 0.05}, Vec3{0.5, 0.5, 0.7}}) {
    loc = locate_point(*p.md, x);
    ASSERT_GE(loc.element, 0);
    EXPECT_NEAR(loc.min_barycentric, 0, 1e-14);
    const Vec3 y = map_to_physical(mesh, loc.element, loc.r, loc.s, loc.t);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(y[d], x[d], 1e-14);
  }
  // just outside (1e-6 beyond the face z = 0.7) and far away
  EXPECT_EQ(locate_point(*p.md, {0.1, 0.1, 0.7 + 1e-6}).element, -1);
  EXPECT_EQ(locate_point(*p.md, {2, 0, 0}).element, -1);
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
