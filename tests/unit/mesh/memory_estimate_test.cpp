// Memory estimates refuse meshes too large for the machine before building them, with numbers
// and a location. DGMAX_MEMORY_AVAILABLE stands in for MemAvailable.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <string>

#include "dgmax/config.hpp"
#include "expect_user_error.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/curved_geometry.hpp"
#include "solver/mesh/memory_estimate.hpp"
#include "solver/mesh/mesh_setup.hpp"
#if DGMAX_HAS_GMSH
#include "solver/mesh/gmsh_reader.hpp"
#endif

namespace dgmax {
namespace {

using test::expect_user_error;

// Sets DGMAX_MEMORY_AVAILABLE for one scope.
struct AvailableMemory {
  explicit AvailableMemory(const char* bytes) { ::setenv("DGMAX_MEMORY_AVAILABLE", bytes, 1); }
  ~AvailableMemory() { ::unsetenv("DGMAX_MEMORY_AVAILABLE"); }
};

TEST(MemoryEstimate, ReadsMemAvailableOrTheOverride) {
  EXPECT_GT(available_host_bytes(), 0);  // Linux has /proc/meminfo
  {
    const AvailableMemory m("2.5e9");
    EXPECT_EQ(available_host_bytes(), 2.5e9);
  }
  const AvailableMemory bad("lots");
  const UserError e = test::expect_hinted_user_error([] { available_host_bytes(); },
                                                     {"DGMAX_MEMORY_AVAILABLE='lots'", "not a number of bytes"});
  EXPECT_NE(e.hint().find("DGMAX_MEMORY_AVAILABLE=8e9"), std::string::npos) << e.render();
}

// A curved element's operators and factors at N = q = 4 (145 volume points, 42 per face): about
// 74 KB, just above the 72.7 KB per element (2.2 KB of it any element's) measured on an all-curved
// box on a GPU host; Np² dominates, so N = 6 needs several times more.
TEST(MemoryEstimate, CurvedElementsCountTheirOperators) {
  const std::array<int, 2> points = curved_rule_points(4, 4);
  EXPECT_EQ(points[0], 145);
  EXPECT_EQ(points[1], 42);
  const double b4 = curved_host_bytes_per_element(4, 4);
  EXPECT_GT(b4, 72.7e3 - 2.2e3);
  EXPECT_LT(b4, 1.2 * 72.7e3);
  EXPECT_GT(curved_host_bytes_per_element(6, 6), 3 * b4);
}

TEST(MemoryEstimate, FormatsAndGrowsWithOrder) {
  EXPECT_EQ(format_bytes(320), "320 B");
  EXPECT_EQ(format_bytes(1.5e9), "1.5 GB");
  EXPECT_EQ(format_bytes(96e9), "96 GB");
  EXPECT_EQ(format_bytes(1.25e31), "1.25e+16 PB");
  EXPECT_LT(run_host_bytes_per_element(1), run_host_bytes_per_element(3));
  EXPECT_GE(run_host_bytes_per_element(1), kMinRunBytesPerElement);
}

TEST(MemoryEstimate, HugeBoxIsRefusedBeforeBuildingWithItsLocation) {
  const AvailableMemory m("16e9");
  BoxSpec spec;
  spec.cells = {200, 200, 200};
  spec.where = {"run.yaml", 3, 30};
  const UserError e = expect_user_error([&] { make_box_mesh(spec); },
                                        {"box mesh 200 x 200 x 200", "48000000 elements",
                                         "needs about 96 GB", "only 16 GB is available"});
  EXPECT_EQ(e.where().file, "run.yaml");
  EXPECT_EQ(e.where().line, 3);
  spec.cells = {20, 20, 20};  // 48,000 elements: fine
  EXPECT_EQ(make_box_mesh(spec).num_elements(), 48000);
}

TEST(MemoryEstimate, RefinementIsCheckedBeforeRefining) {
  BoxSpec spec;
  spec.cells = {10, 10, 10};  // 6,000 elements, ×8^6 = 1.6e9 after 6 refinements
  const AvailableMemory m("1e9");
  expect_user_error([&] { setup_mesh(make_box_mesh(spec), 6); },
                    {"refined 6 times", "1572864000 elements", "available"});
}

#if DGMAX_HAS_GMSH
TEST(MemoryEstimate, TinyGeoSizeIsRefusedBeforeMeshing) {
  const std::string cube = std::string(DGMAX_SOURCE_DIR) + "/meshes/cube.geo";
  const UserError e = expect_user_error([&] { read_gmsh(cube, 1e-9); },
                                        {"cube.geo", "size 1e-09", "elements", "available"});
  EXPECT_EQ(e.where().file, cube);
  const AvailableMemory m("1e9");  // 0.05: about 40,000 elements, fine
  EXPECT_GT(read_gmsh(cube, 0.2).num_elements(), 0);
}
#endif

}  // namespace
}  // namespace dgmax
