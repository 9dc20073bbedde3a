// Curved meshes written by Gmsh at orders 2..10: each element's lattice (read_msh / read_gmsh)
// reproduces Gmsh's own map of the element (gmsh::model::mesh::getJacobians' coordinates at
// points off the lattice), both readers give the same Mesh bit for bit in MSH 4.1 and 2.2, ASCII
// and binary; a .geo meshed at geometry orders 2 and 4 keeps only the elements at the sphere
// curved and integrates the sphere's volume far better than the straight-sided mesh.
#include <gmsh.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <clocale>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "same_mesh.hpp"
#include "expect_user_error.hpp"
#include "curved_face_points.hpp"
#include "solver/element/basis.hpp"
#include "solver/element/jacobi.hpp"
#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/gmsh_reader.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/msh_element_types.hpp"
#include "solver/mesh/msh_reader.hpp"
#include "temp_path.hpp"

namespace dgmax {
namespace {

namespace fs = std::filesystem;

constexpr double kBallRadius = 0.5;

// A ball of radius 0.5 at the origin, coarse: about a hundred tets.
constexpr const char* kBallGeo = R"(SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 0.5};
Physical Volume("ball") = {1};
Physical Surface("skin") = {1};
Mesh.MeshSizeMax = 0.35;
Mesh.MeshSizeFromCurvature = 0;
)";

// Gmsh (u, v, w) of the points where the maps are compared: none on a lattice of order <= 10,
// one on the face w = 0.
constexpr double kSamples[][3] = {{0.13, 0.21, 0.34}, {0.27, 0.27, 0.27}, {0.61, 0.11, 0.07},
                                  {0.05, 0.71, 0.19}, {0.33, 0.29, 0.0}};
constexpr int kNumSamples = 5;

// One Gmsh lifetime; the process locale and thread count it changes are restored.
class GmshLifetime {
 public:
  GmshLifetime() : locale_(std::setlocale(LC_ALL, nullptr)) {
#ifdef _OPENMP
    threads_ = omp_get_max_threads();
#endif
    gmsh::initialize(0, nullptr, false);
    std::setlocale(LC_NUMERIC, "C");
    gmsh::option::setNumber("General.Terminal", 0);
  }
  ~GmshLifetime() {
    gmsh::finalize();
    std::setlocale(LC_ALL, locale_.c_str());
#ifdef _OPENMP
    omp_set_num_threads(threads_);
#endif
  }

