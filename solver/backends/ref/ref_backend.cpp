#include "solver/backends/ref/ref_backend.hpp"

#include <Eigen/Dense>
#include <array>

#include "codegen/lower/flux_inputs.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/physics/pml.hpp"
#include "solver/physics/space_time_field.hpp"
#include "solver/physics/tfsf.hpp"
#include "solver/time/lserk4.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

RefBackend::RefBackend(const Problem& problem)
    : p_(problem), q_(problem.K(), problem.Np()), res_(problem.K(), problem.Np()),
      k_(problem.K(), problem.Np()) {
  const int K = p_.K(), Nfp = p_.Nfp();
  if (p_.current) J_.assign(3 * static_cast<size_t>(K) * p_.Np(), 0.0);
  inc_of_slot_.assign(static_cast<size_t>(K) * 4 * Nfp, -1);
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      // boundary faces whose state reads the incident field, and total-field/scattered-field faces
      const bool boundary = p_.md->conn.is_boundary(k, f);
      if (!(boundary && p_.fluxes->exterior_reads_incident[static_cast<int>(p_.bc[k][f])]) && tfsf_sign(k, f) == 0)
        continue;
      for (int j = 0; j < Nfp; ++j) {
        const int slot = (k * 4 + f) * Nfp + j;
        const int node = p_.maps.vmapM[slot];
        inc_of_slot_[slot] = static_cast<int>(inc_slot_.size());
        inc_slot_.push_back(slot);
        inc_x_.push_back(p_.xyz.x[node]);
        inc_y_.push_back(p_.xyz.y[node]);
        inc_z_.push_back(p_.xyz.z[node]);
      }
    }
  inc_.assign(6 * inc_slot_.size(), 0.0);
  for (const auto& e : p_.fluxes->exterior) max_exterior_nodes_ = std::max(max_exterior_nodes_, e.dag.nodes().size());
  if (p_.pml) {
    const size_t n = p_.pml->elements.size() * codegen::kPmlAux * p_.Np();
    psi_.assign(n, 0.0);
    psi_res_.assign(n, 0.0);
    dpsi_.assign(n, 0.0);
  }
  if (halo_exchanges(p_.md->halo)) halo_ = HaloExchange(p_.md->halo, *p_.ref, p_.Np(), sizeof(double));
}

void RefBackend::get_aux(std::vector<double>& aux) {
  aux = psi_;
  aux.insert(aux.end(), psi_res_.begin(), psi_res_.end());
}

void RefBackend::set_aux(const std::vector<double>& aux) {
  DGMAX_ASSERT(aux.size() == 2 * psi_.size(), "PML auxiliary state does not match the layer");
  std::copy(aux.begin(), aux.begin() + psi_.size(), psi_.begin());
  std::copy(aux.begin() + psi_.size(), aux.end(), psi_res_.begin());
}

int RefBackend::tfsf_sign(int k, int f) const {
  if (!p_.tfsf) return 0;
  const int e = p_.tfsf->index_of[k];
  return e < 0 ? 0 : p_.tfsf->sign[4 * static_cast<size_t>(e) + f];
}

void RefBackend::init_state() {
  q_ = interpolate_initial(p_);
  res_ = Fields(p_.K(), p_.Np());
  std::fill(psi_.begin(), psi_.end(), 0.0);
  std::fill(psi_res_.begin(), psi_res_.end(), 0.0);
}

void RefBackend::set_state(const Fields& q) {
  q_ = q;
  res_ = Fields(p_.K(), p_.Np());
}

void RefBackend::set_residual(const Fields& res) {
  DGMAX_ASSERT(res.K == p_.K() && res.Np == p_.Np() && res.q.size() == res_.q.size(),
               "residual does not match the problem's K and Np");
  res_ = res;
}

NormSample RefBackend::norms(double t) {
  HostTimer timer(kernel_seconds_);
  NormSample s;
  s.energy = electromagnetic_energy(p_, q_);  // (owned elements: norms.hpp)
  if (p_.exact) s.errors = error_norms(p_, q_, p_.exact.eval, t);
  if (p_.current) s.current = current_norm(p_, p_.current.eval, t);
  const Comm& comm = world();
  if (!comm.parallel()) return s;
  // over all ranks: sums of squares add, maxima take the largest
  double sums[4] = {s.energy, s.errors.L2_E * s.errors.L2_E, s.errors.L2_H * s.errors.L2_H, s.current * s.current};
  double maxs[2] = {s.errors.Linf_E, s.errors.Linf_H};
  comm.sum(sums, 4);
  comm.max(maxs, 2);
  s.energy = sums[0];
  s.errors = {std::sqrt(sums[1]), std::sqrt(sums[2]), maxs[0], maxs[1]};
  s.current = std::sqrt(sums[3]);
  return s;
}

void RefBackend::evaluate_sources(double t) {
  if (!p_.current) return;
  const size_t n = static_cast<size_t>(p_.K()) * p_.Np();
  double* out[3] = {J_.data(), J_.data() + n, J_.data() + 2 * n};
  p_.current.eval(n, p_.xyz.x.data(), p_.xyz.y.data(), p_.xyz.z.data(), t, out);
}

