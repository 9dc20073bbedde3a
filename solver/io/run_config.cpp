#include "solver/io/run_config.hpp"

#include "solver/io/pml_config.hpp"
#include "solver/io/tfsf_config.hpp"
#include "solver/io/whole_mesh_setup.hpp"

#include <cmath>

#include "codegen/dsl/constants.hpp"
#include "solver/mesh/partition.hpp"
#include "solver/physics/space_time_field.hpp"
#include "solver/util/strings.hpp"
#include "solver/io/config_keys.hpp"

namespace dgmax {
namespace {

const std::vector<std::string> kXYZT = {"x", "y", "z", "t"};

FieldExpr parse_vector(const YamlDoc& doc, const YAML::Node& node, const std::string& what,
                       const dsl::ScalarContext& ctx) {
  if (!node.IsSequence() || node.size() != 3)
    throw doc.error(node, "'" + what + "' must be a list of 3 expressions (x, y, z components)",
                    "e.g. " + what.substr(what.rfind('.') + 1) + ": [\"0\", \"0\", \"sin(pi*x)\"]");
  FieldExpr f;
  for (size_t i = 0; i < 3; ++i) {
    const std::string name = what + "[" + std::to_string(i) + "]";
    f.sources.push_back(doc.expr_source(node[i], name));
    f.names.push_back(name);
    f.comps.push_back(dsl::compile_scalar(f.sources.back(), ctx));
  }
  return f;
}

// {E: [...], H: [...]}: both optional (missing = zero) unless `require_both`.
FieldExpr parse_em_field(const YamlDoc& doc, const YAML::Node& node, const std::string& what,
                         const dsl::ScalarContext& ctx, bool require_both) {
  doc.check_keys(node, {"E", "H"}, what);
  FieldExpr f;
  for (const char* name : {"E", "H"}) {
    const YAML::Node v = node[name];
    if (!v.IsDefined()) {
      if (require_both) throw doc.error(node, "'" + what + "' needs both E and H");
      for (int i = 0; i < 3; ++i) {
        f.comps.emplace_back();  // zero
        f.sources.push_back({"0", doc.at(node)});
        f.names.push_back(what + "." + name + "[" + std::to_string(i) + "] (omitted: 0)");
      }
      continue;
    }
    FieldExpr part = parse_vector(doc, v, what + "." + name, ctx);
    for (size_t i = 0; i < 3; ++i) {
      f.comps.push_back(std::move(part.comps[i]));
      f.sources.push_back(std::move(part.sources[i]));
      f.names.push_back(std::move(part.names[i]));
    }
  }
  return f;
}

double parse_constant_value(const YamlDoc& doc, const YAML::Node& node, const std::string& what,
                            const dsl::ScalarContext& ctx) {
  const dsl::ScalarFunction f = dsl::compile_scalar(doc.expr_source(node, what), ctx);
  const double v = f(nullptr);
  if (!std::isfinite(v)) throw doc.error(node, "'" + what + "' is not a finite number");
  return v;
}

// Built-in states first (their index is the BcKind value), then the user's, in order.
BcKind parse_bc(const YamlDoc& doc, const YAML::Node& node, const std::string& what,
                const std::vector<std::pair<std::string, FluxSource>>& custom) {
  const std::string s = doc.as_string(node, what);
  std::vector<std::string> names = {"pec", "pmc", "absorbing", "incident"};
  for (const auto& c : custom) names.push_back(c.first);
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == s) return custom_bc(static_cast<int>(i));
  std::string valid;
  for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + n;
  std::string hint = "valid: " + valid;
  const std::string close = closest_match(s, names);
  if (!close.empty()) hint = "did you mean '" + close + "'? " + hint;
  throw doc.error(node, "unknown boundary condition '" + dsl::quote_for_message(s, 40) + "' for '" + what + "'", hint);
}

FluxSource parse_flux_pair(const YamlDoc& doc, const YAML::Node& node, const std::string& what) {
  doc.check_keys(node, {"E", "H"}, what);
  if (!node["E"] || !node["H"]) throw doc.error(node, "'" + what + "' needs both E and H expressions");
  return {doc.expr_source(node["E"], what + ".E"), doc.expr_source(node["H"], what + ".H")};
}

}  // namespace

