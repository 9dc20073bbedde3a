// The tuning database (codegen/tune/tuning_db.hpp): entries round-trip, keys separate what a plan's
// speed depends on, concurrent writers (threads and processes) lose no entry, a corrupt file or
// entry is ignored with a note and rewritten, and a path that is not a regular file (a FIFO, a
// device) or is too large is refused without blocking or filling memory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "codegen/tune/tuning_db.hpp"
#include "solver/util/error.hpp"

using namespace dgmax::codegen;
namespace fs = std::filesystem;

namespace {

class TuningDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "dgmax tuning XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    root_ = templ;
  }
  void TearDown() override { fs::remove_all(root_); }
  static TuningKey key(int N, bool single = false, long long K = 384000) {
    TuningKey k;
    k.device = "NVIDIA H100 80GB HBM3 sm_90 driver 13000";
    k.order = N;
    k.single = single;
    k.physics = "0123456789abcdef";
    k.elements = K;
    return k;
  }
  static TunedPlan plan(const std::string& name, double gdofs) {
    TunedPlan t;
    t.plan = name;
    t.gdof_per_s = gdofs;
    t.default_gdof_per_s = gdofs / 2;
    t.percent_of_floor = 42.5;
    t.elements = 384000;
    t.when = "2026-11-24";
    return t;
  }
  std::string root_;
};

TEST_F(TuningDbTest, EntriesRoundTripAndKeysSeparateWhatMatters) {
  const TuningDb db(root_, "cuda");
  EXPECT_EQ(db.path(), root_ + "/tuning/cuda.json");
  EXPECT_FALSE(db.find(key(4)).has_value());  // no file yet
  db.store(key(4), plan("f2.b8.t2.T", 31.25));
  const auto t = db.find(key(4));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->plan, "f2.b8.t2.T");
  EXPECT_EQ(t->gdof_per_s, 31.25);
  EXPECT_EQ(t->default_gdof_per_s, 15.625);
  EXPECT_EQ(t->percent_of_floor, 42.5);
  EXPECT_EQ(t->elements, 384000);
  EXPECT_EQ(t->when, "2026-11-24");
  // another order, precision, physics, device or size class is another entry
  EXPECT_FALSE(db.find(key(5)).has_value());
  EXPECT_FALSE(db.find(key(4, true)).has_value());
  TuningKey other = key(4);
  other.physics = "fedcba9876543210";
  EXPECT_FALSE(db.find(other).has_value());
  other = key(4);
  other.device = "NVIDIA H200 sm_90 driver 13000";
  EXPECT_FALSE(db.find(other).has_value());
  EXPECT_FALSE(db.find(key(4, false, 96000)).has_value());
  // within a factor of 4 of the same size class: the same entry
  EXPECT_TRUE(db.find(key(4, false, 300000)).has_value());
  // replacing keeps one entry per key
  db.store(key(4), plan("f1.b4.t1", 20));
  EXPECT_EQ(db.find(key(4))->plan, "f1.b4.t1");
}

TEST_F(TuningDbTest, SizeClassesArePowersOfFour) {
  EXPECT_EQ(key(1, false, 1).size_class(), "K4^0");
  EXPECT_EQ(key(1, false, 3).size_class(), "K4^0");
  EXPECT_EQ(key(1, false, 4).size_class(), "K4^1");
  EXPECT_EQ(key(1, false, 262143).size_class(), "K4^8");
  EXPECT_EQ(key(1, false, 262144).size_class(), "K4^9");
  EXPECT_EQ(key(1, false, 1048575).size_class(), "K4^9");
  EXPECT_EQ(key(4, true, 384000).str(), "NVIDIA H100 80GB HBM3 sm_90 driver 13000|N4|fp32|0123456789abcdef|K4^9");
}

