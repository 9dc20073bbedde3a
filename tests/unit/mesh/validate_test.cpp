// Every mesh defect the validation layer knows gets its own message (meshes built in code here;
// the same defects read from tests/data/*.msh are in gmsh_validate_test.cpp).
#include <gtest/gtest.h>

#include <functional>

#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/validate.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;

namespace {

// Two tets sharing face (1,2,3): apex 0 below, apex 4 above.
Mesh two_tets() {
  Mesh m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  m.elements = {{0, 1, 2, 3}, {1, 2, 3, 4}};
  const int tag = m.add_volume_tag("domain");
  m.element_tag = {tag, tag};
  m.source = "two_tets";
  return m;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.render();
  }
  return "(no error)";
}

}  // namespace

TEST(Validate, GoodMeshPasses) {
  const MeshData md = setup_mesh(two_tets());
  EXPECT_EQ(md.conn.interior_faces, 1);
  EXPECT_EQ(md.conn.boundary_faces, 6);
}

TEST(Validate, EmptyMesh) {
  Mesh m;
  m.source = "empty.msh";
  EXPECT_NE(message_of([&] { setup_mesh(m); }).find("has no elements"), std::string::npos);
}

TEST(Validate, InvertedElementIsReoriented) {
  Mesh m = two_tets();
  std::swap(m.elements[1][0], m.elements[1][1]);
  const MeshData md = setup_mesh(m);
  EXPECT_EQ(md.reoriented, 1);
  EXPECT_GT(md.geom.J[1], 0);
  EXPECT_EQ(md.conn.interior_faces, 1);
}

TEST(Validate, DegenerateElementIsRejectedByNumber) {
  Mesh m = two_tets();
  m.vertices[4] = {1.0 / 3, 1.0 / 3, 1.0 / 3};  // on the plane x+y+z=1 of face (1,2,3)
  const std::string msg = message_of([&] { setup_mesh(m); });
  EXPECT_NE(msg.find("element 1 is degenerate"), std::string::npos) << msg;
}

TEST(Validate, RepeatedVertexAndOutOfRange) {
  Mesh m = two_tets();
  m.elements[1] = {1, 2, 2, 4};
  EXPECT_NE(message_of([&] { setup_mesh(m); }).find("element 1 uses vertex 2 twice"), std::string::npos);
  m = two_tets();
  m.elements[0][3] = 9;
  EXPECT_NE(message_of([&] { setup_mesh(m); }).find("refers to vertex 9"), std::string::npos);
}

TEST(Validate, FaceSharedByThreeElements) {
  Mesh m = two_tets();
  m.vertices.push_back({0.9, 0.9, 0.9});  // a third tet on face (1,2,3), overlapping the second
  m.elements.push_back({1, 2, 3, 5});
  m.element_tag.push_back(0);
  const std::string msg = message_of([&] { setup_mesh(m); });
  EXPECT_NE(msg.find("is shared by 3 elements (0, 1, 2)"), std::string::npos) << msg;
}

TEST(Validate, DuplicatedVerticesGiveCoincidentUnsharedFaces) {
  Mesh m = two_tets();
  // element 1 uses copies of vertices 1, 2, 3
  m.vertices.push_back(m.vertices[1]);
  m.vertices.push_back(m.vertices[2]);
  m.vertices.push_back(m.vertices[3]);
  m.elements[1] = {5, 6, 7, 4};
  const std::string msg = message_of([&] { setup_mesh(m); });
  EXPECT_NE(msg.find("not conforming"), std::string::npos) << msg;
  EXPECT_NE(msg.find("duplicate vertices"), std::string::npos) << msg;
}

TEST(Validate, HangingNodeIsNonConforming) {
  // Tet A has face (1,2,3) on the plane x+y+z=1; on the other side, the same triangle is split
  // into 4 by its edge midpoints and covered by 4 tets with apex 4.
  Mesh m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1},
                {0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}};
  // midpoints: 5 = (1,2), 6 = (2,3), 7 = (1,3)
  m.elements = {{0, 1, 2, 3}, {1, 5, 7, 4}, {5, 2, 6, 4}, {7, 6, 3, 4}, {5, 6, 7, 4}};
  m.element_tag.assign(5, m.add_volume_tag("domain"));
  m.source = "hanging";
  const std::string msg = message_of([&] { setup_mesh(m); });
  EXPECT_NE(msg.find("not conforming"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hanging nodes"), std::string::npos) << msg;
}

TEST(Validate, PeriodicSidesThatDoNotMatch) {
  Mesh m = two_tets();
  const int a = m.add_boundary_tag("left"), b = m.add_boundary_tag("right");
  m.tagged_faces = {{{0, 2, 3}, a}, {{1, 2, 4}, b}};
  m.periodic.push_back({a, b, {1, 0, 0}});
  const std::string msg = message_of([&] { setup_mesh(m); });
  EXPECT_NE(msg.find("has no partner on 'right'"), std::string::npos) << msg;
}

TEST(Validate, MissingTagsReferencedByAConfig) {
  const MeshData md = setup_mesh(two_tets());
  SourceLocation where{"cfg.yaml", 7, 3, "  doman: {eps: 2}"};
  const std::vector<TagReference> refs = {{TagReference::Volume, "default", {}},
                                          {TagReference::Boundary, "boundary", {}},
                                          {TagReference::Volume, "domain", {}},
                                          {TagReference::Volume, "doman", where}};
  const std::string msg = message_of([&] { check_tags_exist(md.mesh, refs); });
  EXPECT_NE(msg.find("cfg.yaml:7:3: error: volume tag 'doman' does not exist"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'domain'?"), std::string::npos) << msg;
  const std::vector<TagReference> b = {{TagReference::Boundary, "inlet", {}}};
  EXPECT_NE(message_of([&] { check_tags_exist(md.mesh, b); }).find("boundary tags: untagged"),
            std::string::npos);
}
