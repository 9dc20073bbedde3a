// Built-in numerical fluxes and boundary exterior states, written in the flux language itself
// (so every backend derives from text, and users can copy and edit them).
#pragma once

#include <string>
#include <vector>

namespace dgmax::codegen {

struct FluxText {
  std::string name;
  std::string E, H;         // the two 3-vector expressions
  std::string description;
};

// "upwind", "central", "alpha" (uses the constant `alpha`): the alpha family for heterogeneous
// media, flux_E = n×(H⁻ − H*), flux_H = n×(E⁻ − E*).
const FluxText* builtin_flux(const std::string& name);
std::vector<std::string> builtin_flux_names();

// "pec", "pmc", "absorbing", "incident": exterior states E.ext, H.ext.
const FluxText* builtin_exterior_state(const std::string& name);
std::vector<std::string> builtin_exterior_state_names();

}  // namespace dgmax::codegen
