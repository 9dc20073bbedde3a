// Runs the dgmax executable (path from the build) and captures exit code, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

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

// Whether a run died of LeakSanitizer's own failure at exit (its stop-the-world tracer crashing:
// "Tracer caught signal 11", a known rare flake of sanitized processes, about 1 in a few hundred
// runs on loaded CI machines), not of a leak (exit 23 with a report) or of dgmax. Only in the
// sanitized build (tests/fuzz/README.md), where the tests start dgmax hundreds of times.
inline bool lsan_tracer_failed(const CliResult& r) {
  return r.code == 1 && r.err.find("LeakSanitizer has encountered a fatal error") != std::string::npos &&
         r.err.find("detected memory leaks") == std::string::npos;
}

// `env` ("NAME=value ") is put before the command, `args` after the binary path (quote yourself).
// A run that LeakSanitizer's tracer failed (above) runs once more, with a note on stderr.
inline CliResult run_dgmax_env(const std::string& env, const std::string& args) {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "dgmax_cli_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++);
  const std::string cmd = env + std::string(DGMAX_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err";
  CliResult r;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int status = std::system(cmd.c_str());
    r = CliResult{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(base + ".out"), read_all(base + ".err")};
    if (!lsan_tracer_failed(r)) break;
    std::fprintf(stderr, "note: LeakSanitizer's tracer failed at the exit of `dgmax %s`; running it again\n",
                 args.c_str());
  }
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// What run_dgmax_and_signal saw: the exit code, and enough of the timeline to say why a test
// failed (a run that ended before the signal, a signal that was not obeyed, a set-up that hung).
struct SignalledRun {
  int code = -1;            // exit status; -1 when the process did not exit normally
  int term_signal = 0;      // the signal that killed it, when one did
  double ready_s = -1;      // seconds until it was ready (the marker came); -1 when it never was
  double stop_s = -1;       // seconds from the signal to its exit; -1 when no signal was sent
  bool exited_early = false;  // the run ended before the signal was sent
  bool killed = false;        // it did not stop within 120 s of the signal and was killed
  std::string err;            // its stderr
  std::string describe() const {
    std::ostringstream os;
    os << "exit " << code << (term_signal ? ", killed by signal " + std::to_string(term_signal) : "")
       << ", ready after " << ready_s << " s, stopped " << stop_s << " s after the signal"
       << (exited_early ? ", ended before the signal" : "") << (killed ? ", ignored the signal and was killed" : "")
       << "; stderr:\n" << err;
    return os.str();
  }
};

// When a started dgmax is ready for its signal: called every 20 ms with its pid and its stderr so
// far; the run's own marker (a file it wrote, a line it printed), never a time.
using ReadyCheck = std::function<bool(pid_t pid, const std::string& err)>;

// Starts dgmax with `args` (quote yourself; `env`: "NAME=value " assignments), waits until
// `ready` says so (at most 300 s), calls `meanwhile` (when given: e.g. a second command against the
// running one), sends `signal` (SIGINT, SIGTERM, SIGHUP; 0: none, `meanwhile` signalled what it
// meant to, e.g. one rank of an mpirun) to it alone and waits for it to exit (at
// most 120 s, then SIGKILL: a lost signal fails the test instead of hanging it). No fixed wait:
// the signal follows the marker at once. The process is exec'd by sh with the default signal
// dispositions, as for a command typed at a terminal.
inline SignalledRun run_dgmax_until_and_signal(const std::string& env, const std::string& args,
                                               const ReadyCheck& ready, int signal,
                                               const std::function<void()>& meanwhile = {}) {
  using Clock = std::chrono::steady_clock;
  static int counter = 0;
  const std::string err_path = ::testing::TempDir() + "dgmax_sig_" + std::to_string(::getpid()) + "_" +
                               std::to_string(counter++) + ".err";
  // `env` runs it under its variables and keeps the pid: `exec env A=1 dgmax` is still dgmax
  const std::string cmd = (env.empty() ? "exec " : "exec env " + env) + std::string(DGMAX_BINARY) + " " + args +
                          " >/dev/null 2>'" + err_path + "'";
  SignalledRun r;
  const pid_t pid = ::fork();
  if (pid == 0) {
    // the defaults, whatever this process inherited (`nohup ctest` ignores SIGHUP)
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (pid < 0) {
    r.err = "fork failed";
    return r;
  }
  int status = 0;
  auto exited = [&] { return ::waitpid(pid, &status, WNOHANG) == pid; };
  auto wait_until = [&](double limit_s, const std::function<bool()>& done) {
    const auto t0 = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - t0).count() < limit_s) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  };
  const auto t0 = Clock::now();
  bool gone = false, is_ready = false;
  wait_until(300, [&] { return (is_ready = ready(pid, read_all(err_path))) || (gone = exited()); });
  if (is_ready) r.ready_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!gone && is_ready && meanwhile) meanwhile();
  if (!gone) gone = exited();
  r.exited_early = gone;
  if (!gone) {
    const auto t_signal = Clock::now();
    if (!is_ready || signal != 0) ::kill(pid, is_ready ? signal : SIGKILL);
    if (!wait_until(120, exited)) {
      r.killed = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    if (is_ready) r.stop_s = std::chrono::duration<double>(Clock::now() - t_signal).count();
  }
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.err = read_all(err_path);
  std::remove(err_path.c_str());
  return r;
}

// The same, ready once `ready_file` exists (the run is past its set-up: a snapshot or checkpoint
// it wrote).
inline SignalledRun run_dgmax_and_signal(const std::string& args, const std::string& ready_file, int signal) {
  return run_dgmax_until_and_signal(
      "", args, [&](pid_t, const std::string&) { return std::filesystem::exists(ready_file); }, signal);
}

// `args` is appended to the binary path verbatim (quote it yourself).
inline CliResult run_dgmax(const std::string& args) { return run_dgmax_env("", args); }

}  // namespace dgmax::test
