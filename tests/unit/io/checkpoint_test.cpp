// Checkpoint files (solver/io/checkpoint): bitwise round trip (double, and float storage for single
// precision), only the newest two kept, a truncated or corrupt newest falls back to the previous
// one, every attribute and dataset proven by its digest, sizes, types and the time in the file
// never trusted, mismatches are described, temporary names are unique.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

#include "expect_user_error.hpp"
#include "io_test_util.hpp"
#include "solver/io/checkpoint.hpp"
#include "solver/io/checkpoint_digest.hpp"

using namespace dgmax;
using namespace dgmax::test;
namespace fs = std::filesystem;

namespace {

CheckpointIdentity identity(int K = 5, int N = 2) {
  CheckpointIdentity id;
  id.dgmax_version = "0.1.0";
  id.config_hash = "c0ffee";
  id.mesh_fingerprint = "feed";
  id.backend = "cpu";
  id.precision = "double";
  id.K = K;
  id.N = N;
  id.Np = (N + 1) * (N + 2) * (N + 3) / 6;
  id.dt = 0.1;
  id.t_final = 1e12 / 3.0;
  return id;
}

// Random values plus the IEEE corner cases a bitwise round trip must keep.
Fields random_fields(int K, int Np, unsigned seed, bool single = false) {
  Fields q(K, Np);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : q.q) v = single ? static_cast<double>(static_cast<float>(u(rng))) : u(rng);
  q.q[0] = -0.0;
  q.q[1] = std::numeric_limits<double>::denorm_min() * (single ? 0 : 1);
  q.q[2] = std::numeric_limits<double>::infinity();
  q.q[3] = single ? static_cast<double>(std::numeric_limits<float>::denorm_min()) : 1e-310;
  return q;
}

Checkpoint make_checkpoint(long long step, unsigned seed = 1, const CheckpointIdentity& id = identity()) {
  Checkpoint c;
  c.id = id;
  c.step = step;
  c.time = 0;  // the run's sum of its steps (checkpoint.hpp), past 2^24 steps step * dt
  if (step <= (1LL << 24))
    for (long long s = 0; s < step; ++s) c.time += id.dt;
  else
    c.time = static_cast<double>(step) * id.dt;
  c.q = random_fields(static_cast<int>(id.K), id.Np, seed, id.precision == "single");
  c.res = random_fields(static_cast<int>(id.K), id.Np, seed + 1000, id.precision == "single");
  return c;
}

bool bitwise_equal(const Fields& a, const Fields& b) {
  return a.K == b.K && a.Np == b.Np && a.q.size() == b.q.size() &&
         std::memcmp(a.q.data(), b.q.data(), a.q.size() * sizeof(double)) == 0;
}

void expect_same(const Checkpoint& a, const Checkpoint& b) {
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(std::memcmp(&a.time, &b.time, sizeof(double)), 0);
  EXPECT_TRUE(bitwise_equal(a.q, b.q));
  EXPECT_TRUE(bitwise_equal(a.res, b.res));
  EXPECT_TRUE(describe_mismatch(a, b.id).empty());
  EXPECT_EQ(a.id.dgmax_version, b.id.dgmax_version);
  EXPECT_EQ(a.id.config_hash, b.id.config_hash);
  EXPECT_EQ(a.id.mesh_fingerprint, b.id.mesh_fingerprint);
  EXPECT_EQ(a.id.backend, b.id.backend);
  EXPECT_EQ(a.id.precision, b.id.precision);
}

std::vector<std::string> names(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(fs::path(p).filename().string());
  return out;
}

void truncate_file(const std::string& path, double fraction) {
  const auto size = fs::file_size(path);
  fs::resize_file(path, static_cast<uintmax_t>(size * fraction));
}


// Attribute `name` of the file's root set to `value` (of HDF5 type `mem`), its digest left as is.
void set_attr(const std::string& path, const char* name, hid_t mem, const void* value) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  H5Awrite(a, mem, value);
  H5Aclose(a);
  H5Fclose(f);
}

std::string string_attr(const std::string& path, const char* name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  const hid_t t = H5Aget_type(a);
  char* s = nullptr;
  H5Aread(a, t, &s);
  std::string out = s ? s : "";
  H5free_memory(s);
  H5Tclose(t);
  H5Aclose(a);
  H5Fclose(f);
  return out;
}

