// Loading a mesh from a file named by the user. Compiled in every build; the actual reading needs
// Gmsh (gmsh_reader.hpp) and fails with a clear UserError in builds without it.
#pragma once

#include <string>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// Loads the mesh in `path`, dispatching on the extension (case-insensitive):
//   .msh  Gmsh mesh (format 2 or 4, ASCII or binary); `size` is ignored.
//   .geo  Gmsh geometry, meshed in 3D on the fly; `size` > 0 is the maximum element size,
//         0 keeps the sizes the .geo file sets.
// See read_gmsh() for what the returned Mesh holds (tags, vertex numbering). Mesh::source is
// `path`. Throws UserError for another extension (listing the supported ones), a negative or
// non-finite `size`, a missing/unreadable file, any problem reading it, and, in a build without
// Gmsh (DGMAX_HAS_GMSH == 0), for every file.
Mesh load_mesh_file(const std::string& path, double size = 0);

// Throws UserError naming `path` unless it is an existing regular file we can open for reading.
// `what` names it in the message ("mesh file 'x.msh' does not exist").
void require_readable_file(const std::string& path, const std::string& what = "mesh file");

}  // namespace dgmax
