// Checkpoint and restart (issue 9): `output.checkpoint_every` writes the full state, `dgmax run
// CONFIG --restart DIR` continues bit for bit (cpu, both precisions, and ref), a checkpoint of
// another run is refused with what differs, an interrupted run leaves a checkpoint to go on from.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Ctrl-C writes a checkpoint at the step reached; the restart finishes the run like an
// uninterrupted one.
TEST_F(RunRestart, AnInterruptedRunContinues) {
  {
    std::string text = dgmax::test::restart_case(4, 3);  // long enough to be stopped twice
    text.replace(text.find("final: 1"), 8, "final: 400");
    std::ofstream(config_) << text;
  }
  const std::string out = dir_ + "/i";
  const int code = dgmax::test::run_dgmax_and_signal("run -q --backend cpu " + config_ + " --output " + out,
                                                     out + "/fields_00000.h5", "INT");
  ASSERT_EQ(code, 130);
  const auto s = nlohmann::json::parse(read_all(out + "/summary.json"));
  ASSERT_EQ(s["status"], "interrupted");
  ASSERT_TRUE(s.contains("checkpoint")) << s.dump(2);
  const long long reached = s["steps_done"].get<long long>();
  // continue, but only a little further: a shorter final time would change the config, so stop it again
  // the restart is stepping once it writes its next checkpoint (every 20 steps)
  char next[64];
  std::snprintf(next, sizeof next, "/checkpoint_%012lld.h5", (reached / 20 + 1) * 20);
  const int code2 = dgmax::test::run_dgmax_and_signal("run -q --backend cpu " + config_ + " --restart " + out,
                                                      out + next, "INT", 0.2);
  EXPECT_EQ(code2, 130);
  const auto s2 = nlohmann::json::parse(read_all(out + "/summary.json"));
  EXPECT_EQ(s2["restarted_from"]["step"].get<long long>(), reached);
  EXPECT_GT(s2["steps_done"].get<long long>(), reached);
  EXPECT_EQ(nlohmann::json::parse(read_all(out + "/run.json"))["restarts"], 1);
}

}  // namespace
