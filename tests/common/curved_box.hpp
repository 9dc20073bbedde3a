// Problems on a box whose elements are curved by a smooth warp that leaves the box's faces in
// place (solver/mesh/curved_warp.hpp): the box's exact solutions still hold, the elements are not
// straight-sided.
#pragma once

#include <memory>

#include "simulate.hpp"
#include "solver/mesh/curved_warp.hpp"

namespace dgmax::test {

inline Mesh warped_box_mesh(const BoxSpec& spec, int q, double amplitude) {
  Mesh mesh = make_box_mesh(spec);
  warp_mesh(mesh, q, box_warp(spec.lower, spec.upper, amplitude));
  return mesh;
}

inline Problem warped_box_problem(const BoxSpec& spec, int N, int q, double amplitude, double alpha) {
  auto md = std::make_shared<const MeshData>(setup_mesh(warped_box_mesh(spec, q, amplitude)));
  Problem p = make_problem(md, N);
  p.set_alpha(alpha);
  return p;
}

}  // namespace dgmax::test