TEST_F(TuningDbTest, ConcurrentWritersLoseNoEntry) {
  const TuningDb db(root_, "cuda");
  // 4 processes x 2 threads x 10 orders each, all read-modify-writing the same file
  std::vector<pid_t> children;
  for (int proc = 0; proc < 4; ++proc) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::vector<std::thread> threads;
      for (int th = 0; th < 2; ++th)
        threads.emplace_back([&, th] {
          for (int n = 0; n < 10; ++n) db.store(key(100 * proc + 10 * th + n), plan("f2.b4.t1", n));
        });
      for (auto& t : threads) t.join();
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int proc = 0; proc < 4; ++proc)
    for (int th = 0; th < 2; ++th)
      for (int n = 0; n < 10; ++n) {
        const auto t = db.find(key(100 * proc + 10 * th + n));
        ASSERT_TRUE(t.has_value()) << "lost the entry of process " << proc << " thread " << th << " #" << n;
        EXPECT_EQ(t->gdof_per_s, n);
      }
  // no temporary file is left behind
  for (const auto& e : fs::directory_iterator(root_ + "/tuning"))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST_F(TuningDbTest, CorruptFilesAndEntriesAreIgnoredAndRewritten) {
  const TuningDb db(root_, "cuda");
  db.store(key(3), plan("f2.b4.t1", 10));
  for (const std::string& junk : {std::string("{\"format\": \"dgmax-tuning 1\", \"entr"), std::string("\x00\x01garbage", 9),
                                  std::string("[1, 2, 3]"), std::string("{\"format\": \"other 7\", \"entries\": {}}"),
                                  std::string()}) {
    std::ofstream(db.path(), std::ios::binary | std::ios::trunc) << junk;
    testing::internal::CaptureStderr();
    EXPECT_FALSE(db.find(key(3)).has_value());
    const std::string note = testing::internal::GetCapturedStderr();
    if (!junk.empty()) { EXPECT_NE(note.find("cannot be read"), std::string::npos) << note; }
    db.store(key(3), plan("f1.b2.t1", 11));  // rebuilt
    ASSERT_TRUE(db.find(key(3)).has_value());
    EXPECT_EQ(db.find(key(3))->plan, "f1.b2.t1");
  }
  // an entry without a plan: ignored with a note, the others still found
  db.store(key(4), plan("f2.b4.t1", 12));
  std::ofstream(db.path(), std::ios::trunc)
      << "{\"format\": \"dgmax-tuning 1\", \"entries\": {\"" << key(3).str() << "\": {\"gdof_per_s\": 3}, \""
      << key(4).str() << "\": {\"plan\": \"f2.b4.t1\"}}}";
  testing::internal::CaptureStderr();
  EXPECT_FALSE(db.find(key(3)).has_value());
  EXPECT_NE(testing::internal::GetCapturedStderr().find("is malformed"), std::string::npos);
  EXPECT_EQ(db.find(key(4))->plan, "f2.b4.t1");
}

TEST_F(TuningDbTest, AnUnwritableFolderIsAUserError) {
  // a file where the folder should be: no writer, root or not, can create the database there
  std::ofstream(root_ + "/tuning") << "not a folder";
  const TuningDb db(root_, "cuda");
  try {
    db.store(key(3), plan("f2.b4.t1", 10));
    ADD_FAILURE() << "stored into a folder that is a file";
  } catch (const dgmax::UserError& e) {
    EXPECT_NE(e.render().find(root_ + "/tuning"), std::string::npos) << e.render();
  }
  EXPECT_FALSE(db.find(key(3)).has_value());
}

// A FIFO (nobody writes to it), /dev/zero or a file over 16 MiB in the database's place: find()
// and store() refuse it with a message naming the file and why, at once (a FIFO used to block the
// run, /dev/zero to grow memory without bound), and leave it in place.
TEST_F(TuningDbTest, AFileThatIsNotARegularFileOrTooLargeIsRefused) {
  const TuningDb db(root_, "cpu");
  fs::create_directories(root_ + "/tuning");
  struct Case {
    std::string what;       // the refusal's reason
    std::function<void()> make;
  };
  const std::vector<Case> cases = {
      {"it is not a regular file but a FIFO", [&] { ASSERT_EQ(mkfifo(db.path().c_str(), 0600), 0); }},
      {"it is not a regular file but a character device", [&] { fs::create_symlink("/dev/zero", db.path()); }},
      {"it is larger than the limit of 16 MiB (16777217 bytes)", [&] {
         std::ofstream(db.path()).put('{');
         fs::resize_file(db.path(), (size_t{16} << 20) + 1);  // sparse: no 16 MiB written
       }}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    fs::remove(db.path());
    c.make();
    const fs::file_type type = fs::symlink_status(db.path()).type();
    for (const bool store : {false, true}) {
      // on a thread of its own with a deadline: a read that blocks fails the test instead of
      // hanging it (the thread is left behind then)
      auto task = std::make_shared<std::packaged_task<std::string()>>([db, store]() -> std::string {
        try {
          if (store)
            db.store(key(3), plan("f2.b4.t1", 10));
          else
            (void)db.find(key(3));
        } catch (const dgmax::UserError& e) {
          return e.render();
        }
        return "accepted";
      });
      std::future<std::string> attempt = task->get_future();
      std::thread([task] { (*task)(); }).detach();
      ASSERT_EQ(attempt.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "blocked";
      const std::string msg = attempt.get();
      EXPECT_NE(msg.find("cannot read the tuning database '" + db.path() + "': " + c.what), std::string::npos) << msg;
      EXPECT_NE(msg.find("remove it, or set DGMAX_CACHE_DIR"), std::string::npos) << msg;
    }
    EXPECT_EQ(fs::symlink_status(db.path()).type(), type) << "replaced by a database of dgmax's";
    if (type == fs::file_type::regular) EXPECT_EQ(fs::file_size(db.path()), (size_t{16} << 20) + 1);
  }
  fs::remove(db.path());
}

}  // namespace
