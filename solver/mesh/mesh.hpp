// The mesh as read or generated: tetrahedra with volume and boundary tags, straight-sided or
// curved. Connectivity and geometric factors are derived from it (connectivity.hpp, geometry.hpp,
// curved_geometry.hpp).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace dgmax {

using Vec3 = std::array<double, 3>;

// Local face f of a tetrahedron is spanned by these local vertices (Hesthaven–Warburton order:
// face 0: t = -1, face 1: s = -1, face 2: r + s + t = -1, face 3: r = -1).
inline constexpr int kFaceVertices[4][3] = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};

// The tag every boundary face carries in addition to its own (e.g. `boundary: pec`).
inline constexpr const char* kAllBoundaryTag = "boundary";
// Tag given to elements / boundary faces that belong to no physical group.
inline constexpr const char* kUntaggedTag = "untagged";

struct TaggedFace {
  std::array<int, 3> v;  // vertex ids (any order)
  int tag;               // index into Mesh::boundary_tag_names
};

// Faces of tag `a` are glued to faces of tag `b` with x_b = x_a + shift.
struct PeriodicPair {
  int tag_a;
  int tag_b;
  Vec3 shift;
};

struct Mesh {
  std::vector<Vec3> vertices;               // [Nv]
  std::vector<std::array<int, 4>> elements;  // [K][4] vertex ids
  std::vector<int> element_tag;              // [K] index into volume_tag_names
  std::vector<std::string> volume_tag_names;
  std::vector<TaggedFace> tagged_faces;      // named triangles (boundaries, maybe interfaces)
  std::vector<std::string> boundary_tag_names;
  std::vector<PeriodicPair> periodic;
  std::string source;                        // where it came from, for messages ("box:4,4,4", a path)

  // Curved elements: the map from the reference tetrahedron of element k is the polynomial of
  // degree geometry_order through curved_points' row curved_index[k] (the lattice of
  // curved_lattice.hpp; its 4 corner points are the element's vertices). Elements with
  // curved_index[k] = -1, and every element when curved_index is empty, are affine.
  int geometry_order = 1;
  std::vector<int> curved_index;             // [K] row of curved_points, or -1; empty: none curved
  std::vector<Vec3> curved_points;           // [Kc][lattice_size(geometry_order)]
  // How a .geo's high-order nodes were placed, for reports (`dgmax info`); "" for a file's nodes,
  // taken as written, and for straight-sided meshes.
  std::string high_order_nodes;

  int num_elements() const { return static_cast<int>(elements.size()); }
  int num_vertices() const { return static_cast<int>(vertices.size()); }
  bool is_curved(int k) const { return !curved_index.empty() && curved_index[k] >= 0; }
  int num_curved() const;
  // Element k's lattice positions (is_curved(k)): [lattice_size(geometry_order)].
  const Vec3* curved_row(int k) const;
  // Index of a tag name, or -1.
  int volume_tag(const std::string& name) const;
  int boundary_tag(const std::string& name) const;
  // Adds the name when missing; returns its index.
  int add_volume_tag(const std::string& name);
  int add_boundary_tag(const std::string& name);
};

// The centroid of element k: each vertex / 4 summed in the element's vertex order (the one
// arithmetic every centroid test of dgmax uses: box regions, the PML layer, monitors, numbering).
Vec3 element_centroid(const Mesh& mesh, int k);

}  // namespace dgmax
