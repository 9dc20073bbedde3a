#include "solver/mesh/mesh.hpp"

#include "solver/mesh/curved_lattice.hpp"

#include <algorithm>

namespace dgmax {
namespace {
int find_name(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}
int add_name(std::vector<std::string>& names, const std::string& name) {
  int i = find_name(names, name);
  if (i >= 0) return i;
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}
}  // namespace

int Mesh::num_curved() const {
  int n = 0;
  for (int c : curved_index) n += c >= 0;
  return n;
}

const Vec3* Mesh::curved_row(int k) const {
  return curved_points.data() + static_cast<size_t>(curved_index[k]) * lattice_size(geometry_order);
}

int Mesh::volume_tag(const std::string& name) const { return find_name(volume_tag_names, name); }
int Mesh::boundary_tag(const std::string& name) const { return find_name(boundary_tag_names, name); }
int Mesh::add_volume_tag(const std::string& name) { return add_name(volume_tag_names, name); }
int Mesh::add_boundary_tag(const std::string& name) { return add_name(boundary_tag_names, name); }

Vec3 element_centroid(const Mesh& mesh, int k) {
  Vec3 c{0, 0, 0};
  for (int v : mesh.elements[k])
    for (int d = 0; d < 3; ++d) c[d] += mesh.vertices[v][d] / 4;
  return c;
}

}  // namespace dgmax