void RefBackend::evaluate_incident(double t) {
  const size_t n = inc_slot_.size();
  if (n == 0) return;
  DGMAX_ASSERT(p_.incident, "incident boundary without an incident field");
  double* out[6];
  for (int c = 0; c < 6; ++c) out[c] = inc_.data() + c * n;
  p_.incident.eval(n, inc_x_.data(), inc_y_.data(), inc_z_.data(), t, out);
}

void RefBackend::rhs(const Fields& q, double t, Fields& out) {
  const int K = p_.K(), Np = p_.Np();
  if (out.K != K || out.Np != Np) out = Fields(K, Np);
  // the owned elements; the ghosts' rows stay zero (their owners compute them)
  const int K_owned = p_.K_owned();
  std::fill(out.q.begin() + static_cast<long>(K_owned) * 6 * Np, out.q.end(), 0.0);
  evaluate_sources(t);
  evaluate_incident(t);
  const size_t n_nodes = static_cast<size_t>(K) * Np;

  // threads only pay off with enough elements per thread
#pragma omp parallel for schedule(static) if (K_owned >= 256)
  for (int k = 0; k < K_owned; ++k) {
    using MatNp6 = Eigen::Matrix<double, Eigen::Dynamic, 6>;
    const Eigen::Map<const MatNp6> Q(q.comp(k, 0), Np, 6);  // Q: [Np][6] (column c = component c)
    const Material& mm = p_.material[k];
    // curl and lifted face terms: a curved element's from its quadrature form (ref_curved.cpp)
    const Eigen::MatrixXd R = p_.is_curved(k) ? curved_terms(k, q) : straight_terms(k, q);  // [Np][6]

    Eigen::Map<MatNp6> O(out.comp(k, 0), Np, 6);
    for (int c = 0; c < 3; ++c) {
      O.col(c) = (R.col(c) - mm.sigma * Q.col(c)) / mm.eps;
      if (!J_.empty())
        O.col(c) -= Eigen::Map<const Eigen::VectorXd>(J_.data() + c * n_nodes + static_cast<size_t>(k) * Np, Np) / mm.eps;
      O.col(3 + c) = R.col(3 + c) / mm.mu;
    }
    if (p_.pml && p_.pml->slot_of[k] >= 0) apply_pml(k, q, O);
  }
}

// A straight-sided element's curl and lifted face terms, R: [Np][6] (before sources and materials).
Eigen::MatrixXd RefBackend::straight_terms(int k, const Fields& q) const {
  const int Np = p_.Np(), Nfp = p_.Nfp();
  const RefElement& ref = *p_.ref;
  const MeshData& md = *p_.md;
  const size_t n_inc = inc_slot_.size();
  using MatNp6 = Eigen::Matrix<double, Eigen::Dynamic, 6>;
  const Eigen::Map<const MatNp6> Q(q.comp(k, 0), Np, 6);  // Q: [Np][6] (column c = component c)
  const MatNp6 Qr = ref.Dr * Q, Qs = ref.Ds * Q, Qt = ref.Dt * Q;
  const auto& g = md.geom.drdx[k];  // rx ry rz sx sy sz tx ty tz
  // physical derivative of component c along axis d
  auto D = [&](int c, int d) -> Eigen::VectorXd {
    return g[d] * Qr.col(c) + g[3 + d] * Qs.col(c) + g[6 + d] * Qt.col(c);
  };
  MatNp6 R(Np, 6);  // R: [Np][6]
  // E' ∝ curl H, H' ∝ -curl E
  R.col(Ex) = D(Hz, 1) - D(Hy, 2);
  R.col(Ey) = D(Hx, 2) - D(Hz, 0);
  R.col(Ez) = D(Hy, 0) - D(Hx, 1);
  R.col(Hx) = -(D(Ez, 1) - D(Ey, 2));
  R.col(Hy) = -(D(Ex, 2) - D(Ez, 0));
  R.col(Hz) = -(D(Ey, 0) - D(Ex, 1));

  // Surface terms: the flux (a lowered DAG, the same every backend compiles) at the 4*Nfp face
  // nodes, lifted to the volume: rhs_E gets −LIFT·(Fscale·flux_E), rhs_H gets +LIFT·(Fscale·flux_H).
  const Material& mm = p_.material[k];
  const FluxSet& fx = *p_.fluxes;
  std::vector<double> scratch(std::max(fx.flux.dag.nodes().size(), max_exterior_nodes_));
  Eigen::Matrix<double, Eigen::Dynamic, 6> F(4 * Nfp, 6);  // F: [4*Nfp][6]
  for (int f = 0; f < 4; ++f) {
    const bool boundary = md.conn.is_boundary(k, f);
    const Material& mp = boundary ? mm : p_.material[md.conn.EToE[k][f]];
    const double fs = md.geom.Fscale[k][f];
    double in[codegen::kNumFluxInputs] = {};
    for (int x = 0; x < 3; ++x) in[codegen::kNormal + x] = md.geom.normal[k][f][x];
    material_inputs(in, mm, mp);
    for (int j = 0; j < Nfp; ++j) {
      const int slot = (k * 4 + f) * Nfp + j;
      const int iM = p_.maps.vmapM[slot] - k * Np;
      for (int c = 0; c < 6; ++c) in[codegen::kEint + c] = Q(iM, c);
      if (boundary) {
        for (int c = 0; c < 6; ++c) in[codegen::kEinc + c] = 0;
        if (const int m = inc_of_slot_[slot]; m >= 0)
          for (int c = 0; c < 6; ++c) in[codegen::kEinc + c] = inc_[c * n_inc + m];
        double ext[6];
        codegen::evaluate(fx.exterior[static_cast<int>(p_.bc[k][f])].dag, in, ext, scratch.data());
        for (int c = 0; c < 6; ++c) in[codegen::kEext + c] = ext[c];
      } else {
        const int nodeP = p_.maps.vmapP[slot];
        const int kP = nodeP / Np, iP = nodeP % Np;
        for (int c = 0; c < 6; ++c) in[codegen::kEext + c] = q(kP, c, iP);
        // across the TF/SF box the other side's state becomes this side's kind: +- the incident field
        if (const int sign = tfsf_sign(k, f); sign != 0)
          for (int c = 0; c < 6; ++c) in[codegen::kEext + c] += sign * inc_[c * n_inc + inc_of_slot_[slot]];
      }
      double out[6];
      codegen::evaluate(fx.flux.dag, in, out, scratch.data());
      F.row(f * Nfp + j) << -fs * out[0], -fs * out[1], -fs * out[2], fs * out[3], fs * out[4], fs * out[5];
    }
  }
  R.noalias() += ref.LIFT * F;
  return R;
}

