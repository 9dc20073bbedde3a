// The mesh one rank of a run computes on: the whole mesh with one rank; with several, its part of
// the partition (owned elements, then ghosts: solver/mesh/halo.hpp), every rank partitioning the
// same mesh the same way, so that no rank needs to be told its part.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solver/io/run_config.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/partition.hpp"

namespace dgmax {

// `whole` itself with one rank. `weights`: [K] the elements' costs for the partition (empty: all
// equal; a PML makes its elements dearer: whole_mesh_setup.hpp). `report` receives the partition:
// ranks, method, edge cut, imbalance (of the weights), elements per rank, and `hash`
// (partition_hash: a restart on the same partition reads only its own checkpoint piece).
// `method`: partition_mesh's (the config's `partition`).
std::shared_ptr<const MeshData> rank_mesh(std::shared_ptr<const MeshData> whole, const std::vector<double>& weights,
                                          nlohmann::json* report, const std::string& method = "auto");

// The SHA-256 of the element -> rank map (Partition::part, int per element), in hex.
std::string partition_hash(const Partition& part);

}  // namespace dgmax
