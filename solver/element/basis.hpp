// Orthonormal Proriol–Koornwinder–Dubiner (PKDO) bases on the reference triangle and tetrahedron
// and their Vandermonde matrices (Hesthaven & Warburton 2008, sec. 6.1 and 10.1).
//
// The bases are orthonormal in L2 of the reference simplex (area 2, volume 4/3), so the nodal mass
// matrix is simply (V V^T)^{-1}. Mode order: triangle (i, j) with j fastest, i + j <= N;
// tetrahedron (i, j, k) with k fastest, then j, then i, i + j + k <= N (HW Vandermonde2D/3D).
#pragma once

#include <Eigen/Dense>

namespace dgmax {

// Collapsed coordinates: (r, s) -> (a, b) with a = 2(1+r)/(1-s) - 1, b = s (a = -1 at s = 1).
// All arguments [npts].
void rs_to_ab(const Eigen::VectorXd& r, const Eigen::VectorXd& s, Eigen::VectorXd& a,
              Eigen::VectorXd& b);
// (r, s, t) -> (a, b, c): a = 2(1+r)/(-s-t) - 1, b = 2(1+s)/(1-t) - 1, c = t (collapsed edges
// and the top vertex get a = -1 / b = -1). All arguments [npts].
void rst_to_abc(const Eigen::VectorXd& r, const Eigen::VectorXd& s, const Eigen::VectorXd& t,
                Eigen::VectorXd& a, Eigen::VectorXd& b, Eigen::VectorXd& c);

// Triangle mode (i, j) at collapsed points (a, b): [npts].
Eigen::VectorXd simplex2d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int i, int j);
// Tetrahedron mode (i, j, k) at collapsed points (a, b, c): [npts].
Eigen::VectorXd simplex3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                            const Eigen::VectorXd& c, int i, int j, int k);
// Gradient (d/dr, d/ds, d/dt) of tetrahedron mode (i, j, k) at collapsed points: each [npts].
void grad_simplex3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                      const Eigen::VectorXd& c, int i, int j, int k, Eigen::VectorXd& dr,
                      Eigen::VectorXd& ds, Eigen::VectorXd& dt);

// V2D(i, m) = mode m at point (r_i, s_i): [npts][(N+1)(N+2)/2].
Eigen::MatrixXd vandermonde_2d(int N, const Eigen::VectorXd& r, const Eigen::VectorXd& s);
// V3D(i, m) = mode m at point (r_i, s_i, t_i): [npts][(N+1)(N+2)(N+3)/6].
Eigen::MatrixXd vandermonde_3d(int N, const Eigen::VectorXd& r, const Eigen::VectorXd& s,
                               const Eigen::VectorXd& t);

// Derivatives of the tetrahedron modes at the points (GradV3D): each [npts][Np].
struct GradVandermonde3D {
  Eigen::MatrixXd Vr, Vs, Vt;
};
GradVandermonde3D grad_vandermonde_3d(int N, const Eigen::VectorXd& r, const Eigen::VectorXd& s,
                                      const Eigen::VectorXd& t);

}  // namespace dgmax
