// The cache's file protocol: where the cache is, atomic writes, artifacts with checksums, the
// per-key build lock and leftovers of killed builds.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "codegen/jit/jit_cache.hpp"
#include "expect_user_error.hpp"
#include "jit_test_util.hpp"
#include "solver/util/error.hpp"
#include "solver/util/stop_request.hpp"

namespace dgmax::codegen {
namespace {

namespace fs = std::filesystem;
using test::read_text;
using test::TempDir;
using test::write_text;

TEST(JitCache, FolderPerBackendMadeAbsolute) {
  const JitCacheDir d("/cache root/", "cuda");
  EXPECT_EQ(d.path(), "/cache root/cuda");
  EXPECT_EQ(d.file("0123abcd", ".cubin"), "/cache root/cuda/0123abcd.cubin");
  const JitCacheDir rel("rel/x", "cpu");
  EXPECT_EQ(rel.path(), (fs::current_path() / "rel/x/cpu").string());
  EXPECT_FALSE(JitCacheDir("/nonexistent-dgmax", "cpu").exists());
}

TEST(JitCache, CreateMakesParents) {
  TempDir tmp;
  const JitCacheDir d(tmp / "a/b", "cpu");
  d.create();
  EXPECT_TRUE(d.exists());
  d.create();  // again: fine
}

TEST(JitCache, AtomicWriteReplacesAndLeavesNoTemporaries) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cpu");
  d.create();
  const std::string f = d.file("k", ".cpp");
  write_file_atomic(d, f, "one");
  write_file_atomic(d, f, "two two");
  EXPECT_EQ(read_text(f), "two two");
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(JitCache, ArtifactsAreCheckedAgainstTheirSidecar) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cuda");
  d.create();
  const std::string a = d.file("k", ".cubin");
  EXPECT_FALSE(artifact_is_valid(a));
  const std::string bytes("\x01\x02\x00\x03 binary", 11);
  publish_artifact_bytes(d, a, bytes);
  ASSERT_TRUE(artifact_is_valid(a));
  EXPECT_EQ(*read_valid_artifact(a), bytes);

  write_text(a, bytes.substr(0, 5));  // truncated
  EXPECT_FALSE(artifact_is_valid(a));
  write_text(a, "garbage...!");  // same size, other bytes
  EXPECT_FALSE(artifact_is_valid(a));
  write_text(a, bytes);
  EXPECT_TRUE(artifact_is_valid(a));
  fs::remove(a + ".sum");
  EXPECT_FALSE(artifact_is_valid(a));
  publish_artifact_bytes(d, a, "");  // an empty artifact is never valid
  EXPECT_FALSE(artifact_is_valid(a));

  // A file built under a temporary name, then published.
  const std::string so = d.file("k2", ".so");
  const std::string tmp_so = JitCacheDir::temp_name(so);
  EXPECT_EQ(tmp_so.rfind(so + ".tmp.", 0), 0u);
  EXPECT_NE(JitCacheDir::temp_name(so), tmp_so);
  write_text(tmp_so, "built");
  publish_artifact(d, tmp_so, so);
  EXPECT_FALSE(fs::exists(tmp_so));
  EXPECT_EQ(*read_valid_artifact(so), "built");
}

TEST(JitCache, AnArtifactOfAnotherKeyIsRefused) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cuda");
  d.create();
  const std::string mine = d.file("k1", ".cubin"), theirs = d.file("k2", ".cubin");
  publish_artifact_bytes(d, theirs, "their valid cubin");
  fs::copy_file(theirs, mine);  // copied over with its sidecar: intact, but not k1's
  fs::copy_file(theirs + ".sum", mine + ".sum");
  std::string problem;
  EXPECT_FALSE(read_valid_artifact(mine, &problem));
  EXPECT_NE(problem.find("belongs to the cache key k2, not k1"), std::string::npos) << problem;
  EXPECT_TRUE(artifact_is_valid(theirs));
}

