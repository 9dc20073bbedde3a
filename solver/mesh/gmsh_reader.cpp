// Gmsh SDK reader. Notes on the Gmsh 4.8 API that shaped this file:
//  - errors are thrown as std::string (General.AbortOnError = 2 in API mode), not std::exception;
//    a throw from inside the .geo parser leaves its lexer holding the rest of the bad file, which
//    the next .geo parse in the process then reads: so opening and meshing run with
//    AbortOnError = 0 and their errors are collected from the logger instead;
//  - output vectors passed non-empty are taken as preallocated: always pass fresh empty ones;
//  - gmsh::initialize calls setlocale(LC_ALL, "") and omp_set_num_threads(1) for the whole
//    process: both are restored here;
//  - options (Mesh.MeshSizeMax set by one .geo, ...) survive gmsh::clear(): initializing and
//    finalizing around every read is the only way back to the defaults (there is no
//    option::restoreDefaults in 4.8), and it also frees Gmsh's copy of the mesh;
//  - for MSH2 files Gmsh attaches physical groups to elementary entities, so elements of one
//    elementary tag with different physical tags all end up in every one of those groups;
//  - a .msh that does not start with '$' is silently parsed as a .geo script, hence the sniffing.
#include "solver/mesh/gmsh_reader.hpp"

#include <fmt/format.h>
#include <gmsh.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "solver/io/atomic_write.hpp"
#include "solver/mesh/blend_curved_nodes.hpp"
#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/memory_estimate.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/mesh/msh_check.hpp"
#include "solver/mesh/msh_element_types.hpp"
#include "solver/mesh/msh_high_order.hpp"
#include "solver/mesh/msh_node_order.hpp"
#include "solver/mesh/straighten_far_nodes.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

std::mutex g_gmsh_mutex;  // Gmsh is one global state per process


// One Gmsh lifetime: quiet, no config files, logging errors and warnings to memory. Restores the
// process locale and OpenMP thread count that gmsh::initialize changes.
class GmshSession {
 public:
  GmshSession() {
    const char* locale = std::setlocale(LC_ALL, nullptr);
    saved_locale_ = locale ? locale : "C";
#ifdef _OPENMP
    saved_threads_ = omp_get_max_threads();
#endif
    gmsh::initialize(0, nullptr, /*readConfigFiles=*/false);
    try {
      std::setlocale(LC_ALL, saved_locale_.c_str());
      std::setlocale(LC_NUMERIC, "C");  // Gmsh reads numbers with the C library
      gmsh::option::setNumber("General.Terminal", 0);
      gmsh::option::setNumber("General.Verbosity", 2);  // errors + warnings, no info chatter
      gmsh::logger::start();
    } catch (...) {
      shut_down();
      throw;
    }
  }
  ~GmshSession() { shut_down(); }
  GmshSession(const GmshSession&) = delete;
  GmshSession& operator=(const GmshSession&) = delete;

  // From now on, logged_errors() leaves out the errors logged so far.
  void forget_logged_errors() { forgotten_ = logged_errors().size() + forgotten_; }

  // The error messages Gmsh logged so far (since forget_logged_errors()), without their "Error: " prefix.
  std::vector<std::string> logged_errors() const {
    std::vector<std::string> log, errors;
    try {
      gmsh::logger::get(log);
    } catch (...) {
      return errors;
    }
    const std::string prefix = "Error: ";
    std::size_t seen = 0;
    for (const std::string& line : log)
      if (line.compare(0, prefix.size(), prefix) == 0 && seen++ >= forgotten_) errors.push_back(line.substr(prefix.size()));
    return errors;
  }

 private:
  void shut_down() noexcept {
    try {
      gmsh::logger::stop();
    } catch (...) {
    }
    try {
      gmsh::finalize();
    } catch (...) {
    }
    std::setlocale(LC_ALL, saved_locale_.c_str());
#ifdef _OPENMP
    omp_set_num_threads(saved_threads_);
#endif
  }

  std::string saved_locale_;
#ifdef _OPENMP
  int saved_threads_ = 1;
#endif
  std::size_t forgotten_ = 0;
};

bool has_msh_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".msh";
}

