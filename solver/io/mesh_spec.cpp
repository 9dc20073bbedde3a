#include "solver/io/mesh_spec.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/mesh_file.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

constexpr double kMaxBoxElements = 2e9;  // as make_box_mesh

// The scale a box may have. Element volumes are products of three lengths and the degeneracy test
// compares them with 1e-12 h^3 (mesh/validate.cpp), in double precision (1e±308): lengths within
// 1e±100 keep both far inside it.
constexpr double kMaxBoxCoordinate = 1e100, kMinCellSize = 1e-100;
// Two faces closer than 1e-6 of an element's size count as one (mesh/connectivity.cpp): a cell
// whose thinnest side is below 1e-5 of its thickest (a margin of 10) cannot be told from a flat one.
constexpr double kMinCellAspect = 1e-5;
// Vertex coordinates carry 16 digits: a cell smaller than 1e-8 of the box's largest coordinate
// would keep fewer than 8 of them across it.
constexpr double kMinCellToCoordinate = 1e-8;

std::string axis_name(int d) { return std::string(1, static_cast<char>('x' + d)); }

// The box's size, cells and placement against what double-precision geometry can represent: each
// refusal names the key and the real cause (a box far too large, too thin or too small used to
// fail later as a "degenerate" or "not conforming" mesh, without the key).
void check_box_scale(const YamlDoc& doc, const YAML::Node& b, const BoxSpec& box) {
  const YAML::Node upper = b["upper"].IsDefined() ? b["upper"] : b, lower = b["lower"].IsDefined() ? b["lower"] : b;
  double largest = 0;
  for (int d = 0; d < 3; ++d) {
    for (const auto& [v, key, node] : {std::tuple{box.lower[d], "lower", lower}, std::tuple{box.upper[d], "upper", upper}})
      if (std::fabs(v) > kMaxBoxCoordinate)
        throw doc.error(node, "'mesh.box." + std::string(key) + "' has the coordinate " + fmt_g(v) + " along " +
                                  axis_name(d) + ": coordinates are too large (at most " + fmt_g(kMaxBoxCoordinate) +
                                  " in size)",
                        "element volumes are products of three lengths in double precision; choose units "
                        "that keep the box within 1e100");
    largest = std::max({largest, std::fabs(box.lower[d]), std::fabs(box.upper[d])});
  }
  std::array<double, 3> h;
  for (int d = 0; d < 3; ++d) h[d] = (box.upper[d] - box.lower[d]) / box.cells[d];
  const std::string cells = fmt_g(h[0]) + " x " + fmt_g(h[1]) + " x " + fmt_g(h[2]);
  const YAML::Node cells_node = b["cells"].IsDefined() ? b["cells"] : b;
  const double h_min = std::min({h[0], h[1], h[2]}), h_max = std::max({h[0], h[1], h[2]});
  if (h_min < kMinCellSize)
    throw doc.error(upper, "'mesh.box' gives cells of " + cells + ": too small (a side below " + fmt_g(kMinCellSize) + ")",
                    "element volumes are products of three lengths in double precision; choose units "
                    "that make the box larger");
  if (h_min < kMinCellAspect * h_max) {
    const int thin = h[0] == h_min ? 0 : h[1] == h_min ? 1 : 2;
    throw doc.error(upper, "'mesh.box' is too thin for its cells: they are " + cells + ", the side along " +
                               axis_name(thin) + " is " + fmt_g(h_min / h_max) + " of the longest (the limit is " +
                               fmt_g(kMinCellAspect) + ")",
                    "check lower and upper along " + axis_name(thin) +
                        "; a thin box needs fewer cells across its other sides (mesh.box.cells)");
  }
  if (h_min < kMinCellToCoordinate * largest)
    throw doc.error(cells_node, "'mesh.box' gives cells of " + cells + " on a box whose coordinates reach " +
                                    fmt_g(largest) + ": too small for where the box lies (coordinates carry 16 "
                                    "digits; a cell must be at least " + fmt_g(kMinCellToCoordinate) + " of them)",
                    "move the box near the origin (shift lower and upper), or use fewer cells");
}

}  // namespace

