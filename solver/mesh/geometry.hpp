// Geometric factors of affine tetrahedra: one set per element (not per node), since the map from
// the reference tetrahedron is affine.
#pragma once

#include <array>
#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// Reference tetrahedron: vertices (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1); volume 4/3.
// x(r,s,t) = ( -(1+r+s+t) v0 + (1+r) v1 + (1+s) v2 + (1+t) v3 ) / 2.
struct Geometry {
  std::vector<double> J;                    // [K] det(dx/dr) = volume / (4/3)
  std::vector<std::array<double, 9>> drdx;  // [K] rx ry rz sx sy sz tx ty tz
  std::vector<std::array<Vec3, 4>> normal;  // [K][4] outward unit normals
  std::vector<std::array<double, 4>> sJ;    // [K][4] surface Jacobian: face area / reference face param. area (2)
  std::vector<std::array<double, 4>> Fscale;  // [K][4] sJ / J

  double volume(int k) const { return J[k] * 4.0 / 3.0; }
};

// One element's factors: what compute_geometry stores for it. With J <= 0 (a degenerate or
// inverted element) the others are left zero.
struct ElementGeometry {
  double J = 0;
  std::array<double, 9> drdx{};
  std::array<Vec3, 4> normal{};
  std::array<double, 4> sJ{}, Fscale{};
};
ElementGeometry element_geometry(const Mesh& mesh, int k);

// Throws UserError naming the element if any J <= 0 (call orient_elements first).
Geometry compute_geometry(const Mesh& mesh);

// The check of compute_geometry without storing anything: the whole mesh of a partitioned run,
// whose ranks each store only their own part's factors, is refused exactly as one rank would.
void check_jacobians(const Mesh& mesh);

// Physical coordinates of reference points (r,s,t) in element k.
Vec3 map_to_physical(const Mesh& mesh, int k, double r, double s, double t);

// Signed volume of element k (positive for the reference orientation).
double signed_volume(const Mesh& mesh, int k);

}  // namespace dgmax