// The digest line of root attribute `name` replaced by that of `type` and `bytes`: the file is
// then well-formed, only its content altered.
void redigest(const std::string& path, const std::string& name, const char* type, const void* bytes, size_t size) {
  CheckpointDigests d;
  d.add("/@" + name, type, bytes, size);
  const std::string line = d.text();
  std::string text = string_attr(path, "digests");
  const auto at = text.find("/@" + name + " ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find('\n', at) + 1 - at, line);
  const char* s = text.c_str();
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  set_attr(path, "digests", t, &s);
  H5Tclose(t);
}

void patch_int(const std::string& path, const std::string& name, long long v) {
  set_attr(path, name.c_str(), H5T_NATIVE_LLONG, &v);
  redigest(path, name, "i8", &v, sizeof v);
}

void patch_double(const std::string& path, const std::string& name, double v) {
  set_attr(path, name.c_str(), H5T_NATIVE_DOUBLE, &v);
  redigest(path, name, "f8", &v, sizeof v);
}

void patch_string(const std::string& path, const std::string& name, const std::string& v) {
  const char* s = v.c_str();
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  set_attr(path, name.c_str(), t, &s);
  H5Tclose(t);
  redigest(path, name, "str", v.data(), v.size());
}

}  // namespace

TEST(Checkpoint, PathIsZeroPaddedStep) {
  EXPECT_EQ(fs::path(checkpoint_path("out", 42)).filename().string(), "checkpoint_000000000042.h5");
  EXPECT_EQ(fs::path(checkpoint_path("out", 42)).parent_path().string(), "out");
}

TEST(Checkpoint, RoundTripIsBitwise) {
  TempDir dir("ckpt_roundtrip");
  Checkpoint c = make_checkpoint(7);
  // the run's progress text, larger than an HDF5 attribute may be, with a NUL inside
  c.progress = std::string(100000, 'x') + std::string(1, '\0') + "{\"csv\": \"step,t\"}";
  const std::string path = write_checkpoint(dir.str(), c);
  EXPECT_EQ(path, checkpoint_path(dir.str(), 7));
  EXPECT_EQ(dir.count_tmp(), 0);
  const Checkpoint r = read_checkpoint(path);
  expect_same(r, c);
  EXPECT_EQ(std::memcmp(&r.id.dt, &c.id.dt, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&r.id.t_final, &c.id.t_final, sizeof(double)), 0);
  EXPECT_TRUE(std::signbit(r.q.q[0]));
  EXPECT_EQ(r.progress, c.progress);
}

TEST(Checkpoint, SinglePrecisionStoresFloatsExactly) {
  TempDir dir("ckpt_single");
  CheckpointIdentity id = identity(40, 4);
  Checkpoint d = make_checkpoint(1, 3, id);  // double: values that happen to be floats
  d.q = random_fields(40, id.Np, 3, true);
  d.res = random_fields(40, id.Np, 4, true);
  id.precision = "single";
  Checkpoint s = d;
  s.id = id;
  s.step = 2;
  s.time += id.dt;  // the time of step 2
  const auto dsize = fs::file_size(write_checkpoint(dir.str(), d));
  const auto ssize = fs::file_size(write_checkpoint(dir.str(), s));
  EXPECT_LT(ssize, dsize * 3 / 4) << "single-precision checkpoints are stored as float";
  expect_same(read_checkpoint(checkpoint_path(dir.str(), 2)), s);
  // a "single" checkpoint whose values are not all floats is stored in double, still bitwise
  Checkpoint odd = make_checkpoint(3, 5, id);
  odd.q.q[10] = 0.1;
  write_checkpoint(dir.str(), odd);
  expect_same(read_checkpoint(checkpoint_path(dir.str(), 3)), odd);
}

