// Reading Gmsh .msh files without Gmsh: MSH 4.1 and 2.x (2.2), ASCII and binary. Compiled in
// every build. Most code should call load_mesh_file() (mesh_file.hpp), which sends every .msh
// here.
#pragma once

#include <string>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// Reads the .msh file at `path` into exactly the Mesh that read_gmsh() (gmsh_reader.hpp) makes
// of it with Gmsh 4.8 (tests/unit/mesh/msh_reader_test.cpp compares the two on the meshes/*.geo
// meshes in all four formats):
//   - vertices: only the corner nodes of tetrahedra, numbered 0..Nv-1 in increasing node tag,
//     coordinates bit for bit as written (text is read as Gmsh's fscanf reads it);
//   - elements: the tetrahedra (complete Lagrange ones of one order q = 1..10), volume entity by volume entity in increasing entity tag
//     (MSH 2: elementary tag), in file order within an entity, vertex order as in the file;
//   - element_tag: the physical volume of the tet's volume entity: its name in $PhysicalNames
//     (as Gmsh reads them, see MshContent::physical_names), "physical_volume_<tag>" without one,
//     kUntaggedTag ("untagged") for an entity in no physical volume. volume_tag_names lists every
//     physical volume in increasing tag (groups without tets too), then "untagged" when used;
//     groups sharing a name share the tag;
//   - tagged_faces: one per (triangle, physical surface), vertices as in the file; unnamed groups
//     are "physical_surface_<tag>"; every physical surface is in boundary_tag_names, even one
//     without triangles; a (triangle, tag) pair already seen is dropped. Physical points and
//     curves, $Periodic and every other section are ignored (Mesh::periodic stays empty);
//   - MSH 2 groups elements by (dimension, elementary tag), as Gmsh does: the elements of one
//     elementary tag are in every physical group that any of them names;
//   - geometry_order = q; for q > 1 every tet is curved, its lattice from its nodes
//     (gmsh_tet_lattice_nodes(), msh_node_order.hpp), as read_gmsh; triangles: their corners;
//   - source = path.
// Throws UserError naming the file (and the line, for text, or the byte offset, for binary data,
// where the problem is one spot) when the file is missing, unreadable, empty or not a mesh, fails
// check_msh_structure() (truncated, corrupt counts, other MSH versions, partitioned), holds a
// value that does not read (msh_parse.hpp: tags out of range, nodes defined twice or undefined,
// element blocks on undeclared entities...), has no elements or no volume elements, holds 3D
// elements other than tetrahedra (listed with their counts), incomplete elements or elements of
// several orders (msh_high_order.hpp), has a physical surface with elements other than
// triangles of the tets' order or a triangle on a node of no tetrahedron, or a volume
// entity in two physical volumes. Thread-safe; the file is mapped, not copied.
Mesh read_msh(const std::string& path);

}  // namespace dgmax
