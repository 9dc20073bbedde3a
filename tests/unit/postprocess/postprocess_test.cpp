// The postprocess/ scripts end to end on real dgmax runs: convergence_table.py runs the built-in
// PEC cavity mode and must report order ≥ 2.5 at N = 2 (its JSON, plain table and --from Markdown
// table must agree), and plot_energy.py must turn a run's energy.csv into a PNG. The scripts need
// /usr/bin/python3 with numpy and matplotlib; without them every test skips with a message.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.hpp"

namespace fs = std::filesystem;
using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax;
using nlohmann::json;

namespace {

const std::string kPython = "/usr/bin/python3";

std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string script(const std::string& name) { return std::string(DGMAX_SOURCE_DIR) + "/postprocess/" + name; }

// Runs a shell command line, capturing exit code, stdout and stderr.
CliResult run_shell(const std::string& cmdline, const std::string& base) {
  const std::string cmd = cmdline + " >" + sh_quote(base + ".out") + " 2>" + sh_quote(base + ".err");
  const int status = std::system(cmd.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(base + ".out"), read_all(base + ".err")};
  fs::remove(base + ".out");
  fs::remove(base + ".err");
  return r;
}

class Postprocess : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system((kPython + " -c 'import numpy, matplotlib' >/dev/null 2>&1").c_str()) != 0)
      GTEST_SKIP() << kPython << " with numpy and matplotlib is needed for the postprocess scripts "
                   << "(Debian: apt-get install python3-numpy python3-matplotlib)";
    // The meshes here are tiny (K ≤ 384): on a busy machine OpenMP barriers would dominate.
    ::setenv("OMP_NUM_THREADS", "1", 1);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / ("dgmax_postprocess_" + std::to_string(::getpid()) + "_" + info->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  CliResult python(const std::string& name, const std::string& args) {
    return run_shell(kPython + " " + sh_quote(script(name)) + " " + args, dir_ + "/cmd" + std::to_string(calls_++));
  }

  std::string dir_;
  int calls_ = 0;
};

int count_lines_starting_with(const std::string& text, const std::string& prefix) {
  int n = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, prefix.size(), prefix) == 0) ++n;
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return n;
}

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

TEST_F(Postprocess, ConvergenceTableOfTheBuiltInDefault) {
  // N = 2 on 1, 2, 4 cells to t = 1 (the default's final time): about a second. Shorter times
  // measure the early, order-N error growth (t = 0.1 on 1 -> 2 cells gives 1.6), not order N+1.
  const std::string json_path = dir_ + "/conv.json", work = dir_ + "/runs";
  const CliResult r = python("convergence_table.py",
                             "--dgmax " + sh_quote(DGMAX_BINARY) + " --orders 2 --cells 1,2,4 --final-time 1 --json " +
                                 sh_quote(json_path) + " --workdir " + sh_quote(work));
  ASSERT_EQ(r.code, 0) << r.out << r.err;

  const json j = json::parse(read_all(json_path));
  const json& rows = j["rows"];
  ASSERT_EQ(rows.size(), 3u) << j.dump(2);
  const int cells[] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    const json& row = rows[i];
    const int K = 6 * cells[i] * cells[i] * cells[i];
    EXPECT_EQ(row["N"], 2);
    EXPECT_EQ(row["cells"], cells[i]);
    EXPECT_EQ(row["K"], K);
    EXPECT_EQ(row["dofs"], 6 * K * 10);  // Np = 10 at N = 2
    EXPECT_NEAR(row["h"].get<double>(), 1.0 / cells[i], 1e-12);
    EXPECT_NEAR(row["final_time"].get<double>(), 1.0, 1e-14);
    EXPECT_DOUBLE_EQ(row["L2"].get<double>(), std::hypot(row["L2_E"].get<double>(), row["L2_H"].get<double>()));
    if (i == 0) {
      EXPECT_TRUE(row["order"].is_null());
    } else {
      const double expected = std::log(rows[i - 1]["L2"].get<double>() / row["L2"].get<double>()) / std::log(2.0);
      EXPECT_NEAR(row["order"].get<double>(), expected, 1e-9);
    }
  }
  const double finest_order = rows[2]["order"].get<double>();
  EXPECT_GE(finest_order, 2.5) << "N = 2 should converge at order close to N + 1 = 3\n" << r.out;
  EXPECT_LE(finest_order, 3.5) << r.out;

  // The plain table: a header and one line per run, each ending in its order.
  EXPECT_NE(r.out.find("L2 (E,H)"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines_starting_with(r.out, "2  "), 3) << r.out;
  EXPECT_NE(r.out.find(fixed2(finest_order) + "\n"), std::string::npos) << r.out;

  // Reading the kept runs back (--from) gives the same orders, here as a Markdown table.
  const CliResult md = python("convergence_table.py", "--markdown --from " + sh_quote(work + "/N2_c1") + " " +
                                                          sh_quote(work + "/N2_c4") + " " + sh_quote(work + "/N2_c2"));
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("| N | cells | h | K | DOF |", 0), 0u) << md.out;
  EXPECT_EQ(count_lines_starting_with(md.out, "| 2 | "), 3) << md.out;
  EXPECT_NE(md.out.find("| 4 | 0.25 | 384 | 23040 |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| " + fixed2(finest_order) + " |\n"), std::string::npos) << md.out;
}