TEST(Checkpoint, KeepsTheNewestTwo) {
  TempDir dir("ckpt_keep");
  for (long long s : {10, 20, 30, 40}) write_checkpoint(dir.str(), make_checkpoint(s, static_cast<unsigned>(s)));
  EXPECT_EQ(names(list_checkpoints(dir.str())),
            (std::vector<std::string>{"checkpoint_000000000030.h5", "checkpoint_000000000040.h5"}));
  std::ostringstream warnings;
  std::string path;
  const Checkpoint r = read_latest_checkpoint(dir.str(), warnings, &path);
  EXPECT_EQ(r.step, 40);
  EXPECT_EQ(path, checkpoint_path(dir.str(), 40));
  EXPECT_EQ(warnings.str(), "");
  expect_same(r, make_checkpoint(40, 40));
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(Checkpoint, NewerCheckpointsOfAnEarlierRunAreRemoved) {
  TempDir dir("ckpt_stale");
  for (long long s : {100, 200}) write_checkpoint(dir.str(), make_checkpoint(s));
  write_checkpoint(dir.str(), make_checkpoint(50));  // a fresh run into the same directory
  EXPECT_EQ(names(list_checkpoints(dir.str())), (std::vector<std::string>{"checkpoint_000000000050.h5"}));
  write_checkpoint(dir.str(), make_checkpoint(60));
  write_checkpoint(dir.str(), make_checkpoint(70));
  EXPECT_EQ(names(list_checkpoints(dir.str())),
            (std::vector<std::string>{"checkpoint_000000000060.h5", "checkpoint_000000000070.h5"}));
}

TEST(Checkpoint, OrderIsByStepNotByName) {
  TempDir dir("ckpt_order");
  write_checkpoint(dir.str(), make_checkpoint(5));
  // a step with more digits than the padding
  write_checkpoint(dir.str(), make_checkpoint(1234567890123LL));
  EXPECT_EQ(read_latest_checkpoint(dir.str()).step, 1234567890123LL);
  EXPECT_EQ(list_checkpoints(dir.str()).size(), 2u);
}

TEST(Checkpoint, TruncatedNewestFallsBackToThePrevious) {
  for (const double fraction : {0.0, 0.1, 0.5, 0.9, 0.999}) {
    TempDir dir("ckpt_trunc");
    write_checkpoint(dir.str(), make_checkpoint(1, 1));
    write_checkpoint(dir.str(), make_checkpoint(2, 2));
    truncate_file(checkpoint_path(dir.str(), 2), fraction);
    std::ostringstream warnings;
    const Checkpoint r = read_latest_checkpoint(dir.str(), warnings);
    EXPECT_EQ(r.step, 1) << fraction;
    expect_same(r, make_checkpoint(1, 1));
    EXPECT_NE(warnings.str().find("warning: cannot read checkpoint"), std::string::npos) << warnings.str();
    EXPECT_NE(warnings.str().find("trying the previous checkpoint"), std::string::npos) << warnings.str();
    EXPECT_NE(warnings.str().find("checkpoint_000000000002.h5"), std::string::npos) << warnings.str();
  }
}

TEST(Checkpoint, CorruptDataIsDetected) {
  TempDir dir("ckpt_corrupt");
  const Checkpoint c = make_checkpoint(3, 9, identity(60, 3));
  const std::string path = write_checkpoint(dir.str(), c);
  // flip one byte of a stored value: find the bytes of q[100] in the file
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string needle(reinterpret_cast<const char*>(&c.q.q[100]), sizeof(double));
  const auto pos = bytes.find(needle);
  ASSERT_NE(pos, std::string::npos);
  bytes[pos + 3] ^= 0x10;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  // each with a hint on what to do (remove the damaged file; start afresh)
  UserError e = test::expect_hinted_user_error([&] { read_checkpoint(path); }, {path});
  EXPECT_NE(e.hint().find("remove it"), std::string::npos) << e.render();
  std::ostringstream warnings;
  e = test::expect_hinted_user_error([&] { read_latest_checkpoint(dir.str(), warnings); },
                                     {"no valid checkpoint", dir.str()});
  EXPECT_NE(e.hint().find("without --restart"), std::string::npos) << e.render();
}

TEST(Checkpoint, NoCheckpointNamesTheDirectory) {
  TempDir dir("ckpt_none");
  expect_user_error([&] { read_latest_checkpoint(dir.str()); }, {"no checkpoint", dir.str()});
  expect_user_error([&] { read_latest_checkpoint(dir / "missing"); }, {"does not exist", dir / "missing"});
  // only garbage: every candidate fails, the error says so
  { std::ofstream(dir / "checkpoint_000000000001.h5") << "not hdf5"; }
  std::ostringstream warnings;
  test::expect_hinted_user_error([&] { read_latest_checkpoint(dir.str(), warnings); },
                                 {"no valid checkpoint", "not an HDF5 file"});
}

TEST(Checkpoint, FileNamedForAnotherStepIsRefused) {
  TempDir dir("ckpt_renamed");
  write_checkpoint(dir.str(), make_checkpoint(1));
  write_checkpoint(dir.str(), make_checkpoint(2));
  fs::copy_file(checkpoint_path(dir.str(), 1), checkpoint_path(dir.str(), 3));
  std::ostringstream warnings;
  EXPECT_EQ(read_latest_checkpoint(dir.str(), warnings).step, 2);
  EXPECT_NE(warnings.str().find("holds step 1"), std::string::npos) << warnings.str();
}

TEST(Checkpoint, SizesInTheFileAreValidatedAgainstTheDatasets) {
  // a checkpoint whose datasets do not match its K: written by hand as q of another K would be
  // refused by write_checkpoint, so write a valid one and patch the K attribute (and its digest:
  // well-formed but altered content)
  TempDir dir("ckpt_sizes");
  const std::string path = write_checkpoint(dir.str(), make_checkpoint(1, 1, identity(5, 2)));
  patch_int(path, "K", 6);
  expect_user_error([&] { read_checkpoint(path); }, {path, "[6][6][10]", "[5][6][10]"});
  patch_int(path, "Np", 11);
  expect_user_error([&] { read_checkpoint(path); }, {path, "Np = 11", "order N = 2"});
}

// An attribute changed without its digest: refused, naming the item, before its value is used
// (a flipped bit of dt is a damaged file, not another run's).
TEST(Checkpoint, AnAttributeThatDoesNotMatchItsDigestIsNamed) {
  TempDir dir("ckpt_digest");
  const std::string path = write_checkpoint(dir.str(), make_checkpoint(3));
  const double dt = std::nextafter(0.1, 1.0);
  set_attr(path, "dt", H5T_NATIVE_DOUBLE, &dt);
  test::expect_hinted_user_error([&] { read_checkpoint(path); }, {path, "'/@dt' does not match its digest", "damaged"});
}

TEST(Checkpoint, EveryAttributeAndDatasetIsInTheDigestList) {
  TempDir dir("ckpt_list");
  Checkpoint c = make_checkpoint(2);
  c.aux = {1, 2, 3};
  c.progress = "{}";
  const std::string path = write_checkpoint(dir.str(), c);
  std::string text = string_attr(path, "digests");
  std::vector<std::string> items;
  for (size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    items.push_back(text.substr(at, text.find(' ', at) - at));
  const std::vector<std::string> expected = {
      "/@format", "/@format_version", "/@dgmax_version", "/@config_hash", "/@mesh_fingerprint", "/@backend",
      "/@precision", "/@K", "/@N", "/@Np", "/@dt", "/@t_final", "/@step", "/@time", "/q", "/q@long_name",
      "/res", "/res@long_name", "/progress", "/aux", "/aux@long_name"};
  EXPECT_EQ(items, expected);
}

// Well-formed but altered content (its digest rewritten too) is still checked: the time must be
// the sum of the steps, a double run's state float64, the version one with digests.
TEST(Checkpoint, WellFormedButAlteredContentIsRefused) {
  TempDir dir("ckpt_altered");
  std::string path = write_checkpoint(dir.str(), make_checkpoint(30));
  patch_double(path, "time", 1.84);  // step 30 of dt = 0.1 is about 3
  expect_user_error([&] { read_checkpoint(path); }, {path, "time 1.84 is not the time of step 30"});
  // a float32 state in a double-precision checkpoint
  CheckpointIdentity id = identity();
  id.precision = "single";
  Checkpoint single = make_checkpoint(31, 2, id);
  path = write_checkpoint(dir.str(), single);
  patch_string(path, "precision", "double");
  expect_user_error([&] { read_checkpoint(path); }, {path, "float32 in a double-precision checkpoint"});
  // a checkpoint of the format before digests: refused, naming the version
  path = write_checkpoint(dir.str(), make_checkpoint(32));
  patch_int(path, "format_version", 1);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(f, "digests");
    H5Fclose(f);
  }
  expect_user_error([&] { read_checkpoint(path); }, {path, "format version 1 is not supported", "without digests"});
  // the state rewritten with the same values but without its Fletcher-32 checksums (its digest
  // still matches): refused, so a later flipped bit in it cannot go unnoticed
  path = write_checkpoint(dir.str(), make_checkpoint(33));
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(f, "q", H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);
    std::vector<double> values(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
    ASSERT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    H5Dclose(ds);
    ASSERT_GE(H5Ldelete(f, "q", H5P_DEFAULT), 0);
    const hid_t plain = H5Dcreate2(f, "q", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(plain, 0);
    ASSERT_GE(H5Dwrite(plain, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    H5Dclose(plain);
    H5Sclose(space);
    H5Fclose(f);
  }
  expect_user_error([&] { read_checkpoint(path); }, {path, "dataset 'q' is stored without its Fletcher-32 checksums"});
}

TEST(Checkpoint, WritingMismatchedFieldsIsABug) {
  TempDir dir("ckpt_bug");
  Checkpoint c = make_checkpoint(1);
  c.res = Fields(4, c.id.Np);
  EXPECT_THROW(write_checkpoint(dir.str(), c), InternalError);
  EXPECT_TRUE(list_checkpoints(dir.str()).empty());
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(Checkpoint, DescribesEveryMismatch) {
  const Checkpoint saved = make_checkpoint(1, 1, identity(5, 3));
  EXPECT_TRUE(describe_mismatch(saved, saved.id).empty());
  CheckpointIdentity now = identity(8, 4);
  now.dgmax_version = "0.2.0";
  now.config_hash = "beef";
  now.mesh_fingerprint = "f00d";
  now.backend = "cuda";
  now.precision = "single";
  now.dt = 0.2;
  now.t_final = 2;
  const std::vector<std::string> d = describe_mismatch(saved, now);
  const std::vector<std::string> expected = {
      "dgmax version: checkpoint 0.1.0, config 0.2.0",
      "config (content hash): checkpoint c0ffee, config beef",
      "mesh (fingerprint): checkpoint feed, config f00d",
      "elements K: checkpoint 5, config 8",
      "order N: checkpoint 3, config 4",
      "nodes per element Np: checkpoint 20, config 35",
      "backend: checkpoint cpu, config cuda",
      "precision: checkpoint double, config single",
      "time step dt: checkpoint 0.1, config 0.2",
      "final time t_final: checkpoint 333333333333.3333, config 2",
  };
  EXPECT_EQ(d, expected);
  // one ulp of dt is a difference
  now = saved.id;
  now.dt = std::nextafter(saved.id.dt, 1.0);
  ASSERT_EQ(describe_mismatch(saved, now).size(), 1u);
  EXPECT_EQ(describe_mismatch(saved, now)[0], "time step dt: checkpoint 0.1, config 0.10000000000000002");
  // fields that do not fit the identity
  Checkpoint broken = saved;
  broken.res = Fields(4, saved.id.Np);
  ASSERT_EQ(describe_mismatch(broken, saved.id).size(), 1u);
  EXPECT_EQ(describe_mismatch(broken, saved.id)[0], "residual size: checkpoint holds 480 values, config needs 600 (K*6*Np)");
}

TEST(Checkpoint, TemporaryNamesAreUniqueAcrossThreads) {
  TempDir dir("ckpt_threads");
  // threads writing the same step at once: each writes its own temporary file, every rename
  // leaves a complete file, nothing is left behind
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) write_checkpoint(dir.str(), make_checkpoint(9, static_cast<unsigned>(t)));
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(dir.count_tmp(), 0);
  const Checkpoint r = read_checkpoint(checkpoint_path(dir.str(), 9));
  bool matches_one = false;
  for (unsigned t = 0; t < 4; ++t) matches_one = matches_one || bitwise_equal(r.q, make_checkpoint(9, t).q);
  EXPECT_TRUE(matches_one);
}
