// The sphere RCS comparison shared by gmsh_sphere_rcs_test.cpp (the shipped CI meshes) and
// sphere_rcs_fine_test.cpp (a fine .msh from the environment): runs configs/sphere_rcs*.yaml,
// reads far_field_rcs.csv (rcs column) and compares it with the Mie series
// (tests/common/mie_series.hpp: sigma/(pi a²) = 4|S2|²/x² on the E-plane, phi = 0, and 4|S1|²/x²
// on the H-plane, phi = 90°, for E along x travelling +z) at every angle where the Mie RCS is within
// 20 dB of its maximum over both cuts.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mie_series.hpp"
#include "regression_run.hpp"

namespace dgmax::test::sphere_rcs {

namespace mie = dgmax::test::mie;

constexpr double kRadius = 0.25;

struct RcsRow {
  double f, theta_deg, phi_deg, rcs;  // rcs: sigma (an area)
};

inline std::vector<RcsRow> read_rcs(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im,rcs") << path;
  std::vector<RcsRow> rows;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) v.push_back(std::stod(cell));
    if (v.size() >= 8) rows.push_back({v[0], v[1], v[2], v[7]});
  }
  return rows;
}

struct KaError {
  double ka = 0, worst = 0, theta = 0, phi = 0;  // worst |sigma/sigma_mie - 1|, where
  double worst_scaled = 0;                       // ... with sigma doubled (the comparison's power)
  int angles = 0;                                // angles within 20 dB of the maximum
};

// Worst relative error against Mie per frequency, at angles within 20 dB of the Mie maximum.
inline std::vector<KaError> compare_with_mie(const std::vector<RcsRow>& rows, bool pec) {
  std::map<double, std::vector<RcsRow>> by_f;
  for (const RcsRow& r : rows) by_f[r.f].push_back(r);
  std::vector<KaError> out;
  for (const auto& [f, cut] : by_f) {
    const double x = 2 * mie::kPi * f * kRadius;
    const mie::Coefficients c = pec ? mie::pec_coefficients(x) : mie::dielectric_coefficients(x, std::sqrt(4.0));
    std::vector<double> ref;
    double peak = 0;
    for (const RcsRow& r : cut) {
      const double th = r.theta_deg * mie::kPi / 180;
      ref.push_back(mie::kPi * kRadius * kRadius * (r.phi_deg == 0 ? mie::rcs_e_plane(c, th) : mie::rcs_h_plane(c, th)));
      peak = std::max(peak, ref.back());
    }
    KaError e;
    e.ka = x;
    for (size_t i = 0; i < cut.size(); ++i) {
      if (ref[i] < peak / 100) continue;  // more than 20 dB below the maximum
      ++e.angles;
      const double err = std::abs(cut[i].rcs / ref[i] - 1);
      if (err > e.worst) e.worst = err, e.theta = cut[i].theta_deg, e.phi = cut[i].phi_deg;
      e.worst_scaled = std::max(e.worst_scaled, std::abs(2 * cut[i].rcs / ref[i] - 1));
    }
    std::printf("  ka = %.3f: worst |rcs/Mie - 1| = %.4f at theta = %g, phi = %g (%d angles within 20 dB)\n", e.ka,
                e.worst, e.theta, e.phi, e.angles);
    out.push_back(e);
  }
  return out;
}

inline void check_case(const char* config, bool pec, const std::vector<std::string>& sets, const std::vector<double>& tol) {
  const auto r = dgmax::test::run_config(config, sets, true);
  ASSERT_EQ(r.code, 0) << r.err;
  std::printf("%s (K = %d, N = %d, %lld steps):\n", config, r.summary["K"].get<int>(), r.summary["N"].get<int>(),
              r.summary["steps"].get<long long>());
  const std::vector<KaError> errs = compare_with_mie(read_rcs(r.dir + "/far_field_rcs.csv"), pec);
  ASSERT_EQ(errs.size(), tol.size());
  for (size_t i = 0; i < errs.size(); ++i) {
    EXPECT_NEAR(errs[i].ka, static_cast<double>(i + 1), 1e-9);
    EXPECT_GE(errs[i].angles, 20);
    EXPECT_LE(errs[i].worst, tol[i]) << config << " ka = " << errs[i].ka << " theta " << errs[i].theta << " phi "
                                     << errs[i].phi;
    EXPECT_GT(errs[i].worst_scaled, tol[i]) << "an RCS off by 2x would pass at ka = " << errs[i].ka;
  }
  std::filesystem::remove_all(r.dir);
}

}  // namespace dgmax::test::sphere_rcs
