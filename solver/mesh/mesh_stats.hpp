// Summary statistics of a mesh, as printed by `dgmax info`.
#pragma once

#include <string>
#include <vector>

#include "solver/mesh/mesh_setup.hpp"

namespace dgmax {

struct TagCount {
  std::string name;
  long long count;    // faces (boundary tags) or elements (volume tags)
  double measure = 0;  // total area (boundary tags) or volume (volume tags)
};

struct MeshStats {
  long long elements = 0, vertices = 0;
  double h_min = 0, h_max = 0;           // min / max over elements of the longest edge
  double volume_min = 0, volume_max = 0, volume_total = 0;
  double quality_min = 0, quality_mean = 0;  // 3·inradius/circumradius: 1 regular, → 0 degenerate
  long long interior_faces = 0, boundary_faces = 0, periodic_face_pairs = 0;
  int reoriented = 0;
  std::vector<TagCount> boundary_tags;    // boundary faces per tag (periodic faces excluded), then "boundary" = all
  std::vector<TagCount> volume_tags;      // elements per tag
};

MeshStats compute_stats(const MeshData& md);

// Inscribed/circumscribed sphere radius ratio times 3 of element k.
double element_quality(const Mesh& mesh, int k);

}  // namespace dgmax
