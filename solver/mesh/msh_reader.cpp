// From the file's content (msh_parse.hpp) to a Mesh, by the rules of read_gmsh()'s
// extract_mesh (gmsh_reader.cpp), with the same messages: what Gmsh's API calls return there
// (getElementTypes, getPhysicalGroups, getEntitiesForPhysicalGroup, ...) is computed here from
// the entities and element blocks of the file.
#include "solver/mesh/msh_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "solver/mesh/mapped_file.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/mesh/msh_check.hpp"
#include "solver/mesh/msh_element_types.hpp"
#include "solver/mesh/msh_high_order.hpp"
#include "solver/mesh/msh_parse.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

// A .msh that does not start with '$' is no mesh (read_gmsh says the same).
void require_msh_content(const std::string& path, std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size() && i < 4096 && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (i == bytes.size())
    throw UserError("mesh file '" + path + "' is empty", {path}, "give a mesh written by Gmsh (.msh)");
  if (bytes[i] == '$') return;
  std::string start;
  for (size_t k = i; k < bytes.size() && start.size() < 24 && (k == i || (bytes[k] != '\n' && bytes[k] != '\r')); ++k)
    start += std::isprint(static_cast<unsigned char>(bytes[k])) ? bytes[k] : '?';
  throw UserError("mesh file '" + path + "' is not a Gmsh .msh file: it starts with \"" + start +
                      "\" instead of $MeshFormat",
                  {path}, "dgmax reads meshes written by Gmsh (MSH format 2 or 4, ASCII or binary)");
}


class Builder {
 public:
  Builder(const std::string& path, std::string_view bytes, const MshContent& c)
      : path_(path), bytes_(bytes), what_("mesh '" + path + "'"), c_(c) {}

  Mesh build() {
    mesh_.source = path_;
    refuse_foreign_blocks();
    count_types();
    require_tetrahedra_only();
    volume_tags_and_tets();
    vertices_and_elements();
    set_curved_points(mesh_, order_, [&](size_t e, int n) {
      const size_t i = static_cast<size_t>(tet_nodes_[e][n]);
      return Vec3{c_.node_xyz[3 * i], c_.node_xyz[3 * i + 1], c_.node_xyz[3 * i + 2]};
    });
    tagged_faces();
    return std::move(mesh_);
  }

 private:
  std::string physical_name(int dim, int tag) const {
    auto it = c_.physical_names.find({dim, tag});
    if (it != c_.physical_names.end()) return it->second;
    return std::string(dim == 3 ? "physical_volume_" : "physical_surface_") + std::to_string(tag);
  }
  // The physical groups of dimension `dim` in increasing tag, each with its entities in
  // increasing tag.
  std::map<int, std::vector<int>> physical_groups(int dim) const {
    std::map<int, std::vector<int>> groups;
    for (const auto& [entity, physicals] : c_.entities[dim])
      for (int p : physicals) groups[p].push_back(entity);
    return groups;
  }
  // Mesh::add_volume_tag / add_boundary_tag without their linear search (a file may hold many groups).
  static int add_name(std::vector<std::string>& names, std::map<std::string, int>& index, const std::string& name) {
    const auto [it, added] = index.emplace(name, static_cast<int>(names.size()));
    if (added) names.push_back(name);
    return it->second;
  }
  bool in_physical_surface(int entity) const {
    auto it = c_.entities[2].find(entity);
    return it != c_.entities[2].end() && !it->second.empty();
  }
  const MshElementBlock* block(int dim, int entity, int type) const {
    auto it = c_.blocks.find({dim, entity, type});
    return it == c_.blocks.end() || it->second.count == 0 ? nullptr : &it->second;
  }

  // Points or lines on a surface entity (MSH 4.1) are what a physical surface holds besides
  // triangles (reported there); on any other surface Gmsh fails on them.
  void refuse_foreign_blocks() const {
    for (const auto& key : c_.foreign) {
      const MshElementBlock* b = block(std::get<0>(key), std::get<1>(key), std::get<2>(key));
      if (!b || in_physical_surface(b->entity)) continue;
      const MshSpot spot = msh_spot(path_, bytes_, b->first);
      throw UserError("mesh file '" + path_ + "' is corrupt: it has " + describe_msh_elements(b->type, b->count) +
                          " on the surface entity " + std::to_string(b->entity) +
                          " (only 2D elements belong to a surface; Gmsh cannot read them)" + spot.at_byte,
                      spot.where,
                      "the file is damaged or was not written by Gmsh: write it again from Gmsh (`gmsh -3 "
                      "model.geo -o model.msh`)");
    }
  }