// Gmsh parses anything it does not recognize as a mesh as a .geo script, which gives baffling
// messages ("syntax error") for a broken .msh. Every MSH format starts with a '$' section.
void require_msh_content(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  std::size_t read = 0;
  while (in.get(c) && read < 4096 && std::isspace(static_cast<unsigned char>(c))) ++read;
  if (!in) throw UserError("mesh file '" + path + "' is empty", {path}, "give a mesh written by Gmsh (.msh)");
  if (c == '$') return;
  std::string start(1, c);
  while (start.size() < 24 && in.get(c) && c != '\n' && c != '\r') start += c;
  for (char& ch : start)
    if (!std::isprint(static_cast<unsigned char>(ch))) ch = '?';
  throw UserError("mesh file '" + path + "' is not a Gmsh .msh file: it starts with \"" + start +
                      "\" instead of $MeshFormat",
                  {path}, "dgmax reads meshes written by Gmsh (MSH format 2 or 4, ASCII or binary)");
}

// Gmsh's name for an element type, e.g. "hexahedra (8-node)" / "hexahedron (8-node)".
std::string describe_elements(int type, std::size_t count) {
  std::string name;
  int dim = 0, order = 0, num_nodes = 0, num_primary = 0;
  std::vector<double> local_coords;
  gmsh::model::mesh::getElementProperties(type, name, dim, order, num_nodes, local_coords,
                                          num_primary);
  std::string family = name.substr(0, name.find(' '));
  for (char& c : family) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (family == "quadrilateral") family = "quadrangle";
  if (count != 1) {
    const std::string hedron = "hedron";
    if (family.size() > hedron.size() &&
        family.compare(family.size() - hedron.size(), hedron.size(), hedron) == 0)
      family.replace(family.size() - 2, 2, "a");  // tetrahedron -> tetrahedra
    else
      family += "s";
  }
  std::string text = std::to_string(count) + " " + family;
  if (dim > 0) text += " (" + std::to_string(num_nodes) + "-node)";
  return text;
}

std::size_t count_elements(int type, int entity_tag = -1) {
  std::vector<std::size_t> element_tags, node_tags;
  gmsh::model::mesh::getElementsByType(type, element_tags, node_tags, entity_tag);
  return element_tags.size();
}

std::string physical_name(int dim, int tag) {
  std::string name;
  gmsh::model::getPhysicalName(dim, tag, name);
  if (!name.empty()) return name;
  return std::string(dim == 3 ? "physical_volume_" : "physical_surface_") + std::to_string(tag);
}

std::vector<int> sorted_physical_tags(int dim) {
  gmsh::vectorpair groups;
  gmsh::model::getPhysicalGroups(groups, dim);
  std::vector<int> tags;
  for (const auto& [d, tag] : groups)
    if (d == dim) tags.push_back(tag);
  std::sort(tags.begin(), tags.end());
  return tags;
}

// Maps Gmsh tags (node tags: positive, usually dense) to positions 0..n-1.
class TagIndex {
 public:
  explicit TagIndex(const std::vector<std::size_t>& tags) {
    std::size_t max_tag = 0;
    for (std::size_t t : tags) max_tag = std::max(max_tag, t);
    dense_mode_ = max_tag <= 4 * tags.size() + 1024;
    if (dense_mode_) {
      dense_.assign(max_tag + 1, -1);
      for (std::size_t i = 0; i < tags.size(); ++i)
        if (dense_[tags[i]] < 0) dense_[tags[i]] = static_cast<long>(i);
    } else {
      sparse_.reserve(tags.size());
      for (std::size_t i = 0; i < tags.size(); ++i) sparse_.emplace(tags[i], static_cast<long>(i));
    }
  }
  // Position of `tag`, or -1.
  long find(std::size_t tag) const {
    if (dense_mode_) return tag < dense_.size() ? dense_[tag] : -1;
    auto it = sparse_.find(tag);
    return it == sparse_.end() ? -1 : it->second;
  }

 private:
  bool dense_mode_ = true;
  std::vector<long> dense_;
  std::unordered_map<std::size_t, long> sparse_;
};

