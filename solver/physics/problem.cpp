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
  if (!p.md->mesh.curved_index.empty()) {
    p.curved = std::make_shared<const CurvedFactors>(compute_curved_factors(p.md->mesh, *p.ref));
    timer.phase("curved factors");
  }
  p.material.assign(p.K(), Material{});
  p.bc.assign(p.K(), {BcKind::Pec, BcKind::Pec, BcKind::Pec, BcKind::Pec});
  p.set_alpha(1.0);
  timer.phase("materials, flux");
  return p;
}

double Problem::inner(int k, const double* u, const double* v) const {
  const int n = Np();
  const Eigen::Map<const Eigen::VectorXd> U(u, n), V(v, n);
  if (!is_curved(k)) return md->geom.J[k] * U.dot(ref->M * V);
  // the volume rule of curved_geometry.hpp (degree max(2N, 2N + 2q − 3)): J u v, of degree
  // 2N + 3q − 3, to the rule's accuracy
  const CurvedQuadrature& Q = curved->quad;
  const Eigen::Map<const Eigen::VectorXd> J(&curved->Jq[static_cast<size_t>(curved->slot_of[k]) * Q.Nq], Q.Nq);
  return (Q.Vq * U).cwiseProduct(Q.w).cwiseProduct(J).dot(Q.Vq * V);
}

void Problem::set_alpha(double a) {
  fluxes = make_flux_set(a == 1.0 ? "upwind" : a == 0.0 ? "central" : "alpha", a, nullptr, {});
}

}  // namespace dgmax
