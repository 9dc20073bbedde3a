// The order the elements are stored in. Every kernel streams the elements in storage order and
// reads each neighbour's face trace, so neighbours near in storage are neighbours still in cache:
// renumbering along a Hilbert curve through the centroids keeps most face neighbours within a few
// hundred elements (a lexicographic box keeps its z neighbours n² cells away; a mesh file may
// keep any order).
#pragma once

#include <string>
#include <vector>

#include "solver/mesh/connectivity.hpp"
#include "solver/mesh/mesh.hpp"

namespace dgmax {

enum class ElementOrder {
  Input,    // as read (or generated): element k of the file is element k of the run
  Hilbert,  // along the Hilbert curve of the centroids (the default of runs and benchmarks)
};

// "input" | "hilbert" (the config's mesh.numbering); false for any other text.
bool parse_element_order(const std::string& text, ElementOrder& out);
const char* element_order_name(ElementOrder order);

// The elements in the order of the Hilbert index of their centroids on a 2^21 grid over the
// bounding box of the centroids (ties by element index): order[i] = old index of new element i.
std::vector<int> hilbert_element_order(const Mesh& mesh);

// Renumbers the elements: new element i is old element order[i] (a permutation of 0..K-1). The
// element vertices, tags and the connectivity move with them (neighbour indices mapped to the new
// numbers); vertices, tagged faces and periodic pairs are unchanged. InternalError when `order`
// is not a permutation or `conn` does not belong to `mesh`.
void renumber_elements(Mesh& mesh, Connectivity& conn, const std::vector<int>& order);

}  // namespace dgmax