SpaceTimeField FieldExpr::to_field(const std::map<std::string, double>& constants) const {
  return make_space_time_field(comps, sources, names, constants);
}

// output.checkpoint_every: N (steps) or {time: T} / {steps: N}.
static void parse_checkpoint_every(const YamlDoc& doc, const YAML::Node& c, RunConfig& cfg) {
  const std::string hint = "write checkpoint_every: 500 (steps) or checkpoint_every: {time: 0.5}";
  if (c.IsMap()) {
    doc.check_keys(c, {"steps", "time"}, "output.checkpoint_every");
    if (c.size() != 1) throw doc.error(c, "'output.checkpoint_every' takes one of steps or time", hint);
    if (c["steps"]) {
      cfg.checkpoint_every_steps = doc.as_int(c["steps"], "output.checkpoint_every.steps");
      if (cfg.checkpoint_every_steps <= 0) throw doc.error(c["steps"], "'output.checkpoint_every.steps' must be > 0", hint);
    } else {
      cfg.checkpoint_every_time = doc.as_double(c["time"], "output.checkpoint_every.time");
      if (!(cfg.checkpoint_every_time > 0)) throw doc.error(c["time"], "'output.checkpoint_every.time' must be > 0", hint);
    }
    return;
  }
  cfg.checkpoint_every_steps = doc.as_int(c, "output.checkpoint_every");
  if (cfg.checkpoint_every_steps <= 0) throw doc.error(c, "'output.checkpoint_every' must be > 0 (steps)", hint);
}

