// Elements renumbered along a Hilbert curve (mesh.numbering: hilbert): the renumbered mesh is the same
// mesh — its connectivity equals one built from scratch on the permuted elements, every element
// keeps its vertices, tag, neighbours and geometry, and the right-hand side of each element is
// bitwise what it was under its old number — and face neighbours end up near in storage.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "config_problem.hpp"
#include "expect_user_error.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/element_order.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/physics/norms.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

BoxSpec box(int n, bool periodic) {
  BoxSpec s;
  s.cells = {n, n + 1, n + 2};
  s.upper = {1.0, 1.3, 0.8};
  s.periodic = {periodic, false, periodic};
  s.regions.push_back({"slab", {0.0, 0.0, 0.0}, {0.5, 1.3, 0.8}});
  return s;
}

// The order setup_mesh applied: new element i is input element order[i], found by vertex ids.
std::vector<int> applied_order(const Mesh& input, const Mesh& renumbered) {
  std::vector<int> order = hilbert_element_order(input);
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(renumbered.elements[i], input.elements[order[i]]) << i;
  return order;
}

// Fraction of interior face pairs whose elements are at most `window` apart in storage.
double near_fraction(const Connectivity& c, int window) {
  long near = 0, all = 0;
  for (size_t k = 0; k < c.EToE.size(); ++k)
    for (int nb : c.EToE[k])
      if (nb >= 0) ++all, near += std::abs(nb - static_cast<long>(k)) <= window;
  return static_cast<double>(near) / static_cast<double>(all);
}

FieldFn smooth_field() {
  return [](size_t n, const double* x, const double* y, const double* z, double, double* const* out) {
    for (size_t i = 0; i < n; ++i)
      for (int c = 0; c < 6; ++c) out[c][i] = std::sin(1.3 * x[i] + 0.7 * c) * std::cos(2.1 * y[i] - c) + (c + 1) * z[i];
  };
}

}  // namespace

TEST(ElementOrder, ParsesItsNames) {
  ElementOrder o = ElementOrder::Input;
  EXPECT_TRUE(parse_element_order("hilbert", o));
  EXPECT_EQ(o, ElementOrder::Hilbert);
  EXPECT_TRUE(parse_element_order("input", o));
  EXPECT_EQ(o, ElementOrder::Input);
  EXPECT_FALSE(parse_element_order("Hilbert", o));
  EXPECT_FALSE(parse_element_order("", o));
  EXPECT_STREQ(element_order_name(ElementOrder::Hilbert), "hilbert");
  EXPECT_STREQ(element_order_name(ElementOrder::Input), "input");
}

TEST(ElementOrder, HilbertOrderIsAPermutation) {
  const Mesh m = make_box_mesh(box(5, false));
  std::vector<int> order = hilbert_element_order(m);
  ASSERT_EQ(static_cast<int>(order.size()), m.num_elements());
  std::sort(order.begin(), order.end());
  for (int i = 0; i < m.num_elements(); ++i) EXPECT_EQ(order[i], i);
}

// The connectivity renumber_elements carries over equals the one built from scratch on the
// renumbered elements (face matching and periodic gluing redone: an independent truth).
TEST(ElementOrder, RenumberedConnectivityEqualsARebuiltOne) {
  for (const bool periodic : {false, true}) {
    const Mesh input = make_box_mesh(box(4, periodic));
    const MeshData in = setup_mesh(input, 0, GeometryFactors::Stored, ElementOrder::Input);
    const MeshData hb = setup_mesh(input, 0, GeometryFactors::Stored, ElementOrder::Hilbert);
    const std::vector<int> order = applied_order(in.mesh, hb.mesh);
    Mesh again = hb.mesh;
    const Connectivity rebuilt = build_connectivity(again);
    EXPECT_EQ(hb.conn.EToE, rebuilt.EToE) << "periodic " << periodic;
    EXPECT_EQ(hb.conn.EToF, rebuilt.EToF);
    EXPECT_EQ(hb.conn.face_tag, rebuilt.face_tag);
    EXPECT_EQ(hb.conn.face_periodic, rebuilt.face_periodic);
    EXPECT_EQ(hb.conn.interior_faces, in.conn.interior_faces);
    EXPECT_EQ(hb.conn.boundary_faces, in.conn.boundary_faces);
    EXPECT_EQ(hb.conn.periodic_faces, in.conn.periodic_faces);
    // every element keeps its tag and geometric factors (bitwise)
    for (size_t i = 0; i < order.size(); ++i) {
      EXPECT_EQ(hb.mesh.element_tag[i], in.mesh.element_tag[order[i]]);
      EXPECT_EQ(hb.geom.J[i], in.geom.J[order[i]]);
      EXPECT_EQ(hb.geom.drdx[i], in.geom.drdx[order[i]]);
      EXPECT_EQ(hb.geom.Fscale[i], in.geom.Fscale[order[i]]);
    }
  }
}

