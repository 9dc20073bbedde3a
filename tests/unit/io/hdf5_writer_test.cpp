// HDF5 snapshots: every dataset read back with the HDF5 C API equals what was written.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hdf5_check.hpp"
#include "io_test_util.hpp"
#include "solver/io/hdf5_writer.hpp"
#include "solver/io/snapshot_writer.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;
using namespace dgmax::test;


TEST(Hdf5Writer, DatasetsReadBackExactly) {
  TempDir dir("h5_direct");
  for (int N : {1, 3}) {
    IoFixture fx(N, 3 + N);
    const std::string path = dir / ("s" + std::to_string(N) + ".h5");
    Hdf5Units units;
    units.E = "V/m";
    write_hdf5_snapshot(path, fx.md.mesh, *fx.ref, fx.xyz, fx.q, 0.75, 4, units);
    check_file(path, fx, 0.75, 4);
    H5File f(path);
    EXPECT_EQ(dataset_string_attr(f.id, "E", "units"), "V/m");
  }
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(Hdf5Writer, SnapshotSeriesInHdf5Format) {
  TempDir dir("h5_series");
  IoFixture fx(2);
  SnapshotWriter sw(dir.str(), "cav", {&fx.md.mesh, fx.ref, &fx.xyz}, SnapshotFormat::Hdf5);
  EXPECT_EQ(sw.format(), SnapshotFormat::Hdf5);
  EXPECT_EQ(sw.pvd_path(), "");
  sw.write(fx.q, 0.0);
  sw.write(fx.q, 0.5);
  ASSERT_EQ(sw.files().size(), 2u);
  EXPECT_EQ(sw.files()[1], dir / "cav_00001.h5");
  check_file(sw.files()[1], fx, 0.5, 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "cav.pvd"));
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(Hdf5Writer, FailureIsAUserErrorNamingThePathAndLeavesNoFile) {
  TempDir dir("h5_fail");
  IoFixture fx(1);
  const std::string path = dir / "no/such/dir/s.h5";
  try {
    write_hdf5_snapshot(path, fx.md.mesh, *fx.ref, fx.xyz, fx.q, 0.0);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find(path), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("H5Fcreate"), std::string::npos) << e.message();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(dir.count_tmp(), 0);  // no temporary file left (they end in ".tmp")
}