// Holds the lock of `key` through a second open file description (flock excludes it from
// KeyLock even in this process) and records `pid` as the holder.
struct ForeignHolder {
  ForeignHolder(const JitCacheDir& d, const std::string& key, long pid) {
    fd = ::open(d.file(key, ".lock").c_str(), O_RDWR | O_CREAT, 0666);
    EXPECT_EQ(::flock(fd, LOCK_EX), 0);
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    write_text(d.file(key, ".lock"), std::to_string(pid) + " " + host + "\n");
  }
  ~ForeignHolder() { ::close(fd); }
  int fd = -1;
};

TEST(JitCache, WaitingForALockSaysWhoHoldsItAndEnds) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cpu");
  d.create();
  const ForeignHolder holder(d, "key", ::getpid());
  ::testing::internal::CaptureStderr();
  const auto t0 = std::chrono::steady_clock::now();
  const KeyLock lock(d, "key", LockWait{0.1, 0.6});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(lock.locked());
  EXPECT_TRUE(lock.gave_up());
  EXPECT_GE(waited, 0.6);
  EXPECT_LT(waited, 5.0);
  const std::string who = "process " + std::to_string(::getpid());
  EXPECT_NE(err.find("waiting for the kernel cache lock '" + d.file("key", ".lock") + "', held by " + who),
            std::string::npos) << err;
  EXPECT_NE(err.find("gave up waiting"), std::string::npos) << err;
}

// A stop request (Ctrl-C, SIGTERM, SIGHUP in a run: solver/util/stop_request.hpp) ends a lock wait
// at once with Interrupted naming the lock and its holder, instead of after the give-up time.
TEST(JitCache, AStopRequestEndsALockWait) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cpu");
  d.create();
  const ForeignHolder holder(d, "key", ::getpid());
  clear_stop_request();
  std::atomic<bool> waiting{false};
  auto wait = std::async(std::launch::async, [&]() -> std::string {
    try {
      waiting = true;
      const KeyLock lock(d, "key", LockWait{600, 600});
    } catch (const Interrupted& e) {
      return e.what();
    }
    return "got the lock";
  });
  while (!waiting) std::this_thread::yield();
  request_stop(SIGTERM);
  const bool ended = wait.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  clear_stop_request();
  ASSERT_TRUE(ended) << "still waiting for the lock after the stop request";
  const std::string what = wait.get();
  EXPECT_EQ(what, "interrupted by SIGTERM while waiting for the kernel cache lock '" + d.file("key", ".lock") +
                      "' held by process " + std::to_string(::getpid()));
  const KeyLock after(d, "other");  // the lock file of the interrupted wait is closed, others work
  EXPECT_TRUE(after.locked());
}

// A FIFO, a device or an oversized file where a cache file should be is not read: no blocking on
// a FIFO nobody writes to, no unbounded read of /dev/zero.
TEST(JitCache, OnlyRegularFilesWithinTheLimitAreRead) {
  TempDir tmp;
  const std::string fifo = tmp / "k.so", big = tmp / "big";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  write_text(fifo + ".sum", "anything");
  write_text(big, std::string(2 << 20, 'x'));
  auto reads = std::async(std::launch::async, [&] {
    std::string p_fifo, p_zero, p_big, p_ok;
    const bool fifo_read = read_side_file(fifo, 1 << 20, &p_fifo).has_value() || read_valid_artifact(fifo);
    const bool zero_read = read_side_file("/dev/zero", 1 << 20, &p_zero).has_value();
    const bool big_read = read_side_file(big, 1 << 20, &p_big).has_value();
    const auto ok = read_side_file(big, 2 << 20, &p_ok);
    return std::vector<std::string>{fifo_read ? "read" : p_fifo, zero_read ? "read" : p_zero, big_read ? "read" : p_big,
                                    ok && ok->size() == (2u << 20) && p_ok.empty() ? "ok" : "not read"};
  });
  ASSERT_EQ(reads.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "a read blocked";
  const auto got = reads.get();
  EXPECT_EQ(got[0], "it is not a regular file but a FIFO");
  EXPECT_EQ(got[1], "it is not a regular file but a character device");
  EXPECT_EQ(got[2], "it is larger than the limit of 1 MiB (2097152 bytes)");
  EXPECT_EQ(got[3], "ok");
}

TEST(JitCache, ALockOfADeadProcessIsTakenOver) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cpu");
  d.create();
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // now a pid of no process
  // Its lock lives on (as in a descriptor inherited by a grandchild): held, holder dead.
  const ForeignHolder holder(d, "key", child);
  ::testing::internal::CaptureStderr();
  const auto t0 = std::chrono::steady_clock::now();
  const KeyLock lock(d, "key", LockWait{30, 60});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(lock.gave_up());
  EXPECT_LT(waited, 10.0);
  EXPECT_NE(err.find("process " + std::to_string(child) + ", which no longer exists"), std::string::npos) << err;
}