// A refined mesh is renumbered after the refinement, as one mesh.
TEST(ElementOrder, RefinedMeshIsRenumberedAsAWhole) {
  const Mesh input = make_box_mesh(box(2, true));
  const MeshData in = setup_mesh(input, 1, GeometryFactors::Stored, ElementOrder::Input);
  const MeshData hb = setup_mesh(input, 1, GeometryFactors::Stored, ElementOrder::Hilbert);
  applied_order(in.mesh, hb.mesh);
  Mesh again = hb.mesh;
  EXPECT_EQ(hb.conn.EToE, build_connectivity(again).EToE);
}

// The same problem under both numberings: each element's right-hand side is bitwise the same
// (its own nodes, its neighbours' traces, the same arithmetic), and the energy agrees to the
// rounding of a sum taken in another order.
TEST(ElementOrder, RightHandSideOfEveryElementIsUnchanged) {
  const Mesh input = make_box_mesh(box(3, true));
  auto in = std::make_shared<const MeshData>(setup_mesh(input, 0, GeometryFactors::Stored, ElementOrder::Input));
  auto hb = std::make_shared<const MeshData>(setup_mesh(input, 0, GeometryFactors::Stored, ElementOrder::Hilbert));
  const std::vector<int> order = applied_order(in->mesh, hb->mesh);
  for (int N : {1, 3}) {
    const Problem pi = make_problem(in, N), ph = make_problem(hb, N);
    Fields qi, qh, ri, rh;
    interpolate(pi, smooth_field(), 0.0, qi);
    interpolate(ph, smooth_field(), 0.0, qh);
    RefBackend bi(pi), bh(ph);
    bi.rhs(qi, 0.0, ri);
    bh.rhs(qh, 0.0, rh);
    const int Np = pi.Np();
    long differ = 0;
    for (size_t i = 0; i < order.size(); ++i)
      for (int j = 0; j < 6 * Np; ++j) {
        differ += qh.q[i * 6 * Np + j] != qi.q[order[i] * 6 * Np + j];
        differ += rh.q[i * 6 * Np + j] != ri.q[order[i] * 6 * Np + j];
      }
    EXPECT_EQ(differ, 0) << "N = " << N;
    bi.set_state(qi);
    bh.set_state(qh);
    const double ei = bi.norms(0).energy, eh = bh.norms(0).energy;
    EXPECT_NEAR(eh, ei, 1e-13 * ei) << "N = " << N;
  }
}

// The point of it: on a shuffled mesh (a mesh file may keep any order) and on the lexicographic
// box (whose z neighbours lie n² cells away), more face neighbours lie within a window of stored
// elements after renumbering. Measured on this 20³-cell periodic box (48,000 elements): within 64
// / 1,024 elements, lexicographic 0.66 / 0.83, shuffled 0.003 / 0.04, Hilbert 0.74 / 0.93.
TEST(ElementOrder, FaceNeighboursEndUpNearInStorage) {
  BoxSpec spec;
  spec.cells = {20, 20, 20};
  spec.periodic = {true, true, true};
  const Mesh lex = make_box_mesh(spec);
  Mesh shuffled = lex;
  std::vector<int> perm(lex.num_elements());
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
  for (size_t i = 0; i < perm.size(); ++i) {
    shuffled.elements[i] = lex.elements[perm[i]];
    shuffled.element_tag[i] = lex.element_tag[perm[i]];
  }
  const Connectivity c_lex = setup_mesh(lex).conn, c_shuffled = setup_mesh(shuffled).conn;
  const Connectivity c_hilbert = setup_mesh(shuffled, 0, GeometryFactors::Stored, ElementOrder::Hilbert).conn;
  EXPECT_LT(near_fraction(c_shuffled, 1024), 0.1);
  EXPECT_GT(near_fraction(c_hilbert, 1024), 0.9);
  EXPECT_GT(near_fraction(c_hilbert, 1024), near_fraction(c_lex, 1024) + 0.05);
  EXPECT_GT(near_fraction(c_hilbert, 64), near_fraction(c_lex, 64) + 0.05);
  // the same set of face pairs, only numbered differently
  EXPECT_EQ(c_hilbert.interior_faces, c_lex.interior_faces);
  EXPECT_EQ(c_hilbert.periodic_faces, c_lex.periodic_faces);
}

TEST(ElementOrder, ConfigKeyIsCheckedAndApplied) {
  const std::string head = "mesh:\n  box: {cells: [3, 3, 3]}\n";
  const auto hb = config_problem(head + "discretization: {order: 1}\n");
  const auto in = config_problem(head + "  numbering: input\ndiscretization: {order: 1}\n");
  BoxSpec cube;
  cube.cells = {3, 3, 3};
  EXPECT_EQ(in->md->mesh.elements, make_box_mesh(cube).elements);
  EXPECT_EQ(hb->md->mesh.elements,
            setup_mesh(make_box_mesh(cube), 0, GeometryFactors::Stored, ElementOrder::Hilbert).mesh.elements);
  EXPECT_NE(hb->md->mesh.elements, in->md->mesh.elements);
  const UserError e = expect_user_error([&] { config_problem(head + "  numbering: morton\ndiscretization: {order: 1}\n"); },
                                        {"mesh.numbering", "morton"});
  EXPECT_EQ(e.where().line, 3);
  EXPECT_NE(e.hint().find("hilbert"), std::string::npos);
  EXPECT_NE(e.hint().find("input"), std::string::npos);
}
