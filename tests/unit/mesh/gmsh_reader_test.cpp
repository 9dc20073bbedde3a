// read_gmsh / load_mesh_file with the Gmsh SDK (built only with DGMAX_USE_GMSH): the meshes of
// tests/data (see tests/data/README.md) and meshes/*.geo.
#include <gtest/gtest.h>

#include "temp_path.hpp"
#include "expect_user_error.hpp"

#include <algorithm>
#include <array>
#include <clocale>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <numbers>
#include <set>
#include <string>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "dgmax/config.hpp"
#include "solver/mesh/gmsh_reader.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

std::string data(const std::string& name) { return std::string(DGMAX_TEST_DATA_DIR) + "/" + name; }
std::string meshes(const std::string& name) {
  return std::string(DGMAX_SOURCE_DIR) + "/meshes/" + name;
}

double signed_volume(const Mesh& m, int e) {
  const Vec3& a = m.vertices[m.elements[e][0]];
  const Vec3& b = m.vertices[m.elements[e][1]];
  const Vec3& c = m.vertices[m.elements[e][2]];
  const Vec3& d = m.vertices[m.elements[e][3]];
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
  return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
          u[2] * (v[0] * w[1] - v[1] * w[0])) /
         6.0;
}

// Sum of |volume| of the tets with volume tag `name` (all tets when empty).
double volume(const Mesh& m, const std::string& name = "") {
  const int tag = name.empty() ? -1 : m.volume_tag(name);
  if (!name.empty()) {
    EXPECT_GE(tag, 0) << "no volume tag " << name;
  }
  double sum = 0;
  for (int e = 0; e < m.num_elements(); ++e)
    if (tag < 0 || m.element_tag[e] == tag) sum += std::abs(signed_volume(m, e));
  return sum;
}

int count_elements(const Mesh& m, const std::string& name) {
  const int tag = m.volume_tag(name);
  EXPECT_GE(tag, 0) << "no volume tag " << name;
  int n = 0;
  for (int t : m.element_tag) n += t == tag;
  return n;
}

double triangle_area(const Mesh& m, const TaggedFace& f) {
  const Vec3& a = m.vertices[f.v[0]];
  const Vec3& b = m.vertices[f.v[1]];
  const Vec3& c = m.vertices[f.v[2]];
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                       u[0] * v[1] - u[1] * v[0]};
  return 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

std::vector<TaggedFace> faces(const Mesh& m, const std::string& name) {
  const int tag = m.boundary_tag(name);
  EXPECT_GE(tag, 0) << "no boundary tag " << name;
  std::vector<TaggedFace> out;
  for (const TaggedFace& f : m.tagged_faces)
    if (f.tag == tag) out.push_back(f);
  return out;
}

double area(const Mesh& m, const std::string& name) {
  double sum = 0;
  for (const TaggedFace& f : faces(m, name)) sum += triangle_area(m, f);
  return sum;
}

// Every tagged face is a face of some tet.
void expect_faces_of_tets(const Mesh& m) {
  std::set<std::array<int, 3>> tet_faces;
  for (const auto& el : m.elements)
    for (const auto& fv : kFaceVertices) {
      std::array<int, 3> f{el[fv[0]], el[fv[1]], el[fv[2]]};
      std::sort(f.begin(), f.end());
      tet_faces.insert(f);
    }
  for (const TaggedFace& tf : m.tagged_faces) {
    std::array<int, 3> f = tf.v;
    std::sort(f.begin(), f.end());
    EXPECT_TRUE(tet_faces.count(f)) << "tagged face " << f[0] << "," << f[1] << "," << f[2] << " ("
                                    << m.boundary_tag_names[tf.tag] << ")";
  }
}

void expect_consistent(const Mesh& m) {
  ASSERT_EQ(m.element_tag.size(), m.elements.size());
  std::vector<bool> used(m.vertices.size(), false);
  for (const auto& el : m.elements)
    for (int v : el) {
      ASSERT_GE(v, 0);
      ASSERT_LT(v, m.num_vertices());
      used[v] = true;
    }
  for (std::size_t v = 0; v < used.size(); ++v) EXPECT_TRUE(used[v]) << "unused vertex " << v;
  for (int t : m.element_tag) {
    ASSERT_GE(t, 0);
    ASSERT_LT(t, static_cast<int>(m.volume_tag_names.size()));
  }
  for (const TaggedFace& f : m.tagged_faces) {
    ASSERT_GE(f.tag, 0);
    ASSERT_LT(f.tag, static_cast<int>(m.boundary_tag_names.size()));
    for (int v : f.v) {
      ASSERT_GE(v, 0);
      ASSERT_LT(v, m.num_vertices());
    }
  }
}