TEST_F(Postprocess, ConvergenceTableReportsAFailingRun) {
  const CliResult r = python("convergence_table.py", "--dgmax " + sh_quote(DGMAX_BINARY) +
                                                         " --orders 2 --cells 1 --set discretization.flux=nonsense");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("convergence_table.py: error: dgmax exited with code 1"), std::string::npos) << r.err;
}

TEST_F(Postprocess, PlotEnergyWritesAPng) {
  const std::string run = dir_ + "/run";
  const CliResult d = run_dgmax("run -q --output " + sh_quote(run) +
                                " --set discretization.order=2 --set mesh.box.cells=[2,2,2] --set time.final=0.3");
  ASSERT_EQ(d.code, 0) << d.err;
  ASSERT_EQ(read_all(run + "/energy.csv").rfind("step,t,energy,L2_E,L2_H\n", 0), 0u);

  const std::string png = dir_ + "/plots/energy.png";  // the folder does not exist yet
  const CliResult r = python("plot_energy.py", sh_quote(run) + " " + sh_quote(run + "/energy.csv") +
                                                   " --labels a,b --drift --out " + sh_quote(png));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::string bytes = read_all(png);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_FALSE(fs::exists(png + ".tmp"));

  const CliResult missing = python("plot_energy.py", sh_quote(dir_ + "/nowhere") + " --out " + sh_quote(dir_ + "/x.png"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir_ + "/x.png"));
}

// plot_rcs.py on a far-field CSV of the transform (the exact Mie field of a PEC sphere, ka = 2,
// sampled on a cube and transformed by solver/physics/near_to_far.hpp) against a Mie reference CSV:
// the script must draw the PNG and report the largest relative RCS difference of each cut, which
// here is the transform's own error (below 1e-6).
#include <fstream>
#include <iomanip>
#include <sstream>

#include <fmt/format.h>

#include "mie_series.hpp"
#include "ntff_fixtures.hpp"
#include "solver/physics/near_to_far.hpp"

namespace {

// The largest "max |rcs/ref - 1| = X" the script printed, and how many such lines there were.
std::pair<double, int> max_reported_difference(const std::string& out) {
  double worst = -1;
  int lines = 0;
  const std::string key = "max |rcs/ref - 1| = ";
  for (size_t pos = out.find(key); pos != std::string::npos; pos = out.find(key, pos + 1)) {
    worst = std::max(worst, std::stod(out.substr(pos + key.size())));
    ++lines;
  }
  return {worst, lines};
}

}  // namespace

