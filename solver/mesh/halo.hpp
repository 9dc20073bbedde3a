// What one rank of a partitioned run needs to know about its neighbours: which of its elements'
// face traces it sends to whom, and where the traces it receives go. Empty with one rank.
//
// A rank's MeshData holds its owned elements first (those that touch no other rank's element
// first: [0, K_interior), then the ones on a rank boundary: [K_interior, K_owned)), then its
// ghosts [K_owned, K): copies of the neighbours' elements across its rank-boundary faces, with the
// vertex order of the owner, so that local face f of a ghost is local face f of the element it
// copies. Kernels compute the owned elements only; a ghost's nodes on the faces listed in
// `recv` hold the traces its owner sent, and the owned elements' vmapP reads them there.
#pragma once

#include <array>
#include <vector>

namespace dgmax {

struct HaloFace {
  int element;  // local element index (owned in a send list, a ghost in a receive list)
  int face;     // local face 0..3 (the same on both sides: a ghost copies its owner's vertex order)
};

struct Halo {
  int rank = 0;        // this part
  int parts = 1;       // all parts
  int K_owned = -1;    // owned elements; -1: all (one rank)
  int K_interior = -1; // owned elements that touch no ghost; -1: all
  std::vector<int> neighbours;                 // [R] ranks this part exchanges with, increasing
  std::vector<std::vector<HaloFace>> send;     // [R][faces] traces sent to neighbours[r], in the order the receiver expects
  std::vector<std::vector<HaloFace>> recv;     // [R][faces] ghost faces filled from neighbours[r], same order as its send list
  std::vector<long long> global_element;       // [K] global element index of every local element (owned, then ghosts); empty with one rank

  bool partitioned() const { return parts > 1; }
  // The whole mesh's index of local element k (k itself with one rank).
  long long global_index(int k) const { return global_element.empty() ? k : global_element[static_cast<size_t>(k)]; }
  int faces_sent() const {
    int n = 0;
    for (const auto& s : send) n += static_cast<int>(s.size());
    return n;
  }
};

}  // namespace dgmax
