#include "solver/backends/kernel_spec_builder.hpp"

namespace dgmax {
namespace {

std::vector<double> row_major(const Eigen::MatrixXd& m) {
  std::vector<double> out(static_cast<size_t>(m.rows()) * m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) out[static_cast<size_t>(i) * m.cols() + j] = m(i, j);
  return out;
}

}  // namespace

codegen::KernelSpec make_kernel_spec(const Problem& p, bool single) {
  const RefElement& ref = *p.ref;
  codegen::KernelSpec s;
  s.N = ref.N;
  s.Np = ref.Np;
  s.Nfp = ref.Nfp;
  s.single = single;
  s.Dr = row_major(ref.Dr);
  s.Ds = row_major(ref.Ds);
  s.Dt = row_major(ref.Dt);
  s.LIFT = row_major(ref.LIFT);
  s.Fmask.resize(4 * static_cast<size_t>(ref.Nfp));
  for (int f = 0; f < 4; ++f)
    for (int j = 0; j < ref.Nfp; ++j) s.Fmask[static_cast<size_t>(f) * ref.Nfp + j] = ref.Fmask(j, f);
  s.flux = p.fluxes->flux;
  s.exterior = p.fluxes->exterior;
  s.exterior_names = p.fluxes->exterior_names;
  s.origin = "flux '" + p.fluxes->flux_name + "', N = " + std::to_string(ref.N) + ", " +
             (single ? "single" : "double") + " precision";
  return s;
}

}  // namespace dgmax