using test::expect_user_error;

// ---- good meshes --------------------------------------------------------------------------

void expect_two_tets(const Mesh& m, const std::string& path) {
  expect_consistent(m);
  EXPECT_EQ(m.source, path);
  ASSERT_EQ(m.num_vertices(), 5);
  ASSERT_EQ(m.num_elements(), 2);
  EXPECT_EQ(m.volume_tag_names, std::vector<std::string>{"domain"});
  EXPECT_EQ(m.boundary_tag_names, std::vector<std::string>{"walls"});
  EXPECT_EQ(count_elements(m, "domain"), 2);
  EXPECT_EQ(faces(m, "walls").size(), 6u);
  // Vertices in Gmsh node-tag order, elements with the file's vertex order.
  EXPECT_EQ(m.vertices[0], (Vec3{0, 0, 0}));
  EXPECT_EQ(m.vertices[4], (Vec3{1, 1, 1}));
  EXPECT_EQ(m.elements[0], (std::array<int, 4>{0, 1, 2, 3}));
  EXPECT_EQ(m.elements[1], (std::array<int, 4>{1, 2, 3, 4}));
  EXPECT_NEAR(signed_volume(m, 0), 1.0 / 6, 1e-15);
  EXPECT_NEAR(signed_volume(m, 1), 1.0 / 3, 1e-15);
  EXPECT_NEAR(volume(m), 0.5, 1e-15);
  EXPECT_NEAR(area(m, "walls"), 1.5 + 3 * std::sqrt(3.0) / 2, 1e-14);
  expect_faces_of_tets(m);
}

TEST(GmshReader, TwoTetsV2) {
  expect_two_tets(read_gmsh(data("two_tets_v2.msh")), data("two_tets_v2.msh"));
}
TEST(GmshReader, TwoTetsV4) {
  expect_two_tets(read_gmsh(data("two_tets_v4.msh")), data("two_tets_v4.msh"));
}
TEST(GmshReader, MissingGroupIsAValidMesh) {
  expect_two_tets(read_gmsh(data("missing_group.msh")), data("missing_group.msh"));
}

void expect_unit_cube(const Mesh& m) {
  expect_consistent(m);
  EXPECT_EQ(m.volume_tag_names, std::vector<std::string>{"domain"});
  EXPECT_EQ(m.boundary_tag_names,
            (std::vector<std::string>{"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"}));
  EXPECT_NEAR(volume(m), 1.0, 1e-12);
  for (int e = 0; e < m.num_elements(); ++e) EXPECT_GT(signed_volume(m, e), 0) << "tet " << e;
  const char* names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(area(m, names[i]), 1.0, 1e-12) << names[i];
    for (const TaggedFace& f : faces(m, names[i]))
      for (int v : f.v) EXPECT_NEAR(m.vertices[v][i / 2], i % 2, 1e-12) << names[i];
  }
  expect_faces_of_tets(m);
}

TEST(GmshReader, CubeBinaryV2AndV4) {
  const Mesh v2 = read_gmsh(data("cube_v2_binary.msh"));
  const Mesh v4 = read_gmsh(data("cube_v4_binary.msh"));
  expect_unit_cube(v2);
  expect_unit_cube(v4);
  EXPECT_EQ(v2.num_vertices(), 45);  // see tests/data/README.md
  EXPECT_EQ(v2.num_elements(), 101);
  EXPECT_EQ(v2.tagged_faces.size(), 84u);
  // The same Gmsh mesh saved in two formats.
  EXPECT_EQ(v2.num_vertices(), v4.num_vertices());
  EXPECT_EQ(v2.num_elements(), v4.num_elements());
  EXPECT_EQ(v2.tagged_faces.size(), v4.tagged_faces.size());
  EXPECT_EQ(v2.vertices, v4.vertices);
  EXPECT_EQ(v2.elements, v4.elements);
}

TEST(GmshReader, CubeCoarseMsh) {
  const Mesh m = read_gmsh(meshes("cube_coarse.msh"));
  expect_unit_cube(m);
  EXPECT_EQ(m.num_vertices(), 141);  // see meshes/README.md
  EXPECT_EQ(m.num_elements(), 390);
  EXPECT_EQ(m.tagged_faces.size(), 254u);
}

