#include "solver/mesh/blend_curved_nodes.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

using Eigen::Vector3d;

constexpr int kEdgeVertices[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

// The lattice's points as integer barycentric counts on local vertices 0..3 (summing to q): [Nq].
std::vector<std::array<int, 4>> lattice_counts(int q) {
  std::vector<std::array<int, 4>> out;
  for (const auto& [i, j, l] : lattice_points(q)) out.push_back({q - i - j - l, i, j, l});
  return out;
}

// The Lagrange basis of the points i/q, i = 1..q-1, at t (degree q - 2): [q-1].
std::vector<double> edge_basis(int q, double t) {
  std::vector<double> out(q - 1);
  for (int i = 1; i < q; ++i) {
    double w = 1;
    for (int j = 1; j < q; ++j)
      if (j != i) w *= (t - static_cast<double>(j) / q) / (static_cast<double>(i - j) / q);
    out[i - 1] = w;
  }
  return out;
}

// The monomials u^m v^n, m + n <= p, in a fixed order.
std::vector<double> face_monomials(int p, double u, double v) {
  std::vector<double> out;
  for (int m = 0; m <= p; ++m)
    for (int n = 0; m + n <= p; ++n) out.push_back(std::pow(u, m) * std::pow(v, n));
  return out;
}

// A face's inner points as counts (ca, cb) on its vertices in increasing global id, and the inverse
// of the monomials' Vandermonde matrix there (degree q - 3): coefficients = inverse × values.
struct FaceFit {
  std::vector<std::array<int, 2>> points;
  Eigen::MatrixXd inverse;
};
FaceFit face_fit(int q) {
  FaceFit fit;
  for (int a = 1; a < q; ++a)
    for (int b = 1; a + b < q; ++b) fit.points.push_back({a, b});
  const int n = static_cast<int>(fit.points.size());
  Eigen::MatrixXd V(n, n);
  for (int i = 0; i < n; ++i) {
    const std::vector<double> row = face_monomials(q - 3, static_cast<double>(fit.points[i][0]) / q,
                                                   static_cast<double>(fit.points[i][1]) / q);
    for (int j = 0; j < n; ++j) V(i, j) = row[j];
  }
  fit.inverse = V.fullPivLu().inverse();
  return fit;
}

// One element's blend: its vertices, curved edges and curved faces, in increasing global id.
class ElementBlend {
 public:
  ElementBlend(const Mesh& mesh, int k, int q) : q_(q) {
    const auto& e = mesh.elements[k];
    for (int v = 0; v < 4; ++v) {
      order_[v] = v;
      x_[v] = Vector3d(mesh.vertices[e[v]][0], mesh.vertices[e[v]][1], mesh.vertices[e[v]][2]);
    }
    std::sort(order_.begin(), order_.end(), [&](int a, int b) { return e[a] < e[b]; });
    id_ = e;
  }

  // Adds edge (local a, b) with its inner nodes' positions, ordered from a to b: [q-1].
  void add_edge(int a, int b, const std::vector<Vector3d>& inner) {
    Edge edge;
    edge.lo = id_[a] < id_[b] ? a : b;
    edge.hi = edge.lo == a ? b : a;
    for (int i = 1; i < q_; ++i) {
      const Vector3d& x = inner[edge.lo == a ? i - 1 : q_ - 1 - i];  // i steps from lo
      std::array<double, 4> lambda{0, 0, 0, 0};
      lambda[edge.lo] = static_cast<double>(q_ - i) / q_;
      lambda[edge.hi] = static_cast<double>(i) / q_;
      const double t = static_cast<double>(i) / q_;
      edge.psi.push_back((x - evaluate(lambda)) / (t * (1 - t)));
    }
    edges_.push_back(edge);
    std::sort(edges_.begin(), edges_.end(), [&](const Edge& u, const Edge& v) { return key(u) < key(v); });
  }

  // Adds face (local vertices a, b, c, off-face d) once its edges are in; inner(ca, cb) gives the
  // position of the inner node with counts ca on the face's lowest-id vertex, cb on the next.
  template <class Inner>
  void add_face(std::array<int, 3> v, int d, const FaceFit& fit, const Inner& inner) {
    std::sort(v.begin(), v.end(), [&](int a, int b) { return id_[a] < id_[b]; });
    Face face;
    face.v = v;
    face.d = d;
    const int n = static_cast<int>(fit.points.size());
    Eigen::MatrixXd values(n, 3);
    for (int i = 0; i < n; ++i) {
      const auto [ca, cb] = fit.points[i];
      std::array<double, 4> lambda{0, 0, 0, 0};
      lambda[v[0]] = static_cast<double>(ca) / q_;
      lambda[v[1]] = static_cast<double>(cb) / q_;
      lambda[v[2]] = static_cast<double>(q_ - ca - cb) / q_;
      const Vector3d r = inner(ca, cb) - evaluate(lambda);
      values.row(i) = (r / (lambda[v[0]] * lambda[v[1]] * lambda[v[2]])).transpose();
    }
    face.coefficients = fit.inverse * values;
    faces_.push_back(face);
    std::sort(faces_.begin(), faces_.end(), [&](const Face& u, const Face& w) { return key(u) < key(w); });
  }

  // The blended map at barycentric coordinates λ on local vertices 0..3.
  Vector3d evaluate(const std::array<double, 4>& lambda) const {
    Vector3d x = Vector3d::Zero();
    for (int v : order_)
      if (lambda[v] != 0) x += lambda[v] * x_[v];
    for (const Edge& edge : edges_) {
      const double w = lambda[edge.lo] * lambda[edge.hi];
      if (w == 0) continue;
      const std::vector<double> basis = edge_basis(q_, (1 + lambda[edge.hi] - lambda[edge.lo]) / 2);
      Vector3d psi = Vector3d::Zero();
      for (int i = 0; i < q_ - 1; ++i) psi += basis[i] * edge.psi[i];
      x += w * psi;
    }
    for (const Face& face : faces_) {
      const double w = lambda[face.v[0]] * lambda[face.v[1]] * lambda[face.v[2]];
      if (w == 0) continue;
      const double shift = lambda[face.d] / 3;
      const std::vector<double> m = face_monomials(q_ - 3, lambda[face.v[0]] + shift, lambda[face.v[1]] + shift);
      Vector3d phi = Vector3d::Zero();
      for (std::size_t i = 0; i < m.size(); ++i) phi += m[i] * face.coefficients.row(i).transpose();
      x += w * phi;
    }
    return x;
  }

 private:
  struct Edge {
    int lo, hi;                 // local vertices, lo of the smaller global id
    std::vector<Vector3d> psi;  // at t = i / q from lo, i = 1..q-1
  };
  struct Face {
    std::array<int, 3> v;          // local vertices in increasing global id
    int d;                         // the local vertex off the face
    Eigen::MatrixXd coefficients;  // [monomials][3]
  };
  std::array<int, 2> key(const Edge& e) const { return {id_[e.lo], id_[e.hi]}; }
  std::array<int, 3> key(const Face& f) const { return {id_[f.v[0]], id_[f.v[1]], id_[f.v[2]]}; }

  int q_;
  std::array<int, 4> order_{}, id_{};
  std::array<Vector3d, 4> x_;
  std::vector<Edge> edges_;
  std::vector<Face> faces_;
};

}  // namespace

