// Box mesher: counts, volumes, tags, periodic gluing.
#include <gtest/gtest.h>

#include <cmath>

#include "expect_user_error.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/mesh_stats.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;

TEST(BoxMesh, CountsVolumesAndTags) {
  BoxSpec spec;
  spec.lower = {-1, 0, 2};
  spec.upper = {2, 0.5, 3};
  spec.cells = {3, 2, 4};
  const MeshData md = setup_mesh(make_box_mesh(spec));
  EXPECT_EQ(md.mesh.num_elements(), 6 * 3 * 2 * 4);
  EXPECT_EQ(md.mesh.num_vertices(), 4 * 3 * 5);
  EXPECT_EQ(md.reoriented, 0);  // generated positively oriented
  const MeshStats s = compute_stats(md);
  EXPECT_NEAR(s.volume_total, 3.0 * 0.5 * 1.0, 1e-13);
  // all elements of one cell have equal volume: cell volume / 6
  EXPECT_NEAR(s.volume_min, 3.0 / 3 * 0.5 / 2 * 1.0 / 4 / 6, 1e-15);
  EXPECT_NEAR(s.volume_max, s.volume_min, 1e-15);
  // two triangles per boundary cell face
  auto count = [&](const std::string& tag) {
    for (const auto& t : s.boundary_tags)
      if (t.name == tag) return t.count;
    return -1LL;
  };
  EXPECT_EQ(count("xmin"), 2 * 2 * 4);
  EXPECT_EQ(count("xmax"), 2 * 2 * 4);
  EXPECT_EQ(count("ymin"), 2 * 3 * 4);
  EXPECT_EQ(count("zmax"), 2 * 3 * 2);
  EXPECT_EQ(count("boundary"), 2 * (2 * 2 * 4 + 2 * 3 * 4 + 2 * 3 * 2));
  EXPECT_EQ(count("untagged"), -1);  // every boundary face tagged
  EXPECT_EQ(s.boundary_faces + 2 * s.interior_faces, 4 * s.elements);
  ASSERT_EQ(s.volume_tags.size(), 1u);
  EXPECT_EQ(s.volume_tags[0].name, "domain");
  EXPECT_EQ(s.volume_tags[0].count, s.elements);
  // Kuhn tets of a cube: longest edge = cell diagonal, shortest-longest = cell diagonal too
  EXPECT_NEAR(s.h_max, std::sqrt(1.0 + 0.25 * 0.25 + 0.25 * 0.25), 1e-14);
}

TEST(BoxMesh, PeriodicDirectionsHaveNoBoundaryFaces) {
  BoxSpec spec;
  spec.cells = {3, 2, 2};
  spec.periodic = {true, false, true};
  const MeshData md = setup_mesh(make_box_mesh(spec));
  const MeshStats s = compute_stats(md);
  EXPECT_EQ(s.periodic_face_pairs, 2 * 2 * 2 + 2 * 3 * 2);
  EXPECT_EQ(s.boundary_faces, 2 * (2 * 3 * 2));  // only ymin, ymax remain
  for (int k = 0; k < md.mesh.num_elements(); ++k)
    for (int f = 0; f < 4; ++f) {
      const int tag = md.conn.face_tag[k][f];
      if (md.conn.is_boundary(k, f)) {
        const std::string& name = md.mesh.boundary_tag_names[tag];
        EXPECT_TRUE(name == "ymin" || name == "ymax") << name;
      }
    }
}

TEST(BoxMesh, PeriodicWithOneCellGluesAnElementToItsNeighbourAcrossTheBox) {
  BoxSpec spec;
  spec.cells = {1, 1, 1};
  spec.periodic = {true, true, true};
  const MeshData md = setup_mesh(make_box_mesh(spec));
  EXPECT_EQ(md.conn.boundary_faces, 0);
  EXPECT_EQ(md.conn.periodic_faces, 6);
  EXPECT_EQ(md.conn.interior_faces + md.conn.periodic_faces, 12);
}

TEST(BoxMesh, Shorthand) {
  BoxSpec spec;
  EXPECT_TRUE(parse_box_shorthand("box:4,5,6", spec));
  EXPECT_EQ(spec.cells, (std::array<int, 3>{4, 5, 6}));
  EXPECT_TRUE(parse_box_shorthand("box:3", spec));
  EXPECT_EQ(spec.cells, (std::array<int, 3>{3, 3, 3}));
  EXPECT_FALSE(parse_box_shorthand("meshes/cube.geo", spec));
  for (const char* bad : {"box:", "box:4,4", "box:a,b,c", "box:0,1,1", "box:4,4,4,4", "box:2x2"})
    test::expect_hinted_user_error([&] { parse_box_shorthand(bad, spec); },
                                   {"malformed box mesh '" + std::string(bad) + "'"});
}

TEST(BoxMesh, RejectsBadSpecs) {
  BoxSpec spec;
  spec.cells = {0, 1, 1};
  test::expect_hinted_user_error([&] { make_box_mesh(spec); },
                                 {"box mesh needs at least 1 cell per direction, got cells[0] = 0"});
  spec.cells = {1, 1, 1};
  spec.upper = {1, 0, 1};
  test::expect_hinted_user_error([&] { make_box_mesh(spec); },
                                 {"box mesh needs upper > lower in every direction (direction 1"});
}

TEST(BoxMesh, RegionsTagElementsByCentroid) {
  BoxSpec spec;
  spec.upper = {2, 1, 1};
  spec.cells = {10, 2, 2};
  spec.regions.push_back({"slab", {0.8, -1, -1}, {1.2, 2, 2}});
  const MeshData md = setup_mesh(make_box_mesh(spec));
  const MeshStats s = compute_stats(md);
  ASSERT_EQ(s.volume_tags.size(), 2u);
  EXPECT_EQ(s.volume_tags[1].name, "slab");
  EXPECT_EQ(s.volume_tags[1].count, 6 * 2 * 2 * 2);  // two cell layers of 2x2 cells
  EXPECT_NEAR(s.volume_tags[1].measure, 0.4, 1e-13);
  EXPECT_NEAR(s.volume_tags[0].measure, 1.6, 1e-13);
}
