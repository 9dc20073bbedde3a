// `dgmax info --partition P [--partition-method ...]`: the partition's figures in the table and
// in the JSON form, checked against hand counts (plane cuts of a box), and bad requests.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "dgmax/config.hpp"
#include "run_cli.hpp"

using dgmax::test::run_dgmax;
using nlohmann::json;

namespace {

// A row of the table for one octant of the 16^3 box: 3072 elements, 384 ghosts and halo faces,
// 3 neighbours.
std::string fmt_row(int part) { return fmt::format("  {:<8}{:<12}{:<12}{:<12}{}\n", part, 3072, 384, 384, 3); }

}  // namespace

// The Hilbert curve splits the 4^3 box at x = 1/2 for two parts: 4x4 cell faces of two triangles.
TEST(InfoPartitionCli, JsonOfTwoSfcParts) {
  auto r = run_dgmax("info box:4,4,4 --partition 2 --partition-method sfc --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["elements"], 384);  // the rest of info is unchanged
  const json& p = j["partition"];
  EXPECT_EQ(p["parts"], 2);
  EXPECT_EQ(p["method"], "sfc");
  EXPECT_EQ(p["edge_cut"], 32);
  EXPECT_EQ(p["imbalance"].get<double>(), 1.0);
  EXPECT_EQ(p["elements"], json::array({192, 192}));
  EXPECT_EQ(p["ghosts"], json::array({32, 32}));
  EXPECT_EQ(p["halo_faces"], json::array({32, 32}));
  EXPECT_EQ(p["neighbours"], json::array({1, 1}));
  // without --partition there is no partition key
  r = run_dgmax("info box:4,4,4 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(json::parse(r.out).contains("partition"));
}

// Coordinate bisection of a 5x5x10 box (unit cube, thinnest cells in z) in two: the plane z = 1/2,
// 5x5 cell faces of two triangles; the Hilbert curve's halves of this box cut 237.
TEST(InfoPartitionCli, JsonOfTwoRcbParts) {
  auto r = run_dgmax("info box:5,5,10 --partition 2 --partition-method rcb --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const json& p = j["partition"];
  EXPECT_EQ(p["method"], "rcb");
  EXPECT_EQ(p["edge_cut"], 50);
  EXPECT_EQ(p["elements"], json::array({750, 750}));
  EXPECT_EQ(p["halo_faces"], json::array({50, 50}));
}

// Eight parts of the 16^3 box are its octants: three planes of 16x16 cell faces, two triangles each.
TEST(InfoPartitionCli, TableOfEightSfcParts) {
  auto r = run_dgmax("info box:16 --partition 8 --partition-method sfc");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("partition         8 parts (sfc): edge cut 1536 faces, imbalance 1.0000\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  part    elements    ghosts      halo faces  neighbours\n"), std::string::npos) << r.out;
  // every octant: 3072 elements, 3 faces of 8x8 cells toward 3 other octants
  for (int p = 0; p < 8; ++p)
    EXPECT_NE(r.out.find(fmt_row(p)), std::string::npos) << p << "\n" << r.out;
}

TEST(InfoPartitionCli, AutoMethodAndErrors) {
  auto r = run_dgmax("info box:2 --partition 3 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string method = json::parse(r.out)["partition"]["method"];
  if (DGMAX_HAS_METIS) {
    EXPECT_EQ(method, "metis");
  } else {
    EXPECT_TRUE(method == "rcb" || method == "sfc") << method;  // the better of the two (partition.hpp)
  }
  r = run_dgmax("info box:2 --partition 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot split a mesh of 48 elements into 0 parts"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: use between 1 and 48 parts"), std::string::npos) << r.err;
  r = run_dgmax("info box:2 --partition 49");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("into 49 parts"), std::string::npos) << r.err;
  r = run_dgmax("info box:2 --partition 2 --partition-method scotch");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--partition-method"), std::string::npos) << r.err;
  r = run_dgmax("info box:2 --partition-method sfc");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--partition"), std::string::npos) << r.err;
  r = run_dgmax("info box:2 --partition 2 --partition-method metis");
  if (DGMAX_HAS_METIS) {
    EXPECT_EQ(r.code, 0) << r.err;
  } else {
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("no METIS"), std::string::npos) << r.err;
  }
}