TEST_F(Postprocess, PlotRcsAgainstTheMieSeries) {
  namespace mie = dgmax::test::mie;
  const double k = 2, f = k / (2 * dgmax::test::kPi);
  const mie::Coefficients c = mie::pec_coefficients(k, mie::wiscombe_terms(k) + 15);
  const dgmax::SurfaceDft dft = dgmax::test::sample_surface(
      f, dgmax::test::cube_surface({0, 0, 0}, 1.3, 2, 8),
      [&](const std::array<double, 3>& x, dgmax::test::CVec3& E, dgmax::test::CVec3& H) {
        const mie::NearField s = mie::scattered_field(c, k, x);
        E = s.E;
        H = s.H;
      });
  dgmax::FarFieldPattern p;
  p.frequency = f;
  p.directions = dgmax::principal_cuts(2);
  p.fields = dgmax::far_field(dft, 0, p.directions);
  p.incident = 1;
  const std::string csv = dir_ + "/far_field.csv", ref = dir_ + "/mie.csv";
  dgmax::write_far_field_csv(csv, {p}, 1.0);
  {
    std::ofstream r(ref);
    r << "theta_deg,phi_deg,rcs\n";
    for (int deg = 0; deg <= 180; deg += 10)  // on the 2-degree grid: no interpolation
      for (const int phi : {0, 90}) {
        const double t = deg * dgmax::test::kPi / 180;
        r << deg << "," << phi << "," << std::setprecision(17)
          << dgmax::test::kPi * (phi == 0 ? mie::rcs_e_plane(c, t) : mie::rcs_h_plane(c, t)) << "\n";
      }
  }
  const std::string png = dir_ + "/plots/rcs.png";
  const CliResult r = python("plot_rcs.py", sh_quote(csv) + " --radius 1 --db --e-plane 0 --reference " + sh_quote(ref) +
                                                " --out " + sh_quote(png));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto [worst, lines] = max_reported_difference(r.out);
  EXPECT_EQ(lines, 2) << r.out;  // E-plane and H-plane
  EXPECT_GE(worst, 0) << r.out;
  EXPECT_LT(worst, 1e-6) << r.out;
  EXPECT_NE(r.out.find("phi = 0 deg (E-plane): 19 angles"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("phi = 90 deg (H-plane): 19 angles"), std::string::npos) << r.out;
  const std::string bytes = read_all(png);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_FALSE(fs::exists(png + ".tmp"));

  // --within-db 20 leaves out reference angles more than 20 dB below the reference's maximum over
  // the cuts: a reference value lowered 1000-fold at theta = 40 on the E-plane (a null the run
  // misses by a factor 1000) dominates the plain comparison and is left out of the restricted one.
  {
    std::ifstream in(ref);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), line, out;
    std::istringstream lines_in(text);
    while (std::getline(lines_in, line)) {
      if (line.rfind("40,0,", 0) == 0) line = "40,0," + fmt::format("{:.17g}", std::stod(line.substr(5)) / 1000);
      out += line + "\n";
    }
    std::ofstream(dir_ + "/null.csv") << out;
  }
  const std::string null_ref = " --radius 1 --e-plane 0 --reference " + sh_quote(dir_ + "/null.csv");
  const CliResult plain = python("plot_rcs.py", sh_quote(csv) + null_ref + " --out " + sh_quote(dir_ + "/n.png"));
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_GT(max_reported_difference(plain.out).first, 900) << plain.out;
  const CliResult within = python("plot_rcs.py", sh_quote(csv) + null_ref + " --within-db 20 --out " +
                                                     sh_quote(dir_ + "/n.png"));
  ASSERT_EQ(within.code, 0) << within.err;
  EXPECT_LT(max_reported_difference(within.out).first, 1e-6) << within.out;
  EXPECT_NE(within.out.find("phi = 0 deg (E-plane): 18 angles within 20 dB"), std::string::npos) << within.out;
  const CliResult no_ref = python("plot_rcs.py", sh_quote(csv) + " --within-db 20 --out " + sh_quote(dir_ + "/x.png"));
  EXPECT_EQ(no_ref.code, 1);
  EXPECT_NE(no_ref.err.find("needs --reference"), std::string::npos) << no_ref.err;

  // A radiation pattern (no rcs column) plots, but cannot be compared with an RCS reference.
  p.incident = 0;
  dgmax::write_far_field_csv(csv, {p});
  const CliResult pattern = python("plot_rcs.py", sh_quote(csv) + " --out " + sh_quote(dir_ + "/pattern.png"));
  EXPECT_EQ(pattern.code, 0) << pattern.err;
  EXPECT_TRUE(fs::exists(dir_ + "/pattern.png"));
  const CliResult mixed = python("plot_rcs.py", sh_quote(csv) + " --reference " + sh_quote(ref) + " --out " +
                                                    sh_quote(dir_ + "/x.png"));
  EXPECT_EQ(mixed.code, 1);
  EXPECT_NE(mixed.err.find("has no rcs column"), std::string::npos) << mixed.err;
  const CliResult wrong_f = python("plot_rcs.py", sh_quote(csv) + " --frequency 7 --out " + sh_quote(dir_ + "/x.png"));
  EXPECT_EQ(wrong_f.code, 1);
  EXPECT_NE(wrong_f.err.find("has no frequency 7"), std::string::npos) << wrong_f.err;
  EXPECT_FALSE(fs::exists(dir_ + "/x.png"));
}

