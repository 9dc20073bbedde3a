// read_msh: .msh files read without Gmsh. In every build: hand-written MSH 4.1 and 2.2 files with
// known content, the same model written here in all four formats (and big-endian binary), the
// meshes of tests/data, and bad inputs (each message names the file). With Gmsh
// (DGMAX_HAS_GMSH): read_msh gives exactly read_gmsh's Mesh (vertices bit for bit) for the
// meshes/*.geo meshes written by Gmsh in MSH 4.1 and 2.2, ASCII and binary, for tests/data and
// for the hand-written files.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <clocale>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "same_mesh.hpp"
#include "dgmax/config.hpp"
#include "expect_user_error.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/mesh/msh_reader.hpp"
#include "solver/util/error.hpp"
#include "msh_writer.hpp"
#include "temp_path.hpp"
#if DGMAX_HAS_GMSH
#include <gmsh.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "solver/mesh/gmsh_reader.hpp"
#endif

namespace dgmax {
namespace {

using test::expect_user_error;
using test::Model;
using test::msh22;
using test::msh41;
namespace fs = std::filesystem;

std::string data(const std::string& name) { return std::string(DGMAX_TEST_DATA_DIR) + "/" + name; }
std::string meshes(const std::string& name) { return std::string(DGMAX_SOURCE_DIR) + "/meshes/" + name; }

class MshReader : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::unique_temp_dir("dgmax_msh_reader_test"); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string path = dir_ + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string dir_;
};

// ---- hand-written files --------------------------------------------------------------------

// Sparse node tags (node 60 used by no tet), an unnamed-free MSH 4.1: a named volume, an
// untagged one, a physical surface with two triangles, one without any (listed all the same), a
// surface in no group (ignored), coordinates that need correct rounding.
const char* kV41 = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
3
2 4 "walls"
3 7 "domain"
2 9 "empty"
$EndPhysicalNames
$Entities
0 0 3 2
1 0 0 0 1 1 1 1 4 0
2 0 0 0 1 1 1 1 9 0
3 0 0 0 1 1 1 0 0
1 0 0 0 1 1 1 1 7 0
2 0 0 0 1 1 1 0 0
$EndEntities
$Nodes
2 6 10 60
3 1 0 5
10
20
30
40
50
0.1 0.2 0.30000000000000004
1 0 0
0 1e-3 0
0 0 -2.5e+2
1 1 1
2 1 0 1
60
5 5 5
$EndNodes
$Elements
4 5 1 5
2 1 2 2
1 10 20 30
2 10 20 40
2 3 2 1
3 10 30 40
3 1 4 1
4 10 20 30 40
3 2 4 1
5 20 30 40 50
$EndElements
)";

TEST_F(MshReader, HandWrittenMsh41Ascii) {
  const std::string path = write("v41.msh", kV41);
  const Mesh m = read_msh(path);
  EXPECT_EQ(m.source, path);
  ASSERT_EQ(m.num_vertices(), 5);  // node 60 is no tet's
  EXPECT_EQ(m.vertices[0], (Vec3{0.1, 0.2, 0.30000000000000004}));
  EXPECT_EQ(m.vertices[2], (Vec3{0, 1e-3, 0}));
  EXPECT_EQ(m.vertices[3], (Vec3{0, 0, -250}));
  EXPECT_EQ(m.vertices[4], (Vec3{1, 1, 1}));
  EXPECT_EQ(m.elements, (std::vector<std::array<int, 4>>{{0, 1, 2, 3}, {1, 2, 3, 4}}));
  EXPECT_EQ(m.volume_tag_names, (std::vector<std::string>{"domain", kUntaggedTag}));
  EXPECT_EQ(m.element_tag, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.boundary_tag_names, (std::vector<std::string>{"walls", "empty"}));
  EXPECT_EQ(test::tagged_faces_of(m), (std::vector<std::array<int, 4>>{{0, 1, 2, 0}, {0, 1, 3, 0}}));
  EXPECT_TRUE(m.periodic.empty());
}

