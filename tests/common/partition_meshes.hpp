// Meshes the partition and local-mesh tests run on: a plain box, a periodic box, a box with
// several volume tags; and the partition methods this build has.
#pragma once

#include <string>
#include <vector>

#include "solver/mesh/box.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/partition.hpp"

namespace dgmax::test {

struct NamedMesh {
  std::string name;
  MeshData md;
};

inline MeshData box_md(std::array<int, 3> cells, std::array<bool, 3> periodic = {false, false, false},
                       std::vector<BoxRegion> regions = {}) {
  BoxSpec spec;
  spec.cells = cells;
  spec.periodic = periodic;
  spec.regions = std::move(regions);
  return setup_mesh(make_box_mesh(spec));
}

// Three meshes of a few hundred elements: plain, periodic in x and z, three volume tags; and a
// thin box periodic in all directions (one cell in z: an element may meet a neighbour part
// through several faces, and a ghost may touch this part through several faces).
inline std::vector<NamedMesh> partition_test_meshes() {
  std::vector<NamedMesh> m;
  m.push_back({"box 6x5x4", box_md({6, 5, 4})});
  m.push_back({"periodic box 5x4x4 (x, z)", box_md({5, 4, 4}, {true, false, true})});
  m.push_back({"tagged box 4x4x4",
               box_md({4, 4, 4}, {false, false, false},
                      {{"left", {0, 0, 0}, {0.5, 1, 1}}, {"corner", {0.5, 0.5, 0}, {1, 1, 0.5}}})});
  m.push_back({"thin periodic box 3x2x1 (x, y, z)", box_md({3, 2, 1}, {true, true, true})});
  return m;
}

inline std::vector<std::string> partition_methods() {
  std::vector<std::string> m{"sfc", "rcb"};
  if (metis_available()) m.push_back("metis");
  return m;
}

}  // namespace dgmax::test
