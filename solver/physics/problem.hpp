// Everything a backend needs to evaluate the Maxwell right-hand side on one mesh partition:
// discretization, materials, boundary conditions, flux parameter, sources. Built by
// build_problem (problem_setup.hpp) from a config; backends only read it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/dsl/expr_source.hpp"
#include "codegen/lower/field_lowering.hpp"

#include "solver/element/reference_element.hpp"
#include "solver/mesh/curved_geometry.hpp"
#include "solver/mesh/face_maps.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/physics/flux_set.hpp"

namespace dgmax {

struct PmlLayer;     // pml.hpp
struct TfsfSurface;  // tfsf.hpp

struct Material {
  double eps = 1, mu = 1, sigma = 0;
  double Z() const;  // impedance sqrt(mu/eps)
};

// Exterior state of a boundary face (the flux then treats it like an interior face); the value is
// the index into FluxSet::exterior, whose first four entries are these built-ins (written in the
// flux language, codegen/lower/flux_library.cpp); user-defined states follow.
//   pec:       E+ = -E-,  H+ =  H-
//   pmc:       E+ =  E-,  H+ = -H-
//   absorbing: E+, H+ = the outgoing (along n) characteristic part of the interior trace,
//              first-order Silver–Müller; incoming waves are removed exactly with alpha = 1
//   incident:  E+, H+ = the given incident field at the face node
enum class BcKind : std::int8_t { Pec = 0, Pmc, Absorbing, Incident };
const char* bc_name(BcKind kind);
inline BcKind custom_bc(int exterior_index) { return static_cast<BcKind>(exterior_index); }

// Evaluates m space-time functions at n points: out[c][i] = f_c(x[i], y[i], z[i], t).
using FieldFn = std::function<void(size_t n, const double* x, const double* y, const double* z,
                                   double t, double* const* out)>;

// A vector field of (x, y, z, t) from the config. `eval` interprets its expressions (the ref
// backend, host checks); `lowered` is what the cpu and cuda backends compile into their kernels
// (no expression is interpreted in their time loops). Tests may give only `eval`: the generated
// backends then refuse the problem. `names`/`sources` locate messages ("initial.E[2]").
struct SpaceTimeField {
  FieldFn eval;
  std::optional<codegen::LoweredField> lowered;
  std::vector<std::string> names;
  std::vector<dsl::ExprSource> sources;
  explicit operator bool() const { return static_cast<bool>(eval); }
};

struct Problem {
  int N = 0;
  std::shared_ptr<const MeshData> md;
  const RefElement* ref = nullptr;
  NodeCoords xyz;                          // [K][Np] node coordinates
  FaceMaps maps;                           // [K][4][Nfp] vmapM / vmapP
  std::vector<Material> material;          // [K]
  std::vector<std::array<BcKind, 4>> bc;   // [K][4]; read only on boundary faces
  std::shared_ptr<const FluxSet> fluxes;   // the flux and exterior states every backend uses
  SpaceTimeField current;                  // J: 3 components; empty when there are no sources
  SpaceTimeField incident;                 // E, H: 6 components; needed by states that read Einc/Hinc
  SpaceTimeField initial;                  // E, H at t = 0 (6 components); empty: zero fields
  SpaceTimeField exact;                    // E, H (6 components); empty: no error norms
  std::shared_ptr<const PmlLayer> pml;     // a perfectly matched layer; empty: none
  std::shared_ptr<const TfsfSurface> tfsf;  // total-field/scattered-field box (reads `incident`); empty: none
  // Per-node factors of the curved elements (curved_geometry.hpp); empty: every element affine.
  std::shared_ptr<const CurvedFactors> curved;

  // Lowers the built-in alpha-family flux for alpha (0 central ... 1 upwind) into `fluxes`.
  void set_alpha(double a);

  // Local elements (with several ranks: owned ones, then ghosts whose face traces arrive by the halo
  // exchange) and the ones this rank computes.
  int K() const { return md->mesh.num_elements(); }
  int K_owned() const { return md->owned_elements(); }
  int Np() const { return ref->Np; }
  int Nfp() const { return ref->Nfp; }
  bool is_curved(int k) const { return curved && !curved->empty() && curved->slot_of[k] >= 0; }
  // ∫ u v dV over element k for nodal values u, v: [Np] (J M for an affine element, the quadrature
  // of curved_geometry.hpp for a curved one).
  double inner(int k, const double* u, const double* v) const;
  // Reals of a state [K][6][Np] (ghosts included).
  size_t state_entries() const { return static_cast<size_t>(K()) * 6 * Np(); }
};

// Assembles the discretization part of a problem (nodes, face maps); materials default to vacuum,
// boundaries to PEC, the flux to the built-in upwind flux.
Problem make_problem(std::shared_ptr<const MeshData> md, int N);

}  // namespace dgmax