  void count_types() {
    for (const auto& [key, b] : c_.blocks) {
      if (b.count == 0) continue;
      type_count_[b.type] += b.count;
      if (b.dim == 3) types_3d_.insert(b.type);
    }
  }

  // ---- element types: complete tetrahedra and triangles of one order (read_gmsh's words) -----
  void require_tetrahedra_only() {
    if (types_3d_.empty()) {
      std::vector<std::string> found;
      for (auto it = type_count_.rbegin(); it != type_count_.rend(); ++it)
        found.push_back(describe_msh_elements(it->first, it->second));
      const std::string hint =
          "dgmax needs a 3D mesh: mesh the volumes with `gmsh -3 file.geo` (or Mesh > 3D in the Gmsh "
          "GUI) and save all elements";
      if (c_.model_nodes == 0 && found.empty())
        throw UserError(what_ + " is empty: it has no nodes and no elements", {path_}, hint);
      if (found.empty())
        throw UserError(what_ + " contains no elements (only " + std::to_string(c_.model_nodes) + " nodes)",
                        {path_}, hint);
      throw UserError(what_ + " contains no volume elements (found only " + join_words(found, " and ") + ")", {path_},
                      hint);
    }
    std::map<int, size_t> types_3d, triangles;
    for (const auto& [type, count] : type_count_) {
      const MshElementType t = msh_element_type(type);
      if (t.dim == 3) types_3d[type] = count;
      if (std::string(t.family) == "triangle") triangles[type] = count;
    }
    order_ = mesh_geometry_order(path_, what_, types_3d, triangles);
    tet_type_ = msh_tetrahedron_type(order_);
    triangle_type_ = msh_triangle_type(order_);
  }

  // ---- physical volumes -> volume tags, tets entity by entity ---------------------------------
  void volume_tags_and_tets() {
    std::map<int, int> volume_index;  // physical tag -> index into volume_tag_names
    std::map<std::string, int> names;
    for (const auto& [tag, entities] : physical_groups(3))
      volume_index[tag] = add_name(mesh_.volume_tag_names, names, physical_name(3, tag));
    int untagged = -1;
    size_t tets = 0;
    for (const auto& [entity, physicals] : c_.entities[3]) {
      const MshElementBlock* b = block(3, entity, tet_type_);
      if (!b) continue;
      std::vector<int> indices;
      for (int p : physicals) {
        const int i = volume_index.at(p);
        if (std::find(indices.begin(), indices.end(), i) == indices.end()) indices.push_back(i);
      }
      int index;
      if (indices.empty()) {
        if (untagged < 0) untagged = add_name(mesh_.volume_tag_names, names, kUntaggedTag);
        index = untagged;
      } else if (indices.size() == 1) {
        index = indices[0];
      } else {
        std::vector<std::string> names;
        for (int i : indices) names.push_back("'" + mesh_.volume_tag_names[i] + "'");
        throw UserError(
            what_ + ": volume entity " + std::to_string(entity) + " (" +
                describe_msh_elements(tet_type_, b->count) + ") is in several physical volumes (" +
                join_words(names, " and ") + "), but every tetrahedron gets exactly one volume tag",
            {path_},
            "put each volume in one Physical Volume only; in MSH2 files Gmsh groups elements by "
            "their elementary tag (the second tag), so elements of different physical volumes need "
            "different elementary tags");
      }
      tets += b->count;
      if (tets > static_cast<size_t>(INT_MAX))
        throw UserError(what_ + " has more than " + std::to_string(INT_MAX) + " tetrahedra, more than dgmax can number",
                        {path_}, "split the problem, or use a coarser mesh");
      tet_blocks_.push_back(b);
      mesh_.element_tag.insert(mesh_.element_tag.end(), b->count, index);
    }
  }