RunConfig parse_run_config(const YamlDoc& doc) {
  check_top_level_keys(doc);
  const YAML::Node root = doc.root();
  RunConfig cfg;
  cfg.path = doc.path();
  cfg.mesh = parse_mesh_spec(doc, root["mesh"]);
  cfg.tag_refs = referenced_tags(doc);

  if (const YAML::Node d = root["discretization"]; d.IsDefined()) {
    doc.check_keys(d, {"order", "precision", "flux"}, "discretization");
    if (d["order"]) {
      cfg.order = doc.as_int(d["order"], "discretization.order");
      if (cfg.order < 1 || cfg.order > 15)
        throw doc.error(d["order"], "'discretization.order' must be between 1 and 15, got " + std::to_string(cfg.order));
    }
    if (d["precision"]) {
      const std::string p = doc.as_string(d["precision"], "discretization.precision");
      if (p == "double") cfg.precision = Precision::Double;
      else if (p == "single") cfg.precision = Precision::Single;
      else throw doc.error(d["precision"], "unknown precision '" + dsl::quote_for_message(p, 40) + "'", "use double or single");
    }
    if (const YAML::Node f = d["flux"]; f.IsDefined()) {
      if (f.IsMap()) {
        doc.check_keys(f, {"alpha"}, "discretization.flux");
        if (!f["alpha"]) throw doc.error(f, "'discretization.flux' as a mapping needs 'alpha'", "e.g. flux: {alpha: 0.5}");
        cfg.alpha = doc.as_double(f["alpha"], "discretization.flux.alpha");
        if (cfg.alpha < 0 || cfg.alpha > 1)
          throw doc.error(f["alpha"], "'discretization.flux.alpha' must be in [0, 1] (0 central, 1 upwind)");
        cfg.flux_name = "alpha=" + fmt_g(cfg.alpha);
      } else {
        cfg.flux_name = doc.as_string(f, "discretization.flux");
        if (cfg.flux_name == "upwind") cfg.alpha = 1;
        else if (cfg.flux_name == "central") cfg.alpha = 0;
        else {
          const std::string close = closest_match(cfg.flux_name, {"upwind", "central"});
          throw doc.error(f, "unknown flux '" + dsl::quote_for_message(cfg.flux_name, 40) + "'",
                          (close.empty() ? "" : "did you mean '" + close + "'? ") +
                              std::string("use upwind, central or {alpha: 0.5}"));
        }
      }
    }
  }

  if (const YAML::Node c = root["constants"]; c.IsDefined() && !c.IsNull()) {
    if (!c.IsMap()) throw doc.error(c, "'constants' must be a mapping (name: expression)");
    std::vector<std::pair<std::string, dsl::ExprSource>> defs;
    for (const auto& kv : c) {
      const std::string name = kv.first.as<std::string>();
      defs.push_back({name, doc.expr_source(kv.second, "constants." + name)});
    }
    cfg.constants = dsl::evaluate_constants(defs);
  }
  dsl::ScalarContext fields_ctx{kXYZT, cfg.constants, {}};
  dsl::ScalarContext const_ctx{{}, cfg.constants, {}};

  cfg.materials["default"] = {Material{}, {}};
  if (const YAML::Node m = root["materials"]; m.IsDefined() && !m.IsNull()) {
    if (!m.IsMap()) throw doc.error(m, "'materials' must map volume tags (or 'default') to {eps, mu, sigma}");
    for (const auto& kv : m) {
      const std::string tag = kv.first.as<std::string>();
      const std::string what = "materials." + tag;
      doc.check_keys(kv.second, {"eps", "mu", "sigma"}, what);
      MaterialSpec spec{Material{}, doc.at(kv.first)};
      if (kv.second["eps"]) spec.value.eps = parse_constant_value(doc, kv.second["eps"], what + ".eps", const_ctx);
      if (kv.second["mu"]) spec.value.mu = parse_constant_value(doc, kv.second["mu"], what + ".mu", const_ctx);
      if (kv.second["sigma"]) spec.value.sigma = parse_constant_value(doc, kv.second["sigma"], what + ".sigma", const_ctx);
      if (!(spec.value.eps > 0)) throw doc.error(kv.second["eps"], "'" + what + ".eps' must be positive");
      if (!(spec.value.mu > 0)) throw doc.error(kv.second["mu"], "'" + what + ".mu' must be positive");
      if (spec.value.sigma < 0) throw doc.error(kv.second["sigma"], "'" + what + ".sigma' must be ≥ 0");
      cfg.materials[tag] = spec;
    }
  }

  if (const YAML::Node f = root["flux"]; f.IsDefined()) {
    if (root["discretization"].IsDefined() && root["discretization"]["flux"].IsDefined())
      throw doc.error(f, "both 'flux' and 'discretization.flux' are given; keep one",
                      "'flux: {E: ..., H: ...}' is a user-written flux, 'discretization.flux' names a built-in");
    cfg.custom_flux = parse_flux_pair(doc, f, "flux");
    cfg.flux_name = "custom";
  }
  if (const YAML::Node bs = root["boundary_states"]; bs.IsDefined() && !bs.IsNull()) {
    if (!bs.IsMap()) throw doc.error(bs, "'boundary_states' must map names to {E: ..., H: ...}");
    for (const auto& kv : bs) {
      const std::string name = kv.first.as<std::string>();
      if (!dsl::is_identifier(name)) throw doc.error(kv.first, "'" + name + "' is not a valid state name");
      for (const char* builtin : {"pec", "pmc", "absorbing", "incident"})
        if (name == builtin)
          throw doc.error(kv.first, "'" + name + "' is a built-in boundary condition; choose another name");
      cfg.custom_states.push_back({name, parse_flux_pair(doc, kv.second, "boundary_states." + name)});
    }
  }

  cfg.boundaries["default"] = BcKind::Pec;
  if (const YAML::Node b = root["boundaries"]; b.IsDefined() && !b.IsNull()) {
    if (!b.IsMap()) throw doc.error(b, "'boundaries' must map boundary tags (or 'default') to pec, pmc, absorbing or incident");
    for (const auto& kv : b) {
      const std::string tag = kv.first.as<std::string>();
      cfg.boundaries[tag == kAllBoundaryTag ? "default" : tag] =
          parse_bc(doc, kv.second, "boundaries." + tag, cfg.custom_states);
      cfg.boundary_where[tag] = doc.at(kv.first);
    }
  }

  if (const YAML::Node n = root["initial"]; n.IsDefined())
    cfg.initial = parse_em_field(doc, n, "initial", fields_ctx, false);
  if (const YAML::Node n = root["exact"]; n.IsDefined())
    cfg.exact = parse_em_field(doc, n, "exact", fields_ctx, true);
  if (const YAML::Node n = root["incident"]; n.IsDefined())
    cfg.incident = parse_em_field(doc, n, "incident", fields_ctx, true);
  if (const YAML::Node n = root["sources"]; n.IsDefined()) {
    doc.check_keys(n, {"J"}, "sources");
    if (!n["J"]) throw doc.error(n, "'sources' needs J: [jx, jy, jz]");
    cfg.current = parse_vector(doc, n["J"], "sources.J", fields_ctx);
  }
  // Lower flux and states now, so expression errors surface before the mesh is loaded.
  cfg.fluxes = make_flux_set(cfg.flux_name, cfg.alpha, cfg.custom_flux ? &*cfg.custom_flux : nullptr,
                             cfg.constants, cfg.custom_states);
  const auto& fluxes = cfg.fluxes;
  for (const auto& [tag, kind] : cfg.boundaries)
    if (fluxes->exterior_reads_incident[static_cast<int>(kind)] && !cfg.incident) {
      // name the key the user wrote ('default' or 'boundary')
      std::string written = tag;
      if (tag == "default" && !cfg.boundary_where.count("default") && cfg.boundary_where.count(kAllBoundaryTag))
        written = kAllBoundaryTag;
      const auto it = cfg.boundary_where.find(written);
      throw UserError("boundary '" + written + "' is '" + fluxes->exterior_names[static_cast<int>(kind)] +
                          "', which needs the incident field, but the config has no 'incident' section",
                      it != cfg.boundary_where.end() ? it->second : SourceLocation{doc.path()},
                      "add incident: {E: [...], H: [...]} with the field to impose there");
    }

  if (const YAML::Node t = root["time"]; t.IsDefined()) {
    doc.check_keys(t, {"final", "cfl"}, "time");
    if (t["final"]) {
      cfg.t_final = parse_constant_value(doc, t["final"], "time.final", const_ctx);  // e.g. "2*pi/omega"
      if (!(cfg.t_final > 0)) throw doc.error(t["final"], "'time.final' must be positive");
    }
    if (t["cfl"]) {
      cfg.cfl = doc.as_double(t["cfl"], "time.cfl");
      if (!(cfg.cfl > 0) || cfg.cfl > 2)
        throw doc.error(t["cfl"], "'time.cfl' must be in (0, 2]", "about 1 is the stability limit; 0.5 is safe");
    }
  }

  if (const YAML::Node o = root["output"]; o.IsDefined()) {
    doc.check_keys(o, {"dir", "vtk_every", "format", "energy_every", "checkpoint_every"}, "output");
    if (o["dir"]) cfg.out_dir = doc.as_string(o["dir"], "output.dir");
    if (o["vtk_every"]) {
      cfg.vtk_every = doc.as_double(o["vtk_every"], "output.vtk_every");
      if (cfg.vtk_every < 0) throw doc.error(o["vtk_every"], "'output.vtk_every' must be ≥ 0 (0: first and last only)");
      if (cfg.vtk_every > 0 && cfg.t_final / cfg.vtk_every > kMaxSnapshots)
        throw doc.error(o["vtk_every"],
                        "'output.vtk_every' = " + fmt_g(cfg.vtk_every) + " asks for " + fmt_g(cfg.t_final / cfg.vtk_every) +
                            " snapshots over time.final = " + fmt_g(cfg.t_final) + "; the limit is " +
                            fmt_g(kMaxSnapshots),
                        "use a larger interval, or 0 for the first and last only");
    }
    if (o["format"]) {
      cfg.out_format = doc.as_string(o["format"], "output.format");
      if (cfg.out_format != "auto" && cfg.out_format != "vtu" && cfg.out_format != "hdf5" && cfg.out_format != "both")
        throw doc.error(o["format"], "unknown output format '" + dsl::quote_for_message(cfg.out_format, 40) + "'", "use auto, vtu, hdf5 or both");
    }
    if (o["energy_every"]) {
      cfg.energy_every = doc.as_int(o["energy_every"], "output.energy_every");
      if (cfg.energy_every < 0) throw doc.error(o["energy_every"], "'output.energy_every' must be ≥ 0");
    }
    if (const YAML::Node c = o["checkpoint_every"]) parse_checkpoint_every(doc, c, cfg);
  }

  cfg.pml = parse_pml_config(doc, root["pml"], cfg.mesh, cfg.cfl);
  cfg.tfsf = parse_tfsf_config(doc, root["tfsf"]);
  if (cfg.tfsf && !cfg.incident)
    throw UserError("'tfsf' needs the incident field, but the config has no 'incident' section", cfg.tfsf->where,
                    "add incident: {E: [...], H: [...]} with the plane wave to inject");

  if (const YAML::Node b = root["backend"]; b.IsDefined()) {
    cfg.backend = doc.as_string(b, "backend");
    if (cfg.backend != "auto" && cfg.backend != "ref" && cfg.backend != "cpu" && cfg.backend != "cuda")
      throw doc.error(b, "unknown backend '" + dsl::quote_for_message(cfg.backend, 40) + "'", "use auto, ref, cpu or cuda");
  }
  if (const YAML::Node n = root["partition"]; n.IsDefined()) {
    cfg.partition = doc.as_string(n, "partition");
    if (const auto bad = partition_method_error(cfg.partition)) throw doc.error(n, bad->message, bad->hint);
  }
  if (const YAML::Node n = root["probes"]; n.IsDefined()) cfg.probes = parse_probes(doc, n);
  if (const YAML::Node n = root["monitors"]; n.IsDefined()) cfg.monitors = parse_monitors(doc, n, cfg.tag_refs);
  resolve_geometry_order(cfg.mesh, cfg.order);  // mesh.geometry_order: auto follows discretization.order
  return cfg;
}

