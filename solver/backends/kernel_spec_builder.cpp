#include "solver/backends/kernel_spec_builder.hpp"

#include "solver/backends/curved_kernel_data.hpp"
#include "solver/physics/pml.hpp"
#include "solver/physics/tfsf.hpp"

namespace dgmax {
namespace {

std::vector<double> row_major(const Eigen::MatrixXd& m) {
  std::vector<double> out(static_cast<size_t>(m.rows()) * m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) out[static_cast<size_t>(i) * m.cols() + j] = m(i, j);
  return out;
}

// The lowered form of a field the kernels need; a field given only as a host function (tests)
// cannot be compiled.
std::optional<codegen::LoweredField> lowered(const SpaceTimeField& f, const char* what) {
  if (!f) return std::nullopt;
  if (!f.lowered)
    throw InternalError(std::string("the ") + what +
                        " field has no expression form; the generated backends compile fields from expressions");
  return f.lowered;
}

}  // namespace

codegen::KernelSpec make_kernel_spec(const Problem& p, bool single) {
  const RefElement& ref = *p.ref;
  codegen::KernelSpec s;
  s.N = ref.N;
  s.Np = ref.Np;
  s.Nfp = ref.Nfp;
  s.single = single;
  s.plan.cuda = codegen::default_cuda_plan(p.N, single, 90, bool(p.current));
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
  s.exterior_reads_incident = p.fluxes->exterior_reads_incident;
  s.initial = lowered(p.initial, "initial");
  s.exact = lowered(p.exact, "exact");
  s.current = lowered(p.current, "current (sources.J)");
  s.incident = lowered(p.incident, "incident");
  if (p.pml) {
    s.pml = p.pml->profile;
    s.pml_scaled = p.pml->profile.kappa_max != 1;
  }
  s.tfsf = p.tfsf != nullptr;
  s.M = row_major(ref.M);
  s.node_weights.resize(4 * static_cast<size_t>(ref.Np));
  for (int i = 0; i < ref.Np; ++i) {
    // the weights of map_to_physical (mesh/geometry.cpp), computed the same way
    const double r = ref.r[i], ss = ref.s[i], t = ref.t[i];
    const double w[4] = {-(1 + r + ss + t) / 2, (1 + r) / 2, (1 + ss) / 2, (1 + t) / 2};
    for (int v = 0; v < 4; ++v) s.node_weights[4 * static_cast<size_t>(i) + v] = w[v];
  }
  // (the whole mesh's counts: every rank of a partitioned run compiles the same source)
  s.origin = "flux '" + p.fluxes->flux_name + "', N = " + std::to_string(ref.N) + ", " +
             (single ? "single" : "double") + " precision" +
             (p.pml ? ", PML on " + std::to_string(p.pml->whole_elements) + " elements" : "") +
             (p.tfsf ? ", TF/SF on " + std::to_string(p.tfsf->faces) + " faces" : "");
  set_curved_sizes(p, s);
  return s;
}

}  // namespace dgmax
