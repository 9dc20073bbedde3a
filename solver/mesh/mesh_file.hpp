// Loading a mesh from a file named by the user. Compiled in every build: .msh files are read
// without Gmsh (msh_reader.hpp); meshing a .geo needs Gmsh (gmsh_reader.hpp) and fails with a
// clear UserError in builds without it.
#pragma once

#include <string>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// Loads the mesh in `path`, dispatching on the extension (case-insensitive):
//   .msh  Gmsh mesh (MSH 4.1 or 2.2, ASCII or binary), read by read_msh() in every build, with
//         or without Gmsh (Gmsh 4.8's own reader crashes on some files); `size` is ignored.
//   .geo  Gmsh geometry, meshed in 3D on the fly by read_gmsh(); `size` > 0 is the maximum
//         element size, 0 keeps the sizes the .geo file sets.
// Both give the same Mesh for a .msh (see read_msh() / read_gmsh() for what it holds: tags,
// vertex numbering). Mesh::source is `path`. Throws UserError for another extension (listing the
// supported ones), a negative or non-finite `size`, a missing/unreadable file, any problem
// reading it, and, in a build without Gmsh (DGMAX_HAS_GMSH == 0), for a .geo.
// `geometry_order` (mesh.geometry_order): 0 = not given (a .geo is meshed at order 1, a .msh is
// read at its own order); 1..10: the order a .geo is meshed at, and the order a .msh must have
// (a .msh of another order is refused: its geometry is what it holds).
// write_msh: also write the mesh of a .geo as read_gmsh does (refused for a .msh).
Mesh load_mesh_file(const std::string& path, double size = 0, int geometry_order = 0, const std::string& write_msh = "");

// Throws UserError naming `path` unless it is an existing regular file we can open for reading.
// `what` names it in the message ("mesh file 'x.msh' does not exist").
void require_readable_file(const std::string& path, const std::string& what = "mesh file");

}  // namespace dgmax
