// Deferred commits (atomic_write.hpp): while a CommitDeferral is alive, files stay under their
// temporary names; commit_pending makes them visible in order; what is not taken is removed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "expect_user_error.hpp"
#include "io_test_util.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;
using namespace dgmax::test;
namespace fs = std::filesystem;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(CommitDeferral, FilesAppearOnlyWhenCommittedInOrder) {
  TempDir dir("deferral_order");
  const std::string a = dir.str() + "/a.txt", b = dir.str() + "/b.txt";
  std::vector<PendingCommit> batch;
  {
    CommitDeferral d;
    write_text_atomically(a, "first");
    write_text_atomically(b, "second");
    EXPECT_FALSE(fs::exists(a));
    EXPECT_FALSE(fs::exists(b));
    EXPECT_EQ(dir.count_tmp(), 2);
    batch = d.take();
  }
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].path, a);
  EXPECT_EQ(batch[1].path, b);
  EXPECT_EQ(dir.count_tmp(), 2);  // taken: still there, waiting for the committer
  std::thread([&] { commit_pending(batch); }).join();  // another thread, as the writer does
  EXPECT_EQ(read(a), "first");
  EXPECT_EQ(read(b), "second");
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(CommitDeferral, WithoutDeferralFilesAreCommittedAtOnce) {
  TempDir dir("deferral_per_thread");
  {
    CommitDeferral d;
    std::thread([&] { write_text_atomically(dir.str() + "/other_thread.txt", "x"); }).join();
    EXPECT_TRUE(fs::exists(dir.str() + "/other_thread.txt"));  // deferral is per thread
    EXPECT_TRUE(d.take().empty());
  }
}

TEST(CommitDeferral, UntakenTemporaryFilesAreRemoved) {
  TempDir dir("deferral_untaken");
  {
    CommitDeferral d;
    write_text_atomically(dir.str() + "/dropped.txt", "x");
    EXPECT_EQ(dir.count_tmp(), 1);
  }
  EXPECT_EQ(dir.count_tmp(), 0);
  EXPECT_FALSE(fs::exists(dir.str() + "/dropped.txt"));
}

TEST(CommitDeferral, AFailedCommitRemovesTheRestAndKeepsWhatWasCommitted) {
  TempDir dir("deferral_failed");
  std::vector<PendingCommit> batch;
  {
    CommitDeferral d;
    write_text_atomically(dir.str() + "/ok.txt", "ok");
    write_text_atomically(dir.str() + "/sub_later.txt", "y");
    write_text_atomically(dir.str() + "/last.txt", "z");
    batch = d.take();
  }
  // the second file's temporary disappears before its commit (a full or broken disk, say)
  fs::remove(batch[1].tmp);
  expect_hinted_user_error([&] { commit_pending(batch); },
                           {"cannot write '" + dir.str() + "/sub_later.txt'", batch[1].tmp});
  EXPECT_EQ(read(dir.str() + "/ok.txt"), "ok");
  EXPECT_FALSE(fs::exists(dir.str() + "/sub_later.txt"));
  EXPECT_FALSE(fs::exists(dir.str() + "/last.txt"));
  EXPECT_EQ(dir.count_tmp(), 0);
}
