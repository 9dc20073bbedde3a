// Snapshots written on a background thread: the files hold what was given, in order, with the
// times in the .pvd; background errors reach the caller as the same UserError; at most two state
// buffers exist; the destructor completes or drops work cleanly without finish().
#include <gtest/gtest.h>
#include <hdf5.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "expect_user_error.hpp"
#include "io_test_util.hpp"
#include "solver/io/async_snapshot_writer.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

SnapshotContext context(const IoFixture& fx) { return {&fx.md.mesh, fx.ref, &fx.xyz}; }

// A distinct, exactly representable state per snapshot: s·q + s.
void fill(Fields& out, const Fields& q, int s) {
  for (size_t i = 0; i < q.q.size(); ++i) out.q[i] = s * q.q[i] + s;
}

struct H5Snapshot {
  bool ok = false;
  double time = -1;
  std::vector<double> E, H;  // [K][Np][3]
};

std::vector<double> read_dataset(hid_t file, const char* name, size_t n) {
  std::vector<double> out(n, -1);
  const hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
  if (ds < 0) return {};
  const herr_t st = H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Dclose(ds);
  return st < 0 ? std::vector<double>{} : out;
}

H5Snapshot read_h5(const std::string& path, const Fields& shape) {
  H5Snapshot s;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return s;
  const size_t n = static_cast<size_t>(shape.K) * shape.Np * 3;
  const auto t = read_dataset(f, "time", 1);
  s.E = read_dataset(f, "E", n);
  s.H = read_dataset(f, "H", n);
  H5Fclose(f);
  s.ok = t.size() == 1 && s.E.size() == n && s.H.size() == n;
  if (!t.empty()) s.time = t[0];
  return s;
}

// The file holds exactly q (E and H per node) at `time`.
void expect_h5_holds(const std::string& path, const Fields& q, double time) {
  const H5Snapshot s = read_h5(path, q);
  ASSERT_TRUE(s.ok) << path;
  EXPECT_EQ(s.time, time) << path;
  for (int k = 0; k < q.K; ++k)
    for (int i = 0; i < q.Np; ++i)
      for (int d = 0; d < 3; ++d) {
        const size_t m = (static_cast<size_t>(k) * q.Np + i) * 3 + d;
        ASSERT_EQ(s.E[m], q(k, Ex + d, i)) << path << " k " << k << " i " << i;
        ASSERT_EQ(s.H[m], q(k, Hx + d, i)) << path << " k " << k << " i " << i;
      }
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct PvdList {
  std::vector<double> times;
  std::vector<std::string> files;
};

PvdList parse_pvd(const std::string& path) {
  PvdList p;
  const std::string xml = slurp(path);
  const std::regex ds("<DataSet timestep=\"([^\"]*)\" group=\"\" part=\"0\" file=\"([^\"]*)\"/>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), ds); it != std::sregex_iterator(); ++it) {
    p.times.push_back(std::strtod((*it)[1].str().c_str(), nullptr));
    p.files.push_back((*it)[2].str());
  }
  return p;
}

// Replaces the output directory by a regular file: every later write into it fails with ENOTDIR,
// also as root (permission bits do not stop root).
void break_directory(const std::string& dir) {
  std::filesystem::remove_all(dir);
  std::ofstream(dir) << "not a directory";
}

}  // namespace

TEST(AsyncSnapshotWriter, Hdf5FilesHoldWhatWasGiven) {
  TempDir dir("async_h5");
  IoFixture fx(2);
  AsyncSnapshotWriter w(dir.str(), "s", context(fx), SnapshotFormat::Hdf5);
  EXPECT_EQ(w.format(), SnapshotFormat::Hdf5);
  EXPECT_EQ(w.pvd_path(), "");
  EXPECT_EQ(w.directory(), dir.str());
  const std::vector<double> times = {0.0, 0.125, 1.0 / 3.0, 0.75};
  for (size_t s = 0; s < times.size(); ++s) {
    Fields buf = w.acquire_buffer();
    ASSERT_EQ(buf.K, fx.q.K);
    ASSERT_EQ(buf.Np, fx.q.Np);
    fill(buf, fx.q, static_cast<int>(s));
    w.write(std::move(buf), times[s]);
  }
  EXPECT_EQ(w.count(), 4);
  w.finish();
  EXPECT_EQ(w.written(), 4);
  EXPECT_EQ(w.pending(), 0);
  const auto files = w.files();
  ASSERT_EQ(files.size(), times.size());
  for (size_t s = 0; s < times.size(); ++s) {
    EXPECT_EQ(files[s], dir / ("s_0000" + std::to_string(s) + ".h5"));
    Fields expected(fx.q.K, fx.q.Np);
    fill(expected, fx.q, static_cast<int>(s));
    expect_h5_holds(files[s], expected, times[s]);
  }
  EXPECT_EQ(dir.count_tmp(), 0);
  EXPECT_GT(w.stats().write_seconds, 0.0);
}