TEST(GmshReader, UnnamedGroupsAndUntaggedElements) {
  const Mesh m = read_gmsh(data("unnamed_groups.msh"));
  expect_consistent(m);
  ASSERT_EQ(m.num_elements(), 2);
  EXPECT_EQ(m.volume_tag_names, (std::vector<std::string>{"physical_volume_7", kUntaggedTag}));
  EXPECT_EQ(m.element_tag, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.boundary_tag_names, (std::vector<std::string>{"physical_surface_3", "interface"}));
  EXPECT_EQ(faces(m, "physical_surface_3").size(), 3u);
  ASSERT_EQ(faces(m, "interface").size(), 1u);  // an interior face: allowed
  std::array<int, 3> shared = faces(m, "interface")[0].v;
  std::sort(shared.begin(), shared.end());
  EXPECT_EQ(shared, (std::array<int, 3>{1, 2, 3}));
  EXPECT_EQ(m.tagged_faces.size(), 4u);
}

// ---- defects for the validation layer: read as they are --------------------------------------

TEST(GmshReader, ValidationDefectsAreReadAsIs) {
  {
    const Mesh m = read_gmsh(data("inverted_tet.msh"));
    ASSERT_EQ(m.num_elements(), 2);
    EXPECT_GT(signed_volume(m, 0), 0);
    EXPECT_NEAR(signed_volume(m, 1), -1.0 / 3, 1e-15);
  }
  {
    const Mesh m = read_gmsh(data("degenerate_tet.msh"));
    ASSERT_EQ(m.num_elements(), 2);
    EXPECT_NEAR(signed_volume(m, 1), 0.0, 1e-15);
    EXPECT_EQ(faces(m, "walls").size(), 6u);
  }
  {
    const Mesh m = read_gmsh(data("three_tets_one_face.msh"));
    EXPECT_EQ(m.num_elements(), 3);
    EXPECT_EQ(m.num_vertices(), 6);
  }
  {
    const Mesh m = read_gmsh(data("hanging_node.msh"));
    expect_consistent(m);
    EXPECT_EQ(m.num_elements(), 5);
    EXPECT_EQ(m.num_vertices(), 8);
    EXPECT_NEAR(volume(m), 0.25, 1e-15);
    for (int e = 0; e < m.num_elements(); ++e) EXPECT_GT(signed_volume(m, e), 0);
    EXPECT_EQ(faces(m, "walls").size(), 9u);
  }
  {
    const Mesh m = read_gmsh(data("duplicate_vertices.msh"));
    expect_consistent(m);
    EXPECT_EQ(m.num_elements(), 2);
    EXPECT_EQ(m.num_vertices(), 8);  // kept: merging them is not the reader's job
    EXPECT_NEAR(volume(m), 0.5, 1e-15);
  }
}

// ---- .geo files, meshed on the fly -----------------------------------------------------------

TEST(GmshReader, CubeGeo) {
  const Mesh m = read_gmsh(meshes("cube.geo"), 0.3);
  expect_unit_cube(m);
  EXPECT_EQ(m.source, meshes("cube.geo"));
}

TEST(GmshReader, SizeControlsTheGeoMesh) {
  const Mesh coarse = read_gmsh(meshes("cube.geo"), 0.5);
  const Mesh finer = read_gmsh(meshes("cube.geo"), 0.25);
  const Mesh own = read_gmsh(meshes("cube.geo"));  // the file's h = 0.1
  EXPECT_LT(coarse.num_elements(), finer.num_elements());
  EXPECT_LT(finer.num_elements(), own.num_elements());
  // A size set by one .geo must not leak into the next read (Gmsh options are global).
  EXPECT_EQ(read_gmsh(meshes("cube.geo"), 0.5).num_elements(), coarse.num_elements());
}

TEST(GmshReader, SphereInBoxGeo) {
  const Mesh m = read_gmsh(meshes("sphere_in_box.geo"), 0.3);
  expect_consistent(m);
  EXPECT_EQ(m.volume_tag_names, (std::vector<std::string>{"air", "sphere"}));
  EXPECT_EQ(m.boundary_tag_names, std::vector<std::string>{"outer"});
  EXPECT_NEAR(volume(m), 1.0, 1e-9);  // conforming fragments fill the box exactly
  const double exact_sphere = 4.0 / 3.0 * std::numbers::pi * 0.25 * 0.25 * 0.25;
  EXPECT_NEAR(volume(m, "sphere"), exact_sphere, 0.1 * exact_sphere);  // polyhedral sphere
  EXPECT_LT(volume(m, "sphere"), exact_sphere);  // inscribed: vertices on the sphere
  EXPECT_NEAR(volume(m, "air") + volume(m, "sphere"), 1.0, 1e-9);
  EXPECT_NEAR(area(m, "outer"), 6.0, 1e-9);
  for (const TaggedFace& f : m.tagged_faces) {  // outer faces lie on the box
    bool on_box = false;
    for (int i = 0; i < 3; ++i) {
      bool all0 = true, all1 = true;
      for (int v : f.v) {
        all0 = all0 && std::abs(m.vertices[v][i]) < 1e-9;
        all1 = all1 && std::abs(m.vertices[v][i] - 1) < 1e-9;
      }
      on_box = on_box || all0 || all1;
    }
    EXPECT_TRUE(on_box);
  }
  expect_faces_of_tets(m);
}

