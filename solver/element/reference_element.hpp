// The reference tetrahedron of order N: nodes, Vandermonde, mass, differentiation and lift
// matrices (Hesthaven & Warburton 2008, ch. 10: Nodes3D, Vandermonde3D, Dmatrices3D, Lift3D).
//
// Reference tetrahedron: vertices (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1); volume 4/3.
// Faces in HW order (local vertex triples as in mesh.hpp's kFaceVertices):
//   face 0: t = -1          vertices {0,1,2}   face coordinates (r, s)
//   face 1: s = -1          vertices {0,1,3}   face coordinates (r, t)
//   face 2: r + s + t = -1  vertices {1,2,3}   face coordinates (s, t)
//   face 3: r = -1          vertices {0,2,3}   face coordinates (s, t)
// "Face coordinates" are the two volume coordinates a face's nodes are projected onto to build
// its 2D Vandermonde (HW Lift3D). Each face maps onto the reference triangle {(-1,-1),(1,-1),
// (-1,1)} (area 2), so face_mass integrates over that triangle: for faces 0, 1, 3 this is the
// true face measure, for face 2 the true area is 2*sqrt(3), and the sqrt(3) is left to the
// surface Jacobian sJ of the geometry code (HW Normals3D does exactly that).
// In face coordinates the 2D reference vertices (-1,-1), (1,-1), (-1,1) are the face's local
// vertices in the listed order, and face node i (Fmask(i, f)) is exactly 2D warp & blend node i
// built with the tet's alpha, warp_blend_nodes_2d(N, warp_blend_alpha_3d(N)) (tested to 1e-10).
#pragma once

#include <Eigen/Dense>

namespace dgmax {

// Volume coordinate indices (0 = r, 1 = s, 2 = t) that parametrize each face (HW convention).
inline constexpr int kFaceCoords[4][2] = {{0, 1}, {0, 2}, {1, 2}, {1, 2}};

// Orders the library supports (node tables and tests cover 1..15).
inline constexpr int kMinOrder = 1;
inline constexpr int kMaxOrder = 15;

struct RefElement {
  int N = 0;
  int Np = 0;   // (N+1)(N+2)(N+3)/6 volume nodes
  int Nfp = 0;  // (N+1)(N+2)/2 nodes per face
  Eigen::VectorXd r, s, t;         // [Np] warp & blend nodes, HW order (r fastest, t outermost)
  Eigen::MatrixXd V, invV, M;      // [Np][Np] Vandermonde (orthonormal PKDO basis), inverse,
                                   //          mass matrix M = invV^T invV
  Eigen::MatrixXd Dr, Ds, Dt;      // [Np][Np] nodal differentiation: (Dr u)_i = du/dr(x_i)
  Eigen::MatrixXi Fmask;           // [Nfp][4] node index of face node i on face f, ascending
  Eigen::MatrixXd LIFT;            // [Np][4*Nfp] M^{-1} E; face f in columns f*Nfp..(f+1)*Nfp-1
  Eigen::MatrixXd face_mass[4];    // [Nfp][Nfp] face mass in face coordinates (see above)

  // Extras.
  Eigen::MatrixXd Vr, Vs, Vt;      // [Np][Np] gradients of the modes at the nodes (GradV3D)
  Eigen::MatrixXd face_V[4];       // [Nfp][Nfp] 2D Vandermonde at face f's nodes, face coords;
                                   //            face_mass[f] = (face_V V^T)^{-1}
  int vertex_node[4] = {0, 0, 0, 0};  // node index of reference vertex v (0, N, Nfp-1, Np-1)
};

// Builds the order-N reference element. Throws dgmax::UserError unless 1 <= N <= 15.
RefElement make_ref_element(int N);

// The same, built once per order and cached for the life of the program (thread-safe; the
// reference stays valid). Throws dgmax::UserError unless 1 <= N <= 15.
const RefElement& ref_element(int N);

// A reduced-precision copy of the operators a solver kernel needs, e.g. RefElementT<float> for
// single-precision runs. Every operator is built in double (RefElement) and rounded once, never
// computed in Real. Provided for Real = float and Real = double.
template <class Real>
struct RefElementT {
  using Mat = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

  int N = 0, Np = 0, Nfp = 0;
  Vec r, s, t;                 // [Np]
  Mat V, invV, M;              // [Np][Np]
  Mat Dr, Ds, Dt;              // [Np][Np]
  Eigen::MatrixXi Fmask;       // [Nfp][4]
  Mat LIFT;                    // [Np][4*Nfp]
  Mat face_mass[4];            // [Nfp][Nfp]

  RefElementT() = default;
  explicit RefElementT(const RefElement& e);
};

// Cached like ref_element(N); built from ref_element(N) on first use.
template <class Real>
const RefElementT<Real>& ref_element_as(int N);

extern template struct RefElementT<float>;
extern template struct RefElementT<double>;
extern template const RefElementT<float>& ref_element_as<float>(int N);
extern template const RefElementT<double>& ref_element_as<double>(int N);

}  // namespace dgmax
