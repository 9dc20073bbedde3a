// METIS on the dual graph of a mesh (partition.hpp's "metis" method); compiled as a stub that
// refuses when the build has no METIS.
#pragma once

#include <vector>

#include "solver/mesh/mesh_setup.hpp"

namespace dgmax {

// part[K] from METIS_PartGraphKway: vertices = elements, edges = faces between two different
// elements (EToE, periodic gluing included; parallel faces merged into one edge), vertex weights
// `weights` (positive, [K]) scaled to integers. Parts may come back empty for tiny meshes.
// parts >= 2. Without METIS: InternalError (partition_mesh checks metis_available() first).
std::vector<int> metis_part_graph(const MeshData& md, int parts, const std::vector<double>& weights);

}  // namespace dgmax