// The tags of the nodes on curves other than straight lines and on surfaces other than planes
// (spheres, cylinders, splines, discrete surfaces...), increasing.
std::vector<std::size_t> nodes_on_curved_entities() {
  std::vector<std::size_t> out;
  for (int dim = 1; dim <= 2; ++dim) {
    gmsh::vectorpair entities;
    gmsh::model::getEntities(entities, dim);
    for (const auto& [d, tag] : entities) {
      std::string type;
      gmsh::model::getType(d, tag, type);
      if (type == (d == 1 ? "Line" : "Plane")) continue;
      std::vector<std::size_t> tags;
      std::vector<double> coords, parametric;
      gmsh::model::mesh::getNodes(tags, coords, parametric, d, tag, /*includeBoundary=*/false,
                                  /*returnParametricCoord=*/false);
      out.insert(out.end(), tags.begin(), tags.end());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Moves every high-order node of Gmsh's model to where `mesh` has it (its element's lattice, or
// the straight-sided map for an affine element) and writes the model to `path` as binary msh 4.1
// (exact doubles), through a temporary file: read back, it gives the same Mesh.
// tet_all_nodes: [K][tet_nodes_per] Gmsh node tags, in mesh.elements' order.
void write_placed_mesh(const Mesh& mesh, const std::vector<std::size_t>& tet_all_nodes, std::size_t tet_nodes_per,
                       const std::string& path) {
  const int q = mesh.geometry_order;
  if (q > 1) {
    const std::vector<int> lattice_node = gmsh_tet_lattice_nodes(q);
    const std::vector<std::array<int, 3>> ijl = lattice_points(q);
    // affine elements first: a node they share with a curved one takes the curved one's bits
    for (const bool curved : {false, true})
      for (int k = 0; k < mesh.num_elements(); ++k) {
        if (mesh.is_curved(k) != curved) continue;
        for (std::size_t m = 0; m < lattice_node.size(); ++m) {
          if (lattice_node[m] < 4) continue;  // a vertex: not moved
          const auto [i, j, l] = ijl[m];
          const Vec3 x = curved ? mesh.curved_row(k)[m]
                                : map_element(mesh, k, -1 + 2.0 * i / q, -1 + 2.0 * j / q, -1 + 2.0 * l / q);
          gmsh::model::mesh::setNode(tet_all_nodes[k * tet_nodes_per + static_cast<std::size_t>(lattice_node[m])],
                                     {x[0], x[1], x[2]}, {});
        }
      }
  }
  gmsh::option::setNumber("Mesh.MshFileVersion", 4.1);
  gmsh::option::setNumber("Mesh.Binary", 1);
  // Gmsh picks the format from the name's extension, so it writes "mesh.msh" in a private directory;
  // the bytes then go to `path` as every output file does (atomic_write.hpp).
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/dgmax-msh-XXXXXX";
  if (!mkdtemp(dir.data()))
    throw UserError("cannot write '" + path + "': no temporary directory " + dir.substr(0, dir.size() - 17) +
                        " (" + std::strerror(errno) + ")",
                    {path}, "set TMPDIR to a writable directory");
  const std::string file = dir + "/mesh.msh";
  std::string bytes;
  try {
    gmsh::write(file);
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw UserError("cannot read back the mesh Gmsh wrote for '" + path + "'", {path}, "");
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  write_text_atomically(path, bytes);
}

// Builds the dgmax Mesh from the current Gmsh model (throws UserError for meshes dgmax cannot
// use). `what` is "mesh 'x.msh'" or "the mesh of 'x.geo'" for messages. For meshes whose high order
// was made here, `nodes` says how their high-order nodes off curved entities are placed (a file's
// are taken as written); a blend that leaves an element below kBlendMinScaledJacobian returns an
// empty Mesh. write_msh: also writes the model with the nodes where the Mesh has them
// (write_placed_mesh).
enum class HighOrderNodes { AsGiven, Blend, Straighten };
constexpr double kBlendMinScaledJacobian = 0.1;  // Gmsh's own Mesh.HighOrderThresholdMin
Mesh extract_mesh(const std::string& path, const std::string& what, bool meshed_here, HighOrderNodes nodes,
                  const std::string& write_msh) {
  Mesh mesh;
  mesh.source = path;

  std::vector<std::size_t> node_tags;
  std::vector<double> node_coords, parametric_coords;
  gmsh::model::mesh::getNodes(node_tags, node_coords, parametric_coords, -1, -1,
                              /*includeBoundary=*/false, /*returnParametricCoord=*/false);

  // ---- element types: some volume elements -----------------------------------------------
  std::vector<int> types_3d;
  gmsh::model::mesh::getElementTypes(types_3d, 3);
  if (types_3d.empty()) {
    std::vector<int> all_types;
    gmsh::model::mesh::getElementTypes(all_types);
    std::sort(all_types.begin(), all_types.end(), [](int a, int b) { return a > b; });
    std::vector<std::string> found;
    for (int type : all_types) found.push_back(describe_elements(type, count_elements(type)));
    const std::string hint =
        meshed_here ? "does the geometry define volumes (Volume{...}, Box, Sphere, Extrude of a "
                      "surface...)? Gmsh only fills closed volumes with tetrahedra"
                    : "dgmax needs a 3D mesh: mesh the volumes with `gmsh -3 file.geo` (or Mesh > "
                      "3D in the Gmsh GUI) and save all elements";
    if (node_tags.empty() && all_types.empty())
      throw UserError(what + " is empty: it has no nodes and no elements", {path}, hint);
    if (all_types.empty())
      throw UserError(
          what + " contains no elements (only " + std::to_string(node_tags.size()) + " nodes)", {path},
          hint);
    throw UserError(what + " contains no volume elements (found only " + join_words(found, " and ") + ")",
                    {path}, hint);
  }
  // ---- element types: complete tetrahedra and triangles of one order ------------------------
  std::map<int, std::size_t> types_3d_count, triangle_count;
  for (int type : types_3d) types_3d_count[type] = count_elements(type);
  {
    std::vector<int> types_2d;
    gmsh::model::mesh::getElementTypes(types_2d, 2);
    for (int type : types_2d)
      if (std::string(msh_element_type(type).family) == "triangle") triangle_count[type] = count_elements(type);
  }
  const int order = mesh_geometry_order(path, what, types_3d_count, triangle_count);
  const int kTet = msh_tetrahedron_type(order), kTriangle = msh_triangle_type(order);
  const std::size_t tet_nodes_per = static_cast<std::size_t>(msh_element_type(kTet).nodes);
  const std::size_t triangle_nodes_per = static_cast<std::size_t>(msh_element_type(kTriangle).nodes);

  // ---- physical volumes -> volume tags -------------------------------------------------------
  std::map<int, int> volume_index;  // physical tag -> index into volume_tag_names
  for (int tag : sorted_physical_tags(3))
    volume_index[tag] = mesh.add_volume_tag(physical_name(3, tag));

  gmsh::vectorpair volumes;
  gmsh::model::getEntities(volumes, 3);
  std::sort(volumes.begin(), volumes.end());
  std::vector<std::size_t> tet_nodes;  // Gmsh node tags of the corners, 4 per tet
  std::vector<std::size_t> tet_all_nodes;  // order > 1: every node, tet_nodes_per per tet
  int untagged = -1;
  for (const auto& [dim, entity] : volumes) {
    std::vector<std::size_t> element_tags, nodes;
    gmsh::model::mesh::getElementsByType(kTet, element_tags, nodes, entity);
    if (element_tags.empty()) continue;
    DGMAX_ASSERT(nodes.size() == tet_nodes_per * element_tags.size(), "Gmsh returned a short node list");

    std::vector<int> physicals;
    gmsh::model::getPhysicalGroupsForEntity(dim, entity, physicals);
    std::vector<int> indices;
    for (int p : physicals) {
      auto it = volume_index.find(p);
      if (it != volume_index.end() &&
          std::find(indices.begin(), indices.end(), it->second) == indices.end())
        indices.push_back(it->second);
    }
    int index;
    if (indices.empty()) {
      if (untagged < 0) untagged = mesh.add_volume_tag(kUntaggedTag);
      index = untagged;
    } else if (indices.size() == 1) {
      index = indices[0];
    } else {
      std::vector<std::string> names;
      for (int i : indices) names.push_back("'" + mesh.volume_tag_names[i] + "'");
      throw UserError(
          what + ": volume entity " + std::to_string(entity) + " (" +
              describe_elements(kTet, element_tags.size()) + ") is in several physical volumes (" +
              join_words(names, " and ") + "), but every tetrahedron gets exactly one volume tag",
          {path},
          "put each volume in one Physical Volume only; in MSH2 files Gmsh groups elements by "
          "their elementary tag (the second tag), so elements of different physical volumes need "
          "different elementary tags");
    }
    for (std::size_t e = 0; e < element_tags.size(); ++e)  // the corners: high-order nodes are no vertices
      tet_nodes.insert(tet_nodes.end(), nodes.begin() + e * tet_nodes_per, nodes.begin() + e * tet_nodes_per + 4);
    if (order > 1) tet_all_nodes.insert(tet_all_nodes.end(), nodes.begin(), nodes.end());
    mesh.element_tag.insert(mesh.element_tag.end(), element_tags.size(), index);
  }
  if (tet_nodes.empty())  // tets exist (types_3d) but on no volume entity: should not happen
    throw UserError(what + " has tetrahedra that belong to no volume entity", {path},
                    "re-save the mesh with Gmsh (`gmsh file.msh -save -o fixed.msh`)");

  // ---- vertices: the nodes of the tets, compacted in increasing Gmsh tag ----------------------
  std::vector<std::size_t> used;  // the distinct node tags of the tets, increasing
  {
    std::size_t max_tag = 0;
    for (std::size_t t : tet_nodes) max_tag = std::max(max_tag, t);
    if (max_tag <= 4 * tet_nodes.size() + 1024) {  // dense tags (the usual case): mark and sweep
      std::vector<char> is_used(max_tag + 1, 0);
      for (std::size_t t : tet_nodes) is_used[t] = 1;
      std::size_t n = 0;
      for (char u : is_used) n += u;
      used.reserve(n);
      for (std::size_t t = 0; t <= max_tag; ++t)
        if (is_used[t]) used.push_back(t);
    } else {
      used = tet_nodes;
      std::sort(used.begin(), used.end());
      used.erase(std::unique(used.begin(), used.end()), used.end());
    }
  }
  const TagIndex node_position(node_tags);
  mesh.vertices.resize(used.size());
  for (std::size_t i = 0; i < used.size(); ++i) {
    const long p = node_position.find(used[i]);
    if (p < 0)
      throw UserError(what + ": a tetrahedron uses node " + std::to_string(used[i]) +
                          ", which the file does not define",
                      {path}, "the file is damaged or cut short: write it again with Gmsh");
    mesh.vertices[i] = {node_coords[3 * p], node_coords[3 * p + 1], node_coords[3 * p + 2]};
  }
  const TagIndex vertex_id(used);
  mesh.elements.resize(tet_nodes.size() / 4);
  for (std::size_t e = 0; e < mesh.elements.size(); ++e)
    for (int j = 0; j < 4; ++j)
      mesh.elements[e][j] = static_cast<int>(vertex_id.find(tet_nodes[4 * e + j]));
  set_curved_points(mesh, order, [&](std::size_t e, int n) {
    const std::size_t tag = tet_all_nodes[e * tet_nodes_per + static_cast<std::size_t>(n)];
    const long p = node_position.find(tag);
    if (p < 0)
      throw UserError(what + ": a tetrahedron uses node " + std::to_string(tag) + ", which the file does not define",
                      {path}, "the file is damaged or cut short: write it again with Gmsh");
    return Vec3{node_coords[3 * p], node_coords[3 * p + 1], node_coords[3 * p + 2]};
  });
  if (nodes != HighOrderNodes::AsGiven && order > 1) {
    const std::vector<int> lattice_node = gmsh_tet_lattice_nodes(order);
    const std::size_t Nq = lattice_node.size(), K = mesh.elements.size();
    const std::vector<std::size_t> on_curved = nodes_on_curved_entities();
    std::vector<std::size_t> lattice_tag(K * Nq);  // [K][Nq]
    std::vector<char> flag(K * Nq);                // [K][Nq] a high-order node on a curved entity
    std::vector<char> seed(K, 0);                  // [K] an element with such a node
    for (std::size_t e = 0; e < K; ++e)
      for (std::size_t m = 0; m < Nq; ++m) {
        const std::size_t tag = tet_all_nodes[e * tet_nodes_per + static_cast<std::size_t>(lattice_node[m])];
        lattice_tag[e * Nq + m] = tag;
        flag[e * Nq + m] = lattice_node[m] >= 4 && std::binary_search(on_curved.begin(), on_curved.end(), tag);
        seed[e] = seed[e] || flag[e * Nq + m];
      }
    if (nodes == HighOrderNodes::Blend) {
      const BlendResult blend = blend_curved_nodes(mesh, flag);
      if (blend.min_scaled < kBlendMinScaledJacobian) {  // the caller falls back
        Mesh none;
        const auto& e = mesh.elements[blend.min_element];
        Vec3 c{0, 0, 0};
        for (int v : e)
          for (int d = 0; d < 3; ++d) c[d] += mesh.vertices[v][d] / 4;
        none.high_order_nodes = fmt::format(
            "Gmsh's high-order optimisation, then straightened away from curved surfaces (placed from the "
            "surfaces, the element at ({:.4g}, {:.4g}, {:.4g}) had a scaled Jacobian of {:.3g})",
            c[0], c[1], c[2], blend.min_scaled);
        return none;
      }
      mesh.high_order_nodes = "placed from the curved surfaces (dgmax's blend)";
    } else {
      // Gmsh's elastic pass moved every node of the volumes at a curved surface a little: bench/NOTES.md,
      // "2026-12-06 — Affine elements away from the curved surface".
      straighten_far_nodes(mesh, lattice_tag, seed);
    }
  }

  if (!write_msh.empty()) write_placed_mesh(mesh, tet_all_nodes, tet_nodes_per, write_msh);

  // ---- physical surfaces -> tagged faces -----------------------------------------------------
  std::set<std::array<int, 4>> seen;  // sorted vertex ids + tag
  for (int tag : sorted_physical_tags(2)) {
    const std::string name = physical_name(2, tag);
    const int index = mesh.add_boundary_tag(name);
    std::vector<int> entities;
    gmsh::model::getEntitiesForPhysicalGroup(2, tag, entities);
    std::sort(entities.begin(), entities.end());
    std::map<int, std::size_t> unsupported;  // element type -> count
    for (int entity : entities) {
      std::vector<int> types;
      gmsh::model::mesh::getElementTypes(types, 2, entity);
      for (int type : types)
        if (type != kTriangle) unsupported[type] += count_elements(type, entity);
      if (!unsupported.empty()) continue;
      std::vector<std::size_t> element_tags, nodes;
      gmsh::model::mesh::getElementsByType(kTriangle, element_tags, nodes, entity);
      DGMAX_ASSERT(nodes.size() == triangle_nodes_per * element_tags.size(), "Gmsh returned a short node list");
      for (std::size_t t = 0; t < element_tags.size(); ++t) {
        TaggedFace face{{0, 0, 0}, index};
        for (int j = 0; j < 3; ++j) {
          const long v = vertex_id.find(nodes[triangle_nodes_per * t + j]);
          if (v < 0)
            throw UserError(
                what + ": physical surface '" + name + "' has a triangle (element " +
                    std::to_string(element_tags[t]) + ") whose node " +
                    std::to_string(nodes[triangle_nodes_per * t + j]) + " belongs to no tetrahedron",
                {path},
                "tagged surfaces must be made of faces of the tetrahedra: is this surface part "
                "of a meshed volume (or embedded in one)?");
          face.v[j] = static_cast<int>(v);
        }
        std::array<int, 4> key{face.v[0], face.v[1], face.v[2], index};
        std::sort(key.begin(), key.begin() + 3);
        if (seen.insert(key).second) mesh.tagged_faces.push_back(face);
      }
    }
    if (!unsupported.empty()) {
      std::vector<std::string> found;
      for (const auto& [type, count] : unsupported) found.push_back(describe_elements(type, count));
      throw UserError(
          what + ": physical surface '" + name + "' contains " + join_words(found, " and ") +
              "; dgmax needs " + describe_elements(kTriangle, 2).substr(2) + " on tagged surfaces, of the tetrahedra's order",
          {path}, "re-mesh with tetrahedra only (no Recombine), at one Mesh.ElementOrder for the whole model");
    }
  }
  return mesh;
}

// The line `line` (1-based) of the text file `file`, or "" when unavailable / not text.
std::string source_line(const std::string& file, int line) {
  std::ifstream in(file, std::ios::binary);
  std::string text;
  for (int i = 0; i < line && std::getline(in, text); ++i) {
  }
  if (!in) return {};
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.size() > 200) return {};
  for (char c : text)
    if (!std::isprint(static_cast<unsigned char>(c)) && c != '\t') return {};
  return text;
}

UserError gmsh_failure(const std::string& path, const std::string& doing, bool is_msh,
                       const std::string& thrown, std::vector<std::string> errors) {
  errors.push_back(thrown);
  // Keep the distinct messages in order, minus the decoration of Gmsh's meshing error summary
  // and the generic "Error loading 'x'" that follows every reader failure.
  std::vector<std::string> kept;
  bool generic_loading_error = false;
  for (std::string& e : errors) {
    while (!e.empty() && std::isspace(static_cast<unsigned char>(e.back()))) e.pop_back();
    if (e.rfind("Error loading '", 0) == 0) {
      generic_loading_error = true;
      continue;
    }
    if (e.empty() || e.find_first_not_of('-') == std::string::npos ||
        e == "Mesh generation error summary" ||
        std::find(kept.begin(), kept.end(), e) != kept.end())
      continue;
    kept.push_back(e);
  }
  errors = std::move(kept);
  if (errors.empty())
    errors.push_back(generic_loading_error
                         ? "Gmsh gives no details: is the file truncated or corrupt?"
                         : "Gmsh gives no details");
  // The first error is the cause; later ones are often consequences.
  std::string message = "Gmsh could not " + doing + " '" + path + "': " + errors[0];
  constexpr std::size_t kShown = 3;
  for (std::size_t i = 1; i < std::min(errors.size(), kShown); ++i) message += "; " + errors[i];
  if (errors.size() > kShown)
    message += " (and " + std::to_string(errors.size() - kShown) + " more errors)";

  SourceLocation where{path};
  static const std::regex kLine("'([^']+)', line ([0-9]+)");
  std::smatch m;
  for (const std::string& e : errors) {
    if (std::regex_search(e, m, kLine)) {
      where.file = m[1].str();
      where.line = std::stoi(m[2].str());
      where.snippet = source_line(where.file, where.line);
      break;
    }
  }
  std::string hint;
  if (is_msh)
    hint = "check the file with `gmsh " + path + "` (dgmax reads Gmsh MSH format 2 and 4)";
  else if (doing == "mesh")
    hint = "try `gmsh -3 " + path +
           "` to see the problem; a different Mesh.Algorithm3D or a smaller size may help";
  else
    hint = "open it in Gmsh (`gmsh " + path + "`) to see the problem";
  return UserError(message, where, hint);
}

// Gmsh sizes its arrays by the counts in the file: a corrupt count that check_msh_structure
// cannot see (a section it does not walk) ends up here rather than as an internal error.
UserError out_of_memory(const std::string& path, const std::string& doing, bool is_msh) {
  return UserError("Gmsh ran out of memory trying to " + doing + " '" + path + "'" +
                       (is_msh ? ": a count in the file is probably corrupt" : ""),
                   {path},
                   is_msh ? "check the file with `gmsh " + path + "`, or write it again from Gmsh"
                          : "free memory, or ask for a coarser mesh (a larger size)");
}

// Gmsh fills a volume V with about 5 V / h^3 tetrahedra at maximum size h (measured: 5.3 and
// 4.9 per h^3 for the unit cube at h = 0.05 and 0.025). Volumes are bounded by their bounding
// boxes; `size` is only an upper bound on the element size, so this underestimates where the
// file asks for finer sizes. Refused when meshing it could not fit in memory.
void refuse_oversized_mesh(const std::string& path, double size) {
  constexpr double kTetsPerCube = 5;
  gmsh::vectorpair volumes;
  gmsh::model::getEntities(volumes, 3);
  double volume = 0;
  for (const auto& [dim, tag] : volumes) {
    double x0, y0, z0, x1, y1, z1;
    gmsh::model::getBoundingBox(dim, tag, x0, y0, z0, x1, y1, z1);
    volume += std::max(0.0, x1 - x0) * std::max(0.0, y1 - y0) * std::max(0.0, z1 - z0);
  }
  if (!std::isfinite(volume) || volume > 1e200) return;  // a bounding box Gmsh does not know
  const double elements = kTetsPerCube * volume / (size * size * size);
  char size_text[32];
  std::snprintf(size_text, sizeof size_text, "%g", size);
  require_host_memory(elements, kGmshMeshingBytesPerElement + kMinRunBytesPerElement,
                      "the mesh of '" + path + "' at size " + size_text + " (estimated)", {path},
                      "use a larger mesh size");
}

}  // namespace

Mesh read_gmsh(const std::string& path, double size, int geometry_order, const std::string& write_msh) {
  if (!std::isfinite(size) || size < 0)
    throw UserError("mesh size for '" + path + "' must be positive (or 0 to keep the file's own)",
                    {path}, "give mesh.size (info: --size) as a positive length, or leave it out to keep the file's own");
  if (geometry_order < 0 || geometry_order > kMaxGeometryOrder)
    throw UserError("geometry order for '" + path + "' must be between 1 and " + std::to_string(kMaxGeometryOrder) +
                        ", got " + std::to_string(geometry_order),
                    {path}, "give mesh.geometry_order as an integer from 1 to 10, or auto");
  require_readable_file(path);
  const bool is_msh = has_msh_extension(path);
  if (is_msh) {
    require_msh_content(path);
    check_msh_structure(path);  // before Gmsh trusts the file's counts with its allocations
  }
  const std::string what = (is_msh ? "mesh '" : "the mesh of '") + path + "'";

  std::lock_guard<std::mutex> lock(g_gmsh_mutex);
  GmshSession gmsh_lib;
  std::string doing = "read";
  try {
    // Opening and meshing log their errors instead of throwing them (as in the gmsh app): a
    // throw from inside the .geo parser skips its cleanup (gmsh_yyflush), and the flex buffer of
    // the bad file would then be fed to the next .geo parsed in this process, even after
    // finalize/initialize; and going on after the first meshing error gives the useful messages.
    gmsh::option::setNumber("General.AbortOnError", 0);
    gmsh::open(path);
    if (std::vector<std::string> errors = gmsh_lib.logged_errors(); !errors.empty())
      throw gmsh_failure(path, doing, is_msh, "", errors);
    if (!is_msh) {
      gmsh::option::setNumber("Mesh.ElementOrder", 1);
      if (size > 0) {
        gmsh::option::setNumber("Mesh.MeshSizeMax", size);
        gmsh::model::mesh::clear();  // a `Mesh 3;` in the file used the file's own sizes
      }
      std::vector<int> types_3d;
      gmsh::model::mesh::getElementTypes(types_3d, 3);
      if (types_3d.empty()) {
        if (size > 0) refuse_oversized_mesh(path, size);
        doing = "mesh";
        gmsh::model::mesh::generate(3);
        if (std::vector<std::string> errors = gmsh_lib.logged_errors(); !errors.empty())
          throw gmsh_failure(path, doing, is_msh, "", errors);
      }
      doing = "mesh";
      if (geometry_order <= 1) {  // a `Mesh 3;` in the file may have used its own Mesh.ElementOrder
        std::vector<int> meshed;
        gmsh::model::mesh::getElementTypes(meshed, 3);
        if (std::any_of(meshed.begin(), meshed.end(), [](int type) { return msh_element_type(type).order > 1; }))
          gmsh::model::mesh::setOrder(1);
      } else {
        gmsh::model::mesh::setOrder(geometry_order);
        if (std::vector<std::string> errors = gmsh_lib.logged_errors(); !errors.empty())
          throw gmsh_failure(path, doing, is_msh, "", errors);
      }
    }
    gmsh::option::setNumber("General.AbortOnError", 2);  // API misuse below: throw
    doing = "read the mesh of";
    Mesh mesh;
    if (is_msh || geometry_order <= 1) {
      mesh = extract_mesh(path, what, !is_msh, HighOrderNodes::AsGiven, write_msh);
    } else {
      // setOrder put the new nodes of curved curves and surfaces on the geometry; the others are
      // placed from them (blend_curved_nodes.hpp; bench/NOTES.md, "2026-12-06 — The cylinder cavity
      // with blended boundary elements"). Where that tangles an element (a mesh coarse against the
      // surface's curvature), Mesh.HighOrderOptimize = 2's passes (as Gmsh's own mesher runs them)
      // untangle it: the elastic analogy, then the optimiser on the elements still below
      // Mesh.HighOrderThresholdMin (0.1), then the nodes away from the surface are straightened
      // ("2026-12-06 — Curved meshes from Gmsh: which high-order optimisation"). The optimiser logs
      // an error for elements it leaves below its threshold, whose Jacobian may well be positive:
      // setup_mesh's check_curved_jacobians decides, naming a tangled element.
      mesh = extract_mesh(path, what, true, HighOrderNodes::Blend, write_msh);
      if (mesh.elements.empty()) {
        const std::string why = mesh.high_order_nodes;
        doing = "mesh";
        gmsh::option::setNumber("General.AbortOnError", 0);
        gmsh::option::setNumber("Mesh.HighOrderOptimize", 2);
        gmsh::model::mesh::optimize("HighOrderElastic");
        gmsh::model::mesh::optimize("HighOrder");
        gmsh_lib.forget_logged_errors();
        gmsh::option::setNumber("General.AbortOnError", 2);
        doing = "read the mesh of";
        mesh = extract_mesh(path, what, true, HighOrderNodes::Straighten, write_msh);
        mesh.high_order_nodes = why;
      }
    }
    if (std::vector<std::string> errors = gmsh_lib.logged_errors(); !errors.empty())
      throw gmsh_failure(path, doing, is_msh, "", errors);
    return mesh;
  } catch (const std::string& e) {
    throw gmsh_failure(path, doing, is_msh, e, gmsh_lib.logged_errors());
  } catch (const char* e) {
    throw gmsh_failure(path, doing, is_msh, e ? e : "", gmsh_lib.logged_errors());
  } catch (const std::bad_alloc&) {
    throw out_of_memory(path, doing, is_msh);
  } catch (const std::length_error&) {  // "cannot create std::vector larger than max_size()"
    throw out_of_memory(path, doing, is_msh);
  }
}

}  // namespace dgmax