  // ---- vertices: the corner nodes of the tets, in increasing node tag --------------------------
  void vertices_and_elements() {
    const size_t per = static_cast<size_t>(msh_element_type(tet_type_).nodes);
    vertex_id_.assign(c_.node_tags.size(), -1);
    for (const MshElementBlock* b : tet_blocks_)
      for (size_t e = 0; e < b->count; ++e)
        for (size_t j = 0; j < 4; ++j) vertex_id_[b->nodes[per * e + j]] = 0;
    std::vector<std::int32_t> used;  // node indices in increasing tag
    for (size_t i = 0; i < vertex_id_.size(); ++i)
      if (vertex_id_[i] == 0) used.push_back(static_cast<std::int32_t>(i));
    if (!c_.node_tags_increasing)
      std::sort(used.begin(), used.end(), [&](std::int32_t a, std::int32_t b) { return c_.node_tags[a] < c_.node_tags[b]; });
    mesh_.vertices.resize(used.size());
    for (size_t v = 0; v < used.size(); ++v) {
      const size_t n = static_cast<size_t>(used[v]);
      vertex_id_[n] = static_cast<std::int32_t>(v);
      mesh_.vertices[v] = {c_.node_xyz[3 * n], c_.node_xyz[3 * n + 1], c_.node_xyz[3 * n + 2]};
    }
    mesh_.elements.reserve(mesh_.element_tag.size());
    if (order_ > 1) tet_nodes_.reserve(mesh_.element_tag.size());
    for (const MshElementBlock* b : tet_blocks_)
      for (size_t e = 0; e < b->count; ++e) {
        const std::int32_t* n = b->nodes.data() + per * e;
        mesh_.elements.push_back({vertex_id_[n[0]], vertex_id_[n[1]], vertex_id_[n[2]], vertex_id_[n[3]]});
        if (order_ > 1) tet_nodes_.push_back(n);
      }
  }

  // ---- physical surfaces -> tagged faces --------------------------------------------------------
  void tagged_faces() {
    std::set<std::array<int, 4>> seen;  // sorted vertex ids + tag
    std::map<std::string, int> names;
    for (const auto& [tag, entities] : physical_groups(2)) {
      const std::string name = physical_name(2, tag);
      const int index = add_name(mesh_.boundary_tag_names, names, name);
      std::map<int, size_t> unsupported;  // element type -> count
      for (int entity : entities) {
        for (auto it = c_.blocks.lower_bound({2, entity, INT_MIN});
             it != c_.blocks.end() && std::get<0>(it->first) == 2 && std::get<1>(it->first) == entity; ++it)
          if (it->second.type != triangle_type_ && it->second.count > 0) unsupported[it->second.type] += it->second.count;
        if (!unsupported.empty()) continue;
        const MshElementBlock* b = block(2, entity, triangle_type_);
        if (!b) continue;
        const size_t per = static_cast<size_t>(msh_element_type(triangle_type_).nodes);
        for (size_t t = 0; t < b->count; ++t) {
          TaggedFace face{{0, 0, 0}, index};
          for (size_t j = 0; j < 3; ++j) {  // the corners: high-order nodes are no vertices
            const std::int32_t n = b->nodes[per * t + j];
            if (vertex_id_[n] < 0)
              throw UserError(
                  what_ + ": physical surface '" + name + "' has a triangle (element " + std::to_string(b->tags[t]) +
                      ") whose node " + std::to_string(c_.node_tags[n]) + " belongs to no tetrahedron",
                  {path_},
                  "tagged surfaces must be made of faces of the tetrahedra: is this surface part "
                  "of a meshed volume (or embedded in one)?");
            face.v[j] = vertex_id_[n];
          }
          std::array<int, 4> key{face.v[0], face.v[1], face.v[2], index};
          std::sort(key.begin(), key.begin() + 3);
          if (seen.insert(key).second) mesh_.tagged_faces.push_back(face);
        }
      }
      if (!unsupported.empty()) {
        std::vector<std::string> found;
        for (const auto& [type, count] : unsupported) found.push_back(describe_msh_elements(type, count));
        throw UserError(what_ + ": physical surface '" + name + "' contains " + join_words(found, " and ") +
                            "; dgmax needs " + describe_msh_elements(triangle_type_, 2).substr(2) +
                            " on tagged surfaces, of the tetrahedra's order",
                        {path_}, "re-mesh with tetrahedra only (no Recombine), at one Mesh.ElementOrder for the whole model");
      }
    }
  }

  const std::string& path_;
  std::string_view bytes_;
  const std::string what_;
  const MshContent& c_;
  Mesh mesh_;
  std::map<int, size_t> type_count_;  // element type -> count, every dimension
  std::set<int> types_3d_;
  int order_ = 1, tet_type_ = kMshTetrahedron4, triangle_type_ = kMshTriangle3;  // the mesh's geometry order
  std::vector<const MshElementBlock*> tet_blocks_;  // in the order of the elements
  std::vector<const std::int32_t*> tet_nodes_;      // [K] each tet's Gmsh nodes (order_ > 1 only)
  std::vector<std::int32_t> vertex_id_;             // node index -> vertex id, or -1
};

}  // namespace

Mesh read_msh(const std::string& path) {
  require_readable_file(path);
  const MappedFile file(path);
  require_msh_content(path, file.bytes());
  check_msh_structure(path, file.bytes());
  const MshContent content = parse_msh(path, file.bytes());
  return Builder(path, file.bytes(), content).build();
}

}  // namespace dgmax
