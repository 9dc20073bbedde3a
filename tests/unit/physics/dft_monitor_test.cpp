// DFT monitors: the accumulators of ref and cpu against the closed-form discrete Fourier sum of a
// sinusoidal state sequence, ref vs cpu on a stepped cavity, surface monitors' quadrature
// (weights, normals: exact for polynomials of degree N on the box surface) and their errors.
#include <gtest/gtest.h>

#include "expect_user_error.hpp"
#include "monitor_cases.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/dft_monitor.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

MonitorSpec box_monitor(Vec3 lo, Vec3 hi) {
  MonitorSpec s;
  s.name = "box";
  s.lower = lo;
  s.upper = hi;
  s.frequencies = {1.0};
  s.region_where = {"monitors.yaml", 4, 15, ""};
  return s;
}

// ∫ x^a y^b z^c over the surface of the box [lo, hi]
double monomial_surface_integral(const Vec3& lo, const Vec3& hi, const int e[3]) {
  auto line = [](double a, double b, int k) { return (std::pow(b, k + 1) - std::pow(a, k + 1)) / (k + 1); };
  double total = 0;
  for (int d = 0; d < 3; ++d)
    for (double plane : {lo[d], hi[d]}) {
      double v = std::pow(plane, e[d]);
      for (int o = 0; o < 3; ++o)
        if (o != d) v *= line(lo[o], hi[o], e[o]);
      total += v;
    }
  return total;
}

}  // namespace

TEST(DftAccumulators, RefAndCpuMatchTheClosedFormSumOfASinusoid) {
  const Problem p = odd_box_problem(3);
  RefBackend ref(p);
  const double e_ref = dft_sinusoid_error(p, ref, 150);
  const double e_cpu = dft_sinusoid_error(p, *make_cpu_backend(p, false), 150);
  const double e_f32 = dft_sinusoid_error(p, *make_cpu_backend(p, true), 150);
  std::cout << "DFT vs closed form: ref " << e_ref << ", cpu " << e_cpu << ", cpu fp32 " << e_f32 << "\n";
  EXPECT_LE(e_ref, 1e-14);
  EXPECT_LE(e_cpu, 1e-14);
  EXPECT_LE(e_f32, 1e-7);  // the state is rounded to float; the sums stay double
}

TEST(DftAccumulators, RefAndCpuAgreeOnASteppedCavity) {
  const Problem p = box_problem(unit_box(2), 3, 1.0);
  const DftMonitor m = make_dft_monitor(p, box_monitor({0, 0, 0}, {0.5, 0.5, 1}));
  double scale = 0;
  const double diff = dft_difference_to_ref(p, *make_cpu_backend(p, false), m.nodes, &scale);
  std::cout << "ref vs cpu accumulators: max difference " << diff << " of max " << scale << "\n";
  EXPECT_GT(scale, 0.01);
  EXPECT_LE(diff, 1e-13 * scale);
}

TEST(SurfaceMonitor, WeightsAndNormalsIntegrateDegreeNPolynomialsOverTheBox) {
  const int N = 4;
  const Problem p = box_problem(unit_box(4), N, 1.0);
  const Vec3 lo{0.25, 0.25, 0.5}, hi{0.75, 1.0, 1.0};  // two faces on the outer boundary
  const DftMonitor m = make_dft_monitor(p, box_monitor(lo, hi));
  EXPECT_TRUE(m.surface);
  // 6 box faces of 2x3, 2x2, 3x2 cells, 2 triangles per cell face
  EXPECT_EQ(m.points.size(), static_cast<size_t>(2 * (6 + 4 + 6) * 2 * p.Nfp()));
  const int monomials[][3] = {{0, 0, 0}, {4, 0, 0}, {1, 2, 1}, {0, 3, 1}, {2, 2, 0}};
  for (const auto& e : monomials) {
    double sum = 0;
    for (const SurfacePoint& q : m.points) sum += q.w * std::pow(q.x[0], e[0]) * std::pow(q.x[1], e[1]) * std::pow(q.x[2], e[2]);
    EXPECT_NEAR(sum, monomial_surface_integral(lo, hi, e), 1e-13) << e[0] << e[1] << e[2];
  }
  // closed and outward: ∮ n dS = 0, ∮ x·n dS = 3 V
  double n_sum[3] = {0, 0, 0}, flux = 0;
  for (const SurfacePoint& q : m.points)
    for (int d = 0; d < 3; ++d) n_sum[d] += q.w * q.n[d], flux += q.w * q.x[d] * q.n[d];
  for (double v : n_sum) EXPECT_NEAR(v, 0, 1e-15);
  EXPECT_NEAR(flux, 3 * 0.5 * 0.75 * 0.5, 1e-14);
  // every point lies on the box surface, on the face its normal names
  for (const SurfacePoint& q : m.points)
    for (int d = 0; d < 3; ++d)
      if (q.n[d] != 0) {
        EXPECT_NEAR(q.x[d], q.n[d] > 0 ? hi[d] : lo[d], 1e-14);
      }
  // the record the near-to-far transform reads
  std::vector<double> re(m.points.size() * 6, 1.0), im(m.points.size() * 6, -2.0);
  const SurfaceDft s = surface_dft(m, re, im);
  EXPECT_EQ(s.points.size(), m.points.size());
  EXPECT_EQ(s.E[s.at(0, 3, 2)], std::complex<double>(1, -2));
}

TEST(SurfaceMonitor, RefusesBoxesNotMadeOfMeshFacesOrOutsideTheMesh) {
  const Problem p = box_problem(unit_box(4), 2, 1.0);
  UserError e = expect_hinted_user_error([&] { make_dft_monitor(p, box_monitor({0.2, 0.25, 0.25}, {0.75, 0.75, 0.75})); },
                                         {"monitor 'box'", "surface not closed / not made of mesh faces", "x = 0.2"});
  EXPECT_EQ(e.where().line, 4);
  e = expect_hinted_user_error([&] { make_dft_monitor(p, box_monitor({0.5, 0.5, 0.5}, {1.5, 0.75, 0.75})); },
                               {"monitor 'box'", "not inside the mesh", "(1.5, 0.5, 0.5)"});
  EXPECT_EQ(e.where().file, "monitors.yaml");
  // the whole domain is fine: its faces are the mesh's outer faces
  EXPECT_EQ(make_dft_monitor(p, box_monitor({0, 0, 0}, {1, 1, 1})).points.size(), static_cast<size_t>(6 * 16 * 2 * p.Nfp()));
}

TEST(VolumeMonitor, HoldsAllNodesOfItsTagWithVolumeWeights) {
  const Problem p = box_problem(unit_box(2), 3, 1.0);
  MonitorSpec s;
  s.name = "vol";
  s.kind = MonitorSpec::Volume;
  s.volume_tag = "domain";
  s.frequencies = {1.0};
  const DftMonitor m = make_dft_monitor(p, s);
  EXPECT_FALSE(m.surface);
  ASSERT_EQ(m.nodes.size(), static_cast<size_t>(p.K()) * p.Np());
  double volume = 0, x2 = 0;
  for (const SurfacePoint& q : m.points) volume += q.w, x2 += q.w * q.x[0] * q.x[0];
  EXPECT_NEAR(volume, 1, 1e-14);
  EXPECT_NEAR(x2, 1.0 / 3, 1e-14);
  s.volume_tag = "nothing";
  expect_hinted_user_error([&] { make_dft_monitor(p, s); }, {"volume tag 'nothing'", "tags no element"});
}
