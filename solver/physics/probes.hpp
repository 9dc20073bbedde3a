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

// w: [Np] with w^T = phi(r, s, t)^T V^{-1} (phi: the orthonormal basis): sum_i w_i u_i is the
// nodal interpolant of u at (r, s, t), exact for polynomials of degree N.
std::vector<double> interpolation_weights(const RefElement& ref, double r, double s, double t);

// Every element of the first `count` (-1: all) that holds x: all its barycentric coordinates
// ≥ -tol (one element for a point inside it; the elements around a shared face, edge or vertex).
// In element order; empty when no element holds x. A linear scan; `md` may be a whole mesh without
// stored factors (mesh_setup.hpp): they are computed per element.
std::vector<PointLocation> holding_elements(const MeshData& md, const Vec3& x, double tol = 1e-9, int count = -1);

// The probes of a run, located on the problem's mesh. A probe reads the mean of the nodal
// interpolants of every element that holds its point: inside an element that element's
// interpolant, on a shared face, edge or vertex (where the discontinuous solution has one trace
// per element) the mean of those traces, which does not depend on the elements' numbering nor on
// how the mesh is cut into ranks. Each holding element is a sub-probe that the backend samples
// (elements, weights); `combine` turns the samples into the probes' values.
struct ProbeSet {
  std::vector<std::string> names;  // [P]
  std::vector<Vec3> points;        // [P]
  std::vector<int> holders;        // [P] how many elements (over all ranks) hold each point
  // this rank's sub-probes [S]: the elements it owns that hold a point
  std::vector<int> elements;  // [S] local element
  std::vector<double> weights;  // [S][Np]
  std::vector<int> probe;     // [S] whose point
  std::vector<int> slot;      // [S] its place among the point's holders by global element number
  size_t size() const { return names.size(); }
  // values: [P][6] from this rank's sub-probe samples [S][6] (Backend::probe_sample): per probe
  // the sum of its holders' samples in global element order, over its holders' count. Every rank
  // gets every value; with several ranks collective (one sum over ranks in which each term has a
  // single non-zero contributor), so any number of ranks gives the one-rank values bit for bit.
  std::vector<double> combine(const std::vector<double>& samples) const;
};

// UserError naming the probe, its point and its config location (with a hint) when it lies
// outside the mesh. Collective with several ranks.
ProbeSet make_probe_set(const Problem& p, const std::vector<ProbePointSpec>& points);

}  // namespace dgmax
