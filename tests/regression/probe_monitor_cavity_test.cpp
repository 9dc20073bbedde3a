// Regression: configs/cavity.yaml on 2x2x2 cells at N = 4 (one period, 97 steps) with two probes
// and a surface and a volume DFT monitor. probes.csv against the exact TM110 mode at the probe
// points, monitors.h5 against the discrete Fourier sum of the exact mode over the same steps:
// both to the discretization error of this mesh (L2 error of the run: E 8.1e-4, H 3.2e-4; Linf
// E 2.3e-2).
#include <gtest/gtest.h>

#include <complex>
#include <sstream>

#include "../unit/io/hdf5_check.hpp"
#include "regression_run.hpp"

using namespace dgmax::test;

namespace {

const double kPi = M_PI, kOmega = std::sqrt(2.0) * M_PI;

// E_z, H_x, H_y of the mode: spatial parts times cos / sin (omega t)
double ez(double x, double y) { return std::sin(kPi * x) * std::sin(kPi * y); }
double hx(double x, double y) { return -kPi / kOmega * std::sin(kPi * x) * std::cos(kPi * y); }
double hy(double x, double y) { return kPi / kOmega * std::cos(kPi * x) * std::sin(kPi * y); }

std::vector<std::vector<double>> read_csv_rows(const std::string& path, std::string* header) {
  std::istringstream in(read_all(path));
  std::getline(in, *header);
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<double> row;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST(RegressionProbesMonitors, CavityProbesAndDftMatchTheExactMode) {
  const auto r = run_config(
      "cavity",
      {"mesh.box.cells=[2,2,2]", "discretization.order=4",
       "probes={every: 0.1, points: [{name: a, at: [0.3, 0.4, 0.5]}, {name: mid, at: [0.5, 0.5, 0.5]}]}",
       "monitors=[{name: half, surface: {box: {lower: [0.5, 0, 0], upper: [1, 1, 1]}}, frequencies: [0.7071067811865476, 1.3]},"
       " {name: vol, volume: domain, frequencies: [0.7071067811865476]}]"},
      true);
  ASSERT_EQ(r.code, 0);
  ASSERT_EQ(r.summary["steps"], 97);
  // probes: a sample at t = 0 and then each 0.1 (15 in one period of sqrt(2))
  std::string header;
  const auto rows = read_csv_rows(r.dir + "/probes.csv", &header);
  EXPECT_EQ(header.substr(0, 26), "t,a.Ex,a.Ey,a.Ez,a.Hx,a.Hy");
  ASSERT_EQ(rows.size(), 15u);
  EXPECT_EQ(rows[0][0], 0.0);
  const double pts[2][3] = {{0.3, 0.4, 0.5}, {0.5, 0.5, 0.5}};
  double err = 0;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 13u);
    const double t = row[0];
    for (int p = 0; p < 2; ++p) {
      const double x = pts[p][0], y = pts[p][1];
      const double exact[6] = {0, 0, ez(x, y) * std::cos(kOmega * t), hx(x, y) * std::sin(kOmega * t),
                               hy(x, y) * std::sin(kOmega * t), 0};
      for (int c = 0; c < 6; ++c) err = std::max(err, std::abs(row[1 + 6 * p + c] - exact[c]));
    }
  }
  std::cout << "probes: max |probe - exact| = " << err << "\n";
  // measured 5.64e-3: both points lie on faces shared by several elements (0.5, 0.5, 0.5 is a
  // vertex), whose traces differ by the discretization error, and a probe reads their mean (one
  // element's trace read 2.16e-3 or 6.39e-3 there, by the elements' numbering)
  EXPECT_LT(err, 6.5e-3);
  // ... which does not depend on the numbering: the same probes with the file's numbering, to the
  // rounding of the mean's order of summation (one trace per element had differed by 4.2e-3)
  {
    const auto r_input = run_config(
        "cavity",
        {"mesh.box.cells=[2,2,2]", "discretization.order=4", "mesh.numbering=input",
         "probes={every: 0.1, points: [{name: a, at: [0.3, 0.4, 0.5]}, {name: mid, at: [0.5, 0.5, 0.5]}]}"},
        true);
    ASSERT_EQ(r_input.code, 0);
    std::string header_input;
    const auto rows_input = read_csv_rows(r_input.dir + "/probes.csv", &header_input);
    ASSERT_EQ(rows_input.size(), rows.size());
    double diff = 0;
    for (size_t i = 0; i < rows.size(); ++i)
      for (size_t c = 0; c < rows[i].size(); ++c) diff = std::max(diff, std::abs(rows[i][c] - rows_input[i][c]));
    std::cout << "probes: max |hilbert - input numbering| = " << diff << "\n";
    EXPECT_LT(diff, 1e-13);
    std::filesystem::remove_all(r_input.dir);
  }

