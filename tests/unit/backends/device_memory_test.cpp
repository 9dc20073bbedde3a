// The out-of-device-memory refusal: DOF requested, memory needed and free, and how many DOF fit.
#include <gtest/gtest.h>

#include "expect_user_error.hpp"
#include "solver/backends/device_memory.hpp"

using namespace dgmax;

TEST(DeviceMemory, FitsSilently) { EXPECT_NO_THROW(check_device_memory(900, 1000, 10, "GPU")); }

TEST(DeviceMemory, TooLargeSaysHowManyDofFit) {
  // 80 GB for 1e9 DOF (80 B/DOF) with 40 GB free: about 0.9 * 40e9 / 80 = 4.5e8 DOF fit
  const UserError e = test::expect_user_error(
      [] { check_device_memory(80'000'000'000ULL, 40'000'000'000ULL, 1'000'000'000ULL, "NVIDIA H100"); },
      {"the problem needs about 80 GB of GPU memory (1000000000 DOF), but only 40 GB are free on NVIDIA H100"});
  EXPECT_EQ(e.hint(), "about 4.5e+08 DOF fit: use a coarser mesh, a lower order or precision: single");
}
