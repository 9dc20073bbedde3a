#include "solver/physics/flux_set.hpp"

#include <algorithm>

#include "codegen/lower/flux_inputs.hpp"
#include "codegen/lower/flux_library.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

bool reads_incident(const codegen::ScalarDag& dag) {
  const auto live = dag.live();
  for (size_t i = 0; i < dag.nodes().size(); ++i) {
    const auto& n = dag.nodes()[i];
    if (live[i] && n.op == codegen::DagNode::Op::input && n.input >= codegen::kEinc) return true;
  }
  return false;
}

codegen::LoweredFlux lower_builtin(const codegen::FluxText& t, const codegen::FluxScope& scope) {
  const std::string where = "built-in '" + t.name + "'";
  return codegen::lower_flux({t.E, {where, 0, 0, {}}}, {t.H, {where, 0, 0, {}}}, scope);
}

}  // namespace

int FluxSet::exterior_index(const std::string& name) const {
  const auto it = std::find(exterior_names.begin(), exterior_names.end(), name);
  return it == exterior_names.end() ? -1 : static_cast<int>(it - exterior_names.begin());
}

std::shared_ptr<const FluxSet> make_flux_set(const std::string& flux_name, double alpha,
                                             const FluxSource* custom,
                                             const std::map<std::string, double>& constants,
                                             const std::vector<std::pair<std::string, FluxSource>>& states) {
  auto fs = std::make_shared<FluxSet>();
  codegen::FluxScope scope{codegen::FluxContext::Flux, constants};
  scope.constants["alpha"] = alpha;
  if (custom) {
    fs->flux_name = "custom";
    fs->flux = codegen::lower_flux(custom->E, custom->H, scope);
  } else {
    const codegen::FluxText* t = codegen::builtin_flux(flux_name == "upwind" || flux_name == "central" ? flux_name : "alpha");
    DGMAX_ASSERT(t, "missing built-in flux " + flux_name);
    fs->flux_name = flux_name;
    fs->flux = lower_builtin(*t, scope);
  }
  codegen::FluxScope ext_scope{codegen::FluxContext::Exterior, scope.constants};
  for (const char* name : {"pec", "pmc", "absorbing", "incident"}) {
    const codegen::FluxText* t = codegen::builtin_exterior_state(name);
    DGMAX_ASSERT(t, std::string("missing built-in exterior state ") + name);
    fs->exterior_names.push_back(name);
    fs->exterior.push_back(lower_builtin(*t, ext_scope));
  }
  for (const auto& [name, src] : states) {
    fs->exterior_names.push_back(name);
    fs->exterior.push_back(codegen::lower_flux(src.E, src.H, ext_scope));
  }
  for (const auto& e : fs->exterior) fs->exterior_reads_incident.push_back(reads_incident(e.dag));
  return fs;
}

}  // namespace dgmax
