// A whole run described by a config file (the schema below is a contract: extend it, keep these
// keys working). Every value is checked here, with file:line:column in each message.
//
// mesh:           see mesh_spec.hpp
// discretization: {order: 4, precision: double, flux: upwind}   # flux: upwind | central | {alpha: 0.5}
// flux:           {E: "<3-vector>", H: "<3-vector>"}             # optional: a user-written flux
//                                                                # (flux language; replaces discretization.flux)
// boundary_states: {<name>: {E: "<E.ext>", H: "<H.ext>"}}        # optional: user-written exterior states
// constants:      {omega: "sqrt(2)*pi"}                          # in order; may use pi and earlier ones
// materials:      {default: {eps: 1, mu: 1, sigma: 0}, <volume tag>: {...}}
// boundaries:     {default: pec, <boundary tag>: pmc}            # pec | pmc | absorbing | incident | <state>
// initial:        {E: [ex, ey, ez], H: [hx, hy, hz]}             # expressions of x, y, z (t = 0)
// exact:          {E: [...], H: [...]}                           # optional; of x, y, z, t
// incident:       {E: [...], H: [...]}                           # needed by `incident` boundaries
// sources:        {J: [jx, jy, jz]}                              # optional current density
// time:           {final: 1.0, cfl: 0.5}
// output:         {dir: out/cavity, vtk_every: 0.1, format: auto, energy_every: 0}
// pml:            {thickness: 0.3, order: 3, reflection: 1e-6}  # optional: see pml_config.hpp
// tfsf:           {box: {lower: [..], upper: [..]}}             # optional: plane wave `incident` inside the box
// backend:        auto                                           # auto | ref | cpu | cuda
// partition:      auto                                           # several ranks: auto | metis | rcb | sfc
// probes:         {every: 0.01, points: [{name: center, at: [0, 0, 0]}]}   # point probes -> probes.csv
// monitors:       [{name: box_dft, surface: {box: {lower: [...], upper: [...]}}, frequencies: [1.0]},
//                  {name: vol, volume: <volume tag>, frequencies: [1.0]}]  # running DFTs -> monitors.h5
//                 (both sections: see monitor_config.hpp)
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/dsl/scalar_eval.hpp"
#include "solver/io/mesh_spec.hpp"
#include "solver/io/monitor_config.hpp"
#include "solver/io/yaml_doc.hpp"
#include "solver/physics/pml.hpp"
#include "solver/physics/tfsf.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

enum class Precision { Double, Single };

// At most this many snapshots (time.final / output.vtk_every): more is a typo, not a run.
inline constexpr double kMaxSnapshots = 1e6;

// Three or six compiled component expressions of (x, y, z, t).
struct FieldExpr {
  std::vector<dsl::ScalarFunction> comps;
  std::vector<dsl::ExprSource> sources;  // per component; empty text for an omitted (zero) part
  std::vector<std::string> names;        // per component, e.g. "initial.E[2]"
  // Interpreted and lowered forms (Problem::current, incident, initial, exact). The lowering
  // accepts every expression the interpreter compiled, so it cannot fail after parsing.
  // `constants`: the config's, which the expressions were compiled with.
  SpaceTimeField to_field(const std::map<std::string, double>& constants) const;
};

struct MaterialSpec {
  Material value;
  SourceLocation where;
};

struct RunConfig {
  std::string path;  // the config file, or "(built-in default)"
  MeshSpec mesh;
  int order = 4;
  Precision precision = Precision::Double;
  double alpha = 1;            // 1 upwind, 0 central
  std::string flux_name = "upwind";
  std::map<std::string, double> constants;
  std::map<std::string, MaterialSpec> materials;  // "default" and volume tags
  std::optional<FluxSource> custom_flux;          // the `flux:` block
  std::vector<std::pair<std::string, FluxSource>> custom_states;  // `boundary_states:`, in order
  std::shared_ptr<const FluxSet> fluxes;          // flux and exterior states, lowered once here
  std::map<std::string, BcKind> boundaries;       // "default"/"boundary" and boundary tags
  std::map<std::string, SourceLocation> boundary_where;
  std::optional<FieldExpr> initial, exact, incident, current;
  double t_final = 1, cfl = 0.5;
  std::string out_dir = "out";
  double vtk_every = 0;      // snapshot interval in time; 0: first and last only
  std::string out_format = "auto";
  long long energy_every = 0;  // steps between energy (and error) samples (also at every
                               // snapshot and the last step); 0: every max(10, steps/200) steps
  // checkpoints (output.checkpoint_every): every N steps or every T of simulated time; 0: none
  long long checkpoint_every_steps = 0;
  double checkpoint_every_time = 0;
  std::string backend = "auto";
  std::string partition = "auto";  // how several ranks split the mesh (partition.hpp's methods)
  std::vector<TagReference> tag_refs;
  std::optional<PmlSpec> pml;  // the `pml:` block (or mesh.box.pml); pml_config.hpp
  std::optional<TfsfSpec> tfsf;  // the `tfsf:` block; tfsf_config.hpp
  ProbesSpec probes;                  // `probes:` (empty: none)
  std::vector<MonitorSpec> monitors;  // `monitors:`
};

// Parses and checks a config document (after --set overrides were applied to it).
RunConfig parse_run_config(const YamlDoc& doc);

// The built-in default: a PEC cavity mode with its exact solution (what `dgmax run` runs alone).
const char* default_config_text();

// Applies materials, boundary conditions, flux, sources, incident field, PML and TF/SF box to a
// problem whose mesh was loaded from cfg.mesh: the whole mesh, or with several ranks the rank's
// part of `whole` (whole_mesh_setup.hpp: the layer and the box are found on the whole mesh). Throws
// UserError for `incident` boundaries without `incident:` and for a layer or box that is not one.
struct WholeMeshSetup;
void apply_physics(const RunConfig& cfg, Problem& p, const WholeMeshSetup& whole);
void apply_physics(const RunConfig& cfg, Problem& p);  // p's mesh is the whole mesh

}  // namespace dgmax
