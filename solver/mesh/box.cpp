#include "solver/mesh/box.hpp"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "solver/mesh/memory_estimate.hpp"
#include "solver/mesh/parallel_fill.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

// The 6 Kuhn tetrahedra of the unit cube, as cube-corner indices (bit 0 = x, bit 1 = y, bit 2 = z).
// Each is a path 0 → (one axis) → (two axes) → 7 through the cube's corners; paths that are odd
// permutations of (x, y, z) have their last two vertices swapped so every tet is positively oriented.
constexpr int kKuhnTets[6][4] = {{0, 1, 3, 7}, {0, 1, 7, 5}, {0, 2, 7, 3},
                                 {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 7, 6}};

const char* const kSideNames[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};

}  // namespace

Mesh make_box_mesh(const BoxSpec& spec) {
  for (int d = 0; d < 3; ++d) {
    if (spec.cells[d] < 1)
      throw UserError("box mesh needs at least 1 cell per direction, got cells[" +
                          std::to_string(d) + "] = " + std::to_string(spec.cells[d]),
                      spec.where, "give mesh.box.cells as three integers >= 1, e.g. [4, 4, 4]");
    if (!(spec.upper[d] > spec.lower[d]))
      throw UserError("box mesh needs upper > lower in every direction (direction " +
                      std::to_string(d) + ": lower " + std::to_string(spec.lower[d]) +
                          ", upper " + std::to_string(spec.upper[d]) + ")",
                      spec.where, "mesh.box.upper must exceed mesh.box.lower in x, y and z");
  }
  const auto [nx, ny, nz] = spec.cells;
  const long long cells_total = static_cast<long long>(nx) * ny * nz;
  const std::string what = "box mesh " + std::to_string(nx) + " x " + std::to_string(ny) + " x " +
                           std::to_string(nz);
  if (cells_total * 6 > 2'000'000'000LL)
    throw UserError(what + " with " + std::to_string(cells_total * 6) +
                        " elements is too large (limit 2e9: element indices are 32-bit)",
                    spec.where, "use fewer mesh.box.cells (each cell is 6 tetrahedra)");
  // The mesh is built to be run: refuse what no run could fit, before building it.
  require_host_memory(static_cast<double>(cells_total) * 6, kMinRunBytesPerElement, what,
                      spec.where, "use fewer cells, or a machine with more memory");

  Mesh mesh;
  std::ostringstream src;
  src << "box:" << nx << "," << ny << "," << nz;
  mesh.source = src.str();

  auto vid = [&](int i, int j, int k) { return (k * (ny + 1) + j) * (nx + 1) + i; };
  mesh.vertices.resize(static_cast<size_t>(nx + 1) * (ny + 1) * (nz + 1));
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const int idx[3] = {i, j, k};
        Vec3 x;
        for (int d = 0; d < 3; ++d) {
          const double f = static_cast<double>(idx[d]) / spec.cells[d];
          // exact end points, so periodic sides match to the last bit
          x[d] = idx[d] == spec.cells[d] ? spec.upper[d]
                                         : spec.lower[d] + f * (spec.upper[d] - spec.lower[d]);
        }
        mesh.vertices[vid(i, j, k)] = x;
      }

  mesh.add_volume_tag("domain");
  resize_parallel(mesh.elements, static_cast<size_t>(cells_total) * 6);
  resize_parallel(mesh.element_tag, mesh.elements.size());
  // cell (i, j, k) holds elements 6 c .. 6 c + 5, c = (k ny + j) nx + i
#pragma omp parallel for schedule(static) collapse(2)
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const size_t cell = (static_cast<size_t>(k) * ny + j) * nx + i;
        for (int t = 0; t < 6; ++t) {
          std::array<int, 4>& e = mesh.elements[6 * cell + t];
          for (int c = 0; c < 4; ++c) {
            const int corner = kKuhnTets[t][c];
            e[c] = vid(i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1));
          }
        }
      }
  for (const auto& region : spec.regions) {
    const int tag = mesh.add_volume_tag(region.tag);
    const long long K = static_cast<long long>(mesh.elements.size());
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < K; ++k) {
      const Vec3 c = element_centroid(mesh, static_cast<int>(k));
      bool inside = true;
      for (int d = 0; d < 3; ++d) inside = inside && c[d] >= region.lower[d] && c[d] <= region.upper[d];
      if (inside) mesh.element_tag[k] = tag;
    }
  }

  // Boundary triangles: each cell face on the box boundary splits along the diagonal that the
  // Kuhn tets use, which is the one through the face's lowest and highest corner.
  mesh.tagged_faces.reserve(4 * (static_cast<size_t>(nx) * ny + static_cast<size_t>(ny) * nz +
                                  static_cast<size_t>(nz) * nx));
  int side_tag[3][2];
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 2; ++s) side_tag[d][s] = mesh.add_boundary_tag(kSideNames[d][s]);
  for (int d = 0; d < 3; ++d) {
    const int a = (d + 1) % 3, b = (d + 2) % 3;  // in-plane axes
    for (int s = 0; s < 2; ++s)
      for (int ib = 0; ib < spec.cells[b]; ++ib)
        for (int ia = 0; ia < spec.cells[a]; ++ia) {
          auto corner = [&](int da, int db) {
            int idx[3];
            idx[d] = s ? spec.cells[d] : 0;
            idx[a] = ia + da;
            idx[b] = ib + db;
            return vid(idx[0], idx[1], idx[2]);
          };
          const int c00 = corner(0, 0), c10 = corner(1, 0), c01 = corner(0, 1), c11 = corner(1, 1);
          mesh.tagged_faces.push_back({{c00, c10, c11}, side_tag[d][s]});
          mesh.tagged_faces.push_back({{c00, c01, c11}, side_tag[d][s]});
        }
    if (spec.periodic[d]) {
      Vec3 shift{0, 0, 0};
      shift[d] = spec.upper[d] - spec.lower[d];
      mesh.periodic.push_back({side_tag[d][0], side_tag[d][1], shift});
    }
  }
  return mesh;
}

bool parse_box_shorthand(const std::string& text, BoxSpec& spec) {
  if (text.rfind("box:", 0) != 0) return false;
  std::vector<int> n;
  std::stringstream ss(text.substr(4));
  std::string item;
  auto bad = [&]() {
    return UserError("malformed box mesh '" + text + "'", {},
                     "write box:NX,NY,NZ (cells per direction of the unit cube), e.g. box:4,4,4");
  };
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(item, &used);
    } catch (const std::exception&) {
      throw bad();
    }
    if (used != item.size() || v < 1) throw bad();
    n.push_back(v);
  }
  if (n.size() == 1) n = {n[0], n[0], n[0]};
  if (n.size() != 3) throw bad();
  spec = BoxSpec{};
  spec.cells = {n[0], n[1], n[2]};
  return true;
}

}  // namespace dgmax