// MSH 2.2 as Gmsh reads it: node tags out of order (99 unused), elements of an entity in
// increasing element tag, physical groups per elementary tag (element 4 has no physical tag
// but is in "walls" with the other triangles of elementary 10), a second group named "air"
// (MSH 2 skips a name already taken: physical_volume_5), the first of two names for a group
// wins, a triangle repeated (dropped), a line and a physical point (ignored).
const char* kV22 = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
4
3 2 "air"
3 5 "air"
2 1 "walls"
2 1 "second name"
$EndPhysicalNames
$Nodes
6
7 1 1 1
3 0 1 0
1 0 0 0
2 1 0 0
4 0 0 1
99 5 5 5
$EndNodes
$Elements
7
9 4 2 5 2 2 3 4 7
8 4 2 2 1 1 2 3 4
3 2 2 1 10 1 2 3
4 2 2 0 10 2 3 7
2 2 2 1 10 1 2 3
1 1 2 0 4 1 2
5 15 2 3 1 99
$EndElements
)";

TEST_F(MshReader, HandWrittenMsh22Ascii) {
  const std::string path = write("v22.msh", kV22);
  const Mesh m = read_msh(path);
  ASSERT_EQ(m.num_vertices(), 5);
  EXPECT_EQ(m.vertices, (std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}));
  EXPECT_EQ(m.elements, (std::vector<std::array<int, 4>>{{0, 1, 2, 3}, {1, 2, 3, 4}}));
  EXPECT_EQ(m.volume_tag_names, (std::vector<std::string>{"air", "physical_volume_5"}));
  EXPECT_EQ(m.element_tag, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.boundary_tag_names, std::vector<std::string>{"walls"});
  EXPECT_EQ(test::tagged_faces_of(m), (std::vector<std::array<int, 4>>{{0, 1, 2, 0}, {1, 2, 4, 0}}));
}

// Gmsh's rules for $PhysicalNames: a name for tag 0 goes to the next free tag (MSH 2: 1; MSH
// 4.1: one more than the largest physical tag read so far), a physical tag 0 in $Entities is a
// group like any other, a group without a name is physical_volume_<tag>.
TEST_F(MshReader, PhysicalNameRules) {
  std::string text = kV41;
  text.replace(text.find("3 7 \"domain\""), 12, "3 0 \"domain\"");  // before $Entities: tag 1
  text.replace(text.find("1 0 0 0 1 1 1 1 7 0\n2 0 0 0 1 1 1 0 0"), 37,
               "1 0 0 0 1 1 1 1 1 0\n2 0 0 0 1 1 1 1 0 0");
  const Mesh m = read_msh(write("names.msh", text));
  EXPECT_EQ(m.volume_tag_names, (std::vector<std::string>{"physical_volume_0", "domain"}));
  EXPECT_EQ(m.element_tag, (std::vector<int>{1, 0}));

  // MSH 4.1: two groups with one name share the tag
  std::string shared = kV41;
  shared.replace(shared.find("2 9 \"empty\""), 11, "2 9 \"walls\"");
  const Mesh s = read_msh(write("shared.msh", shared));
  EXPECT_EQ(s.boundary_tag_names, std::vector<std::string>{"walls"});
  EXPECT_EQ(test::tagged_faces_of(s), (std::vector<std::array<int, 4>>{{0, 1, 2, 0}, {0, 1, 3, 0}}));

  std::string v22 = kV22;
  v22.replace(v22.find("2 1 \"walls\""), 11, "2 0 \"walls\"");  // MSH 2: tag 0 names group 1
  v22.replace(v22.find("3 5 \"air\""), 9, "3 5 \"gas\"");
  const Mesh m2 = read_msh(write("names22.msh", v22));
  EXPECT_EQ(m2.boundary_tag_names, std::vector<std::string>{"walls"});
  EXPECT_EQ(m2.volume_tag_names, (std::vector<std::string>{"air", "gas"}));
  EXPECT_EQ(m2.element_tag, (std::vector<int>{0, 1}));
}