  // the DFT of the exact mode over the run's steps: t_n = n dt, the last one at time.final
  const double dt = r.summary["dt"].get<double>(), T = r.summary["final_time"].get<double>();
  auto exact_sums = [&](double f, std::complex<double>* Sc, std::complex<double>* Ss) {
    *Sc = *Ss = 0;
    for (int n = 1; n <= 97; ++n) {
      const double t = n == 97 ? T : n * dt, h = n == 97 ? r.summary["dt_last"].get<double>() : dt;
      const std::complex<double> e = std::polar(h, -2 * kPi * f * t);
      *Sc += std::cos(kOmega * t) * e;
      *Ss += std::sin(kOmega * t) * e;
    }
  };
  H5File file(r.dir + "/monitors.h5");
  ASSERT_GE(file.id, 0);
  const auto freqs = read<double>(file.id, "half/frequencies", H5T_NATIVE_DOUBLE, {2});
  const hsize_t M = 2 * (4 + 2 + 2) * 2 * 15;  // box faces of 2x2 / 1x2 / 1x2 cells, 2 triangles each, Nfp = 15
  const auto x = read<double>(file.id, "half/x", H5T_NATIVE_DOUBLE, {M, 3});
  const auto w = read<double>(file.id, "half/weight", H5T_NATIVE_DOUBLE, {M});
  double area = 0;
  for (double v : w) area += v;
  EXPECT_NEAR(area, 4, 1e-13);  // two 1x1 faces and four 0.5x1 faces
  const auto Er = read<double>(file.id, "half/E_re", H5T_NATIVE_DOUBLE, {2, M, 3});
  const auto Ei = read<double>(file.id, "half/E_im", H5T_NATIVE_DOUBLE, {2, M, 3});
  const auto Hr = read<double>(file.id, "half/H_re", H5T_NATIVE_DOUBLE, {2, M, 3});
  const auto Hi = read<double>(file.id, "half/H_im", H5T_NATIVE_DOUBLE, {2, M, 3});
  for (int f = 0; f < 2; ++f) {
    std::complex<double> Sc, Ss;
    exact_sums(freqs[f], &Sc, &Ss);
    double dft_err = 0, scale = 0;
    for (hsize_t m = 0; m < M; ++m) {
      const double px = x[3 * m], py = x[3 * m + 1];
      const size_t a = (f * M + m) * 3;
      const std::complex<double> got[3] = {{Er[a + 2], Ei[a + 2]}, {Hr[a], Hi[a]}, {Hr[a + 1], Hi[a + 1]}};
      const std::complex<double> want[3] = {ez(px, py) * Sc, hx(px, py) * Ss, hy(px, py) * Ss};
      for (int c = 0; c < 3; ++c) dft_err = std::max(dft_err, std::abs(got[c] - want[c])), scale = std::max(scale, std::abs(want[c]));
    }
    std::cout << "surface DFT at f = " << freqs[f] << ": max |X - exact sum| = " << dft_err << " of max " << scale << "\n";
    EXPECT_GT(scale, f == 0 ? 0.5 : 0.05);  // at resonance ~ T/2 = 0.707
    // the nodal error of the run (Linf E 2.3e-2, largest on the PEC walls, which four of the box's
    // faces lie on) summed over the period: measured 1.41e-2 at resonance, 4.4e-3 at f = 1.3
    EXPECT_LT(dft_err, f == 0 ? 0.02 : 0.006) << "f = " << freqs[f];
  }
  std::filesystem::remove_all(r.dir);
}
