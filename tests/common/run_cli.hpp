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

// Starts dgmax with `args` (stdout/stderr discarded), waits until `ready_file` exists (the run is
// past its set-up; at most 120 s), lets it run `seconds` more, sends `signal` ("INT", "TERM") and
// returns its exit code (-1 when it did not exit normally). Timing-robust on a busy machine.
inline int run_dgmax_and_signal(const std::string& args, const std::string& ready_file, const std::string& signal,
                                double seconds = 1.0) {
  const std::string base = ::testing::TempDir() + "dgmax_sig_" + std::to_string(::getpid());
  const std::string script = std::string(DGMAX_BINARY) + " " + args + " >/dev/null 2>&1 & pid=$!; " +
                             "for i in $(seq 600); do [ -e '" + ready_file + "' ] && break; sleep 0.2; done; " +
                             "sleep " + std::to_string(seconds) + "; kill -" + signal + " $pid; wait $pid; echo $? > '" +
                             base + ".rc'";
  std::system(script.c_str());  // std::system runs it with sh
  const std::string rc = read_all(base + ".rc");
  std::remove((base + ".rc").c_str());
  return rc.empty() ? -1 : std::stoi(rc);
}

// `args` is appended to the binary path verbatim (quote it yourself).
inline CliResult run_dgmax(const std::string& args) { return run_dgmax_env("", args); }

}  // namespace dgmax::test