TEST(AsyncSnapshotWriter, SinglePrecisionStateIsWrittenAsDouble) {
  TempDir dir("async_float");
  IoFixture fx(3);
  AsyncSnapshotWriter w(dir.str(), "f", context(fx), SnapshotFormat::Hdf5);
  FieldsT<float> qf = w.acquire_float_buffer();
  Fields expected(fx.q.K, fx.q.Np);
  for (size_t i = 0; i < qf.q.size(); ++i) {
    qf.q[i] = static_cast<float>(fx.q.q[i]);
    expected.q[i] = static_cast<double>(qf.q[i]);
  }
  w.write(std::move(qf), 2.5);
  w.finish();
  ASSERT_EQ(w.files().size(), 1u);
  expect_h5_holds(w.files()[0], expected, 2.5);
}

TEST(AsyncSnapshotWriter, CopyingWriteLeavesTheCallersStateAlone) {
  TempDir dir("async_copy");
  IoFixture fx(1);
  const Fields before = fx.q;
  AsyncSnapshotWriter w(dir.str(), "c", context(fx), SnapshotFormat::Hdf5);
  w.write(fx.q, 0.5);
  fx.q.q[0] += 1;  // the caller goes on using its state at once
  w.finish();
  expect_h5_holds(w.files().at(0), before, 0.5);
}

// The .vtu/.pvd output equals the synchronous SnapshotWriter's byte for byte (same values, names,
// times, order), for Vtu and Both.
TEST(AsyncSnapshotWriter, SameFilesAsTheSynchronousWriter) {
  if (!vtu_output_available()) GTEST_SKIP() << "this build has no VTK: no .vtu output to compare";
  IoFixture fx(2);
  const std::vector<double> times = {0.0, 0.1, 0.2, 1.0 / 3.0, 0.5};
  for (SnapshotFormat f : {SnapshotFormat::Vtu, SnapshotFormat::Both}) {
    TempDir sync_dir(std::string("sync_") + to_string(f)), async_dir(std::string("async_") + to_string(f));
    {
      SnapshotWriter ref(sync_dir.str(), "run", context(fx), f);
      AsyncSnapshotWriter w(async_dir.str(), "run", context(fx), f);
      Fields q(fx.q.K, fx.q.Np);
      for (size_t s = 0; s < times.size(); ++s) {
        fill(q, fx.q, static_cast<int>(s) + 1);
        ref.write(q, times[s]);
        Fields buf = w.acquire_buffer();
        buf.q = q.q;
        w.write(std::move(buf), times[s]);
      }
      w.finish();
      ASSERT_EQ(w.files().size(), ref.files().size());
      for (size_t i = 0; i < ref.files().size(); ++i) {
        const auto name = std::filesystem::path(ref.files()[i]).filename();
        EXPECT_EQ(std::filesystem::path(w.files()[i]).filename(), name);
        if (name.extension() == ".vtu") { EXPECT_EQ(slurp(w.files()[i]), slurp(ref.files()[i])) << name; }
      }
      const PvdList p = parse_pvd(w.pvd_path());
      ASSERT_EQ(p.times, times);
      for (size_t s = 0; s < times.size(); ++s) EXPECT_EQ(p.files[s], "run_0000" + std::to_string(s) + ".vtu");
      EXPECT_EQ(slurp(w.pvd_path()), slurp(ref.pvd_path()));
      if (f == SnapshotFormat::Both) {
        Fields expected(fx.q.K, fx.q.Np);
        fill(expected, fx.q, 5);
        expect_h5_holds(async_dir / "run_00004.h5", expected, 0.5);
      }
    }
    EXPECT_EQ(async_dir.count_tmp(), 0);
  }
}

