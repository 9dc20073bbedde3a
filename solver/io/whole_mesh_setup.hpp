// What a run decides on the whole mesh before each rank keeps its part of it (one rank: the mesh
// it runs on). The perfectly matched layer is found there: its inner box and widths are the whole
// mesh's (a rank's part has its own bounding box), its checks see every element, and the partition
// weights its elements by their cost (pml.hpp: kPmlElementCost). apply_physics then builds the
// TF/SF box on the whole mesh and gives each rank its part of both (run_config.hpp).
#pragma once

#include <memory>
#include <vector>

#include "solver/io/run_config.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/physics/pml.hpp"

namespace dgmax {

struct WholeMeshSetup {
  std::shared_ptr<const MeshData> md;   // the whole mesh
  std::shared_ptr<const PmlLayer> pml;  // cfg.pml's layer on it, else empty

  // [K] the elements' weights for the partition (empty: all equal)
  std::vector<double> partition_weights() const;
};

// The config's materials per element of `mesh` (its volume tags; `default` elsewhere).
std::vector<Material> element_materials(const RunConfig& cfg, const Mesh& mesh);

// UserError for tags the config names that the mesh lacks, and for a layer that is no layer
// (build_pml_layer), with the messages a one-rank run gives.
WholeMeshSetup whole_mesh_setup(const RunConfig& cfg, std::shared_ptr<const MeshData> whole);

}  // namespace dgmax
