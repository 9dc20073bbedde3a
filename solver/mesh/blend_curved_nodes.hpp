// Places the high-order nodes of a curved mesh from its curved boundary alone: every node that is
// not on a curved geometric entity (a curve other than a line, a surface other than a plane) goes
// to the smooth polynomial extension of the boundary's displacement into the element (the
// hierarchical edge and face blend below). Gmsh's own placement (setOrder: straight-sided inside;
// its elastic pass and optimiser: small moves of every node) breaks the scaling the isoparametric
// error estimate needs (Lenoir, SIAM J. Numer. Anal. 1986): the map's k-th derivatives must fall as
// h^k, and a node left straight next to a displaced face gives h^2 for every k >= 2. bench/NOTES.md,
// "2026-12-06 — The cylinder cavity with blended boundary elements". Needs no Gmsh.
//
// The blend, on an element with barycentric coordinates λ:
//   x(λ) = Σ_v λ_v x_v                                   (the affine map)
//        + Σ_{curved edges ab} λ_a λ_b ψ_ab((1 + λ_b − λ_a) / 2)
//        + Σ_{curved faces abc} λ_a λ_b λ_c φ_abc(λ_a + λ_d / 3, λ_b + λ_d / 3)   (d: the vertex off the face)
// ψ_ab (degree q − 2) is fitted to the edge's nodes, φ_abc (degree q − 3) to the face's inner nodes
// after the edge terms. Each edge term vanishes on the faces without its edge and each face term on
// the other faces, so a face's points depend on that face's data only: neighbours agree (to the bit:
// terms are summed in increasing global vertex id, and the terms that vanish add exact zeros).
// Elements with no curved edge come out affine and are dropped from the curved group.
#pragma once

#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

struct BlendResult {
  int curved_edges = 0, curved_faces = 0;  // counted once per element holding them
  int curved_elements = 0;                 // left curved
  double min_scaled = 1;                   // their smallest scaled Jacobian (not positive: tangled)
  int min_element = -1;                    // the element that has it
};

// `mesh` has every element curved in element order (set_curved_points). on_curved[k * Nq + m] != 0:
// lattice point m of element k is a node on a curved entity (its position is the geometry's and
// is kept): [K][Nq]. An edge (face) counts as curved when all of its inner nodes are such nodes.
// Does not throw for a tangled result: min_scaled says, and the caller decides.
BlendResult blend_curved_nodes(Mesh& mesh, const std::vector<char>& on_curved);

}  // namespace dgmax
