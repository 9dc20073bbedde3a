// The validation layer on the defective meshes of tests/data (read through Gmsh): each defect
// produces its own message naming the element or face, and `dgmax info` exits 1 with it.
#include <gtest/gtest.h>

#include <functional>

#include <fstream>
#include <nlohmann/json.hpp>

#include "temp_path.hpp"
#include "run_cli.hpp"
#include "solver/io/mesh_spec.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/mesh/mesh_setup.hpp"

using namespace dgmax;

namespace {

std::string data(const std::string& name) { return std::string(DGMAX_TEST_DATA_DIR) + "/" + name; }

std::string setup_error(const std::string& name) {
  try {
    setup_mesh(load_mesh_file(data(name)));
  } catch (const UserError& e) {
    return e.render();
  }
  return "(no error)";
}

}  // namespace

TEST(GmshValidate, InvertedElementIsReorientedAndCounted) {
  const MeshData md = setup_mesh(load_mesh_file(data("inverted_tet.msh")));
  EXPECT_EQ(md.reoriented, 1);
  EXPECT_EQ(md.conn.interior_faces, 1);
  EXPECT_NEAR(md.geom.volume(0) + md.geom.volume(1), 0.5, 1e-15);
}

TEST(GmshValidate, EachDefectHasItsMessage) {
  const std::pair<const char*, const char*> cases[] = {
      {"degenerate_tet.msh", "element 1 is degenerate"},
      {"three_tets_one_face.msh", "is shared by 3 elements (0, 1, 2)"},
      {"hanging_node.msh", "hanging nodes"},
      {"duplicate_vertices.msh", "merge duplicate vertices"},
  };
  for (const auto& [file, expected] : cases) {
    const std::string msg = setup_error(file);
    EXPECT_NE(msg.find(expected), std::string::npos) << file << ":\n" << msg;
    EXPECT_NE(msg.find(file), std::string::npos) << "the message names the file:\n" << msg;
  }
}

TEST(GmshValidate, InfoReportsMeshErrorsWithExitCode1) {
  for (const char* file : {"degenerate_tet.msh", "hexahedra.msh", "empty.msh", "garbage.msh"}) {
    const auto r = test::run_dgmax("info " + data(file));
    EXPECT_EQ(r.code, 1) << file << "\n" << r.err;
    EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "nothing on stdout for a failed run";
  }
}

TEST(GmshValidate, InfoOnShippedMeshes) {
  const std::string meshes = std::string(DGMAX_SOURCE_DIR) + "/meshes/";
  auto r = test::run_dgmax("info " + meshes + "cube_coarse.msh --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["elements"], 390);
  EXPECT_EQ(j["vertices"], 141);
  EXPECT_NEAR(j["volume"].get<double>(), 1.0, 1e-12);
  for (const char* tag : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"}) EXPECT_GT(j["boundary_tags"][tag].get<int>(), 0) << tag;
  EXPECT_EQ(j["volume_tags"]["domain"], 390);

  r = test::run_dgmax("info " + meshes + "sphere_in_box.geo --size 0.2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["volume"].get<double>(), 1.0, 1e-12);  // box volume: the sphere is carved from it
  const double sphere = 4.0 / 3.0 * M_PI * 0.25 * 0.25 * 0.25;
  // the sphere's polyhedral approximation at h = 0.2 is within 10% of the sphere (inscribed: smaller)
  const double vs = j["volume_tag_volumes"]["sphere"].get<double>();
  EXPECT_LT(vs, sphere);
  EXPECT_GT(vs, 0.9 * sphere);
  EXPECT_NEAR(j["volume_tag_volumes"]["air"].get<double>() + vs, 1.0, 1e-12);
  EXPECT_NEAR(j["boundary_tag_areas"]["outer"].get<double>(), 6.0, 1e-12);
}

TEST(GmshValidate, ConfigReferencingMissingGroup) {
  const std::string cfg = dgmax::test::unique_temp_dir("gmsh_validate") + "missing_group.yaml";
  std::ofstream(cfg) << "mesh: {file: " << data("missing_group.msh") << "}\nmaterials:\n  default: {eps: 1, mu: 1}\n  dielectric: {eps: 4, mu: 1}\n";
  const auto r = test::run_dgmax("info " + cfg);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing_group.yaml:4:3: error: volume tag 'dielectric' does not exist"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("volume tags: domain"), std::string::npos) << r.err;
}