// mesh.box.pml: a layer of whole cells around the box, tagged `pml` (the box itself stays `domain`):
// the box grows by the thickness on each side and gains thickness / cell size cells there.
static void add_pml_layer(const YamlDoc& doc, const YAML::Node& node, BoxSpec& box, MeshSpec& spec) {
  const double L = doc.as_double(node, "mesh.box.pml");
  if (!(L > 0) || !std::isfinite(L)) throw doc.error(node, "'mesh.box.pml' must be a positive thickness, got " + fmt_g(L),
                    "the layer's thickness in length units, a whole number of cells, e.g. pml: 0.25 on 4 cells of a unit box");
  double elements = 6;  // of the box with its layer, counted in double: no overflow
  for (int d = 0; d < 3; ++d) elements *= box.cells[d] + 2 * std::round(L / ((box.upper[d] - box.lower[d]) / box.cells[d]));
  if (elements > kMaxBoxElements) {
    const double h = (box.upper[0] - box.lower[0]) / box.cells[0];
    throw doc.error(node, "'mesh.box.pml' = " + fmt_g(L) + " is " + fmt_g(std::round(L / h)) +
                              " cells of the box (cell size " + fmt_g(h) + " along x) on each side: the box would have " +
                              fmt_g(elements) + " elements; the limit is " + fmt_g(kMaxBoxElements),
                    "the layer's thickness is in length units: a few cells, e.g. pml: " + fmt_g(2 * h));
  }
  for (int d = 0; d < 3; ++d) {
    const double h = (box.upper[d] - box.lower[d]) / box.cells[d], n = L / h;
    if (std::fabs(n - std::round(n)) > 1e-6 * n || std::round(n) < 1)
      throw doc.error(node, "'mesh.box.pml' = " + fmt_g(L) + " is not a whole number of cells (the cell size along " +
                                std::string(1, static_cast<char>('x' + d)) + " is " + fmt_g(h) + ")",
                      "use a multiple of the cell size, so the layer starts on cell faces");
    if (box.periodic[d])
      throw doc.error(node, "'mesh.box.pml' on a box that is periodic along " + std::string(1, static_cast<char>('x' + d)),
                      "a periodic direction has no outer boundary to absorb at");
  }
  BoxRegion layer{"pml", box.lower, box.upper}, inner{"domain", box.lower, box.upper};
  for (int d = 0; d < 3; ++d) {
    const double h = (box.upper[d] - box.lower[d]) / box.cells[d];
    const int n = static_cast<int>(std::round(L / h));
    box.lower[d] -= n * h;
    box.upper[d] += n * h;
    box.cells[d] += 2 * n;
    layer.lower[d] = box.lower[d], layer.upper[d] = box.upper[d];
  }
  // first the whole box is `pml`, then the inner box `domain` again; the user's regions come after
  box.regions.insert(box.regions.begin(), {layer, inner});
  spec.region_where.insert(spec.region_where.begin(), 2, doc.at(node));
  spec.pml_thickness = L;
}