TEST(AsyncSnapshotWriter, FinishedBufferIsReused) {
  TempDir dir("async_reuse");
  IoFixture fx(2);
  AsyncSnapshotWriter w(dir.str(), "r", context(fx), SnapshotFormat::Hdf5);
  Fields a = w.acquire_buffer();
  const double* memory = a.q.data();
  fill(a, fx.q, 1);
  w.write(std::move(a), 0.0);
  w.finish();
  Fields b = w.acquire_buffer();
  EXPECT_EQ(b.q.data(), memory);  // the same memory, not a new allocation
  EXPECT_EQ(b.q[5], fx.q.q[5] + 1);  // with the old values still in it
  w.write(std::move(b), 1.0);
  w.finish();
  EXPECT_EQ(w.stats().buffers_allocated, 1);
  EXPECT_EQ(w.stats().max_buffers_alive, 1);
}

// Snapshots requested faster than they are written: the caller waits for a free buffer instead of
// allocating a third; every snapshot still reaches the disk, in order.
TEST(AsyncSnapshotWriter, ManySnapshotsInARowKeepTwoBuffers) {
  TempDir dir("async_many");
  IoFixture fx(3, 7, 2);
  constexpr int kSnapshots = 40;
  AsyncSnapshotWriter w(dir.str(), "m", context(fx),
                        vtu_output_available() ? SnapshotFormat::Both : SnapshotFormat::Hdf5);
  for (int s = 0; s < kSnapshots; ++s) {
    Fields buf = w.acquire_buffer();
    fill(buf, fx.q, s);
    w.write(std::move(buf), 0.01 * s);
    EXPECT_LE(w.pending(), 2);
  }
  w.finish();
  const auto st = w.stats();
  EXPECT_LE(st.buffers_allocated, AsyncSnapshotWriter::kMaxBuffers);
  EXPECT_LE(st.max_buffers_alive, AsyncSnapshotWriter::kMaxBuffers);
  EXPECT_EQ(w.written(), kSnapshots);
  const auto files = w.files();
  ASSERT_EQ(files.size(), static_cast<size_t>(vtu_output_available() ? 2 : 1) * kSnapshots);
  for (int s : {0, 17, kSnapshots - 1}) {
    Fields expected(fx.q.K, fx.q.Np);
    fill(expected, fx.q, s);
    char name[32];
    std::snprintf(name, sizeof name, "m_%05d.h5", s);
    expect_h5_holds(dir / name, expected, 0.01 * s);
  }
  if (vtu_output_available()) {
    const PvdList p = parse_pvd(w.pvd_path());
    ASSERT_EQ(p.times.size(), static_cast<size_t>(kSnapshots));
    for (int s = 0; s < kSnapshots; ++s) EXPECT_EQ(p.times[s], 0.01 * s);
  }
  EXPECT_EQ(dir.count_tmp(), 0);
}

// A disk that syncs slower than snapshots come (each commit 30 ms): the writer waits for the
// commits instead of running ahead, so at every write() at most kMaxUncommitted + 2 (the one being
// written, the one queued) snapshots are off the disk, and a killed run would lose no more.
TEST(AsyncSnapshotWriter, CommitsKeepUpWithASlowDisk) {
  TempDir dir("async_slow_disk");
  IoFixture fx(2, 3, 1);
  constexpr int kSnapshots = 12;
  set_commit_delay_for_tests(0.03);
  struct Reset {
    ~Reset() { set_commit_delay_for_tests(0); }
  } reset;
  AsyncSnapshotWriter w(dir.str(), "s", context(fx), SnapshotFormat::Hdf5);
  for (int s = 0; s < kSnapshots; ++s) {
    Fields buf = w.acquire_buffer();
    fill(buf, fx.q, s);
    w.write(std::move(buf), 0.01 * s);
    EXPECT_LE(w.count() - w.written(), AsyncSnapshotWriter::kMaxUncommitted + 2) << "after snapshot " << s;
  }
  w.finish();
  EXPECT_EQ(w.written(), kSnapshots);
  EXPECT_GE(w.stats().max_uncommitted, 1);
  EXPECT_LE(w.stats().max_uncommitted, AsyncSnapshotWriter::kMaxUncommitted);
  EXPECT_EQ(dir.count_tmp(), 0);
}

