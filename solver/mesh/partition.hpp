// Splitting a mesh's elements into parts (one per rank): a Hilbert space-filling-curve split of
// the element centroids ("sfc") or their recursive coordinate bisection ("rcb"), both always
// available, or METIS on the dual graph ("metis", when the build has it). Pure functions of the mesh: no MPI; every rank computes the same partition.
// The local mesh of one part is local_mesh.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "solver/mesh/mesh_setup.hpp"

namespace dgmax {

struct Partition {
  int parts = 1;
  std::vector<int> part;  // [K] owner of each element, 0..parts-1; every part owns at least one
  std::string method;     // "metis", "rcb" or "sfc": what was used ("auto" resolved)
};

// Whether this build can partition with METIS (DGMAX_USE_METIS).
bool metis_available();

// The methods partition_mesh takes: "auto", "metis", "rcb", "sfc" (the CLI's and the config's).
const std::vector<std::string>& partition_method_names();
// Why `method` cannot partition in this build, with a hint: an unknown name, or metis without
// METIS. nullopt when it can. The one check of partition_mesh and of the config's `partition:`.
// `with_metis`: whether METIS is there (this build's, or the other answer for a test).
struct PartitionMethodError {
  std::string message, hint;
};
std::optional<PartitionMethodError> partition_method_error(const std::string& method,
                                                           bool with_metis = metis_available());

// Splits the K elements of `md` into `parts` non-empty parts of nearly equal total weight.
// weights: [K] positive cost of each element (empty: 1 each).
// method:
//   "sfc"   the elements in the order of the 3D Hilbert index of their centroids (a 2^21 grid over
//           the centroids' bounding box; ties by element index), cut into `parts` contiguous
//           chunks whose weights are closest to equal (each cut at the prefix weight nearest to
//           p·W/parts). Deterministic; each part's weight is within max(w) of W/parts
//           (imbalance ≤ 1 + parts·max(w)/W) unless parts are so many that chunks had to be
//           pushed apart to hold an element each.
//   "metis" METIS_PartGraphKway on the dual graph (elements linked through faces, periodic gluing
//           included; md.conn.EToE), vertex weights `weights` scaled to integers, fixed seed:
//           deterministic for a given METIS build. Parts METIS leaves empty (tiny meshes) get one
//           element of the largest part.
//   "rcb"   recursive coordinate bisection of the centroids (partition_rcb.hpp): each part's
//           elements halved along the longest side of their bounding box at the weighted median.
//           Plane cuts on boxes; each bisection within max(w) of its target.
//   "auto"  metis when the build has it, else both rcb and sfc and the one whose busiest part has
//           the fewest halo faces (then the smaller edge cut; then rcb). On the boxes of the
//           scaling runs rcb cuts 4x fewer faces (35x35x70 cells in 2: 2,450 against 9,934); on
//           power-of-two boxes both cut planes.
// parts == 1: every element in part 0 (method still resolved and checked).
// UserError for parts < 1 or > K, an unknown method, metis without METIS, weights that are not
// positive and finite (weights of another size than K: InternalError).
Partition partition_mesh(const MeshData& md, int parts, const std::vector<double>& weights = {},
                         const std::string& method = "auto");

// What "auto" does without METIS: rcb and sfc both, and the one whose busiest part has the fewest
// halo faces (then the smaller edge cut; then rcb). Same arguments and errors as partition_mesh.
Partition geometric_partition(const MeshData& md, int parts, const std::vector<double>& weights = {});

// How good a partition is for the halo exchange and the load balance.
struct PartitionQuality {
  long long edge_cut = 0;             // faces between elements of different parts, each once
  double imbalance = 1;               // max part weight / mean part weight
  std::vector<long long> elements;    // [parts] owned elements
  std::vector<long long> ghosts;      // [parts] other parts' elements across the part's faces
  std::vector<long long> halo_faces;  // [parts] (owned element, face) pairs with a neighbour elsewhere: faces sent (= received)
  std::vector<int> neighbours;        // [parts] number of parts it exchanges with
};

// weights as for partition_mesh (empty: 1 each).
PartitionQuality partition_quality(const MeshData& md, const Partition& p,
                                   const std::vector<double>& weights = {});

}  // namespace dgmax