MeshSpec parse_mesh_spec(const YamlDoc& doc, const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull())
    throw UserError("the config has no 'mesh' section", {doc.path()},
                    "add e.g. mesh: {box: {cells: [4, 4, 4]}} or mesh: {file: meshes/cube.geo}");
  doc.check_keys(node, {"box", "file", "size", "refine", "numbering", "geometry_order"}, "mesh");
  MeshSpec spec;
  const bool has_box = node["box"].IsDefined(), has_file = node["file"].IsDefined();
  if (has_box == has_file)
    throw doc.error(node, has_box ? "'mesh' has both 'box' and 'file'; give one"
                                  : "'mesh' needs either 'box' or 'file'");
  if (has_box) {
    const YAML::Node b = node["box"];
    doc.check_keys(b, {"lower", "upper", "cells", "periodic", "regions", "pml"}, "mesh.box");
    BoxSpec box;
    if (b["lower"]) {
      auto v = doc.as_doubles(b["lower"], 3, "mesh.box.lower");
      box.lower = {v[0], v[1], v[2]};
    }
    if (b["upper"]) {
      auto v = doc.as_doubles(b["upper"], 3, "mesh.box.upper");
      box.upper = {v[0], v[1], v[2]};
    }
    if (b["cells"]) {
      auto v = doc.as_ints(b["cells"], 3, "mesh.box.cells");
      box.cells = {v[0], v[1], v[2]};
      box.where = doc.at(b["cells"]);  // a mesh too large for memory is refused here
    }
    for (int d = 0; d < 3; ++d) {
      if (box.cells[d] < 1) throw doc.error(b["cells"], "'mesh.box.cells' must be ≥ 1 in every direction");
      if (!(box.upper[d] > box.lower[d]))
        throw doc.error(b["upper"].IsDefined() ? b["upper"] : b, "'mesh.box.upper' must exceed 'lower' in every direction");
    }
    check_box_scale(doc, b, box);
    if (b["periodic"]) {
      const YAML::Node p = b["periodic"];
      if (!p.IsSequence())
        throw doc.error(p, "'mesh.box.periodic' must be a list of directions", "e.g. periodic: [x, y]");
      for (const auto& d : p) {
        const std::string name = doc.as_string(d, "mesh.box.periodic");
        if (name != "x" && name != "y" && name != "z")
          throw doc.error(d, "unknown periodic direction '" + dsl::quote_for_message(name, 40) + "'", "use x, y or z");
        if (box.periodic[name[0] - 'x'])
          throw doc.error(d, "periodic direction '" + name + "' is listed twice", "list each direction once");
        box.periodic[name[0] - 'x'] = true;
      }
    }
    if (const YAML::Node rs = b["regions"]; rs.IsDefined()) {
      if (!rs.IsSequence())
        throw doc.error(rs, "'mesh.box.regions' must be a list", "e.g. regions: [{tag: slab, lower: [0.8, 0, 0], upper: [1.2, 1, 1]}]");
      for (size_t i = 0; i < rs.size(); ++i) {
        const std::string what = "mesh.box.regions[" + std::to_string(i) + "]";
        doc.check_keys(rs[i], {"tag", "lower", "upper"}, what);
        if (!rs[i]["tag"] || !rs[i]["lower"] || !rs[i]["upper"])
          throw doc.error(rs[i], "'" + what + "' needs tag, lower and upper");
        BoxRegion r;
        r.tag = doc.as_string(rs[i]["tag"], what + ".tag");
        if (r.tag == "domain" || r.tag.empty())
          throw doc.error(rs[i]["tag"], "'" + what + ".tag' must be a new name ('domain' is the rest of the box)");
        auto lo = doc.as_doubles(rs[i]["lower"], 3, what + ".lower");
        auto hi = doc.as_doubles(rs[i]["upper"], 3, what + ".upper");
        r.lower = {lo[0], lo[1], lo[2]};
        r.upper = {hi[0], hi[1], hi[2]};
        // An empty or out-of-box region would leave its material silently unused.
        for (int d = 0; d < 3; ++d) {
          const std::string axis(1, static_cast<char>('x' + d));
          if (!(r.upper[d] > r.lower[d]))
            throw doc.error(rs[i]["upper"], "'" + what + ".upper' must exceed its 'lower' in every direction (" +
                                                axis + ": " + fmt_g(r.lower[d]) + " to " + fmt_g(r.upper[d]) + ")");
          if (r.upper[d] < box.lower[d] || r.lower[d] > box.upper[d])
            throw doc.error(rs[i], "'" + what + "' ('" + dsl::quote_for_message(r.tag, 40) + "') lies outside the box in " + axis + " (" +
                                       fmt_g(r.lower[d]) + " to " + fmt_g(r.upper[d]) + ", the box spans " +
                                       fmt_g(box.lower[d]) + " to " + fmt_g(box.upper[d]) + ")");
        }
        box.regions.push_back(r);
        spec.region_where.push_back(doc.at(rs[i]));
      }
    }
    if (const YAML::Node l = b["pml"]; l.IsDefined()) add_pml_layer(doc, l, box, spec);
    spec.box = box;
  } else {
    spec.file = doc.as_string(node["file"], "mesh.file");
    namespace fs = std::filesystem;
    const fs::path rel = fs::path(doc.path()).parent_path() / spec.file;
    // the non-throwing forms: a name the file system refuses (a component over 255 bytes) is
    // reported by the mesh reader as a file that does not exist, not as an escaped exception
    std::error_code ec_rel, ec_cwd;
    if (fs::path(spec.file).is_relative() && fs::exists(rel, ec_rel) && !fs::exists(spec.file, ec_cwd))
      spec.file = rel.string();
  }
  if (node["size"]) {
    spec.size = doc.as_double(node["size"], "mesh.size");
    if (spec.size < 0) throw doc.error(node["size"], "'mesh.size' must be ≥ 0");
    if (has_box) throw doc.error(node["size"], "'mesh.size' applies to .geo files, not to box meshes",
                                 "set mesh.box.cells instead");
  }
  if (const YAML::Node g = node["geometry_order"]; g.IsDefined()) {
    if (has_box)
      throw doc.error(g, "'mesh.geometry_order' applies to mesh files (.geo, .msh), not to box meshes",
                      "box meshes are straight-sided; curved elements come from a .geo meshed by Gmsh");
    if (g.IsScalar() && g.Scalar() == "auto") {
      spec.geometry_order_auto = true;
    } else {
      const std::string text = g.IsScalar() ? g.Scalar() : "";
      if (text.empty() || text.find_first_not_of("+-0123456789") != std::string::npos)
        throw doc.error(g, "'mesh.geometry_order' must be an integer from 1 to " + std::to_string(kMaxGeometryOrder) +
                               " or auto, got '" + dsl::quote_for_message(text, 40) + "'",
                        "e.g. geometry_order: 2 for quadratic curved elements, or auto for the discretization order");
      spec.geometry_order = doc.as_int(g, "mesh.geometry_order");
      if (spec.geometry_order < 1 || spec.geometry_order > kMaxGeometryOrder)
        throw doc.error(g, "'mesh.geometry_order' must be between 1 and " + std::to_string(kMaxGeometryOrder) +
                               " (or auto), got " + std::to_string(spec.geometry_order),
                        "1 for straight-sided elements, 2..10 for curved ones (Gmsh's complete tetrahedra), "
                        "auto for the discretization order");
    }
  }
  if (node["refine"]) {
    spec.refine = doc.as_int(node["refine"], "mesh.refine");
    if (spec.refine < 0 || spec.refine > 6)
      throw doc.error(node["refine"], "'mesh.refine' must be between 0 and 6");
  }
  if (node["numbering"]) {
    const std::string text = doc.as_string(node["numbering"], "mesh.numbering");
    if (!parse_element_order(text, spec.numbering))
      throw doc.error(node["numbering"], "unknown 'mesh.numbering' '" + dsl::quote_for_message(text, 40) + "'",
                      "use hilbert (elements renumbered along a space-filling curve, the default) or input "
                      "(the file's numbering)");
  }
  if (spec.box) {
    // The mesh generator refuses this too, but only here is the key's location known.
    const auto& c = spec.box->cells;
    const double elements = 6.0 * c[0] * c[1] * c[2] * std::pow(8.0, spec.refine);
    if (elements > kMaxBoxElements)
      throw doc.error(node["box"]["cells"].IsDefined() ? node["box"]["cells"] : node["box"],
                      "'mesh.box.cells' (with mesh.refine = " + std::to_string(spec.refine) +
                          (spec.pml_thickness > 0 ? " and the mesh.box.pml layer" : "") + ") give " +
                          fmt_g(elements) + " elements; the limit is " + fmt_g(kMaxBoxElements),
                      "use fewer cells");
  }
  return spec;
}