// A caller that brings its own buffers (moved in, not acquired): the writer still holds at most
// two (one written, one queued) and drops finished ones it cannot keep.
TEST(AsyncSnapshotWriter, OwnBuffersAreBoundedToo) {
  TempDir dir("async_own");
  IoFixture fx(2);
  AsyncSnapshotWriter w(dir.str(), "o", context(fx), SnapshotFormat::Hdf5);
  for (int s = 0; s < 20; ++s) {
    Fields q(fx.q.K, fx.q.Np);
    fill(q, fx.q, s);
    w.write(std::move(q), s);
  }
  w.finish();
  EXPECT_EQ(w.written(), 20);
  EXPECT_EQ(w.stats().buffers_allocated, 0);
  EXPECT_LE(w.stats().max_buffers_alive, AsyncSnapshotWriter::kMaxBuffers);
  Fields expected(fx.q.K, fx.q.Np);
  fill(expected, fx.q, 19);
  expect_h5_holds(dir / "o_00019.h5", expected, 19);
}

// A caller whose download replaces the acquired vector (a backend's get_state that assigns a new
// Fields): each write() still gives one acquired buffer back, so the count stays at two.
TEST(AsyncSnapshotWriter, ReplacedAcquiredBuffersAreCountedBack) {
  TempDir dir("async_replaced");
  IoFixture fx(2);
  AsyncSnapshotWriter w(dir.str(), "p", context(fx), SnapshotFormat::Hdf5);
  for (int s = 0; s < 20; ++s) {
    Fields buf = w.acquire_buffer();
    buf = Fields(fx.q.K, fx.q.Np);  // new memory, as `q = Fields(K, Np)` in a get_state
    fill(buf, fx.q, s);
    w.write(std::move(buf), s);
  }
  w.finish();
  EXPECT_EQ(w.written(), 20);
  EXPECT_LE(w.stats().buffers_allocated, AsyncSnapshotWriter::kMaxBuffers);
  EXPECT_LE(w.stats().max_buffers_alive, AsyncSnapshotWriter::kMaxBuffers);
  Fields expected(fx.q.K, fx.q.Np);
  fill(expected, fx.q, 13);
  expect_h5_holds(dir / "p_00013.h5", expected, 13);
}

// Root ignores permission bits, so the directory becomes invalid instead of read-only: it is
// replaced by a regular file after the writer was made.
TEST(AsyncSnapshotWriter, BackgroundErrorReachesFinishAsTheUserError) {
  TempDir dir("async_err");
  IoFixture fx(1);
  const std::string out = dir / "out";
  AsyncSnapshotWriter w(out, "s", context(fx), SnapshotFormat::Hdf5);
  w.write(fx.q, 0.0);
  w.finish();
  break_directory(out);
  w.write(fx.q, 0.5);  // returns at once: the failure happens on the background thread
  std::string first;
  try {
    w.finish();
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    first = e.message();
    EXPECT_NE(first.find("'" + out + "/s_00001.h5'"), std::string::npos) << first;
  }
  // the writer stays failed: every later call reports the same error, nothing more is written
  try {
    w.write(fx.q, 1.0);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message(), first);
  }
  expect_hinted_user_error([&] { w.acquire_buffer(); }, {first});
  expect_hinted_user_error([&] { w.finish(); }, {first});
  EXPECT_EQ(w.written(), 1);
  EXPECT_EQ(w.files().size(), 1u);
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(AsyncSnapshotWriter, BackgroundErrorReachesTheNextWrite) {
  TempDir dir("async_err_write");
  IoFixture fx(1);
  const std::string out = dir / "out";
  AsyncSnapshotWriter w(out, "s", context(fx),
                        vtu_output_available() ? SnapshotFormat::Vtu : SnapshotFormat::Hdf5);
  break_directory(out);
  w.write(fx.q, 0.0);
  for (int i = 0; i < 2000 && w.pending() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(w.pending(), 0);
  try {
    w.write(fx.q, 0.5);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find(out + "/s_00000."), std::string::npos) << e.message();
  }
  expect_hinted_user_error([&] { w.finish(); }, {out + "/s_00000."});
}

