#include "solver/app/cmd_info.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "solver/io/atomic_write.hpp"
#include "solver/io/config_keys.hpp"
#include "solver/io/mesh_spec.hpp"
#include "solver/mesh/mesh_stats.hpp"
#include "solver/mesh/partition.hpp"

namespace dgmax {
namespace {

struct InfoOptions {
  std::string input;
  int order = 0;  // 0: from the config, else 4
  int refine = -1;
  double size = -1;
  bool json = false;
  std::string write_msh;
  bool partitioned = false;  // --partition given
  int partition = 0;         // parts to split into and report on
  std::string partition_method = "auto";
};

bool is_config(const std::string& path) {
  const auto ends = [&](const char* ext) {
    const std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

long long nodes_per_element(int N) { return static_cast<long long>(N + 1) * (N + 2) * (N + 3) / 6; }

nlohmann::json partition_json(const Partition& p, const PartitionQuality& q) {
  nlohmann::json j;
  j["parts"] = p.parts;
  j["method"] = p.method;
  j["edge_cut"] = q.edge_cut;
  j["imbalance"] = q.imbalance;
  j["elements"] = q.elements;
  j["ghosts"] = q.ghosts;
  j["halo_faces"] = q.halo_faces;
  j["neighbours"] = q.neighbours;
  return j;
}

void print_partition(const Partition& p, const PartitionQuality& q) {
  std::cout << fmt::format("partition         {} parts ({}): edge cut {} faces, imbalance {:.4f}\n", p.parts,
                           p.method, q.edge_cut, q.imbalance);
  std::cout << "  part    elements    ghosts      halo faces  neighbours\n";
  for (int r = 0; r < p.parts; ++r)
    std::cout << fmt::format("  {:<8}{:<12}{:<12}{:<12}{}\n", r, q.elements[r], q.ghosts[r], q.halo_faces[r],
                             q.neighbours[r]);
}

void run_info(const InfoOptions& opt) {
  MeshSpec spec;
  int order = 4;
  std::vector<TagReference> refs;
  if (is_config(opt.input)) {
    const YamlDoc doc = YamlDoc::load_file(opt.input);
    check_top_level_keys(doc);
    spec = parse_mesh_spec(doc, doc.root()["mesh"]);
    const YAML::Node disc = doc.root()["discretization"];
    if (disc.IsDefined() && disc.IsMap() && disc["order"]) order = doc.as_int(disc["order"], "discretization.order");
    refs = referenced_tags(doc);
  } else {
    spec = mesh_spec_from_argument(opt.input);
  }
  if (opt.order > 0) order = opt.order;
  if (opt.refine >= 0) spec.refine = opt.refine;
  if (opt.size >= 0) spec.size = opt.size;
  if (order < 1 || order > 15)
    throw UserError("order must be between 1 and 15, got " + std::to_string(order), {},
                    "set the polynomial order with --order N or discretization.order in the config");

  resolve_geometry_order(spec, order);
  if (!opt.write_msh.empty()) {
    if (spec.refine > 0)
      throw UserError("--write-msh writes the mesh before refinement, and this one asks for " +
                          std::to_string(spec.refine) + " refinement(s)",
                      {}, "leave refinement out here (--refine 0) and give it where the written .msh is read");
    require_replaceable_target(opt.write_msh, "--write-msh");
    spec.write_msh = opt.write_msh;
  }
  const MeshData md = load_mesh(spec);
  check_tags_exist(md.mesh, refs);
  const MeshStats s = compute_stats(md);
  const long long Np = nodes_per_element(order);
  const long long nodes = s.elements * Np;
  const long long dofs = 6 * nodes;
  Partition part;
  PartitionQuality quality;
  if (opt.partitioned) {
    part = partition_mesh(md, opt.partition, {}, opt.partition_method);
    quality = partition_quality(md, part);
  }

  std::vector<bool> periodic_tag(md.mesh.boundary_tag_names.size(), false);
  for (const auto& p : md.mesh.periodic) periodic_tag[p.tag_a] = periodic_tag[p.tag_b] = true;

  if (opt.json) {
    nlohmann::json j;
    j["mesh"] = md.mesh.source;
    j["elements"] = s.elements;
    j["vertices"] = s.vertices;
    j["volume"] = s.volume_total;
    j["volume_min"] = s.volume_min;
    j["volume_max"] = s.volume_max;
    j["h_min"] = s.h_min;
    j["h_max"] = s.h_max;
    j["quality_min"] = s.quality_min;
    j["quality_mean"] = s.quality_mean;
    j["interior_faces"] = s.interior_faces;
    j["boundary_faces"] = s.boundary_faces;
    j["periodic_face_pairs"] = s.periodic_face_pairs;
    j["reoriented_elements"] = s.reoriented;
    j["geometry_order"] = md.mesh.geometry_order;
    j["curved_elements"] = md.curved.curved;
    j["scaled_jacobian_min"] = md.curved.min_scaled;
    j["scaled_jacobian_max"] = md.curved.max_scaled;
    j["scaled_jacobian_min_element"] = md.curved.min_element;
    if (!md.mesh.high_order_nodes.empty()) j["high_order_nodes"] = md.mesh.high_order_nodes;
    j["boundary_tags"] = nlohmann::json::object();
    for (size_t t = 0; t < s.boundary_tags.size(); ++t)
      if (t >= periodic_tag.size() || !periodic_tag[t])
        j["boundary_tags"][s.boundary_tags[t].name] = s.boundary_tags[t].count;
    j["periodic_tags"] = nlohmann::json::array();
    for (size_t t = 0; t < periodic_tag.size(); ++t)
      if (periodic_tag[t]) j["periodic_tags"].push_back(md.mesh.boundary_tag_names[t]);
    j["volume_tags"] = nlohmann::json::object();
    j["volume_tag_volumes"] = nlohmann::json::object();
    for (const auto& t : s.volume_tags) {
      j["volume_tags"][t.name] = t.count;
      j["volume_tag_volumes"][t.name] = t.measure;
    }
    j["boundary_tag_areas"] = nlohmann::json::object();
    for (size_t t = 0; t < s.boundary_tags.size(); ++t)
      if (t >= periodic_tag.size() || !periodic_tag[t])
        j["boundary_tag_areas"][s.boundary_tags[t].name] = s.boundary_tags[t].measure;
    j["order"] = order;
    j["nodes_per_element"] = Np;
    j["nodes"] = nodes;
    j["dofs"] = dofs;
    if (opt.partitioned) j["partition"] = partition_json(part, quality);
    std::cout << j.dump(2) << "\n";
    return;
  }

  std::cout << fmt::format("mesh              {}\n", md.mesh.source);
  std::cout << fmt::format("elements          {}\n", s.elements);
  std::cout << fmt::format("vertices          {}\n", s.vertices);
  std::cout << fmt::format("faces             {} interior, {} boundary, {} periodic pairs\n",
                           s.interior_faces, s.boundary_faces, s.periodic_face_pairs);
  std::cout << fmt::format("h (longest edge)  min {:.6g}  max {:.6g}\n", s.h_min, s.h_max);
  std::cout << fmt::format("element volume    min {:.6g}  max {:.6g}\n", s.volume_min, s.volume_max);
  std::cout << fmt::format("total volume      {:.12g}\n", s.volume_total);
  std::cout << fmt::format("quality (3r/R)    min {:.4f}  mean {:.4f}   (1 = regular tetrahedron)\n",
                           s.quality_min, s.quality_mean);
  std::cout << fmt::format("geometry order    {}   ({} curved elements)\n", md.mesh.geometry_order, md.curved.curved);
  if (!md.mesh.high_order_nodes.empty()) std::cout << fmt::format("high-order nodes  {}\n", md.mesh.high_order_nodes);
  if (md.curved.curved > 0)
    std::cout << fmt::format("scaled Jacobian   min {:.4f} (element {})  max {:.4f}   (curved elements; 1 = affine)\n",
                             md.curved.min_scaled, md.curved.min_element, md.curved.max_scaled);
  if (s.reoriented > 0)
    std::cout << fmt::format("reoriented        {} inverted elements were flipped\n", s.reoriented);
  std::cout << "boundary tags     faces       area\n";
  for (size_t t = 0; t < s.boundary_tags.size(); ++t) {
    const auto& b = s.boundary_tags[t];
    if (t < periodic_tag.size() && periodic_tag[t])
      std::cout << fmt::format("  {:<16}periodic\n", b.name);
    else
      std::cout << fmt::format("  {:<16}{:<12}{:.6g}\n", b.name, b.count, b.measure);
  }
  std::cout << "volume tags       elements    volume\n";
  for (const auto& t : s.volume_tags)
    std::cout << fmt::format("  {:<16}{:<12}{:.6g}\n", t.name, t.count, t.measure);
  std::cout << fmt::format("order {:<11} Np = {} nodes/element, {} nodes, {} DOF (6 field components)\n",
                           order, Np, nodes, dofs);
  if (opt.partitioned) print_partition(part, quality);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto opt = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "Print statistics of a mesh (box:NX,NY,NZ, .msh, .geo) or of a config's mesh");
  cmd->add_option("input", opt->input, "box:NX,NY,NZ | mesh file (.msh, .geo) | config (.yaml)")->required();
  cmd->add_option("--order,-N", opt->order, "polynomial order for the DOF count (default: the config's, else 4)")
      ->check(CLI::Range(1, 15));
  cmd->add_option("--refine", opt->refine, "uniform refinements to apply first (default: the config's, else 0)")
      ->check(CLI::Range(0, 6));
  cmd->add_option("--size", opt->size, ".geo only: maximum element size")->check(CLI::PositiveNumber);
  cmd->add_flag("--json", opt->json, "print one JSON object instead of a table");
  cmd->add_option("--write-msh", opt->write_msh,
                  ".geo only: also write the mesh as dgmax made it (geometry order, curved nodes placed) to "
                  "FILE, a binary Gmsh .msh 4.1 that any dgmax build reads (no Gmsh needed)");
  CLI::Option* partition = cmd->add_option("--partition", opt->partition,
                  "split the elements into P parts (ranks) and print the partition's edge cut, "
                  "imbalance and per part elements, ghosts, halo faces, neighbours");
  cmd->add_option("--partition-method", opt->partition_method,
                  "auto (metis when built with it, else the better of rcb and sfc), sfc (Hilbert curve), rcb "
                  "(coordinate bisection) or metis")
      ->check(CLI::IsMember(partition_method_names()))
      ->needs(partition);
  cmd->callback([opt, partition]() {
    opt->partitioned = partition->count() > 0;
    run_info(*opt);
  });
}

}  // namespace dgmax