// plot_rcs.py on the full-sphere far field of a z-directed Hertzian dipole (the exact field sampled
// on a cube, transformed, with its radiated power: directivity columns): cuts at any phi and the
// theta x phi map, each reporting the largest directivity, which for this source is 1.5 (1.761
// dBi) at theta = 90 deg in every cut; a file that is no grid has no map.
#include "solver/physics/far_field_grid.hpp"

TEST_F(Postprocess, PlotRcsDirectivityCutsAndMapOfADipole) {
  const double f = 1, k = 2 * dgmax::test::kPi * f;
  const dgmax::SurfaceDft dft = dgmax::test::sample_surface(
      f, dgmax::test::cube_surface({0, 0, 0}, 0.75, 2, 8),
      [&](const std::array<double, 3>& x, dgmax::test::CVec3& E, dgmax::test::CVec3& H) {
        dgmax::test::dipole_field({0, 0, 1}, {0, 0, 0}, k, x, E, H);
      });
  dgmax::FarFieldPattern p;
  p.frequency = f;
  p.directions = dgmax::far_field_directions(dgmax::sphere_grid(5));
  p.fields = dgmax::far_field(dft, 0, p.directions);
  p.power = dgmax::radiated_power(dft, 0, dgmax::power_quadrature_points(dft, 0));
  const std::string csv = dir_ + "/far_field_sphere.csv";
  dgmax::write_far_field_csv(csv, {p});

  const CliResult cuts = python("plot_rcs.py", sh_quote(csv) + " --phi 0 45 --out " + sh_quote(dir_ + "/cuts.png"));
  ASSERT_EQ(cuts.code, 0) << cuts.out << cuts.err;
  EXPECT_NE(cuts.out.find("f = 1 phi = 0 deg: 37 angles, max directivity 1.761 dBi at theta = 90"), std::string::npos)
      << cuts.out;
  EXPECT_NE(cuts.out.find("f = 1 phi = 45 deg: 37 angles, max directivity 1.761 dBi at theta = 90"), std::string::npos)
      << cuts.out;
  EXPECT_EQ(read_all(dir_ + "/cuts.png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  // 72 cuts: by default phi = 0 and 90, with a note
  const CliResult some = python("plot_rcs.py", sh_quote(csv) + " --out " + sh_quote(dir_ + "/some.png"));
  ASSERT_EQ(some.code, 0) << some.err;
  EXPECT_EQ(count_lines_starting_with(some.out, "plot_rcs.py: f = 1 phi = "), 2) << some.out;
  EXPECT_NE(some.err.find("72 phi cuts; plotting phi = 0, 90"), std::string::npos) << some.err;

  const std::string map = dir_ + "/map.png";
  const CliResult m = python("plot_rcs.py", sh_quote(csv) + " --map --out " + sh_quote(map));
  ASSERT_EQ(m.code, 0) << m.out << m.err;
  EXPECT_NE(m.out.find("f = 1 map of 37 theta x 73 phi: max directivity 1.761 dBi at theta = 90,"), std::string::npos)
      << m.out;
  const std::string bytes = read_all(map);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_FALSE(fs::exists(map + ".tmp"));

  // a phi the file does not have; a file that is no theta x phi grid
  const CliResult absent = python("plot_rcs.py", sh_quote(csv) + " --phi 7 --out " + sh_quote(dir_ + "/x.png"));
  EXPECT_EQ(absent.code, 1);
  EXPECT_NE(absent.err.find("has no cut at phi = 7 deg"), std::string::npos) << absent.err;
  p.directions = {{0, 0}, {1, 0}, {1, 1}};
  p.fields = dgmax::far_field(dft, 0, p.directions);
  dgmax::write_far_field_csv(csv, {p});
  const CliResult ragged = python("plot_rcs.py", sh_quote(csv) + " --map --out " + sh_quote(dir_ + "/x.png"));
  EXPECT_EQ(ragged.code, 1);
  EXPECT_NE(ragged.err.find("is not a theta x phi grid"), std::string::npos) << ragged.err;
  EXPECT_FALSE(fs::exists(dir_ + "/x.png"));
}
