// Point probes: where a point lies in the mesh and the weights that interpolate the nodal fields
// there, so that a backend samples u(x) = sum_i w_i u_i of element k as P dot products where the
// state lives (Backend::probe_setup / probe_sample).
#pragma once

#include <string>
#include <vector>

#include "solver/element/reference_element.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/physics/problem.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

// A named point of the config's `probes.points`.
struct ProbePointSpec {
  std::string name;
  Vec3 at{};
  SourceLocation where;  // of the point's entry
};

struct ProbesSpec {
  double every = 0;  // sample interval in time; 0: every step
  std::vector<ProbePointSpec> points;
  bool empty() const { return points.empty(); }
};

struct PointLocation {
  int element = -1;         // -1: outside the mesh
  double r = 0, s = 0, t = 0;  // reference coordinates in `element`
  double min_barycentric = 0;  // the smallest barycentric coordinate there (≥ -tol)
};

// The element that contains x: the one whose smallest barycentric coordinate (from the affine
// map) is largest, so a point on a shared face, edge or vertex takes one of its elements (the
// first in element order among equals). element = -1 when no element has all barycentric
// coordinates ≥ -tol. A linear scan over the elements (the first `count` of them; -1: all); among
// equals, the first in element order, or with `number` [K] the one with the smallest number[k]
// (a partitioned run's global element numbers: the element one rank would pick).
// `md` may be a whole mesh without stored factors (mesh_setup.hpp): they are computed per element.
PointLocation locate_point(const MeshData& md, const Vec3& x, double tol = 1e-9, int count = -1,
                           const std::vector<long long>* number = nullptr);

// w: [Np] with w^T = phi(r, s, t)^T V^{-1} (phi: the orthonormal basis): sum_i w_i u_i is the
// nodal interpolant of u at (r, s, t), exact for polynomials of degree N.
std::vector<double> interpolation_weights(const RefElement& ref, double r, double s, double t);

// The probes of a run, located on the problem's mesh.
struct ProbeSet {
  std::vector<std::string> names;  // [P]
  std::vector<Vec3> points;        // [P]
  std::vector<int> elements;       // [P]
  std::vector<double> weights;     // [P][Np]
  size_t size() const { return names.size(); }
};

// UserError naming the probe, its point and its config location (with a hint) when it lies
// outside the mesh.
// With several ranks every rank gets every probe: the rank that owns the element the point lies
// in (the one one rank would choose: the largest smallest barycentric coordinate, then the lowest
// global element number) gets its element and weights; the others get element 0 and zero weights,
// so that a sum over ranks of the samples is the owner's sample exactly.
ProbeSet make_probe_set(const Problem& p, const std::vector<ProbePointSpec>& points);

}  // namespace dgmax
