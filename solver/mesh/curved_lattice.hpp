// The high-order geometry of a curved element: its positions at the points of the equispaced
// lattice of order q on the reference tetrahedron (mesh.hpp's Mesh::curved_points), and the
// polynomial map x(r, s, t) of degree q they define.
//
// Lattice point (i, j, l), i + j + l <= q, sits at (r, s, t) = (-1 + 2i/q, -1 + 2j/q, -1 + 2l/q):
// barycentric coordinates λ1 = i/q, λ2 = j/q, λ3 = l/q, λ0 = 1 - λ1 - λ2 - λ3 on the reference
// vertices 0..3 of mesh.hpp. Order: l outermost, then j, i fastest (vertex 0 first, vertex 3 last).
#pragma once

#include <Eigen/Dense>
#include <array>
#include <vector>

namespace dgmax {

// Geometry orders the readers and the geometry code support (Gmsh's complete tetrahedra).
inline constexpr int kMaxGeometryOrder = 10;

// (q+1)(q+2)(q+3)/6 points.
int lattice_size(int q);
// Index of lattice point (i, j, l); requires i, j, l >= 0 and i + j + l <= q.
int lattice_index(int q, int i, int j, int l);
// The lattice's integer coordinates: [Nq] of (i, j, l).
std::vector<std::array<int, 3>> lattice_points(int q);
// Reference coordinates of the lattice points: each [Nq].
void lattice_reference_points(int q, Eigen::VectorXd& r, Eigen::VectorXd& s, Eigen::VectorXd& t);

// The Lagrange basis of the order-q lattice at reference points: [npts][Nq], so the positions at
// the points are this matrix times the lattice positions [Nq][3].
Eigen::MatrixXd lattice_interpolation(int q, const Eigen::VectorXd& r, const Eigen::VectorXd& s,
                                      const Eigen::VectorXd& t);

// Gradients of that basis at the points: Lr, Ls, Lt: [npts][Nq] (exact derivatives of the map).
void lattice_gradient(int q, const Eigen::VectorXd& r, const Eigen::VectorXd& s, const Eigen::VectorXd& t,
                      Eigen::MatrixXd& Lr, Eigen::MatrixXd& Ls, Eigen::MatrixXd& Lt);

// Face f's outward normal (unnormalised) in terms of grad r, grad s, grad t: face 0: -grad t,
// face 1: -grad s, face 2: grad r + grad s + grad t, face 3: -grad r (faces as mesh.hpp numbers them).
inline constexpr double kFaceGradient[4][3] = {{0, 0, -1}, {0, -1, 0}, {1, 1, 1}, {-1, 0, 0}};

// Volume coordinates of points on face f given by the barycentric weights mu [n][3] of its
// vertices (kFaceVertices order): r, s, t each [n].
void face_points(int f, const std::vector<std::array<double, 3>>& mu, Eigen::VectorXd& r, Eigen::VectorXd& s,
                 Eigen::VectorXd& t);

// The cofactor rows C_a = J ∇r_a of a map with columns x_r, x_s, x_t: (x_s × x_t, x_t × x_r, x_r × x_s).
inline std::array<Eigen::Vector3d, 3> cofactor_rows(const Eigen::Vector3d& xr, const Eigen::Vector3d& xs,
                                                    const Eigen::Vector3d& xt) {
  return {xs.cross(xt), xt.cross(xr), xr.cross(xs)};
}

// n·sJ on face f from the cofactor rows: Σ_a kFaceGradient[f][a] C_a.
inline Eigen::Vector3d face_normal_times_sJ(int f, const std::array<Eigen::Vector3d, 3>& C) {
  return kFaceGradient[f][0] * C[0] + kFaceGradient[f][1] * C[1] + kFaceGradient[f][2] * C[2];
}

// After local vertices a and b of an element swap places, its lattice point m holds what point
// perm[m] held before: new_points[m] = old_points[perm[m]].
std::vector<int> lattice_vertex_swap(int q, int a, int b);

}  // namespace dgmax
