// The run report (summary.json, the printed lines) and when energy.csv is sampled: the numbers
// are consistent with each other and with the run, the defaults are the documented ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "../io/hdf5_check.hpp"
#include "dgmax/config.hpp"
#include "run_cli.hpp"

using dgmax::test::read_all;
using dgmax::test::run_dgmax;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Row {
  long long step;
  double t, energy, l2e, l2h;
};

std::vector<Row> read_csv(const std::string& path) {
  std::istringstream in(read_all(path));
  std::string line;
  std::getline(in, line);  // header
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row r{};
    char c;
    std::istringstream l(line);
    l >> r.step >> c >> r.t >> c >> r.energy >> c >> r.l2e >> c >> r.l2h;
    rows.push_back(r);
  }
  return rows;
}

class RunReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "dgmax_run_report_" + std::to_string(::getpid());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(RunReport, NumbersAreConsistentAndSamplesFollowTheDefaults) {
  // the built-in cavity on the cpu backend, snapshots every 0.2 in HDF5 (no VTK needed)
  const auto r = run_dgmax("run --backend cpu --set time.final=0.5 --set output.vtk_every=0.2 "
                           "--set output.format=hdf5 --output " + dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(read_all(dir_ + "/summary.json"));
  const long long steps = s["steps"].get<long long>(), dofs = s["dofs"].get<long long>();
  const double loop_s = s["loop_s"].get<double>();
  ASSERT_GT(steps, 20);
  ASSERT_GT(loop_s, 0);

  // throughput per RK stage: 5 stages per step
  EXPECT_NEAR(s["gdof_per_s"].get<double>() * 1e9 * loop_s, 5.0 * dofs * steps, 1e-9 * dofs * steps);
  EXPECT_NEAR(s["dof_per_s"].get<double>(), s["gdof_per_s"].get<double>() * 1e9, 1e-6 * s["dof_per_s"].get<double>());
  // the cpu backend times its kernels with the host clock inside the loop
  const double kernel_s = s["kernel_s"].get<double>();
  EXPECT_GT(kernel_s, 0);
  EXPECT_LE(kernel_s, loop_s);
  EXPECT_NEAR(s["kernel_share"].get<double>(), kernel_s / loop_s, 1e-12);
  EXPECT_GE(s["setup_s"].get<double>(), s["mesh_s"].get<double>());
  EXPECT_GE(s["mesh_s"].get<double>(), 0);
  EXPECT_LE(s["setup_s"].get<double>() + loop_s, s["wall_s"].get<double>());
  EXPECT_EQ(s["kernels"]["compiled"].get<int>() + s["kernels"]["cache_hits"].get<int>(), 1);
  EXPECT_GT(s["snapshot_write_s"].get<double>(), 0);
  EXPECT_GT(s["snapshot_commit_s"].get<double>(), 0);
  EXPECT_GE(s["snapshot_wait_s"].get<double>(), 0);
  EXPECT_GE(s["snapshot_finish_s"].get<double>(), 0);
  EXPECT_NE(r.out.find("GDOF/s per stage"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("% of the loop in kernels"), std::string::npos) << r.out;

  // snapshots at t = 0, 0.2, 0.4 and the end, all on disk
  const auto& files = s["outputs"]["snapshots"];
  ASSERT_EQ(files.size(), 4u) << s.dump(2);
  for (const auto& f : files) EXPECT_TRUE(fs::exists(f.get<std::string>())) << f;

  // energy.csv: step 0, every max(10, steps/200) = 10 steps, every snapshot, the last step
  const auto rows = read_csv(dir_ + "/energy.csv");
  ASSERT_EQ(static_cast<long long>(rows.size()), s["samples"].get<long long>());
  std::set<long long> expected = {0, steps};
  for (long long k = 10; k <= steps; k += 10) expected.insert(k);
  std::set<long long> got;
  int at_snapshots = 0;
  for (const Row& row : rows) {
    got.insert(row.step);
    for (double ts : {0.2, 0.4})
      if (row.t >= ts * (1 - 1e-12) && row.t - ts < s["dt"].get<double>()) {
        ++at_snapshots;
        expected.insert(row.step);  // the first step at or past the snapshot time
      }
  }
  EXPECT_EQ(at_snapshots, 2);
  EXPECT_EQ(got, expected);
  // the last row is what summary.json reports
  EXPECT_EQ(rows.back().step, steps);
  EXPECT_EQ(rows.back().energy, s["energy"]["final"].get<double>());
  EXPECT_EQ(rows.back().l2e, s["errors"]["L2"]["E"].get<double>());
  EXPECT_EQ(rows.back().l2h, s["errors"]["L2"]["H"].get<double>());
  EXPECT_EQ(rows.front().energy, s["energy"]["initial"].get<double>());
}

TEST_F(RunReport, EnergyEveryOneSamplesEveryStep) {
  const auto r = run_dgmax("run --backend cpu --quiet --set time.final=0.2 --set output.energy_every=1 "
                           "--set output.format=hdf5 --output " + dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(read_all(dir_ + "/summary.json"));
  const auto rows = read_csv(dir_ + "/energy.csv");
  ASSERT_EQ(static_cast<long long>(rows.size()), s["steps"].get<long long>() + 1);
  for (size_t k = 0; k < rows.size(); ++k) EXPECT_EQ(rows[k].step, static_cast<long long>(k));
}

// The output schedule read back from the files, with config values given as an expression and a
// refined mesh: snapshots at t = 0, at the first step at or past every vtk_every and at the end;
// time.final = 2*0.25 is 0.5 exactly; mesh.refine = 1 has 8 times the elements.
TEST_F(RunReport, SnapshotTimesExpressionsAndRefinement) {
  const auto r = run_dgmax("run --backend cpu --quiet --set 'time.final=2*0.25' --set mesh.refine=1 --set discretization.order=2 "
                           "--set output.vtk_every=0.2 --set output.format=" +
                           std::string(DGMAX_HAS_VTK ? "both" : "hdf5") + " --output " + dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(read_all(dir_ + "/summary.json"));
  EXPECT_EQ(s["final_time"].get<double>(), 0.5);
  EXPECT_EQ(s["K"].get<long long>(), 8 * 162);  // the built-in cavity: 3^3 cells x 6 tets, refined once
  const double dt = s["dt"].get<double>();
  std::vector<double> times;
  for (const auto& f : s["outputs"]["snapshots"]) {
    const std::string path = f.get<std::string>();
    if (path.size() < 3 || path.substr(path.size() - 3) != ".h5") continue;
    dgmax::test::H5File h5(path);
    ASSERT_GE(h5.id, 0) << path;
    times.push_back(dgmax::test::read<double>(h5.id, "time", H5T_NATIVE_DOUBLE, {}).at(0));
  }
  ASSERT_EQ(times.size(), 4u) << s.dump(2);
  EXPECT_EQ(times[0], 0.0);
  for (int j = 1; j <= 2; ++j) {
    EXPECT_GE(times[j], 0.2 * j * (1 - 1e-12)) << j;
    EXPECT_LT(times[j], 0.2 * j + dt) << j;
  }
  EXPECT_EQ(times[3], 0.5);
  if (DGMAX_HAS_VTK) {  // format both: a .vtu next to each .h5, and the collection names them
    for (int j = 0; j < 4; ++j) {
      char name[32];
      std::snprintf(name, sizeof name, "/fields_%05d.vtu", j);
      EXPECT_TRUE(fs::exists(dir_ + name)) << name;
    }
    EXPECT_NE(read_all(dir_ + "/fields.pvd").find("fields_00003.vtu"), std::string::npos);
  }
}

}  // namespace

TEST_F(RunReport, FarFieldPowerIsInTheSummaryAndTheReport) {
  // configs/dipole_pml.yaml made small ([-0.4, 0.4]^3 in 4^3 cells, a one-cell layer, to t = 1.5)
  // with a monitor that asks for two directions: the CSV has them (as written, with the
  // directivity), summary.json the power both ways per frequency, and the report prints those.
  const std::string config = std::string(DGMAX_SOURCE_DIR) + "/configs/dipole_pml.yaml";
  const auto r = run_dgmax(
      "run '" + config + "' --backend cpu --output " + dir_ + " --set output.vtk_every=0 --set time.final=1.5"
      " --set 'mesh.box={lower: [-0.4, -0.4, -0.4], upper: [0.4, 0.4, 0.4], cells: [4, 4, 4], pml: 0.2}'"
      " --set 'monitors=[{name: near, surface: {box: {lower: [-0.2, -0.2, -0.2], upper: [0.2, 0.2, 0.2]}},"
      " frequencies: [0, 1.0, 1.5], far_field: {theta: [90], phi: [0, 22.5]}}]'");
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(read_all(dir_ + "/summary.json"));
  const json& m = s.at("far_field").at("near");
  EXPECT_EQ(m.at("csv"), "far_field_near.csv");
  EXPECT_EQ(m.at("directions"), 2);
  ASSERT_EQ(m.at("powers").size(), 2u);  // f = 0 has no far field
  EXPECT_NE(r.out.find("       far field of 'near': far_field_near.csv (2 directions); radiated power\n"),
            std::string::npos) << r.out;
  for (const json& p : m.at("powers")) {
    const double f = p.at("frequency").get<double>(), far = p.at("power_far").get<double>(),
                 surface = p.at("power_surface").get<double>();
    EXPECT_GT(far, 0);  // their agreement on a fine enough mesh: RegressionDipolePml
    EXPECT_GT(surface, 0);
    char line[160];
    std::snprintf(line, sizeof line, "         f = %-8g %.6e over the far-field sphere, %.6e through the surface (%+.2f%%)\n",
                  f, far, surface, 100 * (far / surface - 1));
    EXPECT_NE(r.out.find(line), std::string::npos) << "no line\n" << line << "in\n" << r.out;
  }
  const std::string csv = read_all(dir_ + "/far_field_near.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im,directivity,directivity_dBi");
  EXPECT_NE(csv.find("\n1,90,0,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1.5,90,22.5,"), std::string::npos) << csv;
}