TEST(JitCache, TheHolderRecordsItself) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cpu");
  d.create();
  const KeyLock lock(d, "key");
  ASSERT_TRUE(lock.locked());
  EXPECT_EQ(read_text(d.file("key", ".lock")).rfind(std::to_string(::getpid()) + " ", 0), 0u);
}

TEST(JitCache, LockTimeoutFromTheEnvironment) {
  ::setenv("DGMAX_CACHE_LOCK_TIMEOUT", "7.5", 1);
  EXPECT_EQ(LockWait::from_env(), 7.5);
  for (const char* bad : {"soon", "-1"}) {
    ::setenv("DGMAX_CACHE_LOCK_TIMEOUT", bad, 1);
    const UserError e = ::dgmax::test::expect_hinted_user_error(
        [] { LockWait::from_env(); },
        {"DGMAX_CACHE_LOCK_TIMEOUT='" + std::string(bad) + "' is not a number of seconds >= 0"});
    EXPECT_NE(e.hint().find("default 120"), std::string::npos) << e.render();
  }
  ::unsetenv("DGMAX_CACHE_LOCK_TIMEOUT");
  EXPECT_EQ(LockWait::from_env(), 120);
}

TEST(JitCache, RemoveTempsTouchesOnlyThatKeysTemporaries) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cpu");
  d.create();
  for (const char* name : {"k1.so.tmp.1.2.3", "k1.cpp.tmp.4.5.6", "k1.so", "k1.cpp", "k2.so.tmp.1.2.3", "k1x.so.tmp.1"})
    write_text(d.path() + "/" + name, "x");
  d.remove_temps("k1");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(d.path())) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"k1.cpp", "k1.so", "k1x.so.tmp.1", "k2.so.tmp.1.2.3"}));
}

TEST(JitCache, KeyLockExcludesOtherHolders) {
  TempDir tmp;
  const JitCacheDir d(tmp.path(), "cpu");
  d.create();
  std::atomic<int> inside{0}, max_inside{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      for (int j = 0; j < 5; ++j) {
        const KeyLock lock(d, "key");
        EXPECT_TRUE(lock.locked());
        const int now = ++inside;
        max_inside = std::max(max_inside.load(), now);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        --inside;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(max_inside.load(), 1);
  EXPECT_TRUE(fs::exists(d.file("key", ".lock")));
}

TEST(JitCache, UnwritableFolderIsAUserErrorNamingIt) {
  TempDir tmp;
  write_text(tmp / "file", "x");
  const JitCacheDir d(tmp / "file", "cpu");
  try {
    d.create();
    ADD_FAILURE() << "created";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("cannot create the kernel cache directory '" + d.path() + "'"), std::string::npos);
    EXPECT_NE(e.hint().find("DGMAX_CACHE_DIR"), std::string::npos);
  }
  try {
    write_file_atomic(d, d.file("k", ".cpp"), "x");
    ADD_FAILURE() << "written";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("cannot write to the kernel cache directory '" + d.path() + "'"), std::string::npos)
        << e.message();
  }
  const UserError e = ::dgmax::test::expect_hinted_user_error(
      [&] { KeyLock(d, "k"); }, {"cannot write to the kernel cache directory '" + d.path() + "'", "k.lock"});
  EXPECT_NE(e.hint().find("DGMAX_CACHE_DIR"), std::string::npos) << e.render();
}

}  // namespace
}  // namespace dgmax::codegen