 private:
  std::string locale_;
  int threads_ = 1;
};

// Gmsh's curved meshes at one order, written to files, and Gmsh's map of each tet at kSamples in
// the readers' element order (volume entity by entity, file order): [K][kNumSamples].
struct GmshCurvedMesh {
  std::vector<std::string> paths;
  std::vector<Vec3> mapped;
  int elements = 0;
};

// Meshes `geo_text` at order q (Gmsh's setOrder: the new nodes on the curved geometry).
GmshCurvedMesh write_curved(const std::string& dir, const std::string& name, const char* geo_text, int q,
                            bool all_formats) {
  const std::string geo = dir + name + ".geo";
  std::ofstream(geo) << geo_text;
  GmshCurvedMesh out;
  GmshLifetime gmsh_lifetime;
  gmsh::open(geo);
  gmsh::model::mesh::generate(3);
  gmsh::model::mesh::setOrder(q);
  std::vector<double> uvw;
  for (const auto& p : kSamples) uvw.insert(uvw.end(), p, p + 3);
  gmsh::vectorpair volumes;
  gmsh::model::getEntities(volumes, 3);
  std::sort(volumes.begin(), volumes.end());
  for (const auto& [dim, tag] : volumes) {
    std::vector<double> jacobians, determinants, coords;
    gmsh::model::mesh::getJacobians(msh_tetrahedron_type(q), uvw, jacobians, determinants, coords, tag);
    for (size_t i = 0; i + 2 < coords.size(); i += 3) out.mapped.push_back({coords[i], coords[i + 1], coords[i + 2]});
  }
  out.elements = static_cast<int>(out.mapped.size() / kNumSamples);
  for (const double version : {4.1, 2.2})
    for (const int binary : {0, 1}) {
      if (!all_formats && (version < 3 || binary == 0)) continue;
      gmsh::option::setNumber("Mesh.MshFileVersion", version);
      gmsh::option::setNumber("Mesh.Binary", binary);
      out.paths.push_back(dir + name + "_q" + std::to_string(q) + (version > 3 ? "_msh41" : "_msh22") +
                          (binary ? "_bin" : "_ascii") + ".msh");
      gmsh::write(out.paths.back());
    }
  return out;
}

class GmshHighOrder : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::unique_temp_dir("dgmax_gmsh_high_order_test"); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

// The largest distance between the map of the lattice read from `path` and Gmsh's map.
double worst_map_difference(const Mesh& m, const GmshCurvedMesh& g) {
  Eigen::VectorXd r(kNumSamples), s(kNumSamples), t(kNumSamples);
  for (int i = 0; i < kNumSamples; ++i) {
    r(i) = -1 + 2 * kSamples[i][0];
    s(i) = -1 + 2 * kSamples[i][1];
    t(i) = -1 + 2 * kSamples[i][2];
  }
  const Eigen::MatrixXd L = lattice_interpolation(m.geometry_order, r, s, t);  // [kNumSamples][Nq]
  double worst = 0;
  for (int k = 0; k < m.num_elements(); ++k) {
    const Vec3* row = m.curved_row(k);
    for (int i = 0; i < kNumSamples; ++i)
      for (int d = 0; d < 3; ++d) {
        double x = 0;
        for (int j = 0; j < L.cols(); ++j) x += L(i, j) * row[j][d];
        worst = std::max(worst, std::abs(x - g.mapped[k * kNumSamples + i][d]));
      }
  }
  return worst;
}

// Orders 2..5 in all four formats: both readers agree bit for bit, and the lattice's map is Gmsh's.
TEST_F(GmshHighOrder, BothReadersGiveGmshsMapInFourFormats) {
  for (int q = 2; q <= 5; ++q) {
    const GmshCurvedMesh g = write_curved(dir_, "ball", kBallGeo, q, true);
    ASSERT_EQ(g.paths.size(), 4u);
    ASSERT_GT(g.elements, 20);
    for (const std::string& path : g.paths) {
      SCOPED_TRACE(path);
      const Mesh ours = read_msh(path);
      test::expect_same_mesh(ours, read_gmsh(path), path);
      ASSERT_EQ(ours.num_elements(), g.elements);
      EXPECT_EQ(ours.geometry_order, q);
      EXPECT_EQ(ours.num_curved(), g.elements);
      EXPECT_EQ(ours.boundary_tag_names, (std::vector<std::string>{"skin"}));
      EXPECT_GT(ours.tagged_faces.size(), 20u);
      // ASCII keeps 16 digits of each coordinate: the map differs from Gmsh's by rounding only
      EXPECT_LT(worst_map_difference(ours, g), 1e-12);
    }
  }
}

// Element e's map of the synthetic meshes below: an affine part of its own and terms of degree
// up to q, at Gmsh's reference point (u, v, w).
Vec3 polynomial_map(int e, int q, double u, double v, double w) {
  const double a = 1 + 0.1 * e;
  return {2.0 * e + a * u + 0.3 * v + 0.2 * std::pow(u, q) + 0.1 * u * v,
          0.1 * u + a * v - 0.2 * w + 0.15 * std::pow(v, q - 1) * w + 0.1 * w * w,
          0.2 * u + 0.1 * v + a * w + 0.1 * std::pow(u, q - 1) * v - 0.2 * std::pow(w, q)};
}

// Orders 2..10: three separate tets (and a triangle of the same order on a physical surface)
// whose nodes sit at polynomial_map of Gmsh's own reference coordinates of its nodes
// (getElementProperties), written by Gmsh in the four formats. Each element's lattice map is that
// polynomial (it has degree q: the lattice of order q holds it exactly) up to rounding, the corners
// are its vertices, and read_gmsh gives the same Mesh bit for bit.
TEST_F(GmshHighOrder, LatticeHoldsAPolynomialMapUpToOrderTen) {
  constexpr int kTets = 3;
  for (int q = 2; q <= kMaxGeometryOrder; ++q) {
    SCOPED_TRACE("order " + std::to_string(q));
    std::vector<std::string> paths;
    {
      GmshLifetime gmsh_lifetime;
      std::string name;
      int dim = 0, order = 0, nodes = 0, primary = 0;
      std::vector<double> uvw;
      gmsh::model::mesh::getElementProperties(msh_tetrahedron_type(q), name, dim, order, nodes, uvw, primary);
      gmsh::model::add("polynomial");
      const int volume = gmsh::model::addDiscreteEntity(3);
      const int surface = gmsh::model::addDiscreteEntity(2);
      std::vector<std::size_t> node_tags, tet_nodes;
      std::vector<double> xyz;
      for (int e = 0; e < kTets; ++e)
        for (int n = 0; n < nodes; ++n) {
          const Vec3 x = polynomial_map(e, q, uvw[3 * n], uvw[3 * n + 1], uvw[3 * n + 2]);
          xyz.insert(xyz.end(), x.begin(), x.end());
          node_tags.push_back(node_tags.size() + 1);
          tet_nodes.push_back(node_tags.back());
        }
      gmsh::model::mesh::addNodes(3, volume, node_tags, xyz);
      gmsh::model::mesh::addElementsByType(volume, msh_tetrahedron_type(q), {}, tet_nodes);
      // a triangle on tet 0's vertices 0, 1, 2; its other nodes anywhere (only corners are read)
      const int triangle_nodes = (q + 1) * (q + 2) / 2;
      std::vector<std::size_t> extra, triangle = {1, 2, 3};
      std::vector<double> extra_xyz;
      for (int n = 3; n < triangle_nodes; ++n) {
        extra.push_back(node_tags.size() + extra.size() + 1);
        triangle.push_back(extra.back());
        extra_xyz.insert(extra_xyz.end(), {0.01 * n, 0.02 * n, -0.1});
      }
      gmsh::model::mesh::addNodes(2, surface, extra, extra_xyz);
      gmsh::model::mesh::addElementsByType(surface, msh_triangle_type(q), {}, triangle);
      gmsh::model::setPhysicalName(3, gmsh::model::addPhysicalGroup(3, {volume}), "tets");
      gmsh::model::setPhysicalName(2, gmsh::model::addPhysicalGroup(2, {surface}), "face");
      for (const double version : {4.1, 2.2})
        for (const int binary : {0, 1}) {
          gmsh::option::setNumber("Mesh.MshFileVersion", version);
          gmsh::option::setNumber("Mesh.Binary", binary);
          paths.push_back(dir_ + "polynomial_q" + std::to_string(q) + (version > 3 ? "_msh41" : "_msh22") +
                          (binary ? "_bin" : "_ascii") + ".msh");
          gmsh::write(paths.back());
        }
    }
    Eigen::VectorXd r(kNumSamples), s(kNumSamples), t(kNumSamples);
    for (int i = 0; i < kNumSamples; ++i) {
      r(i) = -1 + 2 * kSamples[i][0];
      s(i) = -1 + 2 * kSamples[i][1];
      t(i) = -1 + 2 * kSamples[i][2];
    }
    const Eigen::MatrixXd L = lattice_interpolation(q, r, s, t);  // [kNumSamples][Nq]
    for (const std::string& path : paths) {
      SCOPED_TRACE(path);
      const Mesh m = read_msh(path);
      test::expect_same_mesh(m, read_gmsh(path), path);
      ASSERT_EQ(m.num_elements(), kTets);
      EXPECT_EQ(m.geometry_order, q);
      ASSERT_EQ(m.tagged_faces.size(), 1u);
      EXPECT_EQ(m.tagged_faces[0].v, (std::array<int, 3>{0, 1, 2}));
      double worst = 0;
      for (int e = 0; e < kTets; ++e) {
        const Vec3* row = m.curved_row(e);
        const Vec3 corners[4] = {polynomial_map(e, q, 0, 0, 0), polynomial_map(e, q, 1, 0, 0),
                                 polynomial_map(e, q, 0, 1, 0), polynomial_map(e, q, 0, 0, 1)};
        for (int c = 0; c < 4; ++c)
          for (int d = 0; d < 3; ++d) EXPECT_NEAR(m.vertices[m.elements[e][c]][d], corners[c][d], 1e-15);
        for (int i = 0; i < kNumSamples; ++i) {
          const Vec3 exact = polynomial_map(e, q, kSamples[i][0], kSamples[i][1], kSamples[i][2]);
          for (int d = 0; d < 3; ++d) {
            double x = 0;
            for (int j = 0; j < L.cols(); ++j) x += L(i, j) * row[j][d];
            worst = std::max(worst, std::abs(x - exact[d]));
          }
        }
      }
      // the equispaced lattice's basis loses up to about 1e-11 to rounding at order 10
      EXPECT_LT(worst, 1e-10);
    }
  }
}

// ---- a .geo meshed at a geometry order ----------------------------------------------------------

// The volume of the elements tagged `tag`: the integral of det J over each curved element (a
// collapsed Gauss rule of n points per direction, exact for the polynomial det J of degree
// 3(q-1) when 2n-1 >= 3(q-1) + 2), |det| / 6 of the affine ones.
double tagged_volume(const Mesh& m, const std::string& tag) {
  const int q = m.geometry_order, n = 3 * q;
  const GaussRule ga = jacobi_gq(0, 0, n - 1), gb = jacobi_gq(1, 0, n - 1), gc = jacobi_gq(2, 0, n - 1);
  // points of the reference tetrahedron (r, s, t) and weights that integrate over it
  Eigen::VectorXd r(n * n * n), s(n * n * n), t(n * n * n), w(n * n * n);
  int p = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k, ++p) {
        const double a = ga.x(i), b = gb.x(j), c = gc.x(k);
        r(p) = (1 + a) * (1 - b) * (1 - c) / 4 - 1;
        s(p) = (1 + b) * (1 - c) / 2 - 1;
        t(p) = c;
        w(p) = ga.w(i) * gb.w(j) * gc.w(k) / 8;  // d(r,s,t) = (1-b)(1-c)^2/8 da db dc
      }
  Eigen::VectorXd lr, ls, lt;
  lattice_reference_points(q, lr, ls, lt);
  const Eigen::MatrixXd V = vandermonde_3d(q, lr, ls, lt);
  const auto G = grad_vandermonde_3d(q, r, s, t);
  const auto lu = V.transpose().partialPivLu();
  const Eigen::MatrixXd Lr = lu.solve(G.Vr.transpose()).transpose();  // [npts][Nq]
  const Eigen::MatrixXd Ls = lu.solve(G.Vs.transpose()).transpose();
  const Eigen::MatrixXd Lt = lu.solve(G.Vt.transpose()).transpose();
  const int index = m.volume_tag(tag), nq = lattice_size(q);
  double volume = 0;
  for (int e = 0; e < m.num_elements(); ++e) {
    if (m.element_tag[e] != index) continue;
    const auto& v = m.elements[e];
    if (!m.is_curved(e)) {
      Eigen::Matrix3d J;
      for (int d = 0; d < 3; ++d)
        J.col(d) << m.vertices[v[d + 1]][0] - m.vertices[v[0]][0], m.vertices[v[d + 1]][1] - m.vertices[v[0]][1],
            m.vertices[v[d + 1]][2] - m.vertices[v[0]][2];
      volume += std::abs(J.determinant()) / 6;
      continue;
    }
    Eigen::Matrix<double, Eigen::Dynamic, 3> X(nq, 3);  // X: [Nq][3]
    const Vec3* row = m.curved_row(e);
    for (int i = 0; i < nq; ++i) X.row(i) << row[i][0], row[i][1], row[i][2];
    const Eigen::MatrixXd Xr = Lr * X, Xs = Ls * X, Xt = Lt * X;  // [npts][3]
    for (int i = 0; i < r.size(); ++i) {
      const Eigen::Vector3d a = Xr.row(i), b = Xs.row(i), c = Xt.row(i);
      volume += w(i) * a.dot(b.cross(c));
    }
  }
  return volume;
}

