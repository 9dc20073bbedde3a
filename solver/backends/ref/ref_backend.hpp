// The reference backend: plain Eigen, OpenMP over elements. It is the oracle every generated
// backend is compared against, so it favours clarity: one element at a time, operators as dense
// matrix products, the flux written out component by component. On several ranks it computes its
// owned elements and exchanges the ghosts' face traces before every stage, without overlap.
#pragma once

#include <Eigen/Dense>

#include <vector>

#include "solver/backends/host_state_backend.hpp"
#include "solver/parallel/halo_exchange.hpp"

namespace dgmax {

class RefBackend final : public HostStateBackend<double> {
 public:
  explicit RefBackend(const Problem& problem);
  std::string name() const override { return "ref"; }
  void rhs(const Fields& q, double t, Fields& out) override;
  void set_state(const Fields& q) override;
  void get_state(Fields& q) override { q = q_; }
  void get_residual(Fields& res) override { res = res_; }
  void set_residual(const Fields& res) override;
  // Interpreted on the host (the oracle the generated backends are compared with).
  void init_state() override;
  NormSample norms(double t) override;
  void step(double t, double dt) override;
  void get_aux(std::vector<double>& aux) override;
  void set_aux(const std::vector<double>& aux) override;
  double exchange_wait_seconds() const override { return halo_.wait_seconds(); }

 protected:
  const double* host_state() const override { return q_.q.data(); }
  int host_Np() const override { return q_.Np; }

 private:
  template <class Out>
  void apply_pml(int k, const Fields& q, Out& O);
  // A curved element's curl and lifted face terms (ref_curved.cpp): R: [Np][6], as the affine
  // path's R before sources and materials.
  Eigen::MatrixXd curved_terms(int k, const Fields& q) const;
  Eigen::MatrixXd straight_terms(int k, const Fields& q) const;
  // The flux inputs of both sides' materials (eps, mu, Z, Y) into in[] (codegen/lower/flux_inputs.hpp).
  static void material_inputs(double* in, const Material& mm, const Material& mp);
  void evaluate_sources(double t);
  void evaluate_incident(double t);
  int tfsf_sign(int k, int f) const;  // +1 / -1 on a total-field / scattered-field face of the box, else 0

  const Problem& p_;
  Fields q_, res_, k_;
  std::vector<double> J_;  // [3][K*Np] current density at the nodes, this stage
  // boundary face nodes with an incident-field condition, and total-field/scattered-field face nodes
  std::vector<int> inc_slot_;        // [n] index into the [K][4][Nfp] face-node numbering
  std::vector<double> inc_x_, inc_y_, inc_z_;  // [n]
  std::vector<double> inc_;          // [6][n] incident E, H there, this stage
  std::vector<int> inc_of_slot_;     // [K*4*Nfp] position in inc_ arrays or -1
  size_t max_exterior_nodes_ = 0;    // scratch size for the exterior-state DAGs
  // the layer: auxiliary fields, their LSERK residual and right-hand side, [slots][18][Np]
  std::vector<double> psi_, psi_res_, dpsi_;
  HaloExchange halo_;  // with several ranks: the ghosts' face traces
};

}  // namespace dgmax
