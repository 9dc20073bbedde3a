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

// The MSH types of the complete Lagrange tetrahedron / triangle of order q = 1..10 (4, 11, 29,
// 30, 31, 71..75 / 2, 9, 21, 23, 25, 42..46).
int msh_tetrahedron_type(int q);
int msh_triangle_type(int q);
// Whether `t` is a tetrahedron or triangle type with every node of its order's lattice
// ((q+1)(q+2)(q+3)/6, (q+1)(q+2)/2): Gmsh's "incomplete" (serendipity) ones have fewer.
bool msh_complete_simplex(const MshElementType& t);

// "2 hexahedra (8-node)", "1 tetrahedron (4-node)", "3 points": the words read_gmsh() uses.
std::string describe_msh_elements(long long type, std::size_t count);

}  // namespace dgmax
