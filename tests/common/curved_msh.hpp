// A mesh with curved elements (warp_mesh, solver/mesh/curved_warp.hpp) as a Gmsh MSH 2.2 ASCII file
// of complete tetrahedra of its geometry order, for runs of curved meshes from a config (`dgmax
// run`, mpirun): the corners are the mesh's vertices, every other node is its element's own (its
// lattice point, on the straight-sided map for an affine element); one physical volume, "domain".
#pragma once

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/mesh/msh_element_types.hpp"
#include "solver/mesh/msh_node_order.hpp"

namespace dgmax::test {

inline void write_curved_msh(const Mesh& mesh, const std::string& path) {
  const int q = mesh.geometry_order, nq = lattice_size(q), K = mesh.num_elements(), V = mesh.num_vertices();
  const std::vector<int> node_of = gmsh_tet_lattice_nodes(q);  // [nq] Gmsh node of lattice point m
  std::vector<int> point_of(nq);                                // [nq] lattice point of Gmsh node g
  for (int m = 0; m < nq; ++m) point_of[node_of[m]] = m;
  Eigen::VectorXd r, s, t;
  lattice_reference_points(q, r, s, t);
  auto num = [](double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    return std::string(b);
  };
  std::string nodes, elements;
  long long next = V + 1;  // tags 1..V: the vertices
  for (int v = 0; v < V; ++v)
    nodes += std::to_string(v + 1) + " " + num(mesh.vertices[v][0]) + " " + num(mesh.vertices[v][1]) + " " +
             num(mesh.vertices[v][2]) + "\n";
  for (int k = 0; k < K; ++k) {
    elements += std::to_string(k + 1) + " " + std::to_string(msh_tetrahedron_type(q)) + " 2 1 1";
    for (int g = 0; g < nq; ++g) {
      if (g < 4) {
        elements += " " + std::to_string(mesh.elements[k][g] + 1);
        continue;
      }
      const int m = point_of[g];
      const Vec3 x = mesh.is_curved(k) ? mesh.curved_row(k)[m] : map_to_physical(mesh, k, r(m), s(m), t(m));
      nodes += std::to_string(next) + " " + num(x[0]) + " " + num(x[1]) + " " + num(x[2]) + "\n";
      elements += " " + std::to_string(next++);
    }
    elements += "\n";
  }
  std::ofstream(path, std::ios::binary) << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"domain\"\n"
                                           "$EndPhysicalNames\n$Nodes\n"
                                        << next - 1 << "\n" << nodes << "$EndNodes\n$Elements\n" << K << "\n"
                                        << elements << "$EndElements\n";
}

}  // namespace dgmax::test
