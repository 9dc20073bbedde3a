// The element types of Gmsh's MSH format (types 1..140 as Gmsh 4.8 defines them), and how dgmax
// names them in messages. Needs no Gmsh: the table was taken from gmsh::model::mesh::
// getElementProperties.
#pragma once

#include <cstddef>
#include <string>

namespace dgmax {

// MSH element type numbers dgmax reads.
inline constexpr int kMshTriangle3 = 2;
inline constexpr int kMshTetrahedron4 = 4;

struct MshElementType {
  int nodes = 0;        // 0: unknown to Gmsh, or of variable size (polygons): unreadable
  int dim = 0;          // 0..3
  int order = 0;        // polynomial order (0 for the one-node "elements" 84..89, 132)
  const char* family = "";  // "tetrahedron", "quadrangle", "point", ...
};

// The properties of MSH element type `type`; nodes == 0 for an unknown one.
MshElementType msh_element_type(long long type);

// "2 hexahedra (8-node)", "1 tetrahedron (4-node)", "3 points": the words read_gmsh() uses.
std::string describe_msh_elements(long long type, std::size_t count);

}  // namespace dgmax
