// Waits that could block a run for good end on Ctrl-C, SIGTERM and SIGHUP (solver/util/stop_request.hpp):
// a config that is a FIFO, with or without a writer, and a kernel cache lock held by someone else;
// a tuning database that is a FIFO or a device is refused at once. Each run is signalled right
// after its own marker (a descriptor it opened, a line it printed), never after a fixed wait.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "run_cli.hpp"
#include "temp_path.hpp"

using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax_env;
using dgmax::test::run_dgmax_until_and_signal;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* const kWaitCavity =
    "mesh: {box: {cells: [2, 2, 2]}}\n"
    "discretization: {order: 2}\n"
    "initial:\n"
    "  E: ['0', '0', 'sin(pi*x)*sin(pi*y)']\n"
    "  H: ['0', '0', '0']\n"
    "time: {final: 0.5}\n";

class RunBlockingWaits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = dgmax::test::unique_temp_dir("dgmax_waits");
    fifo_ = dir_ + "case.yaml";
    out_ = dir_ + "out";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Whether process `pid` holds a descriptor of `path` (Linux: /proc/<pid>/fd).
  static bool holds_open(pid_t pid, const std::string& path) {
    std::error_code ec;
    for (fs::directory_iterator it("/proc/" + std::to_string(pid) + "/fd", ec), end; !ec && it != end; it.increment(ec))
      if (fs::read_symlink(it->path(), ec) == fs::path(path)) return true;
    return false;
  }

  std::string dir_, fifo_, out_;
};

