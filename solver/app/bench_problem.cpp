#include "solver/app/bench_problem.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "solver/mesh/box.hpp"
#include "solver/mesh/curved_warp.hpp"
#include "solver/physics/space_time_field.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

constexpr long long kMaxBenchElements = 1000000000;

}  // namespace

std::vector<int> parse_orders(const std::string& s) {
  std::vector<int> out;
  const auto dots = s.find("..");
  try {
    if (dots != std::string::npos) {
      const int a = std::stoi(s.substr(0, dots)), b = std::stoi(s.substr(dots + 2));
      for (int n = a; n <= b; ++n) out.push_back(n);
    } else {
      std::stringstream ss(s);
      std::string item;
      while (std::getline(ss, item, ',')) out.push_back(std::stoi(item));
    }
  } catch (const std::exception&) {
    out.clear();
  }
  if (out.empty()) throw UserError("malformed --order '" + s + "'", {}, "write N, N1,N2 or N1..N2 (e.g. 1..6)");
  for (int n : out)
    if (n < 1 || n > 15) throw UserError("--order must be between 1 and 15, got " + std::to_string(n), {},
                      "the polynomial order, e.g. --order 3, --order 2,4 or --order 1..6");
  return out;
}

std::shared_ptr<const MeshData> bench_mesh(long long elements, ElementOrder order, int geometry_order) {
  // bounds, so a typo is an error rather than an hours-long run or an overflowing mesh size
  if (elements < 6 || elements > kMaxBenchElements)
    throw UserError("--elements must be between 6 and " + std::to_string(kMaxBenchElements) + ", got " +
                        std::to_string(elements),
                    {}, "the number of tetrahedra (a box of n x n x n cubes, 6 each), e.g. --elements 48000");
  const int n = std::max(1, static_cast<int>(std::lround(std::cbrt(elements / 6.0))));
  BoxSpec spec;
  spec.cells = {n, n, n};
  spec.periodic = {true, true, true};
  Mesh mesh = make_box_mesh(spec);
  if (geometry_order >= 2)  // each cube's own warp (box_warp vanishes on the cube's faces)
    warp_mesh(mesh, geometry_order, [n](const Vec3& x) {
      Vec3 y = x;
      Vec3 lo, hi;
      for (int d = 0; d < 3; ++d) {
        lo[d] = std::floor(x[d] * n) / n;
        hi[d] = lo[d] + 1.0 / n;
        const double frac = x[d] * n - std::floor(x[d] * n);
        if (frac < 1e-9 || frac > 1 - 1e-9) return x;  // on a cube's face: in place, bit for bit
      }
      return box_warp(lo, hi, 0.08)(y);
    });
  return std::make_shared<const MeshData>(setup_mesh(std::move(mesh), 0, GeometryFactors::Stored, order));
}

Problem bench_problem(const std::shared_ptr<const MeshData>& md, int N) {
  Problem p = make_problem(md, N);
  p.initial = space_time_field_from_text({"sin(2*pi*x)*cos(2*pi*y)", "cos(2*pi*z)", "sin(2*pi*(x + y + z))",
                                          "cos(2*pi*x)*sin(2*pi*z)", "sin(2*pi*y)", "cos(2*pi*(x - z))"},
                                         "bench initial");
  return p;
}

}  // namespace dgmax
