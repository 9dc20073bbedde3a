// Helpers for the JIT tests: a private cache directory per test (its path has spaces in it, to
// catch quoting mistakes), the tiny source everything compiles, and running this test binary as
// a child process.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/jit/host_jit.hpp"

extern char** environ;

namespace dgmax::test {

inline const std::string kTwiceSource =
    "// test kernel\n"
    "extern \"C\" double f(double x) { return 2 * x; }\n";

using TwiceFn = double (*)(double);

// A fresh directory "<gtest temp>/dgmax jit XXXXXX", removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string templ = ::testing::TempDir() + "dgmax jit XXXXXX";
    if (!mkdtemp(templ.data())) ADD_FAILURE() << "mkdtemp failed for " << templ;
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline codegen::HostJitOptions options_for(const TempDir& cache) {
  codegen::HostJitOptions opt;
  opt.compiler = "g++";
  opt.cache_dir = cache.path();
  return opt;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// An executable shell script at `path`.
inline void write_script(const std::string& path, const std::string& body) {
  write_text(path, "#!/bin/sh\n" + body);
  std::filesystem::permissions(path, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                         std::filesystem::perms::group_exec);
}

// Starts this test binary running only `gtest_filter`, with `extra_env` ("NAME=value") added to
// the environment and its output sent to `log`. Returns the pid.
inline pid_t spawn_self(const std::string& gtest_filter, const std::vector<std::string>& extra_env,
                        const std::string& log) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return -1;
  self[n] = 0;
  std::vector<std::string> args{self, "--gtest_filter=" + gtest_filter, "--gtest_also_run_disabled_tests"};
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copy = extra_env;
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  for (auto& e : env_copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int err = posix_spawn(&pid, self, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return err == 0 ? pid : -1;
}

inline int wait_exit_code(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace dgmax::test