TEST(GmshReader, SlabGeo) {
  const Mesh m = read_gmsh(meshes("slab.geo"), 0.25);
  expect_consistent(m);
  EXPECT_EQ(m.volume_tag_names, (std::vector<std::string>{"air", "slab"}));
  EXPECT_EQ(m.boundary_tag_names, (std::vector<std::string>{"xmin", "xmax", "sides"}));
  EXPECT_NEAR(volume(m), 2.0 * 0.5 * 0.5, 1e-12);
  EXPECT_NEAR(volume(m, "slab"), 0.4 * 0.5 * 0.5, 1e-12);
  EXPECT_NEAR(volume(m, "air"), 1.6 * 0.5 * 0.5, 1e-12);
  for (int e = 0; e < m.num_elements(); ++e) {
    double cx = 0;
    for (int v : m.elements[e]) cx += m.vertices[v][0] / 4;
    const bool in_slab = cx > 0.8 && cx < 1.2;
    EXPECT_EQ(m.volume_tag_names[m.element_tag[e]], in_slab ? "slab" : "air");
  }
  EXPECT_NEAR(area(m, "xmin"), 0.25, 1e-12);
  EXPECT_NEAR(area(m, "xmax"), 0.25, 1e-12);
  EXPECT_NEAR(area(m, "sides"), 4 * 2.0 * 0.5, 1e-12);
  expect_faces_of_tets(m);
}

TEST(GmshMeshFile, LoadsMshAndGeo) {
  const Mesh m = load_mesh_file(data("two_tets_v2.msh"));
  expect_two_tets(m, data("two_tets_v2.msh"));
  const Mesh c = load_mesh_file(meshes("cube.geo"), 0.5);
  expect_unit_cube(c);
  EXPECT_EQ(c.source, meshes("cube.geo"));
}

TEST(GmshMeshFile, ExtensionIsCaseInsensitive) {
  const std::filesystem::path dir = dgmax::test::unique_temp_dir("dgmax_gmsh_reader_test");
  std::filesystem::create_directories(dir);
  const auto path = dir / "TWO_TETS.MSH";
  std::filesystem::copy_file(data("two_tets_v2.msh"), path,
                             std::filesystem::copy_options::overwrite_existing);
  expect_two_tets(load_mesh_file(path.string()), path.string());
  std::filesystem::remove_all(dir);
}

// ---- meshes and files the reader rejects ------------------------------------------------------

TEST(GmshReader, RejectsHexahedra) {
  const UserError e = expect_user_error([] { read_gmsh(data("hexahedra.msh")); },
                                        {"hexahedra.msh", "2 hexahedra (8-node)", "tetrahedra"});
  EXPECT_NE(e.hint().find("Recombine"), std::string::npos) << e.hint();
}

TEST(GmshReader, RejectsPrisms) {
  expect_user_error([] { read_gmsh(data("mixed_tet_prism.msh")); },
                    {"mixed_tet_prism.msh", "1 prism (6-node)", "besides 1 tetrahedron (4-node)"});
}

// 10-node tets are read at geometry order 2 (tests/unit/mesh/msh_high_order_test.cpp checks
// the lattice; gmsh_high_order_test.cpp curved meshes of every order)
TEST(GmshReader, ReadsSecondOrderTets) {
  const Mesh m = read_gmsh(data("second_order_tets.msh"));
  EXPECT_EQ(m.geometry_order, 2);
  EXPECT_EQ(m.num_vertices(), 5);
  EXPECT_EQ(m.num_curved(), 2);
}

TEST(GmshReader, RejectsSurfaceOnly) {
  expect_user_error([] { read_gmsh(data("surface_only.msh")); },
                    {"surface_only.msh", "no volume elements", "4 triangles (3-node)"});
}

TEST(GmshReader, RejectsEmpty) {
  expect_user_error([] { read_gmsh(data("empty.msh")); }, {"empty.msh", "empty", "no nodes"});
}

