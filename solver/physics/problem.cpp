#include "solver/physics/problem.hpp"

#include <cmath>

#include "solver/mesh/setup_timer.hpp"

namespace dgmax {

double Material::Z() const { return std::sqrt(mu / eps); }

const char* bc_name(BcKind kind) {
  switch (kind) {
    case BcKind::Pec: return "pec";
    case BcKind::Pmc: return "pmc";
    case BcKind::Absorbing: return "absorbing";
    case BcKind::Incident: return "incident";
  }
  return "?";
}

Problem make_problem(std::shared_ptr<const MeshData> md, int N) {
  SetupTimer timer("problem");
  Problem p;
  p.N = N;
  p.ref = &ref_element(N);
  p.md = std::move(md);
  timer.phase("reference element");
  p.xyz = node_coordinates(p.md->mesh, *p.ref);
  timer.phase("node coordinates");
  p.maps = build_face_maps(*p.md, *p.ref, p.xyz);
  timer.phase("face maps");
  p.material.assign(p.K(), Material{});
  p.bc.assign(p.K(), {BcKind::Pec, BcKind::Pec, BcKind::Pec, BcKind::Pec});
  p.set_alpha(1.0);
  timer.phase("materials, flux");
  return p;
}

void Problem::set_alpha(double a) {
  fluxes = make_flux_set(a == 1.0 ? "upwind" : a == 0.0 ? "central" : "alpha", a, nullptr, {});
}

}  // namespace dgmax
