#include "codegen/jit/subprocess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "solver/util/error.hpp"

extern char** environ;

namespace dgmax::codegen {

std::string ProcessResult::status_text() const {
  if (spawn_errno != 0) return std::string("could not start: ") + std::strerror(spawn_errno);
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(exit_code);
}

ProcessResult run_process(const std::vector<std::string>& argv) {
  DGMAX_ASSERT(!argv.empty(), "run_process needs a program");
  ProcessResult r;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.spawn_errno = errno;
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);  // dup2 clears FD_CLOEXEC on the copy
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  // glibc (>= 2.24) reports a failed exec (e.g. ENOENT) as the return value.
  const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    r.spawn_errno = err;
    return r;
  }
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      r.output.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      r.spawn_errno = errno;  // e.g. ECHILD when the application ignores SIGCHLD
      return r;
    }
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace dgmax::codegen
