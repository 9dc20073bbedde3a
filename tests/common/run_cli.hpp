// Runs the dgmax executable (path from the build) and captures exit code, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace dgmax::test {

struct CliResult {
  int code;
  std::string out, err;
};

inline std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `env` ("NAME=value ") is put before the command, `args` after the binary path (quote yourself).
inline CliResult run_dgmax_env(const std::string& env, const std::string& args) {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "dgmax_cli_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++);
  const std::string cmd = env + std::string(DGMAX_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(cmd.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(base + ".out"), read_all(base + ".err")};
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// `args` is appended to the binary path verbatim (quote it yourself).
inline CliResult run_dgmax(const std::string& args) { return run_dgmax_env("", args); }

}  // namespace dgmax::test