// ---- the same model in the four formats (written by tests/common/msh_writer.hpp) -------------

// Two tets on two volumes ("domain" and unnamed group 8), outer triangles in "walls" (6 on 3
// surfaces), the shared face in the unnamed surface group 11 ("interface" names another), a
// line; node tags not in order.
Model two_tets() {
  Model m;
  m.names = {{{2, 1}, "walls"}, {{3, 2}, "domain"}, {{2, 12}, "interface"}};
  m.entities = {{1, 1, {}}, {2, 1, {1}}, {2, 2, {1}}, {2, 3, {1, 11}}, {2, 4, {11}}, {3, 1, {2}}, {3, 2, {8}}};
  const Vec3 x[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  const long long t[5] = {5, 2, 30, 4, 1};  // node tags of x[0..4]
  for (int i = 0; i < 5; ++i) m.nodes.push_back({t[i], x[i], 3, i < 4 ? 1 : 2});
  m.elements = {{1, 1, 1, 1, {5, 2}},
                {2, 2, 2, 1, {5, 30, 2}}, {3, 2, 2, 1, {5, 2, 4}}, {4, 2, 2, 2, {5, 4, 30}},
                {5, 2, 2, 3, {2, 30, 1}}, {6, 2, 2, 3, {2, 1, 4}}, {7, 2, 2, 1, {30, 4, 1}},
                {8, 2, 2, 4, {2, 30, 4}},
                {9, 4, 3, 1, {5, 2, 30, 4}}, {10, 4, 3, 2, {2, 30, 4, 1}}};
  return m;
}

void expect_two_tets(const Mesh& m, const std::string& what) {
  // vertices in increasing node tag: 1 (1,1,1), 2, 4, 5, 30
  EXPECT_EQ(m.vertices, (std::vector<Vec3>{{1, 1, 1}, {1, 0, 0}, {0, 0, 1}, {0, 0, 0}, {0, 1, 0}})) << what;
  EXPECT_EQ(m.elements, (std::vector<std::array<int, 4>>{{3, 1, 4, 2}, {1, 4, 2, 0}})) << what;
  EXPECT_EQ(m.volume_tag_names, (std::vector<std::string>{"domain", "physical_volume_8"})) << what;
  EXPECT_EQ(m.element_tag, (std::vector<int>{0, 1})) << what;
  EXPECT_EQ(m.boundary_tag_names, (std::vector<std::string>{"walls", "physical_surface_11"})) << what;
  // walls: entities 1, 2, 3 in that order, elements in file order within each; group 11:
  // entity 3 (whose triangles are in both groups) then entity 4
  EXPECT_EQ(test::tagged_faces_of(m), (std::vector<std::array<int, 4>>{{3, 4, 1, 0}, {3, 1, 2, 0}, {4, 2, 0, 0}, {3, 2, 4, 0},
                                                          {1, 4, 0, 0}, {1, 0, 2, 0},
                                                          {1, 4, 0, 1}, {1, 0, 2, 1}, {1, 4, 2, 1}}))
      << what;
}

TEST_F(MshReader, SameModelInFourFormatsAndBothByteOrders) {
  const Model m = two_tets();
  for (const bool swap : {false, true})
    for (const bool binary : {false, true}) {
      if (swap && !binary) continue;
      const std::string suffix = std::string(binary ? "_bin" : "_ascii") + (swap ? "_swapped" : "");
      const std::string p41 = write("m41" + suffix + ".msh", msh41(m, binary, swap));
      const std::string p22 = write("m22" + suffix + ".msh", msh22(m, binary, swap));
      expect_two_tets(read_msh(p41), p41);
      expect_two_tets(read_msh(p22), p22);
    }
}

// ---- the meshes of tests/data, in every build ---------------------------------------------------

TEST_F(MshReader, TestDataMeshes) {
  for (const char* name : {"two_tets_v2.msh", "two_tets_v4.msh", "missing_group.msh"}) {
    const Mesh m = read_msh(data(name));
    EXPECT_EQ(m.num_vertices(), 5) << name;
    EXPECT_EQ(m.elements, (std::vector<std::array<int, 4>>{{0, 1, 2, 3}, {1, 2, 3, 4}})) << name;
    EXPECT_EQ(m.volume_tag_names, std::vector<std::string>{"domain"}) << name;
    EXPECT_EQ(m.boundary_tag_names, std::vector<std::string>{"walls"}) << name;
    EXPECT_EQ(m.tagged_faces.size(), 6u) << name;
    EXPECT_EQ(m.vertices[4], (Vec3{1, 1, 1})) << name;
  }
  const Mesh v2 = read_msh(data("cube_v2_binary.msh")), v4 = read_msh(data("cube_v4_binary.msh"));
  EXPECT_EQ(v2.num_vertices(), 45);  // see tests/data/README.md
  EXPECT_EQ(v2.num_elements(), 101);
  EXPECT_EQ(v2.tagged_faces.size(), 84u);
  EXPECT_EQ(v2.boundary_tag_names, (std::vector<std::string>{"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"}));
  EXPECT_EQ(v2.vertices, v4.vertices);
  EXPECT_EQ(v2.elements, v4.elements);
  const Mesh coarse = read_msh(meshes("cube_coarse.msh"));
  EXPECT_EQ(coarse.num_vertices(), 141);  // see meshes/README.md
  EXPECT_EQ(coarse.num_elements(), 390);
  EXPECT_EQ(coarse.tagged_faces.size(), 254u);
  const Mesh unnamed = read_msh(data("unnamed_groups.msh"));
  EXPECT_EQ(unnamed.volume_tag_names, (std::vector<std::string>{"physical_volume_7", kUntaggedTag}));
  EXPECT_EQ(unnamed.boundary_tag_names, (std::vector<std::string>{"physical_surface_3", "interface"}));
  EXPECT_EQ(unnamed.tagged_faces.size(), 4u);
  const Mesh dup = read_msh(data("duplicate_vertices.msh"));
  EXPECT_EQ(dup.num_vertices(), 8);
}

// load_mesh_file sends every .msh here, with or without Gmsh in the build.
TEST_F(MshReader, LoadMeshFileReadsMshInEveryBuild) {
  const std::string path = write("CAPS.MSH", kV41);
  const Mesh m = load_mesh_file(path, 0.5);  // the size is ignored for a .msh
  EXPECT_EQ(m.source, path);
  EXPECT_EQ(m.num_elements(), 2);
}

// ---- bad inputs: one UserError naming the file ------------------------------------------------

UserError expect_refused(const std::string& path, std::initializer_list<std::string> words) {
  const UserError e = test::expect_hinted_user_error([&] { read_msh(path); }, words);
  EXPECT_EQ(e.where().file, path) << e.render();
  EXPECT_NE(e.message().find(path), std::string::npos) << e.render();
  return e;
}

int line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

TEST_F(MshReader, UnknownNodeInAnElement) {
  // node 35 lies within $Nodes's tag range (check_msh_structure passes it) but is not defined
  std::string text = kV41;
  text.replace(text.find("5 20 30 40 50"), 13, "5 20 35 40 50");
  const UserError e = expect_refused(write("unknown_node.msh", text), {"is corrupt", "$Elements", "node 35", "does not define"});
  EXPECT_EQ(e.where().line, line_of(text, "5 20 35 40 50"));
  EXPECT_EQ(e.where().snippet, "5 20 35 40 50");
  EXPECT_EQ(e.where().column, 6);
  // binary: the byte offset of the node tag (node 4, within the tags 1..30 of $Nodes, undefined)
  Model m = two_tets();
  m.nodes.erase(m.nodes.begin() + 3);
  const std::string bin = msh41(m, true);
  const UserError b = expect_refused(write("unknown_node_bin.msh", bin), {"has an element on node 4", "(at byte "});
  EXPECT_EQ(b.where().line, line_of(bin, "$Elements"));
  const std::string v22 = msh22(m, true);
  expect_refused(write("unknown_node_bin22.msh", v22), {"has an element on node 4", "(at byte "});
}

TEST_F(MshReader, HexahedraAreListedWithTheirCounts) {
  const UserError e = expect_refused(data("hexahedra.msh"),
                                     {"contains 2 hexahedra (8-node)", "complete Lagrange tetrahedra of order 1..10"});
  EXPECT_NE(e.hint().find("Recombine"), std::string::npos) << e.hint();
  expect_refused(data("mixed_tet_prism.msh"), {"1 prism (6-node)", "besides 1 tetrahedron (4-node)"});
  // three kinds, in increasing MSH type, with their counts
  Model m = two_tets();
  m.entities.push_back({3, 5, {2}});
  for (long long t : {20LL, 21LL, 22LL, 23LL, 24LL, 25LL, 26LL, 27LL}) m.nodes.push_back({t, {t * 1.0, 0, 0}, 3, 5});
  m.elements.push_back({11, 7, 3, 5, {20, 21, 22, 23, 24}});
  m.elements.push_back({12, 5, 3, 5, {20, 21, 22, 23, 24, 25, 26, 27}});
  m.elements.push_back({13, 7, 3, 5, {20, 21, 22, 23, 25}});
  expect_refused(write("mixed.msh", msh41(m, false)),
                 {"contains 1 hexahedron (8-node) and 2 pyramids (5-node) (besides 2 tetrahedra (4-node))"});
}

TEST_F(MshReader, PhysicalSurfaceWithOtherElements) {
  // a line on the surface of "walls" (MSH 4.1 allows a block of any type on a surface entity)
  std::string text = kV41;
  text.replace(text.find("4 5 1 5\n"), 8, "5 6 1 6\n");
  text.replace(text.find("$EndElements"), 0, "2 1 1 1\n6 10 20\n");
  expect_refused(write("line_in_surface.msh", text),
                 {"physical surface 'walls' contains 1 line (2-node)", "triangles (3-node) on tagged surfaces"});
  // quadrangles and 6-node triangles (MSH 2)
  Model m = two_tets();
  m.nodes.push_back({40, {5, 5, 5}, 3, 2});
  m.elements.push_back({20, 3, 2, 2, {5, 2, 1, 40}});
  m.elements.push_back({21, 3, 2, 2, {5, 2, 1, 40}});
  expect_refused(write("quads.msh", msh22(m, false)),
                 {"physical surface 'walls' contains 2 quadrangles (4-node)", "triangles (3-node)"});
  // the same line on a surface in no physical group: no surface holds lines
  std::string untagged = kV41;
  untagged.replace(untagged.find("4 5 1 5\n"), 8, "5 6 1 6\n");
  untagged.replace(untagged.find("$EndElements"), 0, "2 3 1 1\n6 10 20\n");
  expect_refused(write("line_untagged.msh", untagged), {"is corrupt", "1 line (2-node) on the surface entity 3"});
}

TEST_F(MshReader, TruncatedFiles) {
  expect_refused(data("truncated.msh"), {"is truncated", "$EndNodes"});
  const std::string text = kV41;
  for (size_t cut = text.find("$EndMeshFormat"); cut < text.size() - 2; cut += 7) {
    const std::string path = write("cut.msh", text.substr(0, cut));
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_user_error([&] { read_msh(path); });
  }
  const std::string bin = msh41(two_tets(), true);
  for (size_t cut = bin.find("$EndMeshFormat"); cut < bin.size() - 2; cut += 5) {
    const std::string path = write("cut_bin.msh", bin.substr(0, cut));
    SCOPED_TRACE("binary cut at " + std::to_string(cut));
    const UserError e = expect_user_error([&] { read_msh(path); });
    EXPECT_EQ(e.where().file, path);
  }
}

TEST_F(MshReader, GmshRefusalsAndOtherCorruptValues) {
  expect_refused(data("empty.msh"), {"is empty", "no nodes"});
  expect_refused(data("garbage.msh"), {"not a Gmsh .msh file", "$MeshFormat"});
  expect_refused(data("surface_only.msh"), {"no volume elements", "4 triangles (3-node)"});
  expect_refused(data("two_volume_groups.msh"), {"volume entity 1 (2 tetrahedra (4-node)) is in several physical volumes", "'domain'", "'all'"});

  const std::string v41 = kV41, v22 = kV22;
  struct Case {
    std::string from, to;
    bool msh2;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases = {
      {"40\n50\n", "40\n30\n", false, {"defines the node tag 30 twice"}},
      {"4 0 0 1\n", "3 0 0 1\n", true, {"defines the node tag 3 twice"}},
      {"3 10 30 40\n", "2 10 30 40\n", false, {"has the element tag 2 twice"}},
      {"4 2 2 0 10 2 3 7", "9 2 2 0 10 2 3 7", true, {"has the element tag 9 twice"}},
      {"3 1 4 1\n4", "3 5 4 1\n4", false, {"volume entity 5, which neither $Entities nor $Nodes declares"}},
      {"2 3 2 1\n", "3 2 2 1\n", false, {"1 triangle (3-node) on the volume entity 2", "dimension 2"}},
      {"8 4 2 2 1 ", "8 4 2 2 -1 ", true, {"negative elementary tag -1"}},
      {"3 2 2 1 10 ", "3 2 2 -1 10 ", true, {"negative physical tag -1"}},
      {"1 0 0 0 1 1 1 1 7 0", "1 0 0 0 1 1 1 1 -7 0", false, {"negative physical tag -7"}},
      {"1 0 0 0 1 1 1 1 7 0", "1 0 0 0 1 1 1 1 7 1 4", false, {"bounded by the surface entity 4, which it does not declare"}},
      {"5 20 30 40 50\n", "5 20 30 40 50 60\n", false, {"holds more data than its counts say ('60' and on)"}},
      {"3 1 4 1\n", "3 1 4 1 x\n", false, {"an element tag should be"}},
      {"1 10 20 30\n2 10 20 40\n", "1 10 20 60\n2 10 20 40\n", false,
       {"physical surface 'walls' has a triangle (element 1) whose node 60 belongs to no tetrahedron"}},
  };
  for (const Case& c : cases) {
    std::string text = c.msh2 ? v22 : v41;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    const std::string path = write("corrupt.msh", text);
    SCOPED_TRACE(c.to);
    const UserError e = test::expect_hinted_user_error([&] { read_msh(path); }, {path});
    for (const std::string& w : c.words) EXPECT_NE(e.message().find(w), std::string::npos) << e.render();
    EXPECT_EQ(e.where().file, path) << e.render();
  }
}

// Overwrites each aligned 4 bytes of the binary meshes: a Mesh or a UserError, nothing else.
TEST_F(MshReader, CorruptedBinaryWordsAreUserErrors) {
  for (const std::string& good : {msh41(two_tets(), true), msh22(two_tets(), true)}) {
    for (size_t at = good.find("$EndMeshFormat"); at + 4 < good.size(); at += 4)
      for (const std::uint32_t word : {0xffffffffu, 0u, 7u}) {
        std::string bad = good;
        std::memcpy(bad.data() + at, &word, 4);
        const std::string path = write("words.msh", bad);
        try {
          read_msh(path);
        } catch (const UserError& e) {
          EXPECT_EQ(e.where().file, path);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "word " << word << " at byte " << at << ": " << e.what();
        }
      }
  }
}

// ---- with Gmsh: exactly read_gmsh's Mesh ----------------------------------------------------------
#if DGMAX_HAS_GMSH

// Meshes `geo` with the Gmsh SDK at its own sizes and writes it as `out`_<version>_<binary>_<saveall>.msh
// in MSH 4.1 and 2.2, ASCII and binary, with and without Mesh.SaveAll; returns the paths.
std::vector<std::string> write_with_gmsh(const std::string& geo, const std::string& out) {
  const std::string locale = std::setlocale(LC_ALL, nullptr);
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
#endif
  std::vector<std::string> paths;
  gmsh::initialize(0, nullptr, false);
  std::setlocale(LC_NUMERIC, "C");
  gmsh::option::setNumber("General.Terminal", 0);
  gmsh::open(geo);
  gmsh::model::mesh::generate(3);
  for (const double version : {4.1, 2.2})
    for (const int binary : {0, 1})
      for (const int save_all : {0, 1}) {
        gmsh::option::setNumber("Mesh.MshFileVersion", version);
        gmsh::option::setNumber("Mesh.Binary", binary);
        gmsh::option::setNumber("Mesh.SaveAll", save_all);
        paths.push_back(out + (version > 3 ? "_msh41" : "_msh22") + (binary ? "_bin" : "_ascii") +
                        (save_all ? "_all" : "") + ".msh");
        gmsh::write(paths.back());
      }
  gmsh::finalize();
  std::setlocale(LC_ALL, locale.c_str());
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  return paths;
}

TEST_F(MshReader, SameMeshAsGmshForTheGeoMeshesInFourFormats) {
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(std::string(DGMAX_SOURCE_DIR) + "/meshes")) {
    if (entry.path().extension() != ".geo") continue;
    const std::string name = entry.path().stem().string();
    const std::vector<std::string> paths = write_with_gmsh(entry.path().string(), dir_ + name);
    ASSERT_EQ(paths.size(), 8u);
    for (const std::string& path : paths) {
      const Mesh expected = read_gmsh(path);
      EXPECT_GT(expected.num_elements(), 500) << path;
      test::expect_same_mesh(read_msh(path), expected, path);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 8 * 6);  // cube, cylinder, slab, sphere_in_box, sphere_rcs, sphere_rcs_pec
}

// Gmsh reads the same Mesh from each tests/data file, or refuses it with the same message.
TEST_F(MshReader, SameAsGmshForTestData) {
  int files = 0;
  std::vector<std::string> paths = {meshes("cube_coarse.msh")};
  for (const auto& entry : fs::directory_iterator(DGMAX_TEST_DATA_DIR))
    if (entry.path().extension() == ".msh") paths.push_back(entry.path().string());
  for (const std::string& path : paths) {
    std::string ours, theirs;
    Mesh a, b;
    try {
      a = read_msh(path);
    } catch (const UserError& e) {
      ours = e.message();
    }
    try {
      b = read_gmsh(path);
    } catch (const UserError& e) {
      theirs = e.message();
    }
    EXPECT_EQ(ours, theirs) << path;
    if (ours.empty() && theirs.empty()) test::expect_same_mesh(a, b, path);
    ++files;
  }
  EXPECT_GE(files, 20);
}

TEST_F(MshReader, SameAsGmshForTheHandWrittenFiles) {
  std::string names = kV41;  // PhysicalNameRules's file
  names.replace(names.find("3 7 \"domain\""), 12, "3 0 \"domain\"");
  names.replace(names.find("1 0 0 0 1 1 1 1 7 0\n2 0 0 0 1 1 1 0 0"), 37, "1 0 0 0 1 1 1 1 1 0\n2 0 0 0 1 1 1 1 0 0");
  std::string shared = kV41;
  shared.replace(shared.find("2 9 \"empty\""), 11, "2 9 \"walls\"");
  std::vector<std::string> paths = {write("v41.msh", kV41), write("v22.msh", kV22), write("names.msh", names),
                                    write("shared.msh", shared)};
  const Model m = two_tets();
  for (const bool binary : {false, true}) {
    paths.push_back(write(std::string("m41_") + (binary ? "bin" : "ascii") + ".msh", msh41(m, binary)));
    paths.push_back(write(std::string("m22_") + (binary ? "bin" : "ascii") + ".msh", msh22(m, binary)));
  }
  for (const std::string& path : paths) test::expect_same_mesh(read_msh(path), read_gmsh(path), path);
}

#endif  // DGMAX_HAS_GMSH

}  // namespace
}  // namespace dgmax