void resolve_geometry_order(MeshSpec& spec, int discretization_order) {
  if (!spec.geometry_order_auto) return;
  spec.geometry_order_auto = false;
  std::string ext = std::filesystem::path(spec.file).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool msh = ext == ".msh";
  spec.geometry_order = msh ? 0 : std::clamp(discretization_order, 1, kMaxGeometryOrder);
}

MeshSpec mesh_spec_from_argument(const std::string& arg) {
  MeshSpec spec;
  BoxSpec box;
  if (parse_box_shorthand(arg, box))
    spec.box = box;
  else
    spec.file = arg;
  return spec;
}

// A box region is a set of element centroids: one narrower than a cell, or covered by later
// regions, tags no element, and its material would be silently unused.
void check_regions_select_elements(const MeshSpec& spec, const Mesh& mesh) {
  std::vector<long long> count(mesh.volume_tag_names.size(), 0);
  for (const int tag : mesh.element_tag) ++count[tag];
  const auto& regions = spec.box->regions;
  for (size_t i = 0; i < regions.size(); ++i) {
    const auto it = std::find(mesh.volume_tag_names.begin(), mesh.volume_tag_names.end(), regions[i].tag);
    if (it == mesh.volume_tag_names.end() || count[it - mesh.volume_tag_names.begin()] > 0) continue;
    throw UserError("region '" + dsl::quote_for_message(regions[i].tag, 40) + "' (mesh.box.regions[" + std::to_string(i) +
                        "]) contains no element centroid, so it tags no element",
                    i < spec.region_where.size() ? spec.region_where[i] : SourceLocation{},
                    "widen it to cover whole cells, or use more cells");
  }
}

MeshData load_mesh(const MeshSpec& spec, GeometryFactors geometry) {
  DGMAX_ASSERT(!spec.geometry_order_auto, "mesh.geometry_order: auto was not resolved before load_mesh");
  if (spec.box && !spec.write_msh.empty())
    throw UserError("--write-msh writes the mesh made from a .geo, and this mesh is a built-in box", spec.box->where,
                    "give a .geo (or a config whose mesh.file is one)");
  Mesh mesh =
      spec.box ? make_box_mesh(*spec.box) : load_mesh_file(spec.file, spec.size, spec.geometry_order, spec.write_msh);
  if (spec.box) check_regions_select_elements(spec, mesh);
  return setup_mesh(std::move(mesh), spec.refine, geometry, spec.numbering);
}

std::vector<TagReference> referenced_tags(const YamlDoc& doc) {
  std::vector<TagReference> refs;
  const auto add = [&](const char* section, TagReference::Kind kind) {
    const YAML::Node n = doc.root()[section];
    if (!n.IsDefined() || !n.IsMap()) return;
    for (const auto& kv : n) refs.push_back({kind, kv.first.as<std::string>(), doc.at(kv.first)});
  };
  add("materials", TagReference::Volume);
  add("boundaries", TagReference::Boundary);
  return refs;
}

}  // namespace dgmax
