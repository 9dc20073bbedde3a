// Checkpoint and restart on the cuda backend (gpu label): a restart from a checkpoint continues
// bit for bit, in double and single precision (tests/common/restart_check.hpp), also when the
// plan this run would pick differs from the checkpoint's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "restart_check.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kCase = dgmax::test::restart_case(3, 4);

class GpuRunRestart : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!dgmax::cuda::driver_available(&why)) GTEST_SKIP() << "no usable GPU: " << why;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / ("dgmax_gpu_restart_" + std::to_string(::getpid()) + "_" + info->name())).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    config_ = dir_ + "/case.yaml";
    std::ofstream(config_) << kCase;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string dir_, config_;
};

TEST_F(GpuRunRestart, DoubleIsBitwise) { dgmax::test::expect_bitwise_restart(dir_, config_, "--backend cuda"); }

TEST_F(GpuRunRestart, SingleIsBitwise) {
  dgmax::test::expect_bitwise_restart(dir_, config_, "--backend cuda --set discretization.precision=single");
}

TEST_F(GpuRunRestart, ContinuesWithTheCheckpointsPlan) {
  // written with one kernel plan, restarted where the tuning database (here DGMAX_CUDA_PLAN) names
  // another: the restart takes the checkpoint's plan and continues bit for bit
  dgmax::test::expect_bitwise_restart(dir_, config_, "--backend cuda", "DGMAX_CUDA_PLAN=f1.b4.t2.T ",
                                      "DGMAX_CUDA_PLAN=f2.b1.t1 ");
  const std::string a = dgmax::test::read_all(dir_ + "/a/summary.json"), b = dgmax::test::read_all(dir_ + "/b/summary.json");
  EXPECT_NE(a.find("\"kernel_plan\": \"f1.b4.t2.T (DGMAX_CUDA_PLAN)\""), std::string::npos) << a;
  EXPECT_NE(b.find("\"kernel_plan\": \"f1.b4.t2.T (checkpoint)\""), std::string::npos) << b;
}

}  // namespace
