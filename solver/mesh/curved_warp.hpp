// Curved meshes without a mesh generator: every element of a straight-sided mesh mapped through a
// smooth warp x -> w(x), its map of order q interpolating w at its lattice points. For tests of
// the curved discretization and for `dgmax bench --curved` (all elements curved).
#pragma once

#include <functional>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

using Warp = std::function<Vec3(const Vec3&)>;

// Moves the vertices through `warp` and gives every element a curved row of order q (1 <= q <=
// kMaxGeometryOrder) at the warped positions of its affine lattice points.
void warp_mesh(Mesh& mesh, int q, const Warp& warp);

// A warp of the box [lo, hi] that leaves its six faces in place (so boundary conditions, periodic
// gluing and exact solutions of the box still hold): x_d + amplitude (hi_d - lo_d) S_d(x) with
// S_d a product of sines that vanishes on every face. Invertible for amplitude < 0.15.
Warp box_warp(const Vec3& lo, const Vec3& hi, double amplitude);

// A warp confined to the open ball of `radius` around `center` (a curved object's neighbourhood in
// an otherwise straight-sided mesh): x + amplitude · radius · (1 - ρ²)³ u(ξ), ξ = (x - center) /
// radius, ρ = |ξ|, u = (cos π ξ_y, cos π ξ_z, cos π ξ_x); the identity outside the ball, so the
// elements that do not reach into it stay affine. Invertible for amplitude < 0.15 (|∇ displacement|
// < 4.9 amplitude).
Warp ball_warp(const Vec3& center, double radius, double amplitude);

}  // namespace dgmax
