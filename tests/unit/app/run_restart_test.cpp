// Checkpoint and restart (the reliability checks): `output.checkpoint_every` writes the full state,
// `dgmax run CONFIG --restart DIR` continues bit for bit (cpu, both precisions, and ref), a
// checkpoint of another run is refused with what differs, an interrupted run leaves a checkpoint to
// go on from.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "restart_check.hpp"
#include "run_cli.hpp"

using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax;
namespace fs = std::filesystem;

namespace {

const std::string kCase = dgmax::test::restart_case(2, 3);

class RunRestart : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / ("dgmax_restart_" + std::to_string(::getpid()) + "_" + info->name())).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    config_ = dir_ + "/case.yaml";
    std::ofstream(config_) << kCase;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_, config_;
};

TEST_F(RunRestart, CpuDoubleIsBitwise) { dgmax::test::expect_bitwise_restart(dir_, config_, "--backend cpu"); }

TEST_F(RunRestart, CpuSingleIsBitwise) {
  dgmax::test::expect_bitwise_restart(dir_, config_, "--backend cpu --set discretization.precision=single");
}

TEST_F(RunRestart, RefIsBitwise) { dgmax::test::expect_bitwise_restart(dir_, config_, "--backend ref"); }

// With a PML the checkpoint must carry the layer's auxiliary fields (/aux): the snapshots, layer
// elements included, continue bit for bit (cpu in both precisions, and ref).
TEST_F(RunRestart, PmlAuxiliaryFieldsAreCarried) {
  {
    std::string text = dgmax::test::restart_case(2, 3);
    text.replace(text.find("cells: [2, 2, 2]"), 16, "cells: [2, 2, 2], pml: 0.5");
    std::ofstream(config_) << text;
  }
  for (const char* args : {"--backend cpu", "--backend cpu --set discretization.precision=single", "--backend ref"}) {
    SCOPED_TRACE(args);
    dgmax::test::expect_bitwise_restart(dir_, config_, args);
  }
}

TEST_F(RunRestart, CheckpointsByTimeKeepTheNewestTwo) {
  const std::string out = dir_ + "/t";
  const CliResult r = run_dgmax("run -q --backend cpu " + config_ + " --set 'output.checkpoint_every={time: 0.1}' --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  int n = 0;
  for (const auto& e : fs::directory_iterator(out)) n += e.path().filename().string().rfind("checkpoint_", 0) == 0;
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(nlohmann::json::parse(read_all(out + "/summary.json")).contains("checkpoint"));
}

TEST_F(RunRestart, AnotherRunsCheckpointIsRefusedWithWhatDiffers) {
  const std::string out = dir_ + "/x";
  ASSERT_EQ(run_dgmax("run -q --backend cpu " + config_ + " --output " + out).code, 0);
  CliResult r = run_dgmax("run -q --backend cpu " + config_ + " --set discretization.order=2 --restart " + out);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("belongs to another run"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("order N: checkpoint 3, config 2"), std::string::npos) << r.err;
  r = run_dgmax("run -q --backend ref " + config_ + " --restart " + out);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("backend"), std::string::npos) << r.err;
  // a directory without checkpoints
  r = run_dgmax("run -q --backend cpu " + config_ + " --restart " + dir_ + "/nothing");
  EXPECT_EQ(r.code, 1) << r.err;
}