TEST(GmshReader, RejectsZeroByteFiles) {
  const std::filesystem::path dir = dgmax::test::unique_temp_dir("dgmax_gmsh_reader_test_empty");
  std::filesystem::create_directories(dir);
  const std::string msh = (dir / "zero.msh").string(), geo = (dir / "zero.geo").string();
  std::ofstream{msh};
  std::ofstream{geo};
  const UserError e = test::expect_hinted_user_error([&] { read_gmsh(msh); }, {msh, "is empty"});
  EXPECT_NE(e.hint().find("Gmsh"), std::string::npos) << e.render();
  test::expect_hinted_user_error([&] { read_gmsh(msh, -1); }, {"mesh size for", "must be positive"});
  expect_user_error([&] { read_gmsh(geo); }, {geo, "is empty", "no nodes"});
  std::filesystem::remove_all(dir);
}

TEST(GmshReader, RejectsGarbage) {
  expect_user_error([] { read_gmsh(data("garbage.msh")); },
                    {"garbage.msh", "not a Gmsh .msh file", "$MeshFormat"});
}

TEST(GmshReader, RejectsTruncated) {  // more in msh_check_test.cpp
  const UserError e = expect_user_error([] { read_gmsh(data("truncated.msh")); },
                                        {"truncated.msh", "is truncated", "$EndNodes"});
  EXPECT_EQ(e.where().file, data("truncated.msh"));
}

TEST(GmshReader, GeoSyntaxErrorPointsAtTheLine) {
  const UserError e =
      expect_user_error([] { read_gmsh(data("syntax_error.geo")); },
                        {"Gmsh could not read", "syntax_error.geo", "syntax error"});
  EXPECT_EQ(e.where().line, 4);
  EXPECT_NE(e.where().snippet.find("Point(2)"), std::string::npos) << e.render();
}

TEST(GmshReader, MeshingFailureQuotesGmsh) {
  const UserError e = expect_user_error([] { read_gmsh(data("meshing_fails.geo"), 0.5); },
                                        {"Gmsh could not mesh", "meshing_fails.geo"});
  EXPECT_FALSE(e.hint().empty());
}

TEST(GmshReader, RejectsTetsInTwoVolumeGroups) {
  expect_user_error([] { read_gmsh(data("two_volume_groups.msh")); },
                    {"several physical volumes", "'domain'", "'all'"});
}

TEST(GmshReader, RejectsMissingFilesAndBadSizes) {
  const std::string missing = data("no_such_mesh.msh");
  expect_user_error([&] { read_gmsh(missing); }, {missing, "does not exist"});
  expect_user_error([] { read_gmsh(DGMAX_TEST_DATA_DIR); }, {"is a directory"});
  expect_user_error([] { read_gmsh(meshes("cube.geo"), -1); }, {"size"});
  expect_user_error([] { read_gmsh(meshes("cube.geo"), std::nan("")); }, {"size"});
}

TEST(GmshReader, RecoversAfterErrors) {
  // Each failure must leave Gmsh usable, the .geo parser included (see gmsh_reader.cpp).
  const int cube_elements = read_gmsh(meshes("cube.geo"), 0.5).num_elements();
  for (const char* bad : {"syntax_error.geo", "truncated.msh", "meshing_fails.geo", "hexahedra.msh",
                          "syntax_error.geo"}) {
    SCOPED_TRACE(bad);
    test::expect_hinted_user_error([&] { read_gmsh(data(bad), 0.5); }, {bad});
    EXPECT_EQ(read_gmsh(meshes("cube.geo"), 0.5).num_elements(), cube_elements) << "after " << bad;
    expect_two_tets(read_gmsh(data("two_tets_v2.msh")), data("two_tets_v2.msh"));
  }
}

// ---- process state and threads ---------------------------------------------------------------

TEST(GmshReader, LeavesOpenMpAndLocaleAlone) {
  const std::string locale_before = std::setlocale(LC_ALL, nullptr);
#ifdef _OPENMP
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(3);
#endif
  read_gmsh(data("two_tets_v4.msh"));
  read_gmsh(meshes("cube.geo"), 0.5);
#ifdef _OPENMP
  EXPECT_EQ(omp_get_max_threads(), 3);  // gmsh::initialize sets it to 1
  omp_set_num_threads(threads_before);
#endif
  EXPECT_EQ(std::string(std::setlocale(LC_ALL, nullptr)), locale_before);
}

TEST(GmshReader, ConcurrentReads) {
  std::vector<Mesh> results(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&results, i] {
      results[i] = read_gmsh(i % 2 ? data("two_tets_v2.msh") : meshes("cube.geo"), 0.5);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(results[1].num_elements(), 2);
  EXPECT_EQ(results[0].elements, results[2].elements);
  EXPECT_EQ(results[1].elements, results[3].elements);
}

}  // namespace
}  // namespace dgmax
