// Runs configs/manufactured_current.yaml (a PEC cavity driven by a manufactured current J(x, t)
// whose exact field is known, eps = 2, mu = 1.5) through the dgmax binary on a chosen backend,
// order and box, and reads back the L2 errors and the final state. Shared by the cpu/ref and the
// gpu convergence tests; independent of how the backends evaluate J (it checks the physics answer).
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_cli.hpp"

namespace dgmax::test {

// Short enough for CI, long enough for the source to matter (J ~ sin t, H ~ sin t) and for tens
// of time steps; cfl 0.25 keeps the time error (4th order) below the space error on these meshes.
constexpr double kManufacturedFinalTime = 0.5;
constexpr double kManufacturedCfl = 0.25;

struct ManufacturedRun {
  bool ok = false;
  double L2_E = 0, L2_H = 0;
  std::vector<double> E, H;  // final state, [K][Np][3] each (from the last HDF5 snapshot)
  long long steps = 0;
  std::string backend;
  double L2() const { return std::hypot(L2_E, L2_H); }
};

inline std::vector<double> read_h5_doubles(hid_t file, const char* name) {
  const hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
  if (ds < 0) return {};
  const hid_t sp = H5Dget_space(ds);
  const hssize_t n = H5Sget_simple_extent_npoints(sp);
  std::vector<double> out(n > 0 ? static_cast<size_t>(n) : 0);
  if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) out.clear();
  H5Sclose(sp);
  H5Dclose(ds);
  return out;
}

// `dgmax run configs/manufactured_current.yaml --backend <backend>` on the cells^3 unit box at
// order N; the final state is written as HDF5 and read back. `extra`: more --set overrides.
inline ManufacturedRun run_manufactured(const std::string& backend, int N, int cells,
                                        const std::vector<std::string>& extra = {},
                                        double t_final = kManufacturedFinalTime) {
  static int counter = 0;
  const std::string dir = ::testing::TempDir() + "dgmax_manufactured_" + std::to_string(::getpid()) + "_" +
                          std::to_string(counter++);
  std::filesystem::remove_all(dir);
  const std::string c = std::to_string(cells);
  char tf[64];
  std::snprintf(tf, sizeof tf, "%.17g", t_final);
  std::string args = "run '" + std::string(DGMAX_SOURCE_DIR) + "/configs/manufactured_current.yaml' --backend " +
                           backend + " --output '" + dir + "' -q --set output.vtk_every=0 --set output.format=hdf5" +
                           " --set discretization.order=" + std::to_string(N) + " --set 'mesh.box.cells=[" + c +
                           "," + c + "," + c + "]' --set time.final=" + tf +
                           " --set time.cfl=" + std::to_string(kManufacturedCfl);
  for (const auto& e : extra) args += " --set '" + e + "'";
  ::setenv("OMP_WAIT_POLICY", "passive", 0);  // see tests/regression/regression_run.hpp
  const CliResult cli = run_dgmax(args);
  ManufacturedRun r;
  EXPECT_EQ(cli.code, 0) << "dgmax " << args << "\n" << cli.err;
  if (cli.code == 0) {
    const auto summary = nlohmann::json::parse(read_all(dir + "/summary.json"));
    r.L2_E = summary["errors"]["L2"]["E"].get<double>();
    r.L2_H = summary["errors"]["L2"]["H"].get<double>();
    r.steps = summary["steps"].get<long long>();
    r.backend = summary["backend"].get<std::string>();
    // the last snapshot: the .h5 file with the highest number
    std::string last;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".h5" && e.path().string() > last) last = e.path().string();
    const hid_t f = H5Fopen(last.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0) << last;
    if (f >= 0) {
      r.E = read_h5_doubles(f, "E");
      r.H = read_h5_doubles(f, "H");
      H5Fclose(f);
    }
    r.ok = !r.E.empty() && r.E.size() == r.H.size();
  }
  std::filesystem::remove_all(dir);
  return r;
}

// max |a − b| / max |b| over E and H.
inline double state_difference(const ManufacturedRun& a, const ManufacturedRun& b) {
  double diff = 0, scale = 0;
  for (auto pair : {&ManufacturedRun::E, &ManufacturedRun::H}) {
    const auto& x = a.*pair;
    const auto& y = b.*pair;
    if (x.size() != y.size()) return INFINITY;
    for (size_t i = 0; i < x.size(); ++i) {
      diff = std::max(diff, std::abs(x[i] - y[i]));
      scale = std::max(scale, std::abs(y[i]));
    }
  }
  return scale > 0 ? diff / scale : diff;
}

// Meshes per order: cells^3 boxes (6 tets per cell). Measured orders (L2 of (E, H) at t = 0.5,
// cfl 0.25, ref = cpu): N = 1: 2.04 (h 1/2 -> 1/4), 1.96 (1/4 -> 1/8); N = 2: 3.27 (1/2 -> 1/3),
// 2.94 (1/2 -> 1/4); N = 3: 3.80 (1/1 -> 1/2), 4.09 (1/2 -> 1/3), 3.97 (1/2 -> 1/4); N = 4: 4.67
// (1/1 -> 1/2), 5.07 (1/2 -> 1/3), 4.92 (1/2 -> 1/4). The pairs below keep a margin of >= 0.5
// over N + 0.5 where it is cheap, and the runs short.
struct ManufacturedCase {
  int N, coarse, fine;
};
inline const std::vector<ManufacturedCase>& manufactured_cases() {
  static const std::vector<ManufacturedCase> cases = {{1, 2, 4}, {2, 2, 3}, {3, 2, 3}, {4, 2, 3}};
  return cases;
}

// Runs every case on `backend`, prints the table, checks the orders; returns the runs (coarse,
// fine per case) for comparisons between backends.
inline std::vector<ManufacturedRun> check_manufactured_convergence(const std::string& backend) {
  std::vector<ManufacturedRun> runs;
  std::printf("\n  %s: manufactured current, t = %g\n  N   h      L2 error E   L2 error H   h/2    L2 error E   L2 error H   order\n",
              backend.c_str(), kManufacturedFinalTime);
  for (const auto& c : manufactured_cases()) {
    const ManufacturedRun a = run_manufactured(backend, c.N, c.coarse), b = run_manufactured(backend, c.N, c.fine);
    EXPECT_TRUE(a.ok && b.ok) << backend << " N = " << c.N;
    const double order = std::log(a.L2() / b.L2()) / std::log(static_cast<double>(c.fine) / c.coarse);
    std::printf("  %d   1/%-4d %-12.4e %-12.4e 1/%-4d %-12.4e %-12.4e %.2f\n", c.N, c.coarse, a.L2_E, a.L2_H,
                c.fine, b.L2_E, b.L2_H, order);
    EXPECT_GE(order, c.N + 0.5) << backend << " N = " << c.N << ": errors " << a.L2() << " -> " << b.L2();
    runs.push_back(a);
    runs.push_back(b);
  }
  std::fflush(stdout);
  return runs;
}

}  // namespace dgmax::test