// Ctrl-C writes a checkpoint at the step reached; the restart goes on from it. Each run is stopped
// as soon as it is stepping (a snapshot after the first exists: no fixed wait); time.final is far
// beyond what either reaches, so neither can end before its signal however slow or fast the
// machine is.
TEST_F(RunRestart, AnInterruptedRunContinues) {
  {
    std::string text = dgmax::test::restart_case(4, 3);
    text.replace(text.find("final: 1"), 8, "final: 4000");
    std::ofstream(config_) << text;
  }
  const std::string out = dir_ + "/i";
  const auto first = dgmax::test::run_dgmax_and_signal("run -q --backend cpu " + config_ + " --output " + out,
                                                       out + "/fields_00001.h5", SIGINT);
  ASSERT_EQ(first.code, 130) << first.describe();
  const auto s = nlohmann::json::parse(read_all(out + "/summary.json"));
  ASSERT_EQ(s["status"], "interrupted");
  ASSERT_TRUE(s.contains("checkpoint")) << s.dump(2);
  const long long reached = s["steps_done"].get<long long>();
  // the restart is stepping once it writes the snapshot after the ones already there
  int snapshots = 0;
  for (const auto& e : fs::directory_iterator(out)) snapshots += e.path().filename().string().rfind("fields_", 0) == 0;
  char next[64];
  std::snprintf(next, sizeof next, "/fields_%05d.h5", snapshots);
  const auto second = dgmax::test::run_dgmax_and_signal("run -q --backend cpu " + config_ + " --restart " + out,
                                                        out + next, SIGINT);
  EXPECT_EQ(second.code, 130) << second.describe();
  const auto s2 = nlohmann::json::parse(read_all(out + "/summary.json"));
  EXPECT_EQ(s2["restarted_from"]["step"].get<long long>(), reached);
  EXPECT_GT(s2["steps_done"].get<long long>(), reached);
  EXPECT_EQ(nlohmann::json::parse(read_all(out + "/run.json"))["restarts"], 1);
}

}  // namespace

// With an incident field the far field's rcs column divides by the incident field's DFT, which the
// checkpoint carries (solver/physics/incident_dft.hpp): restarted from the older of the two
// checkpoints, far_field_m.csv (rcs included) is the uninterrupted run's, byte for byte.
TEST_F(RunRestart, IncidentDftForTheRcsIsCarried) {
  const std::string cfg = dir_ + "/rcs.yaml";
  std::ofstream(cfg) << R"yaml(mesh:
  box: {lower: [-0.6, -0.6, -0.6], upper: [0.6, 0.6, 0.6], cells: [6, 6, 6], pml: 0.4}
discretization: {order: 2, precision: double, flux: upwind}
constants: {z0: -0.8, w: 0.2}
materials: {default: {eps: 1, mu: 1}}
boundaries: {default: pec}
incident:
  E: ["exp(-((z - t - z0)/w)^2)", "0", "0"]
  H: ["0", "exp(-((z - t - z0)/w)^2)", "0"]
tfsf: {box: {lower: [-0.2, -0.2, -0.2], upper: [0.2, 0.2, 0.2]}}
pml: {order: 3, reflection: 1e-6, alpha: 0.05}
monitors:
  - name: m
    surface: {box: {lower: [-0.4, -0.4, -0.4], upper: [0.4, 0.4, 0.4]}}
    frequencies: [1.0, 2.0]
time: {final: 1.0, cfl: 0.5}
output: {vtk_every: 0, checkpoint_every: 20}
backend: cpu
)yaml";
  const std::string a = dir_ + "/a", b = dir_ + "/b";
  CliResult r = run_dgmax("run -q " + cfg + " --output " + a);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string far = read_all(a + "/far_field_m.csv");
  ASSERT_EQ(far.rfind("frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im,rcs\n", 0), 0u) << far.substr(0, 200);
  fs::copy(a, b, fs::copy_options::recursive);
  std::vector<fs::path> checkpoints;
  for (const auto& e : fs::directory_iterator(b))
    if (e.path().filename().string().rfind("checkpoint_", 0) == 0) checkpoints.push_back(e.path());
  ASSERT_EQ(checkpoints.size(), 2u);
  std::sort(checkpoints.begin(), checkpoints.end());
  fs::remove(checkpoints.back());
  for (const char* f : {"/far_field_m.csv", "/summary.json", "/monitors.h5", "/energy.csv"}) fs::remove(b + f);
  r = run_dgmax("run -q " + cfg + " --restart " + b);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(read_all(b + "/summary.json")).contains("restarted_from"));
  EXPECT_EQ(read_all(b + "/far_field_m.csv"), far);
}
