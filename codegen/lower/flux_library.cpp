#include "codegen/lower/flux_library.hpp"

#include <array>

namespace dgmax::codegen {
namespace {

// flux_E = n×(H⁻ − H*), flux_H = n×(E⁻ − E*) with jump(u) = u.int − u.ext; the alpha family
//   H* = (Z⁻H⁻ + Z⁺H⁺)/(Z⁻+Z⁺) − alpha n×(E⁻ − E⁺)/(Z⁻+Z⁺) (and symmetrically E*) gives
//   flux_E = n×(Z.ext jump(H) − alpha n×jump(E))/(Z.int+Z.ext),
//   flux_H = n×(Y.ext jump(E) + alpha n×jump(H))/(Y.int+Y.ext).
// upwind and central are the members alpha = 1 and alpha = 0 written out, so they need no
// constant and central skips the alpha term (0*x is not folded away: it is NaN for x = inf).
const std::array<FluxText, 3> kFluxes{{
    {"upwind",
     "1/(Z.int + Z.ext) * cross(n, Z.ext*jump(H) - cross(n, jump(E)))",
     "1/(Y.int + Y.ext) * cross(n, Y.ext*jump(E) + cross(n, jump(H)))",
     "upwind flux for heterogeneous media (the alpha flux with alpha = 1): dissipates the "
     "tangential jumps, optimal convergence order N+1"},
    {"central",
     "1/(Z.int + Z.ext) * cross(n, Z.ext*jump(H))",
     "1/(Y.int + Y.ext) * cross(n, Y.ext*jump(E))",
     "central flux (the alpha flux with alpha = 0): conserves the discrete energy, order N for "
     "odd N"},
    {"alpha",
     "1/(Z.int + Z.ext) * cross(n, Z.ext*jump(H) - alpha*cross(n, jump(E)))",
     "1/(Y.int + Y.ext) * cross(n, Y.ext*jump(E) + alpha*cross(n, jump(H)))",
     "the alpha family between central (alpha = 0) and upwind (alpha = 1); reads the constant "
     "'alpha'"},
}};

// Exterior states E.ext, H.ext of a boundary face from the interior trace.
const std::array<FluxText, 4> kExteriorStates{{
    {"pec", "-E.int", "H.int",
     "perfect electric conductor: n×E = 0 on the wall (E.ext = -E.int, H.ext = H.int)"},
    {"pmc", "E.int", "-H.int",
     "perfect magnetic conductor: n×H = 0 on the wall (E.ext = E.int, H.ext = -H.int)"},
    {"absorbing",
     "(E.int - dot(n, E.int)*n + Z.int*cross(H.int, n))/2",
     "(H.int - dot(n, H.int)*n + Y.int*cross(n, E.int))/2",
     "first-order Silver-Mueller absorbing boundary: the outgoing part of the interior wave "
     "passes, an incoming one is set to zero"},
    {"incident", "Einc", "Hinc",
     "prescribed incident field (Einc, Hinc from the source definition) as the exterior state"},
}};

template <size_t N>
const FluxText* lookup(const std::array<FluxText, N>& table, const std::string& name) {
  for (const FluxText& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

template <size_t N>
std::vector<std::string> names(const std::array<FluxText, N>& table) {
  std::vector<std::string> out;
  for (const FluxText& f : table) out.push_back(f.name);
  return out;
}

}  // namespace

const FluxText* builtin_flux(const std::string& name) { return lookup(kFluxes, name); }
std::vector<std::string> builtin_flux_names() { return names(kFluxes); }

const FluxText* builtin_exterior_state(const std::string& name) {
  return lookup(kExteriorStates, name);
}
std::vector<std::string> builtin_exterior_state_names() { return names(kExteriorStates); }

}  // namespace dgmax::codegen
