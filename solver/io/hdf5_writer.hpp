// HDF5 snapshot output (always built; the fallback when VTK is absent, and the input of
// postprocess/h5_to_vtu.py and other analysis).
//
// One self-contained file per snapshot, written to "<path>.tmp" and renamed (never truncated).
// All arrays are row-major (C order), little-endian native types:
//
//   /vertices    float64 [Nv][3]      mesh vertex coordinates
//   /elements    int32   [K][4]       vertex ids (0-based) of each tetrahedron
//   /volume_tag  int32   [K]          index into the attribute `names` (variable-length strings)
//   /order       int32   scalar       polynomial order N
//   /time        float64 scalar       snapshot time
//   /nodes_rst   float64 [Np][3]      reference warp & blend nodes (r,s,t), HW order, on the tet
//                                     (-1,-1,-1),(1,-1,-1),(-1,1,-1),(-1,-1,1)
//   /x           float64 [K][Np][3]   physical node coordinates
//   /E, /H       float64 [K][Np][3]   nodal field values (x, y, z components)
//
// Attributes on the root: format = "dgmax-snapshot", format_version = 1 (int), step (int, the
// snapshot index, -1 if unknown), field_names = "E,H", mesh_source. Each of vertices, x, E, H,
// time has `long_name` and `units` (strings); E and H also `components` = "x,y,z".
// Node i of element k lies at reference point nodes_rst[i] mapped affinely by the vertices of
// elements[k] (x is given anyway); the field is the degree-N polynomial interpolating E/H there.
#pragma once

#include <string>

#include "solver/element/reference_element.hpp"
#include "solver/mesh/face_maps.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/physics/fields.hpp"

namespace dgmax {

// Unit labels stored in the `units` attributes (the solver is unit-agnostic: lengths are in the
// mesh's units, and E, H, t in whatever scaling the material parameters imply).
struct Hdf5Units {
  std::string length = "mesh units";
  std::string time = "mesh units / c";
  std::string E = "solver units (E)";
  std::string H = "solver units (H)";
};

// Writes one snapshot file. Throws UserError naming `path` and the failing HDF5 call (with
// HDF5's own message) on failure; nothing is left at `path` unless the file is complete.
void write_hdf5_snapshot(const std::string& path, const Mesh& mesh, const RefElement& ref,
                         const NodeCoords& xyz, const Fields& q, double time, int step = -1,
                         const Hdf5Units& units = {});

}  // namespace dgmax
