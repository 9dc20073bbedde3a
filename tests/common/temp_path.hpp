// A directory under the test temp dir that no other test process uses: two suites run side by side
// on one host (two checkouts, ctest -j) must not write each other's files. File names inside stay
// as the test chose them (messages that quote them are checked).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace dgmax::test {

// Creates and returns "<gtest temp dir><name>_<pid>_<n>/" (n counts calls in this process).
inline std::string unique_temp_dir(const std::string& name) {
  static std::atomic<int> counter{0};
  const std::string dir =
      ::testing::TempDir() + name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "/";
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace dgmax::test