// A run that fails elsewhere destroys the writer without finish(): the queued snapshots are
// completed, the thread joined, and every file is complete (no temporary left).
TEST(AsyncSnapshotWriter, DestructorWithoutFinishCompletesTheQueuedSnapshots) {
  TempDir dir("async_dtor");
  IoFixture fx(3, 7, 2);
  const SnapshotFormat f = vtu_output_available() ? SnapshotFormat::Both : SnapshotFormat::Hdf5;
  {
    AsyncSnapshotWriter w(dir.str(), "d", context(fx), f);
    for (int s = 0; s < 5; ++s) {
      Fields buf = w.acquire_buffer();
      fill(buf, fx.q, s);
      w.write(std::move(buf), s);
    }
  }
  for (int s = 0; s < 5; ++s) {
    Fields expected(fx.q.K, fx.q.Np);
    fill(expected, fx.q, s);
    expect_h5_holds(dir / ("d_0000" + std::to_string(s) + ".h5"), expected, s);
  }
  if (vtu_output_available()) { EXPECT_EQ(parse_pvd(dir / "d.pvd").times.size(), 5u); }
  EXPECT_EQ(dir.count_tmp(), 0);
}

// ... also when the background thread failed and nobody asked: no exception leaves the
// destructor, the error is printed once as a warning.
TEST(AsyncSnapshotWriter, DestructorAfterAnUnreportedErrorWarnsAndDoesNotThrow) {
  TempDir dir("async_dtor_err");
  IoFixture fx(1);
  const std::string out = dir / "out";
  ::testing::internal::CaptureStderr();
  {
    AsyncSnapshotWriter w(out, "s", context(fx), SnapshotFormat::Hdf5);
    break_directory(out);
    w.write(fx.q, 0.0);
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning: snapshot output stopped: "), std::string::npos) << err;
  EXPECT_NE(err.find(out + "/s_00000.h5"), std::string::npos) << err;
  // reported errors are not repeated
  ::testing::internal::CaptureStderr();
  {
    AsyncSnapshotWriter w(dir / "out2", "s", context(fx), SnapshotFormat::Hdf5);
    break_directory(dir / "out2");
    w.write(fx.q, 0.0);
    expect_hinted_user_error([&] { w.finish(); }, {dir / "out2/s_00000.h5"});
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(AsyncSnapshotWriter, DestructorOfAnIdleWriterReturns) {
  TempDir dir("async_idle");
  IoFixture fx(1);
  { AsyncSnapshotWriter w(dir.str(), "i", context(fx), SnapshotFormat::Hdf5); }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path));
}

TEST(AsyncSnapshotWriter, ConstructorErrorsAreThrownAtOnce) {
  TempDir dir("async_ctor");
  IoFixture fx(1);
  { std::ofstream(dir / "plainfile") << "x"; }
  expect_hinted_user_error([&] { AsyncSnapshotWriter(dir / "plainfile/out", "s", context(fx)); },
                           {"cannot create output directory '" + dir / "plainfile/out" + "'"});
  expect_hinted_user_error([&] { AsyncSnapshotWriter(dir.str(), "a/b", context(fx)); },
                           {"invalid output file name 'a/b'"});
}

TEST(AsyncSnapshotWriter, StateOfTheWrongShapeIsAnInternalError) {
  TempDir dir("async_shape");
  IoFixture fx(2);
  AsyncSnapshotWriter w(dir.str(), "s", context(fx), SnapshotFormat::Hdf5);
  EXPECT_THROW(w.write(Fields(fx.q.K, fx.q.Np + 1), 0.0), InternalError);
  EXPECT_EQ(w.count(), 0);
  w.finish();
  EXPECT_TRUE(w.files().empty());
}

TEST(AtomicWrite, TemporaryNamesAreUniquePerCallAndProcess) {
  const std::string a = temp_path_for("/x/out.vtu"), b = temp_path_for("/x/out.vtu");
  EXPECT_NE(a, b);
  for (const auto& t : {a, b}) {
    EXPECT_EQ(t.rfind("/x/out.vtu." + std::to_string(::getpid()) + ".", 0), 0u) << t;
    EXPECT_EQ(std::filesystem::path(t).extension(), ".tmp") << t;
  }
}

TEST(AtomicWrite, TwoWritersOfOnePathNeverShareATemporaryFile) {
  TempDir dir("atomic_race");
  const std::string path = dir / "f.txt";
  const std::string big_a(1 << 20, 'a'), big_b(1 << 20, 'b');
  std::thread t1([&] {
    for (int i = 0; i < 20; ++i) write_text_atomically(path, big_a);
  });
  std::thread t2([&] {
    for (int i = 0; i < 20; ++i) write_text_atomically(path, big_b);
  });
  t1.join();
  t2.join();
  const std::string got = slurp(path);
  EXPECT_TRUE(got == big_a || got == big_b) << "a mix of both writers (" << got.size() << " bytes)";
  EXPECT_EQ(dir.count_tmp(), 0);
}
