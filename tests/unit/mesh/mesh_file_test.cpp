// load_mesh_file: the checks made before any reading, and the dispatch, in every build (with or
// without Gmsh).
#include "solver/mesh/mesh_file.hpp"

#include <gtest/gtest.h>

#include "expect_user_error.hpp"
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>

#include "dgmax/config.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

namespace fs = std::filesystem;

std::string data(const std::string& name) { return std::string(DGMAX_TEST_DATA_DIR) + "/" + name; }

using test::expect_user_error;

// A scratch directory removed at the end of the test.
class MeshFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dgmax_mesh_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_ / "locked.msh", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  std::string touch(const std::string& name, const std::string& content = "$MeshFormat\n") {
    const fs::path p = dir_ / name;
    std::ofstream(p) << content;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(MeshFileTest, UnknownExtensionListsSupportedOnes) {
  const std::string stl = touch("part.stl");
  const UserError e = expect_user_error([&] { load_mesh_file(stl); },
                                        {stl, "unsupported extension '.stl'", ".msh", ".geo"});
  EXPECT_FALSE(e.hint().empty());
  // Checked before existence: a typo in the extension is reported as such.
  expect_user_error([] { load_mesh_file("/no/such/dir/mesh.mhs"); },
                    {"unsupported extension '.mhs'", ".msh", ".geo"});
  expect_user_error([&] { load_mesh_file(touch("mesh")); }, {"has no extension", ".msh", ".geo"});
}

TEST_F(MeshFileTest, NonexistentFileNamesThePath) {
  const std::string missing = (dir_ / "missing.msh").string();
  expect_user_error([&] { load_mesh_file(missing); }, {missing, "does not exist"});
  const UserError e = expect_user_error([] { load_mesh_file("/no/such/dir/cube.geo"); },
                                        {"/no/such/dir/cube.geo", "does not exist"});
  EXPECT_NE(e.hint().find("/no/such/dir"), std::string::npos) << e.hint();
  expect_user_error([] { load_mesh_file(""); }, {"empty"});
}

TEST_F(MeshFileTest, DirectoryIsNotAMeshFile) {
  const fs::path d = dir_ / "folder.msh";
  fs::create_directories(d);
  expect_user_error([&] { load_mesh_file(d.string()); }, {d.string(), "is a directory"});
}

// A FIFO or a device is refused before it is opened: opening a FIFO no one writes to would block
// the run beyond any Ctrl-C or SIGTERM, and /dev/zero would never end.
TEST_F(MeshFileTest, AFifoOrADeviceIsNotAMeshFile) {
  const fs::path fifo = dir_ / "pipe.msh", device = dir_ / "zero.msh";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", device);
  expect_user_error([&] { load_mesh_file(fifo.string()); }, {fifo.string(), "is not a regular file but a FIFO"});
  expect_user_error([&] { load_mesh_file(device.string()); }, {device.string(), "is not a regular file but a device"});
}

TEST_F(MeshFileTest, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root, which reads any file: no unreadable file can be made (run as a user to check)";
  const std::string locked = touch("locked.msh");
  fs::permissions(locked, fs::perms::none);
  expect_user_error([&] { load_mesh_file(locked); }, {locked, "cannot be read"});
}

TEST_F(MeshFileTest, RejectsNegativeSize) {
  expect_user_error([] { load_mesh_file(data("two_tets_v2.msh"), -0.1); }, {"size"});
}

TEST_F(MeshFileTest, RequireReadableFile) {
  EXPECT_NO_THROW(require_readable_file(data("two_tets_v2.msh")));
  expect_user_error([&] { require_readable_file((dir_ / "x.yaml").string(), "config file"); },
                    {"config file '", "x.yaml' does not exist"});
}

// A .msh is read without Gmsh (msh_reader.hpp) in every build.
TEST_F(MeshFileTest, ReadsMshInEveryBuild) {
  const Mesh m = load_mesh_file(data("two_tets_v2.msh"));
  EXPECT_EQ(m.num_elements(), 2);
  EXPECT_EQ(m.num_vertices(), 5);
  EXPECT_EQ(m.source, data("two_tets_v2.msh"));
  EXPECT_EQ(load_mesh_file(data("cube_v4_binary.msh")).num_elements(), 101);
}

#if !DGMAX_HAS_GMSH
TEST_F(MeshFileTest, GeoWithoutGmshSaysSo) {
  const std::string geo = std::string(DGMAX_SOURCE_DIR) + "/meshes/cube.geo";
  const UserError e = expect_user_error([&] { load_mesh_file(geo); }, {"cube.geo", "needs Gmsh", "no Gmsh support"});
  EXPECT_NE(e.hint().find("DGMAX_USE_GMSH=ON"), std::string::npos) << e.hint();
  EXPECT_NE(e.hint().find("box:"), std::string::npos) << e.hint();
  EXPECT_NE(e.hint().find("gmsh -3"), std::string::npos) << e.hint();
}
#endif

}  // namespace
}  // namespace dgmax
