// Output is atomic (a temporary file, then rename): a write that fails part-way leaves the previous
// file intact and no temporary behind. The failure is real, not mocked: a child process writes
// under a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored, so write() fails with EFBIG once the file
// would grow past it). A writer that wrote straight to the final path would leave it truncated.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <omp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <vector>

#include "expect_user_error.hpp"
#include "io_test_util.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/io/checkpoint.hpp"
#include "solver/io/hdf5_writer.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `write` in a child whose files may not grow past `limit` bytes: 0 when it returned,
// 3 when it threw a UserError, 4 for anything else.
int write_with_file_size_limit(rlim_t limit, const std::function<void()>& write) {
  const pid_t pid = fork();
  if (pid == 0) {
    omp_set_num_threads(1);  // the parent's OpenMP worker threads do not exist in the child
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit r{limit, limit};
    if (setrlimit(RLIMIT_FSIZE, &r) != 0) _exit(5);
    try {
      write();
    } catch (const UserError&) {
      _exit(3);
    } catch (...) {
      _exit(4);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(AtomicOutput, InterruptedTextWriteLeavesThePreviousFile) {
  TempDir dir("atomic_text");
  const std::string path = dir / "summary.json";
  write_text_atomically(path, "{\"status\": \"finished\"}\n");
  const std::string big(1 << 20, 'x');
  EXPECT_EQ(write_with_file_size_limit(64 * 1024, [&] { write_text_atomically(path, big); }), 3);
  EXPECT_EQ(slurp(path), "{\"status\": \"finished\"}\n");
  EXPECT_EQ(dir.count_tmp(), 0);
  // the same write without the limit goes through (the harness itself is sound)
  EXPECT_EQ(write_with_file_size_limit(RLIM_INFINITY, [&] { write_text_atomically(path, big); }), 0);
  EXPECT_EQ(slurp(path), big);
}

TEST(AtomicOutput, InterruptedSnapshotLeavesThePreviousSnapshot) {
  TempDir dir("atomic_h5");
  IoFixture small(1), large(4, 9, 2);
  const std::string path = dir / "fields_00003.h5";
  write_hdf5_snapshot(path, small.md.mesh, *small.ref, small.xyz, small.q, 0.5, 3);
  const std::string before = slurp(path);
  ASSERT_GT(before.size(), 1000u);
  const rlim_t limit = before.size() + 4096;  // the larger snapshot cannot fit
  EXPECT_EQ(write_with_file_size_limit(
                limit, [&] { write_hdf5_snapshot(path, large.md.mesh, *large.ref, large.xyz, large.q, 0.75, 3); }),
            3);
  EXPECT_EQ(slurp(path), before);
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(AtomicOutput, InterruptedCheckpointLeavesThePreviousCheckpoints) {
  TempDir dir("atomic_ckpt");
  IoFixture fx(3, 5, 2);
  Checkpoint c;
  c.id.backend = "cpu";
  c.id.precision = "double";
  c.id.K = fx.q.K;
  c.id.N = 3;
  c.id.Np = fx.q.Np;
  c.q = fx.q;
  c.res = fx.q;
  c.step = 10;
  const std::string first = write_checkpoint(dir.str(), c);
  const std::string before = slurp(first);
  c.step = 20;
  EXPECT_EQ(write_with_file_size_limit(before.size() / 2, [&] { write_checkpoint(dir.str(), c); }), 3);
  EXPECT_EQ(slurp(first), before);  // the older checkpoint is neither damaged nor deleted
  EXPECT_EQ(list_checkpoints(dir.str()).size(), 1u);
  EXPECT_EQ(dir.count_tmp(), 0);
}

// dgmax replaces only regular files: a symbolic link, a FIFO, a directory or (as root) a device node
// like /dev/full under the target's name is refused with a message naming it, stays what it was,
// and no temporary file is left; through write_text_atomically and through the commit that the
// snapshot and checkpoint writers use.
TEST(AtomicOutput, OnlyRegularFilesAreReplaced) {
  namespace fs = std::filesystem;
  TempDir dir("atomic_owned");
  std::ofstream(dir / "target.txt") << "the link's target";
  fs::create_symlink(dir / "target.txt", dir / "link.json");
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0644), 0);
  fs::create_directory(dir / "dir.json");
  std::vector<std::pair<std::string, std::string>> cases = {
      {"link.json", "a symbolic link"}, {"fifo.json", "a FIFO"}, {"dir.json", "a directory"}};
  // a character device of /dev/full's numbers (1, 7): creating one needs root
  if (::mknod((dir / "full.json").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0)
    cases.emplace_back("full.json", "a character device");
  else
    std::cerr << "note: not root, the device-node case is skipped (mknod: " << std::strerror(errno) << ")\n";
  for (const auto& [name, kind] : cases) {
    SCOPED_TRACE(name);
    const std::string path = dir / name;
    const fs::file_type before = fs::symlink_status(path).type();
    const UserError e = expect_hinted_user_error([&] { write_text_atomically(path, "{}\n"); },
                                                 {"cannot write '" + path + "': it is " + kind + ", not a regular file"});
    EXPECT_NE(e.hint().find("dgmax replaces only regular files"), std::string::npos) << e.render();
    const std::string tmp = temp_path_for(path);
    std::ofstream(tmp) << "a snapshot";
    expect_user_error([&] { commit_temp_file_now(tmp, path); }, {"it is " + kind + ", not a regular file"});
    EXPECT_EQ(fs::symlink_status(path).type(), before);
    EXPECT_FALSE(fs::exists(tmp));
  }
  EXPECT_EQ(slurp(dir / "target.txt"), "the link's target");
  EXPECT_EQ(dir.count_tmp(), 0);
  // a regular file is replaced whole (the harness itself is sound)
  std::ofstream(dir / "plain.json") << "old";
  write_text_atomically(dir / "plain.json", "new");
  EXPECT_EQ(slurp(dir / "plain.json"), "new");
}

// dgmax's temporary files are told apart from another program's "*.tmp" by their form, which also
// names the file they were to become; the unmarked form of earlier versions is recognised too.
TEST(AtomicOutput, TemporaryFilesAreRecognisedAsDgmaxs) {
  const std::string tmp = std::filesystem::path(temp_path_for("/x/probes.csv")).filename().string();
  std::string file;
  EXPECT_TRUE(is_dgmax_temp_name(tmp, &file)) << tmp;
  EXPECT_EQ(file, "probes.csv");
  EXPECT_NE(tmp.find(".dgmax.tmp"), std::string::npos) << tmp;
  EXPECT_TRUE(is_dgmax_temp_name("energy.csv.123.4567.8.tmp", &file));
  EXPECT_EQ(file, "energy.csv");
  for (const char* foreign : {"data.tmp", "probes.csv.tmp", "x.tmp.1.2.3", "a.1.2.tmp", ".1.2.3.tmp", "a.b.c.d.tmp"})
    EXPECT_FALSE(is_dgmax_temp_name(foreign)) << foreign;
}
