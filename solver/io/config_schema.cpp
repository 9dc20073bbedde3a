#include "solver/io/config_schema.hpp"

#include <sstream>

namespace dgmax {
namespace {

// {path, type, default, unit, allowed, description, example}. Defaults and ranges are the loaders'
// (run_config.cpp, mesh_spec.cpp, pml_config.cpp, tfsf_config.cpp, monitor_config.cpp).
const std::vector<ConfigKey> kSchema = {
    // ---- mesh (mesh_spec.cpp)
    {"mesh", "map", "required", "", "exactly one of box and file",
     "The mesh: a generated box or a mesh file.", "{box: {cells: [4, 4, 4]}}"},
    {"mesh.box", "map", "none", "", "not with file",
     "A box split into cells of 6 tetrahedra each; boundary tags xmin, xmax, ymin, ymax, zmin, zmax, volume tag "
     "`domain`.",
     "{lower: [0, 0, 0], upper: [1, 1, 1], cells: [4, 4, 4]}"},
    {"mesh.box.lower", "list of 3 numbers", "[0, 0, 0]", "length", "each at most 1e100 in size", "The box's lower corner.",
     "[-0.5, -0.5, -0.5]"},
    {"mesh.box.upper", "list of 3 numbers", "[1, 1, 1]", "length",
     "> lower in every direction; each at most 1e100 in size; cells at least 1e-100, their thinnest side at least "
     "1e-5 of the thickest and 1e-8 of the largest coordinate",
     "The box's upper corner.", "[2, 1, 1]"},
    {"mesh.box.cells", "list of 3 integers", "[4, 4, 4]", "", ">= 1 each; 6 * cells * 8^refine <= 2e9 elements",
     "Cells along x, y and z.", "[8, 8, 8]"},
    {"mesh.box.periodic", "list of directions", "none", "", "x, y, z, each at most once",
     "Directions in which the box is periodic: its xmin faces are glued to xmax, and so on.", "[y, z]"},
    {"mesh.box.regions", "list of maps", "none", "", "",
     "Boxes whose elements (by centroid) get their own volume tag, for `materials`; a later region wins where "
     "regions overlap.",
     "[{tag: slab, lower: [0, 0, 0], upper: [1, 1, 0.5]}]"},
    {"mesh.box.regions[].tag", "name", "required", "", "a new volume tag, not `domain`", "The region's volume tag.",
     "slab"},
    {"mesh.box.regions[].lower", "list of 3 numbers", "required", "length", "overlaps the box",
     "The region's lower corner.", "[0, 0, 0]"},
    {"mesh.box.regions[].upper", "list of 3 numbers", "required", "length",
     "> lower in every direction; must hold an element centroid", "The region's upper corner.", "[1, 1, 0.5]"},
    {"mesh.box.pml", "number", "none", "length", "> 0, a whole number of cells; not along a periodic direction; the box with it <= 2e9 elements",
     "Adds a layer this thick around the box, tagged `pml` (the box stays `domain`); the `pml` section may then be "
     "left out.",
     "0.5"},
    {"mesh.file", "string", "none", "", ".msh (MSH 4.1 or 2.2), or .geo in builds with Gmsh; not with box",
     "Mesh file, relative to the config's folder when it is there, else to the working directory.",
     "meshes/cube.geo"},
    {"mesh.size", "number", "0 (the file's own sizes)", "length", ">= 0; .geo files only",
     "Maximum element size when Gmsh meshes a .geo file.", "0.1"},
    {"mesh.geometry_order", "integer or auto", "none (a .geo: 1; a .msh: the file's own order)", "",
     "1 to 10, or auto; mesh files only",
     "Polynomial order of the elements' geometry: a .geo is meshed with curved tetrahedra of this order (Gmsh's "
     "setOrder for the nodes on curved surfaces, the others placed from them; Gmsh's high-order optimisation where "
     "that would tangle an element); a .msh must have this order (leave it out to take the file's). "
     "`auto`: discretization.order capped at 10 for a .geo, the file's own for a .msh. Elements that stay "
     "straight-sided are treated as affine.",
     "2"},
    {"mesh.refine", "integer", "0", "", "0 to 6",
     "Uniform refinements, each splitting every tetrahedron into 8.", "1"},
    {"mesh.numbering", "string", "hilbert", "", "hilbert or input",
     "Element order in memory: `hilbert` renumbers along a space-filling curve (face neighbours close in memory), "
     "`input` keeps the mesh's numbering.",
     "input"},

    // ---- discretization (run_config.cpp)
    {"discretization", "map", "none (all defaults)", "", "", "Polynomial order, precision and built-in flux.",
     "{order: 3, precision: double, flux: upwind}"},
    {"discretization.order", "integer", "4", "", "1 to 15",
     "Polynomial order N of the nodal basis on each tetrahedron ((N+1)(N+2)(N+3)/6 nodes).", "3"},
    {"discretization.precision", "string", "double", "", "double or single",
     "Floating-point precision of the fields and kernels (energies and error norms are summed in double either "
     "way).",
     "single"},
    {"discretization.flux", "string or map", "upwind", "", "upwind, central or {alpha: A}; not with `flux`",
     "The built-in numerical flux: upwind (alpha = 1), central (alpha = 0), or the family between them.",
     "central"},
    {"discretization.flux.alpha", "number", "required (in the map form)", "", "0 to 1",
     "Weight of the upwind (jump) terms: 0 is the central flux, 1 the upwind flux.", "0.5"},

    // ---- constants (run_config.cpp, codegen/dsl/constants.cpp)
    {"constants", "map", "none", "", "at most 10000 constants",
     "Named constants, evaluated in order; each may use pi and the constants before it.",
     R"y({omega: "sqrt(2)*pi", T: "2*pi/omega"})y"},
    {"constants.<name>", "constant expression", "none", "", "finite; the name a new identifier",
     "A constant usable in every expression of the config and in constant-valued keys such as time.final.",
     R"y("sqrt(2)*pi")y"},

    // ---- materials (run_config.cpp)
    {"materials", "map", "{default: {eps: 1, mu: 1, sigma: 0}}", "", "",
     "Material of each volume tag; `default` applies to elements whose tag is not listed.",
     "{default: {eps: 1}, slab: {eps: 4}}"},
    {"materials.<tag>", "map", "none", "", "a volume tag of the mesh, or default",
     "The material of one volume tag.", "{eps: 2.25, mu: 1, sigma: 0}"},
    {"materials.<tag>.eps", "constant expression", "1", "relative", "> 0", "Relative permittivity.", "4"},
    {"materials.<tag>.mu", "constant expression", "1", "relative", "> 0", "Relative permeability.", "2"},
    {"materials.<tag>.sigma", "constant expression", "0", "eps0/time", ">= 0",
     "Electric conductivity: the loss term in eps dE/dt = curl H - J - sigma E (sigma/eps is a decay rate).",
     "0.5"},

    // ---- boundaries (run_config.cpp)
    {"boundaries", "map", "{default: pec}", "", "",
     "Boundary condition of each boundary tag; `default` (or `boundary`) applies to faces whose tag is not "
     "listed.",
     "{default: pec, xmin: absorbing}"},
    {"boundaries.<tag>", "string", "pec (for default)", "",
     "pec, pmc, absorbing, incident or a boundary_states name; the tag a boundary tag of the mesh, default or "
     "boundary",
     "pec: tangential E is 0; pmc: tangential H is 0; absorbing: first-order Silver-Mueller; incident: the "
     "exterior state is the `incident` field.",
     "absorbing"},

    // ---- user-written flux and exterior states (run_config.cpp, codegen/lower)
    {"boundary_states", "map", "none", "", "",
     "Exterior states written in the flux language, used by name in `boundaries`.",
     R"y({mirror: {E: "-E.int", H: "H.int"}})y"},
    {"boundary_states.<name>", "map", "none", "", "an identifier other than pec, pmc, absorbing and incident",
     "An exterior state: E.ext and H.ext on a boundary face, from the interior traces (.int), materials, n, Einc "
     "and Hinc.",
     R"y({E: "-E.int", H: "H.int"})y"},
    {"boundary_states.<name>.E", "flux expression", "required", "", "a 3-vector; no .ext traces",
     "The exterior E.", R"y("-E.int")y"},
    {"boundary_states.<name>.H", "flux expression", "required", "", "a 3-vector; no .ext traces",
     "The exterior H.", R"y("H.int")y"},
    {"flux", "map", "none (discretization.flux)", "", "not with discretization.flux",
     "A user-written numerical flux in the flux language (user guide: The flux language).",
     R"y({E: "cross(n, jump(H))/2", H: "cross(n, jump(E))/2"})y"},
    {"flux.E", "flux expression", "required", "", "a 3-vector",
     "flux_E = n x (H.int - H*), of E.int, E.ext, H.int, H.ext, n, eps, mu, Z, Y (.int/.ext), jump(), avg() and "
     "the constants.",
     R"y("cross(n, jump(H))/2")y"},
    {"flux.H", "flux expression", "required", "", "a 3-vector", "flux_H = n x (E.int - E*), of the same names.",
     R"y("cross(n, jump(E))/2")y"},

    // ---- fields (run_config.cpp)
    {"initial", "map", "none (zero fields)", "", "",
     "The fields at t = 0, as expressions of x, y, z; a component left out is 0.",
     R"y({E: ["0", "0", "sin(pi*x)*sin(pi*y)"]})y"},
    {"initial.E", "list of 3 expressions", R"y(["0", "0", "0"])y", "", "of x, y, z (t = 0)", "Ex, Ey, Ez at t = 0.",
     R"y(["0", "0", "sin(pi*x)*sin(pi*y)"])y"},
    {"initial.H", "list of 3 expressions", R"y(["0", "0", "0"])y", "", "of x, y, z (t = 0)", "Hx, Hy, Hz at t = 0.",
     R"y(["0", "0", "0"])y"},
    {"exact", "map", "none", "", "both E and H",
     "The exact solution: enables the L2 and Linf error norms (summary.json, energy.csv).",
     R"y({E: ["0", "0", "cos(t)"], H: ["0", "0", "0"]})y"},
    {"exact.E", "list of 3 expressions", "required", "", "of x, y, z, t", "The exact E.",
     R"y(["0", "0", "sin(pi*x)*sin(pi*y)*cos(t)"])y"},
    {"exact.H", "list of 3 expressions", "required", "", "of x, y, z, t", "The exact H.", R"y(["0", "0", "0"])y"},
    {"incident", "map", "none", "", "both E and H",
     "The incident field: the exterior state of `incident` boundaries, Einc and Hinc of boundary_states, and the "
     "field a `tfsf` box injects.",
     R"y({E: ["0", "sin(2*pi*(x - t))", "0"], H: ["0", "0", "sin(2*pi*(x - t))"]})y"},
    {"incident.E", "list of 3 expressions", "required", "", "of x, y, z, t", "The incident E.",
     R"y(["0", "sin(2*pi*(x - t))", "0"])y"},
    {"incident.H", "list of 3 expressions", "required", "", "of x, y, z, t", "The incident H.",
     R"y(["0", "0", "sin(2*pi*(x - t))"])y"},
    {"sources", "map", "none", "", "", "Sources driving the fields.",
     R"y({J: ["0", "0", "exp(-((x-0.5)^2 + (y-0.5)^2 + (z-0.5)^2)/0.01)*sin(10*t)"]})y"},
    {"sources.J", "list of 3 expressions", "required", "", "of x, y, z, t",
     "Current density J in eps dE/dt = curl H - J - sigma E.",
     R"y(["0", "0", "exp(-((x-0.5)^2 + (y-0.5)^2 + (z-0.5)^2)/0.01)*sin(10*t)"])y"},

    // ---- time (run_config.cpp)
    {"time", "map", "none (all defaults)", "", "", "How far and with which step the run goes.",
     "{final: 1.0, cfl: 0.5}"},
    {"time.final", "constant expression", "1", "time", "> 0",
     "The simulated time to reach; the last step is shortened to land on it.", R"y("2*pi/omega")y"},
    {"time.cfl", "number", "0.5", "", "> 0 and <= 2",
     "Time-step factor: dt = cfl times each element's stable step estimate, minimised (user guide: Time stepping); "
     "measured stable up to about 1.",
     "0.9"},

    // ---- output (run_config.cpp)
    {"output", "map", "none (all defaults)", "", "", "What the run writes, and where.",
     "{dir: out/cavity, vtk_every: 0.1}"},
    {"output.dir", "string", "out", "", "a directory path",
     "Output directory, relative to the working directory; `dgmax run --output` overrides it.", "out/cavity"},
    {"output.vtk_every", "number", "0 (first and last only)", "time", ">= 0; at most 1e6 snapshots over time.final",
     "Interval between field snapshots (fields_NNNNN.vtu or .h5).", "0.1"},
    {"output.format", "string", "auto", "", "auto, vtu, hdf5 or both",
     "Snapshot format; auto is vtu in builds with VTK, else hdf5.", "hdf5"},
    {"output.energy_every", "integer", "0 (every max(10, steps/200) steps)", "steps", ">= 0",
     "Steps between energy (and error) samples in energy.csv, besides each snapshot and the last step.", "10"},
    {"output.checkpoint_every", "integer or map", "none (no checkpoints)", "steps", "> 0, or {steps: N} or {time: T}",
     "Writes checkpoint_<step>.h5 every N steps (or every T of simulated time) for `dgmax run --restart`; the "
     "newest two are kept.",
     "500"},
    {"output.checkpoint_every.steps", "integer", "none", "steps", "> 0; not with time", "Steps between checkpoints.",
     "500"},
    {"output.checkpoint_every.time", "number", "none", "time", "> 0; not with steps",
     "Simulated time between checkpoints.", "0.5"},

    // ---- backend, partition (run_config.cpp, solver/mesh/partition.cpp)
    {"backend", "string", "auto", "", "auto, ref, cpu or cuda",
     "Where the kernels run: auto is cuda when a GPU is usable, else cpu; ref is the plain reference "
     "implementation. `dgmax run --backend` overrides it.",
     "cpu"},
    {"partition", "string", "auto", "", "auto, metis (builds with METIS), rcb or sfc",
     "How several MPI ranks split the mesh: METIS, coordinate bisection or a Hilbert curve; auto is metis when "
     "built with it, else the better of rcb and sfc.",
     "rcb"},

    // ---- pml (pml_config.cpp)
    {"pml", "map", "none (no layer; with mesh.box.pml the box's `pml` tag)", "",
     "sigma_max or reflection, not both",
     "A perfectly matched layer (complex-frequency-shifted stretched coordinates) between an inner box and the "
     "mesh's bounding box.",
     "{thickness: 0.25, order: 3, reflection: 1e-6}"},
    {"pml.regions", "list of names", "none", "", "non-empty; volume tags of the mesh",
     "Volume tags making up the layer; the inner box is the bounding box of all other elements.", "[pml]"},
    {"pml.thickness", "number", "0 (use regions)", "length", ">= 0; the layer must consist of whole elements",
     "The outer `thickness` of the mesh's bounding box is the layer (instead of `regions`).", "0.25"},
    {"pml.order", "number", "3", "", "0 to 10",
     "Grading exponent: sigma = sigma_max * u^order with u the relative depth in the layer.", "2"},
    {"pml.reflection", "number", "1e-6", "", "> 0 and < 1; not with sigma_max",
     "Target normal-incidence reflection R, giving sigma_max = (order + 1) c ln(1/R) / (2 d) for a layer d thick.",
     "1e-4"},
    {"pml.sigma_max", "number", "none (from reflection)", "1/time", "> 0; not with reflection",
     "Peak damping sigma at the layer's outer edge, used as given instead of the reflection target.", "40"},
    {"pml.kappa", "number", "1", "", ">= 1; kappa * time.cfl <= 2",
     "Peak real stretching kappa_max (kappa = 1 + (kappa_max - 1) u^order); 1 is none.", "2"},
    {"pml.alpha", "number", "0.05", "1/time", ">= 0",
     "Complex frequency shift, constant through the layer; alpha > 0 damps static fields.", "0.1"},

    // ---- tfsf (tfsf_config.cpp)
    {"tfsf", "map", "none", "", "needs the `incident` section",
     "A total-field/scattered-field box: the total field inside, the scattered field outside; the `incident` field "
     "enters through its faces.",
     "{box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}"},
    {"tfsf.box", "map", "required", "",
     "faces on mesh faces, strictly inside the mesh and clear of the PML", "The box.",
     "{lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}"},
    {"tfsf.box.lower", "list of 3 numbers", "required", "length", "finite", "The box's lower corner.",
     "[0.25, 0.25, 0.25]"},
    {"tfsf.box.upper", "list of 3 numbers", "required", "length", "> lower in every direction",
     "The box's upper corner.", "[0.75, 0.75, 0.75]"},

    // ---- probes (monitor_config.cpp)
    {"probes", "map", "none", "", "", "Point probes: E and H at points, over time, in probes.csv.",
     "{every: 0.01, points: [{name: center, at: [0.5, 0.5, 0.5]}]}"},
    {"probes.every", "number", "0 (every step)", "time", ">= 0",
     "Sampling interval: samples at t = 0 and then every `every` of simulated time.", "0.01"},
    {"probes.points", "list of maps", "required", "", "non-empty", "The points.",
     "[{name: center, at: [0.5, 0.5, 0.5]}]"},
    {"probes.points[].name", "name", "required", "",
     "letters, digits and _, starting with a letter; unique; at most 241 characters",
     "Column prefix in probes.csv (center.Ex, ...).", "center"},
    {"probes.points[].at", "list of 3 numbers", "required", "length", "finite; inside the mesh",
     "The point; where several elements meet there, the probe reads the mean of their traces.",
     "[0.5, 0.5, 0.5]"},

    // ---- monitors (monitor_config.cpp)
    {"monitors", "list of maps", "none", "", "",
     "Running DFTs of E and H on a closed box surface or in a volume, in monitors.h5; a surface monitor also "
     "writes its far field, far_field_<name>.csv.",
     "[{name: box_dft, surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}, frequencies: "
     "[0.5, 1.0]}]"},
    {"monitors[].name", "name", "required", "",
     "letters, digits and _, starting with a letter; unique; at most 241 characters (far_field_<name>.csv)",
     "The monitor's group in monitors.h5.", "box_dft"},
    {"monitors[].surface", "map", "none", "", "exactly one of surface and volume",
     "A closed surface: the faces of an axis-aligned box.",
     "{box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}"},
    {"monitors[].surface.box", "map", "required", "", "faces on mesh faces, inside the mesh", "The box.",
     "{lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}"},
    {"monitors[].surface.box.lower", "list of 3 numbers", "required", "length", "finite", "The box's lower corner.",
     "[0.25, 0.25, 0.25]"},
    {"monitors[].surface.box.upper", "list of 3 numbers", "required", "length", "> lower in every direction",
     "The box's upper corner.", "[0.75, 0.75, 0.75]"},
    {"monitors[].volume", "name", "none", "", "a volume tag of the mesh; exactly one of surface and volume",
     "All nodes of the tag's elements.", "domain"},
    {"monitors[].frequencies", "list of numbers", "required", "cycles/time", "non-empty; each >= 0 and at most 1 / (2 dt); surface monitors: 2 pi f R < 697 (R: the box's farthest "
     "corner from the origin)",
     "Frequencies f of X(f) = sum over steps of x(t_n) exp(-i 2 pi f t_n) dt_n.", "[0.5, 1.0]"},
    // far_field_config.cpp
    {"monitors[].far_field", "map", "none (theta 0 to 180 every 5, phi 0 and 90)", "",
     "surface monitors only; theta and/or phi, or sphere; at most 1e6 directions",
     "The directions of far_field_<name>.csv: every theta at every phi (phi-major).",
     "{theta: {from: 0, to: 180, step: 2}, phi: [0, 45, 90]}"},
    {"monitors[].far_field.theta", "list of numbers or map {from, to, step}", "none ({from: 0, to: 180, step: 5} when only phi is given)",
     "degrees", "each in [0, 180]; a non-empty list", "Polar angles from +z: a list, or a range {from, to, step}.",
     "[0, 45, 90]"},
    {"monitors[].far_field.theta.from", "number", "required (in a range)", "degrees", "[0, 180]; <= to",
     "First angle of the range.", "0"},
    {"monitors[].far_field.theta.to", "number", "required (in a range)", "degrees", "[0, 180]; >= from",
     "Last angle of the range.", "180"},
    {"monitors[].far_field.theta.step", "number", "required (in a range)", "degrees", "> 0; divides to - from",
     "Spacing of the range.", "5"},
    {"monitors[].far_field.phi", "list of numbers or map {from, to, step}", "none ([0, 90] when only theta is given)", "degrees",
     "each in [-360, 360]; a non-empty list", "Azimuths from +x towards +y: a list, or a range {from, to, step}.",
     "[0, 45, 90]"},
    {"monitors[].far_field.phi.from", "number", "required (in a range)", "degrees", "[-360, 360]; <= to",
     "First angle of the range.", "0"},
    {"monitors[].far_field.phi.to", "number", "required (in a range)", "degrees", "[-360, 360]; >= from",
     "Last angle of the range.", "90"},
    {"monitors[].far_field.phi.step", "number", "required (in a range)", "degrees", "> 0; divides to - from",
     "Spacing of the range.", "45"},
    {"monitors[].far_field.sphere", "number", "none", "degrees", "> 0, divides 180; not with theta or phi",
     "The full sphere: theta 0 to 180 and phi 0 to 360 - step, both every `sphere` degrees.", "5"},
};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.')) parts.push_back(part);
  return parts;
}

// One pattern component against one path component: `<x>` is any name, `list[]` is `list[N]`,
// `list[]` or (a lookup's shorthand) `list`.
bool component_matches(const std::string& pattern, const std::string& part) {
  if (pattern.size() > 2 && pattern.front() == '<' && pattern.back() == '>')
    return !part.empty() && part.find('[') == std::string::npos;
  if (pattern.size() > 2 && pattern.compare(pattern.size() - 2, 2, "[]") == 0) {
    const std::string name = pattern.substr(0, pattern.size() - 2);
    if (part == name) return true;
    if (part.size() < name.size() + 2 || part.compare(0, name.size() + 1, name + "[") != 0 || part.back() != ']')
      return false;
    const std::string index = part.substr(name.size() + 1, part.size() - name.size() - 2);
    return index.find_first_not_of("0123456789") == std::string::npos;
  }
  return pattern == part;
}

}  // namespace

const std::vector<ConfigKey>& config_schema() { return kSchema; }

const ConfigKey* find_config_key(const std::string& path) {
  // an entry of a list ("monitors[0]", as check_keys names it) is documented by the list's entry
  if (!path.empty() && path.back() == ']') return find_config_key(path.substr(0, path.rfind('[')));
  const std::vector<std::string> parts = split_path(path);
  for (const ConfigKey& key : kSchema) {
    const std::vector<std::string> pattern = split_path(key.path);
    if (pattern.size() != parts.size()) continue;
    bool all = true;
    for (size_t i = 0; i < parts.size() && all; ++i) all = component_matches(pattern[i], parts[i]);
    if (all) return &key;
  }
  return nullptr;
}

std::string config_key_section(const std::string& path) {
  const std::string first = path.substr(0, path.find('.'));
  return first.substr(0, first.find('['));
}

std::string config_key_parent(const std::string& path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos) return "";
  std::string parent = path.substr(0, dot);
  if (parent.size() > 2 && parent.compare(parent.size() - 2, 2, "[]") == 0) parent.resize(parent.size() - 2);
  return parent;
}

}  // namespace dgmax
