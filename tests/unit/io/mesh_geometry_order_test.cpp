// mesh.geometry_order: parsed as 1..10 or auto (auto follows discretization.order, capped at 10,
// for a .geo, and is the file's own order for a .msh), refused out of range and with a box, and
// a .msh whose order differs from it is refused when the mesh is loaded.
#include <gtest/gtest.h>

#include <string>

#include "expect_user_error.hpp"
#include "solver/io/mesh_spec.hpp"
#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"

namespace dgmax {
namespace {

using test::expect_hinted_user_error;

MeshSpec spec_of(const std::string& mesh_yaml) {
  const YamlDoc doc = YamlDoc::load_string("mesh: " + mesh_yaml + "\n", "c.yaml");
  return parse_mesh_spec(doc, doc.root()["mesh"]);
}

RunConfig config_of(const std::string& mesh_yaml, int order) {
  return parse_run_config(YamlDoc::load_string(
      "mesh: " + mesh_yaml + "\ndiscretization: {order: " + std::to_string(order) + "}\ntime: {final: 0.1}\n", "c.yaml"));
}

TEST(MeshGeometryOrder, IntegersAndAuto) {
  EXPECT_EQ(spec_of("{file: m.geo}").geometry_order, 0);
  EXPECT_EQ(spec_of("{file: m.geo, geometry_order: 3}").geometry_order, 3);
  EXPECT_EQ(spec_of("{file: m.geo, geometry_order: 10}").geometry_order, 10);
  const MeshSpec a = spec_of("{file: m.geo, geometry_order: auto}");
  EXPECT_TRUE(a.geometry_order_auto);
  // auto: N for a .geo (capped at 10), the file's own (0) for a .msh
  EXPECT_EQ(config_of("{file: m.geo, geometry_order: auto}", 5).mesh.geometry_order, 5);
  EXPECT_EQ(config_of("{file: m.geo, geometry_order: auto}", 13).mesh.geometry_order, 10);
  EXPECT_EQ(config_of("{file: m.MSH, geometry_order: auto}", 5).mesh.geometry_order, 0);
  EXPECT_FALSE(config_of("{file: m.geo, geometry_order: auto}", 5).mesh.geometry_order_auto);
  EXPECT_EQ(config_of("{file: m.geo, geometry_order: 2}", 5).mesh.geometry_order, 2);
}

TEST(MeshGeometryOrder, RefusedOutOfRangeAndWithABox) {
  for (const char* bad : {"0", "11", "-2"}) {
    const UserError e = expect_hinted_user_error([&] { spec_of(std::string("{file: m.geo, geometry_order: ") + bad + "}"); },
                                                 {"'mesh.geometry_order' must be between 1 and 10", bad});
    EXPECT_EQ(e.where().file, "c.yaml");
    EXPECT_EQ(e.where().line, 1);
  }
  expect_hinted_user_error([] { spec_of("{file: m.geo, geometry_order: two}"); }, {"mesh.geometry_order"});
  expect_hinted_user_error([] { spec_of("{box: {cells: [1, 1, 1]}, geometry_order: 2}"); },
                           {"'mesh.geometry_order' applies to mesh files"});
}

TEST(MeshGeometryOrder, MshOfAnotherOrderIsRefusedWhenLoaded) {
  const std::string msh = std::string(DGMAX_TEST_DATA_DIR) + "/second_order_tets.msh";
  MeshSpec spec = spec_of("{file: " + msh + ", geometry_order: 4}");
  expect_hinted_user_error([&] { load_mesh(spec); }, {"mesh.geometry_order is 4", "elements of order 2"});
  spec.geometry_order = 2;
  EXPECT_EQ(load_mesh(spec).mesh.geometry_order, 2);
}

}  // namespace
}  // namespace dgmax