void RefBackend::material_inputs(double* in, const Material& mm, const Material& mp) {
  in[codegen::kEpsInt] = mm.eps;
  in[codegen::kEpsExt] = mp.eps;
  in[codegen::kMuInt] = mm.mu;
  in[codegen::kMuExt] = mp.mu;
  in[codegen::kZInt] = mm.Z();
  in[codegen::kZExt] = mp.Z();
  in[codegen::kYInt] = 1 / mm.Z();
  in[codegen::kYExt] = 1 / mp.Z();
}

// The layer at element k (pml_profile.hpp): the right-hand side O becomes O * scale + src, and the
// auxiliary fields' right-hand side goes to dpsi_, both from the state q and psi_.
template <class Out>
void RefBackend::apply_pml(int k, const Fields& q, Out& O) {
  const int Np = p_.Np(), slot = p_.pml->slot_of[k];
  // constant per element, at the middle of its extent on each axis (pml_profile.hpp's pml_point)
  double v[12], x[3], sigma[3], kappa[3], alpha[3];
  for (int n = 0; n < 4; ++n)
    for (int d = 0; d < 3; ++d) v[3 * n + d] = p_.md->mesh.vertices[p_.md->mesh.elements[k][n]][d];
  codegen::pml_point(v, x);
  codegen::pml_coefficients(p_.pml->profile, x, sigma, kappa, alpha);
  for (int i = 0; i < Np; ++i) {
    double u[6], psi[codegen::kPmlAux], dpsi[codegen::kPmlAux], src[6], scale[6];
    for (int c = 0; c < 6; ++c) u[c] = q(k, c, i);
    const size_t base = static_cast<size_t>(slot) * codegen::kPmlAux * Np + i;  // psi_: [slots][18][Np]
    for (int m = 0; m < codegen::kPmlAux; ++m) psi[m] = psi_[base + static_cast<size_t>(m) * Np];
    codegen::pml_node_terms(sigma, kappa, alpha, u, psi, dpsi, src, scale);
    for (int m = 0; m < codegen::kPmlAux; ++m) dpsi_[base + static_cast<size_t>(m) * Np] = dpsi[m];
    for (int c = 0; c < 6; ++c) O(i, c) = O(i, c) * scale[c] + src[c];
  }
}

void RefBackend::step(double t, double dt) {
  HostTimer timer(kernel_seconds_);
  for (int s = 0; s < lserk4::kStages; ++s) {
    if (halo_.active()) {  // the ghosts' face traces of this stage's state
      halo_.start(q_.q.data());
      halo_.finish(q_.q.data());
    }
    rhs(q_, t + lserk4::c[s] * dt, k_);
    const double a = lserk4::a[s], b = lserk4::b[s];
    const size_t n = q_.q.size();
#pragma omp parallel for schedule(static) if (n >= 100000)
    for (size_t i = 0; i < n; ++i) {
      res_.q[i] = a * res_.q[i] + dt * k_.q[i];
      q_.q[i] += b * res_.q[i];
    }
    for (size_t i = 0; i < psi_.size(); ++i) {  // the layer's auxiliary fields, from the same stage
      psi_res_[i] = a * psi_res_[i] + dt * dpsi_[i];
      psi_[i] += b * psi_res_[i];
    }
  }
}

}  // namespace dgmax