// The rule itself: x = (u + u²/2, v, w) on the unit tetrahedron (u = (r+1)/2, ...) has
// det J = 1 + u, so its volume is 1/6 + 1/24 (the integral of u is 1/24).
TEST_F(GmshHighOrder, QuadratureIntegratesACurvedElement) {
  Mesh m;
  m.vertices = {{0, 0, 0}, {1.5, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  m.elements = {{0, 1, 2, 3}};
  m.element_tag = {0};
  m.volume_tag_names = {"domain"};
  m.geometry_order = 2;
  m.curved_index = {0};
  Eigen::VectorXd r, s, t;
  lattice_reference_points(2, r, s, t);
  for (int i = 0; i < r.size(); ++i) {
    const double u = (r(i) + 1) / 2, v = (s(i) + 1) / 2, w = (t(i) + 1) / 2;
    m.curved_points.push_back({u + u * u / 2, v, w});
  }
  EXPECT_NEAR(tagged_volume(m, "domain"), 1.0 / 6 + 1.0 / 24, 1e-14);
  m.curved_index = {-1};  // its vertices' affine map: 1.5 / 6
  EXPECT_NEAR(tagged_volume(m, "domain"), 0.25, 1e-15);
}

// The sphere of meshes/sphere_in_box.geo at geometry orders 1, 2 and 4 (size 0.2): setup keeps
// curved elements (read_gmsh straightens the ones away from the sphere: gmsh_straighten_test.cpp;
// those still curved with every vertex 0.2 from the sphere are nearly affine), no Jacobian is tangled, the sphere's lattice points lie on the
// sphere, and the volume of the tag `sphere` approaches 4/3 π R^3.
TEST_F(GmshHighOrder, GeoMeshedAtGeometryOrders) {
  const std::string geo = std::string(DGMAX_SOURCE_DIR) + "/meshes/sphere_in_box.geo";
  constexpr double R = 0.25, kSize = 0.2;
  const double exact = 4.0 / 3.0 * std::numbers::pi * R * R * R;
  const Mesh straight = read_gmsh(geo, kSize, 1);
  EXPECT_EQ(straight.geometry_order, 1);
  EXPECT_TRUE(straight.curved_index.empty());
  const double straight_error = std::abs(tagged_volume(straight, "sphere") - exact);
  for (const int q : {2, 4}) {
    SCOPED_TRACE("geometry order " + std::to_string(q));
    Mesh read = read_gmsh(geo, kSize, q);
    EXPECT_EQ(read.geometry_order, q);
    EXPECT_LT(read.num_curved(), read.num_elements());  // those away from the sphere straightened
    const MeshData md = setup_mesh(read, 0, GeometryFactors::Stored, ElementOrder::Input);
    const Mesh& m = md.mesh;
    EXPECT_GT(m.num_curved(), 0);
    EXPECT_LE(m.num_curved(), m.num_elements());
    EXPECT_EQ(md.curved.curved, m.num_curved());
    EXPECT_GT(md.curved.min_scaled, 0.0);
    EXPECT_LE(md.curved.max_scaled, 1.0);
    // the faces between the sphere and the air: two elements of different tags
    const auto face_elements = test::elements_by_face(m);
    const auto on_interface = [&](const std::array<int, 4>& v, int opposite) {
      std::array<int, 3> f;
      for (int c = 0, i = 0; c < 4; ++c)
        if (c != opposite) f[i++] = v[c];
      std::sort(f.begin(), f.end());
      const std::vector<int>& e = face_elements.at(f);
      return e.size() == 2 && m.element_tag[e[0]] != m.element_tag[e[1]];
    };
    // corners are the vertices exactly; lattice points of faces on the sphere lie on it
    const auto ijl = lattice_points(q);
    double worst_on_sphere = 0;
    int faces_on_sphere = 0;
    for (int k = 0; k < m.num_elements(); ++k) {
      if (!m.is_curved(k)) continue;
      const Vec3* row = m.curved_row(k);
      const auto& v = m.elements[k];
      EXPECT_EQ(row[lattice_index(q, 0, 0, 0)], m.vertices[v[0]]);
      EXPECT_EQ(row[lattice_index(q, q, 0, 0)], m.vertices[v[1]]);
      EXPECT_EQ(row[lattice_index(q, 0, q, 0)], m.vertices[v[2]]);
      EXPECT_EQ(row[lattice_index(q, 0, 0, q)], m.vertices[v[3]]);
      const auto radius = [](const Vec3& x) {
        return std::hypot(x[0] - 0.5, x[1] - 0.5, x[2] - 0.5);
      };
      for (int opposite = 0; opposite < 4; ++opposite) {
        if (!on_interface(v, opposite)) continue;
        ++faces_on_sphere;
        for (size_t p = 0; p < ijl.size(); ++p) {
          const int lambda[4] = {q - ijl[p][0] - ijl[p][1] - ijl[p][2], ijl[p][0], ijl[p][1], ijl[p][2]};
          if (lambda[opposite] == 0) worst_on_sphere = std::max(worst_on_sphere, std::abs(radius(row[p]) - R));
        }
      }
    }
    EXPECT_GT(faces_on_sphere, 20);
    EXPECT_LT(worst_on_sphere, 1e-7);
    // elements with every vertex 0.2 or more from the sphere: their lattices are within 1 % of
    // their longest edge of the affine map (the curving decays away from the sphere)
    double worst_far = 0;
    for (int k = 0; k < m.num_elements(); ++k) {
      if (!m.is_curved(k)) continue;
      const auto& v = m.elements[k];
      bool far = true;
      double h = 0;
      for (int a = 0; a < 4; ++a) {
        const Vec3& x = m.vertices[v[a]];
        far = far && std::abs(std::hypot(x[0] - 0.5, x[1] - 0.5, x[2] - 0.5) - R) >= 0.2;
        for (int b = 0; b < 4; ++b) {
          const Vec3& y = m.vertices[v[b]];
          h = std::max(h, std::hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]));
        }
      }
      if (!far) continue;
      Mesh affine = m;
      affine.curved_index.clear();
      for (const auto& p : ijl) {
        const double rr = -1 + 2.0 * p[0] / q, ss = -1 + 2.0 * p[1] / q, tt = -1 + 2.0 * p[2] / q;
        const Vec3 a = map_element(m, k, rr, ss, tt), b = map_element(affine, k, rr, ss, tt);
        worst_far = std::max(worst_far, std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) / h);
      }
    }
    EXPECT_LT(worst_far, 0.01);
    const double error = std::abs(tagged_volume(m, "sphere") - exact);
    std::printf("geometry order %d: %d of %d elements curved, scaled Jacobian %.4f..%.4f, sphere volume error "
                "%.3e (straight-sided %.3e), far elements off affine by %.2e of their edge\n",
                q, m.num_curved(), m.num_elements(), md.curved.min_scaled, md.curved.max_scaled, error, straight_error,
                worst_far);
    EXPECT_LT(error, straight_error / (q == 2 ? 50 : 10000));  // measured: 76 and 1.3e5 times smaller
  }
}

// A .msh that Gmsh reads with mixed orders gives read_msh's message word for word.
TEST_F(GmshHighOrder, MixedOrdersSameMessageAsReadMsh) {
  std::ifstream in(std::string(DGMAX_TEST_DATA_DIR) + "/second_order_tets.msh", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("$Elements\n2\n"), 12, "$Elements\n3\n");
  text.insert(text.find("$EndElements"), "3 4 2 1 2 2 3 4 5\n");
  const std::string path = dir_ + "mixed.msh";
  std::ofstream(path, std::ios::binary) << text;
  const UserError a = test::expect_user_error([&] { read_msh(path); }, {"mixes element orders"});
  const UserError b = test::expect_user_error([&] { read_gmsh(path); }, {"mixes element orders"});
  EXPECT_EQ(a.message(), b.message());
  EXPECT_EQ(a.hint(), b.hint());
}

}  // namespace
}  // namespace dgmax