// The config is a FIFO whose writer is connected but silent: SIGTERM ends the read at once (it
// used to wait in read() until the writer wrote or closed). Nothing ran, so nothing is written.
TEST_F(RunBlockingWaits, SigtermWhileTheConfigFifoIsSilentStopsAtOnce) {
  ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  int writer = -1;  // opened without blocking once dgmax has the FIFO open for reading
  const auto run = run_dgmax_until_and_signal(
      "", "run " + fifo_ + " --output '" + out_ + "'",
      [&](pid_t, const std::string&) { return (writer = ::open(fifo_.c_str(), O_WRONLY | O_NONBLOCK)) >= 0; },
      SIGTERM);
  if (writer >= 0) ::close(writer);
  SCOPED_TRACE(run.describe());
  EXPECT_FALSE(run.killed);
  EXPECT_EQ(run.code, 143);
  EXPECT_NE(run.err.find("dgmax: interrupted by SIGTERM while reading the config file '" + fifo_ +
                         "'; nothing was run"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(out_));
}

// The config is a FIFO that no one opens for writing: the open itself must not block (it used to,
// until SIGKILL). SIGINT and SIGHUP end the wait like SIGTERM, with their own exit status.
TEST_F(RunBlockingWaits, SigintOrSighupWhileNoOneWritesTheConfigFifoStopsAtOnce) {
  if (!fs::exists("/proc/self/fd")) GTEST_SKIP() << "no /proc/<pid>/fd to see that the FIFO is open";
  ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  for (const auto& [sig, code, name] : {std::tuple<int, int, const char*>{SIGINT, 130, "SIGINT"}, {SIGHUP, 129, "SIGHUP"}}) {
    const auto run = run_dgmax_until_and_signal(
        "", "run " + fifo_ + " --output '" + out_ + "'", [&](pid_t pid, const std::string&) { return holds_open(pid, fifo_); },
        sig);
    SCOPED_TRACE(run.describe());
    EXPECT_FALSE(run.killed);
    EXPECT_EQ(run.code, code);
    EXPECT_NE(run.err.find(std::string("interrupted by ") + name + " while reading the config file"), std::string::npos);
  }
}

// A FIFO (or pipe, `dgmax run <(make-config)`) is still a valid config when someone writes it.
TEST_F(RunBlockingWaits, AConfigFromAFifoIsRead) {
  ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  const std::string text = dir_ + "text.yaml";
  std::ofstream(text) << kWaitCavity;
  // the writer blocks in its open until dgmax opens the FIFO (bounded, should dgmax never do so)
  const CliResult r = run_dgmax_env("(timeout 120 sh -c \"cat '" + text + "' > '" + fifo_ + "'\" &); ",
                                    "run -q --backend cpu " + fifo_ + " --output '" + out_ + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(read_all(out_ + "/summary.json"))["status"], "finished");
}

// Another process holds the lock of every kernel the run needs (as a dgmax compiling them, or a
// stopped one, would): SIGTERM ends the wait at once and the run is recorded as interrupted. It
// used to wait for DGMAX_CACHE_LOCK_TIMEOUT (120 s by default), ignoring the signal.
TEST_F(RunBlockingWaits, SigtermWhileWaitingForAKernelCacheLockStopsAtOnce) {
  const std::string config = dir_ + "cavity.yaml";
  std::ofstream(config) << kWaitCavity;
  // the kernels' keys: a run with the tests' cache (built there once) leaves its entries
  const char* shared = std::getenv("DGMAX_CACHE_DIR");
  const std::string warm_cache = shared && *shared ? shared : dir_ + "warm-cache";
  const CliResult warm = run_dgmax_env("DGMAX_CACHE_DIR='" + warm_cache + "' ",
                                       "run -q --backend cpu " + config + " --output '" + dir_ + "warm'");
  ASSERT_EQ(warm.code, 0) << warm.err;
  std::set<std::string> keys;
  for (const auto& e : fs::directory_iterator(warm_cache + "/cpu")) {
    const std::string name = e.path().filename().string();
    keys.insert(name.substr(0, name.find('.')));
  }
  ASSERT_FALSE(keys.empty());
  // an empty cache whose every one of those keys is locked by this process (as another would)
  const std::string cache = dir_ + "locked-cache";
  fs::create_directories(cache + "/cpu");
  std::vector<int> held;
  for (const std::string& key : keys) {
    const int fd = ::open((cache + "/cpu/" + key + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    held.push_back(fd);
  }
  const auto run = run_dgmax_until_and_signal(
      "DGMAX_CACHE_DIR='" + cache + "' DGMAX_CACHE_LOCK_TIMEOUT=600 ",
      "run --backend cpu " + config + " --output '" + out_ + "'",
      [](pid_t, const std::string& err) { return err.find("waiting for the kernel cache lock") != std::string::npos; },
      SIGTERM);
  for (int fd : held) ::close(fd);
  SCOPED_TRACE(run.describe());
  EXPECT_FALSE(run.killed);
  EXPECT_EQ(run.code, 143);
  EXPECT_NE(run.err.find("interrupted by SIGTERM while waiting for the kernel cache lock '" + cache + "/cpu/"),
            std::string::npos);
  EXPECT_EQ(json::parse(read_all(out_ + "/run.json"))["state"], "interrupted");
  EXPECT_EQ(json::parse(read_all(out_ + "/summary.json"))["status"], "interrupted");
}

// A tuning database that is a FIFO or points at /dev/zero: the run stops at once with a message
// naming the file and why (it used to block on the FIFO, and read /dev/zero into memory without
// bound), and the failure is recorded.
TEST_F(RunBlockingWaits, ATuningDatabaseThatIsNotARegularFileIsRefused) {
  const std::string config = dir_ + "cavity.yaml";
  std::ofstream(config) << kWaitCavity;
  const std::string cache = dir_ + "cache", db = cache + "/tuning/cpu.json";
  fs::create_directories(cache + "/tuning");
  for (const auto& [kind, make] :
       std::vector<std::pair<std::string, std::function<void()>>>{
           {"a FIFO", [&] { ASSERT_EQ(::mkfifo(db.c_str(), 0600), 0); }},
           {"a character device", [&] { fs::create_symlink("/dev/zero", db); }}}) {
    SCOPED_TRACE(kind);
    fs::remove(db);
    fs::remove_all(out_);
    make();
    // `timeout`: a run that blocks fails the test instead of hanging it
    const CliResult r = run_dgmax_env("DGMAX_CACHE_DIR='" + cache + "' timeout 120 ",
                                      "run -q --backend cpu " + config + " --output '" + out_ + "'");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("cannot read the tuning database '" + db + "': it is not a regular file but " + kind),
              std::string::npos)
        << r.err;
    EXPECT_EQ(json::parse(read_all(out_ + "/run.json"))["state"], "failed");
  }
}

}  // namespace
