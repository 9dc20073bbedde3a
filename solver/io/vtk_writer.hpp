// High-order VTU output (VTK builds only: compiled when DGMAX_HAS_VTK).
//
// One .vtu per snapshot, one VTK_LAGRANGE_TETRAHEDRON (cell type 71) of the solution's order N per
// element, discontinuous (no point is shared between elements): element k owns points
// k*Np .. k*Np+Np-1. VTK interpolates a Lagrange cell from values at EQUISPACED parametric points,
// so the DG solution (nodal at the warp & blend nodes) is interpolated to the equispaced lattice
// with the element's own basis (V_eq · invV, exact for the degree-N solution) and each point is
// placed at the affine image of its lattice point.
//
// Contents: points (float64, physical coordinates); point data E, H (3 components) and |E|;
// cell data volume_tag (int32, index into Mesh::volume_tag_names) and element (int32, element id);
// field data TimeValue (the snapshot time, as ParaView reads it) and volume_tag_names (strings).
// Binary appended, zlib-compressed (level 1), 64-bit headers. Written to "<path>.tmp" and renamed.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "solver/element/reference_element.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/physics/fields.hpp"

namespace dgmax {

// VTK's point order of a Lagrange tetrahedron of order N: for point p, its integer barycentric
// weights w[p] = {w0, w1, w2, w3} on the tet's vertices 0..3 (w0+w1+w2+w3 = N). VTK parametric
// coordinates are (w1, w2, w3)/N; reference coordinates (r, s, t) = -1 + 2 (w1, w2, w3)/N, since
// VTK's vertices 0..3 are the reference vertices (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1).
// Order: 4 vertices; edges (0,1) (1,2) (2,0) (0,3) (1,3) (2,3), N-1 points each, from the first
// vertex to the second; face interiors of faces (0,1,3) (2,3,1) (0,3,2) (0,2,1), each a Lagrange
// triangle of order N-3 in that vertex order, itself ordered recursively (vertices, edges,
// interior); then the interior, recursively a tetrahedron of order N-4. [Np][4].
std::vector<std::array<int, 4>> vtk_lagrange_tet_lattice(int N);

// Interpolation from the nodal values at ref's warp & blend nodes to VTK's equispaced points, in
// VTK's order: [Np][Np] = V(equispaced) · invV.
Eigen::MatrixXd vtk_lagrange_interpolation(const RefElement& ref);

// Makes VTK run its own loops (vtkSMPTools; Debian builds them on TBB) sequentially, unless the
// user chose a backend in VTK_SMP_BACKEND_IN_USE: snapshots are written on one background thread
// while the stepping keeps the cores (async_snapshot_writer.hpp), and TBB's worker threads, never
// joined, were still ending when LeakSanitizer checked at exit (glibc's per-thread key storage
// reported; it failed a sanitized CI run). VTK reads the variable once, at its first parallel loop:
// call this before that and before any other thread starts (it sets an environment variable).
// VTK 9.1's vtkSMPTools.h, which vtkSMPTools::SetBackend would need, does not compile as C++20.
void keep_vtk_loops_sequential();

class VtuWriter {
 public:
  // Precomputes the points (in VTK order), the cells and the cell data; `mesh` and `ref` must
  // outlive the writer. `element_ids` [K]: the cell data "element" (a partitioned run's global
  // element numbers); null: 0..K-1.
  VtuWriter(const Mesh& mesh, const RefElement& ref, const std::vector<long long>* element_ids = nullptr);
  ~VtuWriter();
  VtuWriter(const VtuWriter&) = delete;
  VtuWriter& operator=(const VtuWriter&) = delete;

  // Writes one snapshot to `path` (atomically). Throws UserError naming the path on I/O failure.
  void write(const std::string& path, const Fields& q, double time);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgmax
