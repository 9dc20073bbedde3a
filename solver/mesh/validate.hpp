// Checks a mesh before it is used. Each failure is a UserError naming the element or face.
#pragma once

#include <string>
#include <vector>

#include "solver/mesh/connectivity.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

// Rejects empty meshes, vertex ids out of range, elements repeating a vertex, NaN coordinates.
void check_basic(const Mesh& mesh);

// Makes every element positively oriented (swapping two vertices of inverted ones) and rejects
// degenerate elements (|volume| <= 1e-12 · longest edge³). Returns how many were reoriented.
int orient_elements(Mesh& mesh);

// Rejects non-conforming meshes: two boundary faces that lie on top of each other (coplanar,
// facing each other, overlapping) mean hanging nodes or duplicated vertices inside the domain.
void check_conforming(const Mesh& mesh, const Connectivity& conn);

// A tag name a config refers to, with where it was written.
struct TagReference {
  enum Kind { Volume, Boundary } kind;
  std::string name;
  SourceLocation where;
};

// Every referenced tag must exist in the mesh ("default" and "boundary" always do).
void check_tags_exist(const Mesh& mesh, const std::vector<TagReference>& refs);

}  // namespace dgmax
