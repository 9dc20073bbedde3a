// Corrupted and truncated .msh files, built at run time from the good ones in tests/data: the
// structural check (msh_check.hpp) and, with Gmsh, read_gmsh must answer each with one UserError
// that names the file (and the line where known), never an allocation failure or a crash.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dgmax/config.hpp"
#include "expect_user_error.hpp"
#include "solver/mesh/msh_check.hpp"
#include "solver/util/error.hpp"
#if DGMAX_HAS_GMSH
#include "solver/mesh/gmsh_reader.hpp"
#endif

namespace dgmax {
namespace {

using test::expect_user_error;
namespace fs = std::filesystem;

std::string data(const std::string& name) { return std::string(DGMAX_TEST_DATA_DIR) + "/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class MshCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dgmax_msh_check_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  // Both the check alone and the whole reader must give a UserError containing `words`.
  UserError expect_rejected(const std::string& path, std::initializer_list<std::string> words) {
    const UserError e = expect_user_error([&] { check_msh_structure(path); }, words);
    EXPECT_EQ(e.where().file, path) << e.render();
#if DGMAX_HAS_GMSH
    expect_user_error([&] { read_gmsh(path); }, words);
#endif
    return e;
  }
  fs::path dir_;
};

// Offset of the first byte after `header` ("$Nodes\n") in `bytes`.
size_t after(const std::string& bytes, const std::string& header) {
  const size_t at = bytes.find(header);
  EXPECT_NE(at, std::string::npos) << header;
  return at + header.size();
}

std::string with_u64(std::string bytes, size_t at, uint64_t v) {
  std::memcpy(bytes.data() + at, &v, 8);
  return bytes;
}

// Replaces the text line starting at `at` by `line`.
std::string with_line(std::string bytes, size_t at, const std::string& line) {
  return bytes.replace(at, bytes.find('\n', at) - at, line);
}

TEST_F(MshCheck, GoodFilesPass) {
  for (const char* name :
       {"two_tets_v2.msh", "two_tets_v4.msh", "cube_v2_binary.msh", "cube_v4_binary.msh",
        "unnamed_groups.msh", "hexahedra.msh", "mixed_tet_prism.msh", "second_order_tets.msh",
        "surface_only.msh", "empty.msh", "hanging_node.msh", "two_volume_groups.msh"})
    EXPECT_NO_THROW(check_msh_structure(data(name))) << name;
  EXPECT_NO_THROW(check_msh_structure(std::string(DGMAX_SOURCE_DIR) + "/meshes/cube_coarse.msh"));
}

TEST_F(MshCheck, HugeCountsInBinaryV4) {
  const std::string good = slurp(data("cube_v4_binary.msh"));
  struct Case {
    const char* section;
    int field;  // which size_t of the section header
    const char* items;
  };
  for (const Case& c : {Case{"$Entities\n", 0, "points"}, Case{"$Entities\n", 3, "volumes"},
                        Case{"$Nodes\n", 0, "entity blocks"}, Case{"$Nodes\n", 1, "nodes"},
                        Case{"$Elements\n", 0, "entity blocks"}, Case{"$Elements\n", 1, "elements"}}) {
    const std::string path = write("v4.msh", with_u64(good, after(good, c.section) + 8 * c.field, 0xffffffffu));
    const UserError e = expect_rejected(
        path, {"is corrupt", std::string(c.section, std::strlen(c.section) - 1),
               "declares 4294967295 " + std::string(c.items), "room for at most"});
    EXPECT_GT(e.where().line, 1) << e.render();
  }
}

TEST_F(MshCheck, HugeCountsInBinaryV2) {
  const std::string good = slurp(data("cube_v2_binary.msh"));
  for (const char* section : {"$Nodes\n", "$Elements\n"}) {
    const std::string path = write("v2.msh", with_line(good, after(good, section), "4294967295"));
    expect_rejected(path, {"is corrupt", "declares 4294967295", "room for at most"});
  }
  // a negative count (Gmsh reads it as an int and finds "no elements")
  const std::string path = write("v2.msh", with_line(good, after(good, "$Elements\n"), "-1"));
  expect_rejected(path, {"is corrupt", "negative"});
}

TEST_F(MshCheck, HugeCountInAsciiPointsAtTheLine) {
  const std::string good = slurp(data("two_tets_v2.msh"));
  const size_t at = after(good, "$Elements\n");
  const std::string path = write("ascii.msh", with_line(good, at, "4294967295"));
  const UserError e = expect_rejected(path, {"declares 4294967295 elements", "room for at most"});
  EXPECT_EQ(e.where().line, 1 + std::count(good.begin(), good.begin() + at, '\n'));
  EXPECT_EQ(e.where().snippet, "4294967295");
}

TEST_F(MshCheck, MalformedPhysicalName) {  // Gmsh read on into the next line and crashed
  const std::string good = slurp(data("two_tets_v4.msh"));
  const std::string path = write("names.msh", with_line(good, after(good, "$PhysicalNames\n2\n"), "29999999999"));
  expect_rejected(path, {"is corrupt", "$PhysicalNames", "not a physical name"});
}

TEST_F(MshCheck, TruncatedFilesSayTruncated) {
  expect_rejected(data("truncated.msh"), {"truncated.msh", "is truncated", "$Nodes", "$EndNodes"});
  const std::string good = slurp(data("two_tets_v2.msh"));
  // cut between two sections: Gmsh alone sees a valid mesh with no elements
  const std::string between = write("cut.msh", good.substr(0, good.find("$Elements")));
  expect_rejected(between, {"no $Elements section", "truncated"});
}

// Every cut of every good file gives a UserError (truncated or corrupt), never anything else.
TEST_F(MshCheck, EveryTruncationIsAUserError) {
  for (const char* name : {"two_tets_v2.msh", "two_tets_v4.msh", "cube_v2_binary.msh", "cube_v4_binary.msh"}) {
    const std::string good = slurp(data(name));
    const size_t end = good.rfind("$EndElements");
    for (size_t cut = good.find("$EndMeshFormat") + 1; cut < end; cut += 13) {
      const std::string path = write("cut.msh", good.substr(0, cut));
      SCOPED_TRACE(std::string(name) + " cut at " + std::to_string(cut));
      expect_user_error([&] { check_msh_structure(path); });
    }
  }
}

#if DGMAX_HAS_GMSH
// Overwrites each aligned 4 bytes of the binary meshes with 0xffffffff: whatever Gmsh or the
// check make of it, the reader ends in a Mesh or a UserError (before the check: std::bad_alloc,
// std::length_error "vector larger than max_size()", or "-1 elements").
TEST_F(MshCheck, CorruptedBinaryWordsNeverEscapeAsOtherErrors) {
  for (const char* name : {"cube_v4_binary.msh", "cube_v2_binary.msh"}) {
    const std::string good = slurp(data(name));
    for (size_t at = good.find("$EndMeshFormat"); at + 4 < good.size(); at += 12) {
      std::string bad = good;
      std::memset(bad.data() + at, 0xff, 4);
      const std::string path = write("fuzz.msh", bad);
      try {
        read_gmsh(path);
      } catch (const UserError&) {
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " with 0xffffffff at byte " << at << ": " << e.what();
      }
    }
  }
}
#endif

}  // namespace
}  // namespace dgmax
