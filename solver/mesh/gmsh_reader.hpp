// Reading meshes through the Gmsh SDK (only built when DGMAX_HAS_GMSH). Most code should call
// load_mesh_file() (mesh_file.hpp), which checks the path and works in builds without Gmsh too:
// it meshes .geo files here, and reads .msh files with read_msh() (msh_reader.hpp, no Gmsh),
// which gives the same Mesh as read_gmsh() below (tests/unit/mesh/msh_reader_test.cpp). read_gmsh
// on a .msh stays as the reference for that comparison.
#pragma once

#include <string>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// Reads the mesh at `path`:
//   *.msh (any case)  a Gmsh mesh file, format 1, 2 or 4, ASCII or binary; `size` is ignored.
//   anything else     handed to Gmsh as a geometry (.geo, and whatever else Gmsh opens) and
//                     meshed in 3D with tetrahedra of order `geometry_order` (0 or 1: first
//                     order, whatever Mesh.ElementOrder the file sets; q = 2..10: Gmsh's
//                     setOrder(q), its nodes on the curved geometry, then Gmsh's high-order
//                     optimisation as Mesh.HighOrderOptimize = 2 runs it, against tangled elements).
//                     `size` > 0 sets Mesh.MeshSizeMax, an upper bound (smaller sizes the file
//                     puts on points or fields still apply; the meshes/*.geo files set
//                     Mesh.MeshSizeFromPoints = 0 so that `size` is their uniform size), and
//                     remeshes even when the file meshed itself (`Mesh 3;`); `size` == 0 keeps
//                     the file's own sizes.
//
// The result holds the tetrahedra only (complete Lagrange ones of one order q = 1..10):
//   - vertices: only the corner nodes of tetrahedra, numbered 0..Nv-1 in increasing Gmsh node tag;
//   - elements: the tetrahedra in Gmsh's order (volume entity by entity), vertex order as in the
//     file (no reorientation: inverted/degenerate elements are validation's business);
//   - element_tag: the physical volume of the tet's volume entity, named by its physical name,
//     "physical_volume_<tag>" when the group has no name, or kUntaggedTag ("untagged") when the
//     entity is in no physical volume. volume_tag_names lists every physical volume (in
//     increasing physical tag, including groups without tets), then "untagged" when used.
//     Groups sharing a name share the tag.
//   - tagged_faces: one entry per (triangle, physical surface), vertices as in the file; unnamed
//     surfaces are "physical_surface_<tag>". Every physical surface is listed in
//     boundary_tag_names, even one without triangles. Duplicate (triangle, tag) pairs are
//     dropped. Triangles need not be faces of a tet (validation checks that), but their
//     vertices must be tet vertices. Physical points/curves are ignored.
//   - geometry_order = q; for q > 1 every tet is curved (curved_index = 0..K-1), its lattice
//     (curved_lattice.hpp) taken from its Gmsh nodes by gmsh_tet_lattice_nodes() (setup_mesh drops
//     the ones that are affine after all); triangles of order q give their corners only;
//   - source = path.
//
// Throws UserError (location: the file, and the line where known) when the file is
// missing/unreadable, is not a mesh, is truncated or has corrupt counts or values (checked before
// Gmsh reads it: msh_check.hpp), a .geo at `size` would not fit in memory (memory_estimate.hpp),
// Gmsh runs out of memory, Gmsh fails (the message
// quotes Gmsh's own, with the line when Gmsh gives one), the mesh is empty or has no volume
// elements, holds 3D elements other than tetrahedra (the message lists them with counts),
// incomplete (serendipity) elements, tetrahedra or triangles of more than one order
// (mesh_geometry_order in msh_high_order.hpp), a physical surface holds elements other than
// triangles of the tets' order, or one volume entity is in two physical volumes (each tet gets
// one volume tag).
//
// Thread-safe: calls are serialized (Gmsh is a process-wide singleton). Gmsh is initialized and
// finalized around every call, so no option, model or memory outlives it; the process locale and
// OpenMP thread count, which gmsh::initialize changes, are restored afterwards.
//
// write_msh (a path, or ""): the mesh is also written there as a binary msh 4.1 file with its
// high-order nodes where the Mesh has them, so that reading that file gives the same Mesh (for a
// machine without Gmsh: `dgmax info --write-msh`).
Mesh read_gmsh(const std::string& path, double size = 0, int geometry_order = 0, const std::string& write_msh = "");

}  // namespace dgmax
