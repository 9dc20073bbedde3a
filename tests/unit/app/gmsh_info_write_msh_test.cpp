// `dgmax info --write-msh FILE`: the mesh of a .geo written as dgmax made it (its geometry order,
// its curved nodes placed), read back by `dgmax info` without meshing; and the refusals: a .msh or
// box input, a refinement, no temporary directory, a target that is not a regular file (left as it
// was).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "run_cli.hpp"
#include "temp_path.hpp"

using dgmax::test::run_dgmax;

namespace {

std::string config(const std::string& dir, int q) {
  const std::string path = dir + "/cylinder.yaml";
  std::ofstream(path) << "mesh:\n  file: " << DGMAX_SOURCE_DIR << "/meshes/cylinder.geo\n  size: 0.5\n"
                      << "  geometry_order: " << q << "\n"
                      << "discretization: {order: 3}\n";
  return path;
}

std::string line_with(const std::string& text, const std::string& start) {
  std::smatch m;
  const std::regex re("(^|\n)(" + start + "[^\n]*)");
  return std::regex_search(text, m, re) ? m[2].str() : "";
}

}  // namespace

TEST(InfoWriteMsh, TheWrittenMeshIsWhatTheGeoGave) {
  const std::string dir = dgmax::test::unique_temp_dir("info_write_msh");
  const std::string out = dir + "/cylinder_q3.msh";
  const auto made = run_dgmax("info " + config(dir, 3) + " --write-msh " + out);
  ASSERT_EQ(made.code, 0) << made.err;
  EXPECT_NE(made.out.find("high-order nodes  placed from the curved surfaces"), std::string::npos) << made.out;
  ASSERT_TRUE(std::filesystem::is_regular_file(out));
  const auto back = run_dgmax("info " + out + " -N 3");
  ASSERT_EQ(back.code, 0) << back.err;
  for (const char* key : {"elements", "geometry order", "scaled Jacobian", "volume tags"}) {
    EXPECT_FALSE(line_with(made.out, key).empty()) << key << "\n" << made.out;
    EXPECT_EQ(line_with(made.out, key), line_with(back.out, key)) << key;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir))  // no temporary file left
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(InfoWriteMsh, RefusesWhatItCannotWrite) {
  const std::string dir = dgmax::test::unique_temp_dir("info_write_msh_refusals");
  const std::string cfg = config(dir, 2);
  struct Case {
    std::string args, message;
  };
  const std::string msh = std::string(DGMAX_SOURCE_DIR) + "/tests/data/cube_v4_binary.msh";
  for (const Case& c : {Case{"box:2 --write-msh " + dir + "/a.msh", "is a built-in box"},
                        Case{cfg + " --refine 1 --write-msh " + dir + "/b.msh", "before refinement"},
                        Case{"box:2 --refine 1 --write-msh " + dir + "/c.msh", "before refinement"}}) {
    const auto r = run_dgmax("info " + c.args);
    EXPECT_EQ(r.code, 1) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("hint:"), std::string::npos) << r.err;
  }
  {
    const auto r = run_dgmax("info " + msh + " --write-msh " + dir + "/d.msh");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("is a .msh already"), std::string::npos) << r.err;
  }
  {  // no place for Gmsh's file: one message, exit 1, nothing written
    const auto r = dgmax::test::run_dgmax_env("TMPDIR=" + dir + "/missing ", "info " + cfg + " --write-msh " + dir + "/e.msh");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("no temporary directory " + dir + "/missing"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("hint: set TMPDIR to a writable directory"), std::string::npos) << r.err;
  }
  // a symbolic link as the target: refused before meshing, the link and its target unchanged
  const std::string target = dir + "/target.txt", link = dir + "/link.msh";
  std::ofstream(target) << "keep me\n";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const auto r = run_dgmax("info " + cfg + " --write-msh " + link);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  std::ifstream in(target);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "keep me\n");
  for (const char* name : {"a.msh", "b.msh", "c.msh", "d.msh", "e.msh"}) EXPECT_FALSE(std::filesystem::exists(dir + "/" + name));
}
