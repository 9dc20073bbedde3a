// Measurements behind the constants (2-core VM, OMP_NUM_THREADS=1, peak RSS from getrusage or
// /usr/bin/time, minus the process before the mesh):
//   make_box_mesh + setup_mesh, K = 162,000 and 750,000: 324 and 320 B/element;
//   `gmsh -3 meshes/cube.geo` at h = 0.05 and 0.025 (42k, 312k elements): ~490 B/element;
//   `dgmax run`, cpu backend, double, box K = 48,000 and 162,000: N = 3 → 11.0 KB/element (slope),
//   N = 1 → 3.2 KB/element; i.e. ≈ 1250 + 490·Np B, Np = (N+1)(N+2)(N+3)/6;
//   a GPU run at K = 4.4M (bench/NOTES.md, "Set-up time"): 2,220 B/element on the host.
#include "solver/mesh/memory_estimate.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "solver/mesh/curved_geometry.hpp"

namespace dgmax {

namespace {
double nodes(int order) { return (order + 1.0) * (order + 2.0) * (order + 3.0) / 6.0; }
}  // namespace

double run_host_bytes_per_element(int order) { return 1250 + 490 * nodes(order); }

double curved_host_bytes_per_element(int order, int q) {
  const double np = nodes(order);
  const std::array<int, 2> points = curved_rule_points(order, q);  // {Nq, Nfq}
  return 1.3 * 8 * (4 * np * np + 10.0 * points[0] + 16.0 * points[1] + 3 * np);
}

double available_host_bytes() {
  if (const char* v = std::getenv("DGMAX_MEMORY_AVAILABLE"); v && *v) {
    char* end = nullptr;
    const double b = std::strtod(v, &end);
    if (end != v && *end == '\0' && b > 0) return b;
    throw UserError(std::string("DGMAX_MEMORY_AVAILABLE='") + v + "' is not a number of bytes > 0",
                    {}, "e.g. DGMAX_MEMORY_AVAILABLE=8e9 for 8 GB, or unset it");
  }
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream s(line.substr(13));
    double kb = 0;
    if (s >> kb) return kb * 1024;
  }
  return 0;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) bytes /= 1000, ++u;
  char buf[64];
  const char* format = bytes >= 1000 ? "%.3g %s" : bytes < 10 && u > 0 ? "%.1f %s" : "%.0f %s";
  std::snprintf(buf, sizeof buf, format, bytes, units[u]);
  return buf;
}

void require_host_memory(double elements, double bytes_per_element, const std::string& what,
                         const SourceLocation& where, const std::string& hint) {
  const double available = available_host_bytes();
  const double needed = elements * bytes_per_element;
  if (available <= 0 || needed <= available) return;
  char count[64];
  std::snprintf(count, sizeof count, elements < 1e15 ? "%.0f" : "%.3g", elements);
  throw UserError(what + " has " + count + " elements and needs about " + format_bytes(needed) +
                      " of host memory, but only " + format_bytes(available) + " is available",
                  where,
                  hint.empty() ? "use fewer elements (coarser mesh), or a machine with more memory"
                               : hint);
}

}  // namespace dgmax
