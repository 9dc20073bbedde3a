// The element types a Gmsh mesh may hold, and its curved elements: shared by read_msh()
// (msh_reader.hpp) and read_gmsh() (gmsh_reader.hpp), so that both say the same words and build
// the same lattice. Needs no Gmsh.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// The geometry order q (1..10) of a mesh holding the 3D element types `types_3d` and the triangle
// types `triangles` (MSH type -> count, every one in the file). `what` names the mesh in messages
// ("mesh 'x.msh'"), `path` locates them. Throws UserError for 3D elements other than tetrahedra,
// incomplete (serendipity) tetrahedra or triangles, orders above 10, and tetrahedra or triangles
// of more than one order (each listed with its count, with a hint to re-mesh at one order).
int mesh_geometry_order(const std::string& path, const std::string& what, const std::map<int, std::size_t>& types_3d,
                        const std::map<int, std::size_t>& triangles);

// Sets mesh.geometry_order = q and, for q > 1, gives every element a curved row
// (mesh.curved_index = 0..K-1): lattice point m of element e is Gmsh node
// gmsh_tet_lattice_nodes(q)[m] of the element, whose position is node_xyz(e, that node).
void set_curved_points(Mesh& mesh, int q, const std::function<Vec3(std::size_t element, int node)>& node_xyz);

}  // namespace dgmax
