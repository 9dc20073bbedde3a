// The perfectly matched layer around a box-shaped domain: which elements form it and its
// coefficients (the formulation is in codegen/emit/pml_profile.hpp).
//
// The layer lies between an inner box, where nothing is damped, and the mesh's bounding box. It is
// given either as volume tags (`regions`: the inner box is the bounding box of all other elements)
// or as a thickness (the elements outside the bounding box shrunk by `thickness`). Every layer
// element must lie outside the inner box (its faces may touch it); anything else is not a layer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/emit/pml_profile.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/physics/problem.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

struct PmlSpec {
  std::vector<std::string> regions;  // volume tags of the layer, or empty with thickness > 0
  double thickness = 0;              // the outer `thickness` of the bounding box (no regions)
  double order = 3;                  // grading exponent
  double reflection = 1e-6;          // target normal-incidence reflection (gives sigma_max)
  double sigma_max = 0;              // if > 0: used as is instead of the reflection target
  double kappa = 1;                  // kappa_max >= 1
  double alpha = 0.05;               // complex frequency shift (1/time), >= 0
  SourceLocation where;              // the config's `pml:` block
};

struct PmlLayer {
  codegen::PmlProfile profile;
  std::vector<int> elements;  // [slots] layer elements, ascending
  std::vector<int> slot_of;   // [K] slot of each element, -1 outside the layer
  double wave_speed = 1;      // fastest wave speed in the layer (sigma_max from the reflection)
  // The largest damping rate max(sigma/kappa + alpha): the explicit step must resolve it.
  double max_rate() const;
};

// The layer of `md` for `spec` (materials: the problem's, per element). UserError at spec.where
// when the regions are unknown or empty, when the layer is not a layer around a box, or when a
// parameter is out of range.
PmlLayer build_pml_layer(const PmlSpec& spec, const MeshData& md, const std::vector<Material>& material);

// UserError at spec.where when the time step cannot resolve the layer's damping (LSERK4 is stable
// for dt * rate up to about 2.8 on the negative real axis; 2 leaves a margin for the coupling).
void check_pml_time_step(const PmlLayer& layer, const PmlSpec& spec, double dt);

}  // namespace dgmax
