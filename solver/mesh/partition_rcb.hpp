// Recursive coordinate bisection of the element centroids (partition.hpp's "rcb" method): halve
// the elements along the longest side of their bounding box at the weighted median, then each half
// the same way. On a structured box the cuts are planes where a plane can fall between cells (a
// box of 69x69x138 cells in two: 9,522 faces, where the Hilbert curve's chunks cut 38,820).
#pragma once

#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// part[K] in 0..parts-1, every part non-empty (parts <= K). A part of p parts splits into
// floor(p/2) and the rest at the prefix weight nearest to W·floor(p/2)/p, the elements sorted by
// (centroid along the axis, element index): deterministic. weights: positive, [K]. parts >= 1.
std::vector<int> rcb_partition(const Mesh& mesh, const std::vector<double>& weights, int parts);

}  // namespace dgmax
