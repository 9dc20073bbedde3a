// The numerical flux and the boundary exterior states of a run, lowered from text (built-in or
// the user's) once; every backend evaluates or compiles these same DAGs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/lower/flux_lowering.hpp"

namespace dgmax {

struct FluxSet {
  std::string flux_name;                       // "upwind", "central", "alpha=0.5", "custom"
  codegen::LoweredFlux flux;                   // 6 outputs: flux_E, flux_H
  std::vector<std::string> exterior_names;     // index = boundary-condition index (BcKind value)
  std::vector<codegen::LoweredFlux> exterior;  // 6 outputs: E.ext, H.ext
  std::vector<bool> exterior_reads_incident;   // whether state b uses Einc/Hinc

  int exterior_index(const std::string& name) const;  // -1 when unknown
};

// A user-written expression pair with where it came from.
struct FluxSource {
  dsl::ExprSource E, H;
};

// Built-in flux by name ("upwind", "central", or "alpha" with `alpha`), or the user's `custom`
// texts; the four built-in exterior states (pec, pmc, absorbing, incident, in this order, matching
// BcKind) followed by the user's named states.
std::shared_ptr<const FluxSet> make_flux_set(const std::string& flux_name, double alpha,
                                             const FluxSource* custom,
                                             const std::map<std::string, double>& constants,
                                             const std::vector<std::pair<std::string, FluxSource>>& states = {});

}  // namespace dgmax
