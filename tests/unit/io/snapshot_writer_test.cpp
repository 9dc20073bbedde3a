// The solver's output interface: directory handling, formats, file names, errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "dgmax/config.hpp"
#include "expect_user_error.hpp"
#include "hdf5_check.hpp"
#include "io_test_util.hpp"
#include "solver/io/snapshot_writer.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(SnapshotWriter, CreatesNestedDirectory) {
  TempDir dir("snap_mkdir");
  IoFixture fx(1);
  const std::string out = dir / "a/b/c";
  SnapshotWriter sw(out, "s", {&fx.md.mesh, fx.ref, &fx.xyz}, SnapshotFormat::Hdf5);
  EXPECT_TRUE(std::filesystem::is_directory(out));
  sw.write(fx.q, 1.0);
  EXPECT_TRUE(std::filesystem::exists(out + "/s_00000.h5"));
  EXPECT_EQ(sw.count(), 1);
  // Only the snapshot is left: no probe or temp files.
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(out)) {
    (void)e;
    ++n;
  }
  EXPECT_EQ(n, 1);
}

// Root ignores permission bits, so "unwritable" here is a path through a regular file.
TEST(SnapshotWriter, UncreatableDirectoryIsAUserErrorNamingIt) {
  TempDir dir("snap_bad");
  IoFixture fx(1);
  { std::ofstream(dir / "plainfile") << "x"; }
  const std::string bad = dir / "plainfile/out";
  try {
    SnapshotWriter sw(bad, "s", {&fx.md.mesh, fx.ref, &fx.xyz});
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("'" + bad + "'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("Not a directory"), std::string::npos) << e.message();
  }
}

TEST(SnapshotWriter, DirectoryThatIsAFileIsAUserError) {
  TempDir dir("snap_file");
  IoFixture fx(1);
  const std::string file = dir / "f";
  { std::ofstream(file) << "x"; }
  expect_hinted_user_error([&] { SnapshotWriter(file, "s", {&fx.md.mesh, fx.ref, &fx.xyz}); },
                           {"'" + file + "'", "Not a directory"});
}

TEST(SnapshotWriter, ReadOnlyFileSystemIsAUserError) {
  if (!std::filesystem::is_directory("/proc/self")) GTEST_SKIP() << "no /proc on this machine: no read-only directory to write into";
  IoFixture fx(1);
  try {
    SnapshotWriter sw("/proc/self", "s", {&fx.md.mesh, fx.ref, &fx.xyz});
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("'/proc/self'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("not writable"), std::string::npos) << e.message();
  }
}

TEST(SnapshotWriter, BadStemIsAUserError) {
  TempDir dir("snap_stem");
  IoFixture fx(1);
  for (const std::string stem : {"", "a/b"}) {
    const UserError e = expect_hinted_user_error([&] { SnapshotWriter(dir.str(), stem, {&fx.md.mesh, fx.ref, &fx.xyz}); },
                                                 {"invalid output file name '" + stem + "'"});
    EXPECT_NE(e.hint().find("without '/'"), std::string::npos) << e.render();
  }
}

TEST(SnapshotWriter, FormatNamesAndAuto) {
  EXPECT_EQ(parse_snapshot_format("auto"), SnapshotFormat::Auto);
  EXPECT_EQ(parse_snapshot_format("vtu"), SnapshotFormat::Vtu);
  EXPECT_EQ(parse_snapshot_format("hdf5"), SnapshotFormat::Hdf5);
  EXPECT_EQ(parse_snapshot_format("both"), SnapshotFormat::Both);
  const UserError e = expect_hinted_user_error([] { parse_snapshot_format("vtk9"); }, {"unknown output format 'vtk9'"});
  EXPECT_NE(e.hint().find("auto, vtu, hdf5, both"), std::string::npos) << e.render();
  EXPECT_EQ(vtu_output_available(), DGMAX_HAS_VTK != 0);
  TempDir dir("snap_auto");
  IoFixture fx(1);
  SnapshotWriter sw(dir.str(), "s", {&fx.md.mesh, fx.ref, &fx.xyz});
  EXPECT_EQ(sw.format(), DGMAX_HAS_VTK ? SnapshotFormat::Vtu : SnapshotFormat::Hdf5);
  if (!DGMAX_HAS_VTK) {
    expect_hinted_user_error(
        [&] { SnapshotWriter(dir.str(), "s", {&fx.md.mesh, fx.ref, &fx.xyz}, SnapshotFormat::Vtu); },
        {"output format 'vtu' needs VTK, but this dgmax was built without it"});
  }
}

TEST(SnapshotWriter, SinglePrecisionFieldsAreWritten) {
  TempDir dir("snap_float");
  IoFixture fx(2);
  FieldsT<float> qf(fx.q.K, fx.q.Np);
  for (size_t i = 0; i < qf.q.size(); ++i) {
    qf.q[i] = static_cast<float>(fx.q.q[i]);
    fx.q.q[i] = qf.q[i];  // what the file must hold: the float values, widened exactly
  }
  SnapshotWriter sw(dir.str(), "f", {&fx.md.mesh, fx.ref, &fx.xyz}, SnapshotFormat::Hdf5);
  sw.write(qf, 0.25);
  ASSERT_EQ(sw.files().size(), 1u);
  EXPECT_EQ(sw.files()[0], dir / "f_00000.h5");
  check_file(sw.files()[0], fx, 0.25, 0);
}
