#include "solver/mesh/msh_high_order.hpp"

#include <set>
#include <string>
#include <vector>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/msh_element_types.hpp"
#include "solver/mesh/msh_node_order.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {


std::string described(const std::map<int, std::size_t>& types) {
  std::vector<std::string> parts;
  for (const auto& [type, count] : types) parts.push_back(describe_msh_elements(type, count));
  return join_words(parts, " and ");
}

const char* kOneOrderHint =
    "re-mesh with one order for the whole model: `Mesh.ElementOrder = q;` in the .geo (or `gmsh -3 -order q`), "
    "or mesh.geometry_order with a .geo";

}  // namespace

int mesh_geometry_order(const std::string& path, const std::string& what, const std::map<int, std::size_t>& types_3d,
                        const std::map<int, std::size_t>& triangles) {
  // ---- other shapes: the words read_gmsh always used ------------------------------------------
  std::map<int, std::size_t> other, tets;
  for (const auto& [type, count] : types_3d) {
    const MshElementType t = msh_element_type(type);
    if (std::string(t.family) == "tetrahedron") {
      tets[type] = count;
    } else {
      other[type] = count;
    }
  }
  if (!other.empty()) {
    std::string message = what + " contains " + described(other);
    if (!tets.empty()) message += " (besides " + described(tets) + ")";
    message += "; dgmax needs complete Lagrange tetrahedra of order 1..10 only";
    throw UserError(message, {path},
                    "re-mesh with tetrahedra only: no Recombine / Mesh.RecombineAll / Mesh.Recombine3DAll, no "
                    "`Recombine` in Extrude layers, Mesh.SubdivisionAlgorithm = 0, a tetrahedral Mesh.Algorithm3D "
                    "(1 = Delaunay, 10 = HXT)");
  }
  // ---- incomplete (serendipity) elements, orders dgmax does not read --------------------------
  std::map<int, std::size_t> incomplete, too_high;
  std::map<int, std::map<int, std::size_t>> by_order;  // order -> type -> count
  for (const std::map<int, std::size_t>* set : {static_cast<const std::map<int, std::size_t>*>(&tets), &triangles})
    for (const auto& [type, count] : *set) {
      const MshElementType t = msh_element_type(type);
      if (!msh_complete_simplex(t))
        incomplete[type] = count;
      else if (t.order > kMaxGeometryOrder)
        too_high[type] = count;
      else
        by_order[t.order][type] = count;
    }
  if (!incomplete.empty())
    throw UserError(what + " contains " + described(incomplete) +
                        ": incomplete (serendipity) elements, without the nodes inside their faces or volume; "
                        "dgmax needs complete Lagrange tetrahedra of order 1..10",
                    {path},
                    "re-mesh with complete elements: Mesh.SecondOrderIncomplete = 0 (the default) and no "
                    "`-order` with incomplete elements");
  if (!too_high.empty())
    throw UserError(what + " contains " + described(too_high) + " of a higher order than dgmax reads (at most " +
                        std::to_string(kMaxGeometryOrder) + ")",
                    {path}, "re-mesh with `Mesh.ElementOrder` between 1 and 10");
  // ---- one order --------------------------------------------------------------------------------
  if (by_order.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [order, types] : by_order) parts.push_back(described(types) + " of order " + std::to_string(order));
    throw UserError(what + " mixes element orders: " + join_words(parts, " and ") +
                        "; dgmax needs every tetrahedron and triangle of one order",
                    {path}, kOneOrderHint);
  }
  DGMAX_ASSERT(!by_order.empty() && !tets.empty(), "a mesh without tetrahedra reached mesh_geometry_order");
  return by_order.begin()->first;
}

void set_curved_points(Mesh& mesh, int q, const std::function<Vec3(std::size_t element, int node)>& node_xyz) {
  mesh.geometry_order = q;
  mesh.curved_index.clear();
  mesh.curved_points.clear();
  if (q == 1) return;  // a first-order file gives the straight-sided Mesh it always gave
  const std::vector<int> node = gmsh_tet_lattice_nodes(q);
  const size_t K = mesh.elements.size(), Nq = node.size();
  mesh.curved_index.resize(K);
  mesh.curved_points.resize(K * Nq);
  for (size_t e = 0; e < K; ++e) {
    mesh.curved_index[e] = static_cast<int>(e);
    for (size_t m = 0; m < Nq; ++m) mesh.curved_points[e * Nq + m] = node_xyz(e, node[m]);
  }
}

}  // namespace dgmax
