// Asking for the CUDA driver where there may be none (runs everywhere, GPU or not): the answer and
// its reason, and the UserError every entry point gives without a driver. The missing-driver case
// is forced in a child process (the answer is computed once per process) with DGMAX_CUDA_DRIVER
// naming a library that does not exist.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "../jit/jit_test_util.hpp"
#include "expect_user_error.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/util/error.hpp"

namespace dgmax::cuda {
namespace {

using test::read_text;
using test::TempDir;

const char* kMissingDriver = "/nonexistent/dgmax-test/libcuda.so.1";

TEST(CudaDriverProbe, AnswersWithAReasonWithoutCrashing) {
  std::string why = "unchanged";
  const bool available = driver_available(&why);
  std::string again;
  EXPECT_EQ(driver_available(&again), available);  // computed once, same answer
  EXPECT_EQ(again, why);
  EXPECT_EQ(driver_available(), available);
  if (available) {
    EXPECT_TRUE(why.empty()) << why;
    EXPECT_GE(device_count(), 1);
    std::cout << "CUDA driver found: " << Context::get().info().summary() << "\n";
  } else {
    // e.g. "no CUDA driver found (libcuda.so.1): this machine has no NVIDIA GPU driver"
    std::cout << "no GPU: " << why << "\n";
    EXPECT_FALSE(why.empty());
    EXPECT_NE(why, "unchanged");
    // Every way in says the same, as a UserError with a hint.
    const UserError e = test::expect_user_error([] { Context::get(); });
    EXPECT_EQ(e.message(), why);
    EXPECT_NE(e.hint().find("backend cpu"), std::string::npos) << e.hint();
    EXPECT_EQ(test::expect_user_error([] { DeviceBuffer b(1024, "x"); }).message(), why);
    EXPECT_EQ(test::expect_user_error([] { device_count(); }).message(), why);
    EXPECT_EQ(test::expect_user_error([] { driver_version(); }).message(), why);
    EXPECT_EQ(test::expect_user_error([] { Event e; }).message(), why);
    EXPECT_EQ(test::expect_user_error([] { Module m(std::vector<char>{'\x7f', 'E', 'L', 'F'}, "m"); }).message(), why);
  }
}

// Run by MissingDriverLibraryIsAUserError in a child process (DISABLED_: not a test of its own,
// so ctest does not count it as a pass; spawn_self runs disabled tests).
TEST(CudaDriverProbe, DISABLED_ChildWithoutDriver) {
  const char* lib = std::getenv("DGMAX_CUDA_DRIVER");
  if (!lib || std::string(lib) != kMissingDriver)
    GTEST_SKIP() << "runs as a child of CudaDriverProbe.MissingDriverLibraryIsAUserError";
  std::string why;
  ASSERT_FALSE(driver_available(&why));
  EXPECT_EQ(why, std::string("no CUDA driver found (") + kMissingDriver +
                     "): this machine has no NVIDIA GPU driver");
  const UserError e = test::expect_user_error([] { Context::get(); });
  EXPECT_EQ(e.message(), why);
  EXPECT_NE(e.hint().find("use backend cpu"), std::string::npos) << e.hint();
  EXPECT_NE(e.render().find("error: no CUDA driver found"), std::string::npos) << e.render();
  EXPECT_EQ(test::expect_user_error([] { DeviceBuffer b(16); }).message(), why);
  EXPECT_EQ(test::expect_user_error([] { device_count(); }).message(), why);
}

TEST(CudaDriverProbe, MissingDriverLibraryIsAUserError) {
  TempDir dir;
  const std::string log = dir / "child.log";
  const pid_t pid = test::spawn_self("CudaDriverProbe.DISABLED_ChildWithoutDriver",
                                     {std::string("DGMAX_CUDA_DRIVER=") + kMissingDriver}, log);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(test::wait_exit_code(pid), 0) << read_text(log);
  const std::string out = read_text(log);
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
  EXPECT_EQ(out.find("SKIPPED"), std::string::npos) << out;
}

// DGMAX_CUDA_SYNC (docs/user-guide.md: "DGMAX_CUDA_SYNC=1 synchronizes after every launch") without a GPU:
// launch() synchronizes when sync_after_launch() says so, and that reads the variable once per
// process, so each setting is tried in a child (DISABLED_: run by the test below only).
TEST(CudaDriverProbe, DISABLED_ChildPrintsSyncAfterLaunch) {
  std::cout << "sync_after_launch: " << (sync_after_launch() ? "on" : "off") << std::endl;
}

TEST(CudaDriverProbe, SyncAfterLaunchFollowsDgmaxCudaSync) {
  const char* inherited = std::getenv("DGMAX_CUDA_SYNC");
  const std::string saved = inherited ? inherited : "";
  ::unsetenv("DGMAX_CUDA_SYNC");  // the child's environment is this one plus the setting tried
  TempDir dir;
  const auto in_child = [&](const std::vector<std::string>& env) -> std::string {
    const std::string log = dir / "sync.log";
    const pid_t pid = test::spawn_self("CudaDriverProbe.DISABLED_ChildPrintsSyncAfterLaunch", env, log);
    EXPECT_GT(pid, 0);
    EXPECT_EQ(test::wait_exit_code(pid), 0) << read_text(log);
    const std::string out = read_text(log);
    if (out.find("sync_after_launch: on\n") != std::string::npos) return "on";
    if (out.find("sync_after_launch: off\n") != std::string::npos) return "off";
    return "no answer:\n" + out;
  };
#ifdef NDEBUG
  const std::string unset = "off";
#else
  const std::string unset = "on";  // builds without NDEBUG synchronize after every launch anyway
#endif
  EXPECT_EQ(in_child({}), unset);
  EXPECT_EQ(in_child({"DGMAX_CUDA_SYNC="}), unset);
  EXPECT_EQ(in_child({"DGMAX_CUDA_SYNC=0"}), unset);
  EXPECT_EQ(in_child({"DGMAX_CUDA_SYNC=1"}), "on");
  if (inherited) ::setenv("DGMAX_CUDA_SYNC", saved.c_str(), 1);
}

TEST(CudaDriverProbe, ErrorTextAndChecks) {
  EXPECT_NO_THROW(check(0, "cuNothing"));  // CUDA_SUCCESS
  try {
    check(1, "cuSomething(42)");  // CUDA_ERROR_INVALID_VALUE: a bug, not the user's doing
    FAIL() << "check(1) did not throw";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("cuSomething(42) failed: "), std::string::npos) << e.what();
  }
  if (driver_available())
    EXPECT_EQ(error_text(2).rfind("CUDA_ERROR_OUT_OF_MEMORY (2): ", 0), 0u) << error_text(2);
  else
    EXPECT_EQ(error_text(2), "CUresult 2");
  EXPECT_EQ(Dim3(4096).str(), "(4096, 1, 1)");
  EXPECT_EQ(Dim3(2, 3, 4).str(), "(2, 3, 4)");
  DeviceInfo d;
  d.cc_major = 9;
  d.cc_minor = 0;
  EXPECT_EQ(d.arch(), "sm_90");
  d.cc_major = 12;
  EXPECT_EQ(d.arch(), "sm_120");
}

}  // namespace
}  // namespace dgmax::cuda
