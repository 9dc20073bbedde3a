// DFT monitors: running Fourier transforms of the fields at a set of nodes, accumulated by the
// backend where the state lives (Backend::dft_add / dft_accumulate) after every full time step:
//
//   X(f) = sum_{n = 1..steps} x(t_n) exp(-i 2 pi f t_n) dt_n
//
// with t_n the time after step n and dt_n that step's size (the initial state at t = 0 is not
// included). The convention of surface_dft.hpp: a time-harmonic field reads Re{X exp(+i 2 pi f t)}.
//
// Two kinds: a closed surface (the faces of an axis-aligned box, made of mesh faces: for each the
// element inside the box, its face nodes, the box's outward normal and surface quadrature weights)
// and a volume (all nodes of the elements of a volume tag, with volume quadrature weights).
#pragma once

#include <string>
#include <vector>

#include "solver/physics/far_field_grid.hpp"
#include "solver/physics/problem.hpp"
#include "solver/physics/surface_dft.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

// One entry of the config's `monitors:`.
struct MonitorSpec {
  enum Kind { SurfaceBox, Volume };
  std::string name;
  Kind kind = SurfaceBox;
  Vec3 lower{}, upper{};            // SurfaceBox: the box
  std::string volume_tag;           // Volume
  std::vector<double> frequencies;  // [F], ≥ 0, cycles per unit time
  std::vector<SourceLocation> frequency_where;  // [F] of each frequency (its own line in messages)
  FarFieldGrid far_field;           // SurfaceBox: the far field's directions (default: two cuts)
  SourceLocation where;             // of the monitor's entry
  SourceLocation region_where;      // of its `surface.box` / `volume`
};

// A monitor resolved on the mesh.
struct DftMonitor {
  std::string name;
  bool surface = true;
  std::vector<double> frequencies;   // [F]
  std::vector<long> nodes;           // [M] k*Np + i
  // [M] position; surfaces: outward unit normal of the box and w with sum_m w_m g(x_m) = ∫ g dS,
  // exact for g of degree N on each face; volumes: n = 0 and w with sum w g = ∫ g dV (degree N;
  // a curved element's with its curved J)
  std::vector<SurfacePoint> points;
  // [M] where each point sits in the whole monitor (the order one rank has: a partitioned run's
  // rank holds the points of its owned elements only), and the whole monitor's point count
  std::vector<long> index;
  long whole_points = 0;
};

// A mesh face on the surface of a box, seen from the element inside the box: element, its local
// face, and the box's outward normal there.
struct BoxFace {
  int element, face;
  Vec3 normal;
};

// The mesh faces of `md` that make up the surface of [lower, upper] (each from its inside element),
// box face by box face (-x, +x, -y, ...), in element order on each. UserError at `where`, naming
// `what` ("the box ... of monitor 'x'"), when a corner is outside the mesh, a face lies on the outer
// boundary with the mesh outside, mesh faces do not cover a face of the box, or one of them is
// curved (naming it: the surface's weights and normals are straight-sided faces').
std::vector<BoxFace> box_surface_faces(const MeshData& md, const Vec3& lower, const Vec3& upper, const std::string& what,
                                       const SourceLocation& where);

// The monitor on p's elements; `whole`: the whole mesh p's part was cut from (several ranks; the
// checks and the point order are those of a one-rank run, the monitor holds the points of the
// owned elements). Throws UserError at spec.region_where when a box face is not covered by mesh
// faces ("surface not closed / not made of mesh faces"), when the box is not inside the mesh, and
// for a volume tag that does not exist or tags no element.
DftMonitor make_dft_monitor(const Problem& p, const MonitorSpec& spec, const MeshData& whole);
DftMonitor make_dft_monitor(const Problem& p, const MonitorSpec& spec);  // p's mesh is the whole mesh

// The record the near-to-far transform reads, from the accumulators re, im: [F][M][6].
SurfaceDft surface_dft(const DftMonitor& m, const std::vector<double>& re, const std::vector<double>& im);

// One accumulation on the host (the ref and cpu backends): for node m of q ([K][6][Np]) and
// frequency f, re/im[f][m][c] += q(m, c) dt (cos, -sin)(2 pi f t).
template <class Real>
void accumulate_dft(const Real* q, int Np, const std::vector<long>& nodes, const std::vector<double>& frequencies,
                    double t, double dt, double* re, double* im);

}  // namespace dgmax
