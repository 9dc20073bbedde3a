// The `mesh:` block of a config (or a `box:NX,NY,NZ` / file argument on the command line) and
// turning it into a checked mesh.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "solver/io/yaml_doc.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/validate.hpp"

namespace dgmax {

// mesh:
//   box: {lower: [0,0,0], upper: [1,1,1], cells: [4,4,4], periodic: [x, z]}   # or
//        pml: 0.25   # optional: a layer this thick (whole cells) around the box, volume tag `pml`
//   file: meshes/cube.geo     # .msh or .geo; relative to the config's folder, else to the cwd
//   size: 0.1                 # .geo only: maximum element size (0 = the file's own)
//   geometry_order: 2         # 1..10 or auto: the order of the curved elements (mesh files only)
//   refine: 0                 # uniform refinements (each ×8 elements)
//   numbering: hilbert        # elements renumbered along a Hilbert curve (locality), or input
struct MeshSpec {
  std::optional<BoxSpec> box;
  std::string file;
  double size = 0;
  // mesh.geometry_order: 0 = not given (.geo: 1; .msh: the file's order); 1..10 (a .msh must
  // have it). `auto` sets geometry_order_auto until resolve_geometry_order() knows N.
  int geometry_order = 0;
  bool geometry_order_auto = false;
  int refine = 0;
  ElementOrder numbering = ElementOrder::Hilbert;  // mesh.numbering
  std::vector<SourceLocation> region_where;  // of each box region, for errors found on the mesh
  double pml_thickness = 0;                  // mesh.box.pml: the box has a layer tagged `pml`
  std::string write_msh;                     // `dgmax info --write-msh`: where the .geo's mesh is also written
};

MeshSpec parse_mesh_spec(const YamlDoc& doc, const YAML::Node& mesh_node);

// mesh.geometry_order: auto = the discretization order N capped at 10 for a .geo, the file's own
// order for a .msh. Call it where N is known, before load_mesh().
void resolve_geometry_order(MeshSpec& spec, int discretization_order);

// "box:NX,NY,NZ" or a mesh file path.
MeshSpec mesh_spec_from_argument(const std::string& arg);

// Builds/reads the mesh and runs setup_mesh (validation, refinement, connectivity, geometry).
// Refuses a box region that tags no element (located at the region). `geometry`: Checked for the
// whole mesh of a partitioned run (mesh_setup.hpp).
MeshData load_mesh(const MeshSpec& spec, GeometryFactors geometry = GeometryFactors::Stored);

// Tags the config refers to: keys of `materials:` (volume) and `boundaries:` (boundary).
std::vector<TagReference> referenced_tags(const YamlDoc& doc);

}  // namespace dgmax
