// Host memory estimates, checked before building something large, so that a mesh too big for the
// machine is refused with numbers instead of swapping or being killed halfway.
#pragma once

#include <string>

#include "solver/util/error.hpp"

namespace dgmax {

// Measured peak host bytes per tetrahedron (Release build; see memory_estimate.cpp):
// building a mesh and its connectivity and geometry (setup_mesh),
constexpr double kMeshSetupBytesPerElement = 320;
// Gmsh meshing a .geo (its own model, before dgmax copies it),
constexpr double kGmshMeshingBytesPerElement = 500;
// and a whole run of any order and backend at least (mesh, fields, backend, output).
constexpr double kMinRunBytesPerElement = 2000;

// A cpu plan search (dgmax tune --backend cpu) holds ref's right-hand side and the check's states
// beside a cpu backend: its peak measured 1.01x run_host_bytes_per_element at N = 4 and 6 (dev VM,
// K = 41,154 and 105,456, fp64); this leaves room for the spread.
constexpr double kCpuSearchBytesFactor = 1.15;
// Peak host bytes per element of a run at `order` with the cpu backend in double precision
// (fields live on the host): about 1250 + 490·Np. GPU runs keep their fields on the device and
// need less host memory; this is an upper bound for them.
double run_host_bytes_per_element(int order);

// Peak host bytes a curved element of geometry order q adds at `order` (its volume and face rules:
// curved_rule_points): its four Np x Np operators (curved_operators.hpp), the cofactors and J at
// the volume points, n·sJ at the face points and its node positions, in fp64, times 1.3 for the
// arrays they are made from. 74 KB at N = q = 4; measured 72.7 KB per element in all (any
// element's 2.2 KB included) on an all-curved box at N = 4 (bench/NOTES.md, "The curved group's
// cuda kernel on the H100": peak host memory 6.82 GB at K = 93,750).
double curved_host_bytes_per_element(int order, int q);

// MemAvailable of /proc/meminfo in bytes, or 0 when unknown. $DGMAX_MEMORY_AVAILABLE (bytes, e.g.
// 8e9) replaces it: for tests, and to keep dgmax within a share of a shared machine.
double available_host_bytes();

// "1.5 GB", "320 MB" (decimal units, as free(1) -h does not; what people compare with).
std::string format_bytes(double bytes);

// Throws UserError at `where` when `elements` × `bytes_per_element` exceeds the available host
// memory (never when that is unknown). `what` names the thing in the message, e.g. "box mesh
// 200 x 200 x 200"; the message gives the element count, the bytes needed and available.
void require_host_memory(double elements, double bytes_per_element, const std::string& what,
                         const SourceLocation& where, const std::string& hint = {});

}  // namespace dgmax