BlendResult blend_curved_nodes(Mesh& mesh, const std::vector<char>& on_curved) {
  BlendResult result;
  const int K = mesh.num_elements(), q = mesh.geometry_order;
  if (q < 2 || K == 0) return result;
  const std::size_t Nq = static_cast<std::size_t>(lattice_size(q));
  DGMAX_ASSERT(mesh.curved_index.size() == static_cast<std::size_t>(K) && mesh.curved_points.size() == K * Nq &&
                   on_curved.size() == K * Nq,
               "blend_curved_nodes needs every element curved, in element order");
  for (int k = 0; k < K; ++k) DGMAX_ASSERT(mesh.curved_index[k] == k, "blend_curved_nodes: rows out of order");

  const std::vector<std::array<int, 4>> counts = lattice_counts(q);
  const FaceFit fit = q >= 3 ? face_fit(q) : FaceFit{};
  auto find = [&](const std::array<int, 4>& c) {
    return static_cast<std::size_t>(lattice_index(q, c[1], c[2], c[3]));
  };

  for (int k = 0; k < K; ++k) {
    Vec3* row = mesh.curved_points.data() + k * Nq;
    const char* flag = on_curved.data() + k * Nq;
    ElementBlend blend(mesh, k, q);
    for (const auto& [a, b] : kEdgeVertices) {
      std::vector<Vector3d> inner;
      bool curved = true;
      for (int i = 1; i < q; ++i) {
        std::array<int, 4> c{0, 0, 0, 0};
        c[a] = q - i;
        c[b] = i;
        const std::size_t m = find(c);
        curved = curved && flag[m];
        inner.emplace_back(row[m][0], row[m][1], row[m][2]);
      }
      if (!curved) continue;
      blend.add_edge(a, b, inner);
      ++result.curved_edges;
    }
    if (q >= 3)
      for (int f = 0; f < 4; ++f) {
        const int* fv = kFaceVertices[f];
        const int d = 6 - fv[0] - fv[1] - fv[2];
        std::array<int, 3> v{fv[0], fv[1], fv[2]};
        std::sort(v.begin(), v.end(), [&](int x, int y) { return mesh.elements[k][x] < mesh.elements[k][y]; });
        auto node = [&](int ca, int cb) {
          std::array<int, 4> c{0, 0, 0, 0};
          c[v[0]] = ca;
          c[v[1]] = cb;
          c[v[2]] = q - ca - cb;
          return find(c);
        };
        bool curved = true;
        for (const auto& [ca, cb] : fit.points) curved = curved && flag[node(ca, cb)];
        if (!curved) continue;
        blend.add_face(v, d, fit, [&](int ca, int cb) {
          const Vec3& x = row[node(ca, cb)];
          return Vector3d(x[0], x[1], x[2]);
        });
        ++result.curved_faces;
      }
    for (std::size_t m = 0; m < Nq; ++m) {
      if (flag[m]) continue;  // the geometry's own position
      std::array<double, 4> lambda;
      for (int v = 0; v < 4; ++v) lambda[v] = static_cast<double>(counts[m][v]) / q;
      const Vector3d x = blend.evaluate(lambda);
      row[m] = {x[0], x[1], x[2]};
    }
  }
  result.curved_elements = drop_affine_elements(mesh);
  if (result.curved_elements > 0) {
    const JacobianSamples samples = jacobian_samples(q);
    for (int k = 0; k < K; ++k)
      if (mesh.is_curved(k)) {
        const double scaled = element_jacobian(mesh, k, samples, signed_volume(mesh, k) < 0 ? -1 : 1).scaled;
        if (scaled < result.min_scaled) {
          result.min_scaled = scaled;
          result.min_element = k;
        }
      }
  }
  return result;
}

}  // namespace dgmax