void apply_physics(const RunConfig& cfg, Problem& p, const WholeMeshSetup& whole) {
  const Mesh& mesh = p.md->mesh;
  check_tags_exist(mesh, cfg.tag_refs);
  p.fluxes = cfg.fluxes;
  p.material = element_materials(cfg, mesh);
  const BcKind default_bc = cfg.boundaries.at("default");
  for (int k = 0; k < p.K(); ++k)
    for (int f = 0; f < 4; ++f) {
      if (!p.md->conn.is_boundary(k, f)) continue;
      const auto it = cfg.boundaries.find(mesh.boundary_tag_names[p.md->conn.face_tag[k][f]]);
      p.bc[k][f] = it != cfg.boundaries.end() ? it->second : default_bc;
    }
  if (cfg.current) p.current = cfg.current->to_field(cfg.constants);
  if (cfg.incident) p.incident = cfg.incident->to_field(cfg.constants);
  if (cfg.initial) p.initial = cfg.initial->to_field(cfg.constants);
  if (cfg.exact) p.exact = cfg.exact->to_field(cfg.constants);
  // the layer and the box are found on the whole mesh; each rank keeps its part (every rank has
  // both, possibly without elements of its own)
  if (whole.pml) p.pml = std::make_shared<const PmlLayer>(localize_pml_layer(*whole.pml, *p.md));
  if (cfg.tfsf)
    p.tfsf = std::make_shared<const TfsfSurface>(localize_tfsf_surface(
        build_tfsf_surface(*cfg.tfsf, *whole.md, whole.pml.get(), static_cast<bool>(p.incident)), *p.md));
}

