// The benchmark problem that `dgmax bench` times and `dgmax tune` tunes by default: a periodic box
// (every face an interior face, as in the bulk of a large mesh) with a smooth non-zero state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "solver/mesh/element_order.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// "N", "N1,N2" or "N1..N2" (1..15). UserError naming --order otherwise.
std::vector<int> parse_orders(const std::string& s);

// A periodic box of n^3 x 6 tetrahedra with n = round(cbrt(elements / 6)), its elements numbered
// as `order` says (Hilbert: as runs number them by default). UserError when `elements` is outside
// 6..1e9 (naming --elements). geometry_order q >= 2: every element curved (`dgmax bench --curved`),
// each cube's inside warped smoothly by a map of degree q that keeps the cubes' faces in place.
std::shared_ptr<const MeshData> bench_mesh(long long elements, ElementOrder order = ElementOrder::Hilbert,
                                           int geometry_order = 1);

// The problem of order N on it, with the bench's smooth initial field (every backend computes it
// where its state lives: no host copy of the state at large K; never timed on zeros).
Problem bench_problem(const std::shared_ptr<const MeshData>& md, int N);

}  // namespace dgmax
