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
  // the keys that set the damping rate, for check_pml_time_step's message (`where` when not given):
  // sigma_max (or reflection) and alpha
  SourceLocation sigma_where, alpha_where;
};

struct PmlLayer {
  codegen::PmlProfile profile;
  std::vector<int> elements;  // [slots] layer elements, ascending (a rank's part: its owned ones)
  std::vector<int> slot_of;   // [K] slot of each element, -1 outside the layer (and on ghosts)
  double wave_speed = 1;      // fastest wave speed in the layer (sigma_max from the reflection)
  int whole_elements = 0;     // layer elements of the whole mesh (over all ranks)
  // Of the whole layer's elements, the share whose vertices are corners of their own axis-aligned
  // extent (a cube's tetrahedra): their coefficients (pml_point) jump only across faces normal to
  // an axis. An unstructured layer, well below 1, reflects from its oblique faces too.
  double cell_corner_share = 0;  // (build_pml_layer computes it, localize_pml_layer copies it)
  // The largest damping rate max(sigma/kappa + alpha): the explicit step must resolve it.
  double max_rate() const;
};

// The layer of `md` for `spec` (materials: the problem's, per element). UserError at spec.where
// when the regions are unknown or empty, when the layer is not a layer around a box, when a
// parameter is out of range, or when a layer element is curved (naming it; curved elements
// outside the layer are the domain's).
PmlLayer build_pml_layer(const PmlSpec& spec, const MeshData& md, const std::vector<Material>& material);

// Whether each vertex of element k lies at a corner of the element's axis-aligned extent (to 1e-9 of
// the extent): true for the tetrahedra of a cube split along its diagonals.
bool element_at_cell_corners(const Mesh& mesh, int k);

// A rank's part of the layer `whole` (built on the whole mesh that `local` was cut from): the
// layer elements `local` owns, in ascending local order; profile, wave speed and whole_elements
// are the whole layer's, so that every rank damps, bounds its energy and checks its time step
// alike, with or without layer elements of its own. One rank: a copy of `whole`.
PmlLayer localize_pml_layer(const PmlLayer& whole, const MeshData& local);

// What a layer element costs per step against a plain element, the weight it gets when the mesh
// is partitioned (solver/app/rank_mesh.hpp). Besides the ordinary right-hand side it carries
// kPmlAux = 18 auxiliary fields per node, each with its own LSERK residual: the dgmax_pml kernel
// reads 6 field values and reads and writes 2 x 18 auxiliary values per node and stage, and the
// lift adds the layer's source. That work grows with Np, the ordinary element's volume terms with
// Np^2, so the ratio falls with the order. Measured on the cpu backend (one thread, a 12^3-cell box
// whose outer 2 cells form the layer, 70% of the elements, against the same box without it): a
// layer element costs 1.6 (N = 2), 1.3 (N = 3) and 1.5 (N = 4) plain ones; 1.5 is the middle.
// TF/SF elements (a surface: a few percent) and sources (evaluated at every node of every element)
// leave the elements equal enough to stay unweighted.
constexpr double kPmlElementCost = 1.5;

// [K] kPmlElementCost for the layer's elements, 1 for the others (no layer: empty, i.e. all 1).
std::vector<double> pml_partition_weights(const PmlLayer* whole, int K);

// UserError at spec.where when the time step cannot resolve the layer's damping (LSERK4 is stable
// for dt * rate up to about 2.8 on the negative real axis; 2 leaves a margin for the coupling).
void check_pml_time_step(const PmlLayer& layer, const PmlSpec& spec, double dt);

}  // namespace dgmax