void apply_physics(const RunConfig& cfg, Problem& p) { apply_physics(cfg, p, whole_mesh_setup(cfg, p.md)); }

const char* default_config_text() {
  return R"yaml(# Built-in default of `dgmax run`: the TM110 mode of a PEC unit-cube cavity, compared with
# its exact solution. E = (0, 0, sin(pi x) sin(pi y) cos(omega t)), omega = sqrt(2) pi.
mesh:
  box: {lower: [0, 0, 0], upper: [1, 1, 1], cells: [3, 3, 3]}
discretization: {order: 4, precision: double, flux: upwind}
constants: {omega: "sqrt(2)*pi"}
materials: {default: {eps: 1, mu: 1}}
boundaries: {default: pec}
initial:
  E: ["0", "0", "sin(pi*x)*sin(pi*y)"]
  H: ["0", "0", "0"]
exact:
  E: ["0", "0", "sin(pi*x)*sin(pi*y)*cos(omega*t)"]
  H: ["-pi/omega*sin(pi*x)*cos(pi*y)*sin(omega*t)", "pi/omega*cos(pi*x)*sin(pi*y)*sin(omega*t)", "0"]
time: {final: 1.0, cfl: 0.5}
output: {dir: out/default, vtk_every: 0.25}
backend: auto
)yaml";
}

}  // namespace dgmax
