// One part's mesh of a partitioned run: its own elements and one layer of ghosts (copies of the
// neighbouring parts' elements across its faces), with connectivity, geometry and the Halo that
// says which face traces go to and come from which part (halo.hpp). No MPI: every rank can
// extract its own local mesh from the same global one.
#pragma once

#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/partition.hpp"

namespace dgmax {

// The local mesh of part `rank` of `p` (a partition of `global`, which must not be a local mesh
// itself). With p.parts == 1: a copy of `global` with an empty Halo.
//
// Elements: the owned elements that have no face to another part ([0, K_interior), increasing
// global index), then the owned ones that have ([K_interior, K_owned), increasing global index),
// then the ghosts: the other parts' elements across this part's faces ([K_owned, K), increasing
// global index). Every element keeps its global vertex order, so local face f of a ghost is face
// f of its owner's element and the geometric factors are bit for bit the global ones.
// Vertices: those of the local elements, in increasing global index. Element tags and the tag
// name lists are copied (tag indices stay valid); tagged_faces: those that are a face of a local
// element; periodic pairs copied; `source` and `reoriented` copied.
//
// Connectivity: a face between two local elements keeps its link (EToF, tag and periodic index);
// a face on the domain boundary stays a boundary face (EToE = -1, its tag). A ghost's face whose
// neighbour is not local becomes a link to itself (EToE[k][f] = k, EToF[k][f] = f, face_tag -1,
// face_periodic -1): ghosts are never computed, and this way neither the face maps nor the
// boundary conditions see a boundary that is not there. Counts, over all local elements (ghosts
// included), each face once: interior_faces = faces between two different local elements not
// glued periodically; periodic_faces = periodic pairs with both sides local; boundary_faces =
// faces with EToE = -1. The self-linked ghost faces are in none of them.
//
// Halo: neighbours = the parts this one shares a face with, increasing. send[r]: every (owned
// element, face) whose neighbour belongs to neighbours[r]; recv[r]: every (ghost, face) of a
// ghost owned by neighbours[r] that touches an owned element here, the face being the ghost's own
// (the owner's EToF side). Both lists are sorted by (global index of the sending side's element,
// face), so that rank r's send list to s and rank s's receive list from r name the same global
// (element, face) pairs in the same order without any communication.
// `global` may be set up without stored factors (GeometryFactors::Checked): the part computes its own.
MeshData extract_local_mesh(const MeshData& global, const Partition& p, int rank);

// [K_whole] the local index of each element of the whole mesh that `local` owns, -1 for the others
// (ghosts included: they are not computed here). With one rank (local is the whole mesh): 0..K-1.
std::vector<int> owned_local_index(const MeshData& local, int K_whole);

}  // namespace dgmax
