// The kernels of the curved element group (solver/mesh/curved_geometry.hpp has the quadrature form;
// solver/backends/ref/ref_curved.cpp is the oracle they follow step by step). Appended to the cpu
// and cuda sources of a problem with curved elements; affine elements keep their own kernels, and
// the curved group runs after the straight-sided stage over the same state, overwriting its
// elements' results (docs/design.md, "Curved elements").
#pragma once

#include <string>

#include "codegen/emit/kernel_spec.hpp"

namespace dgmax::codegen {

// Layouts of the arrays the curved kernels read, shared with the host that fills them
// (solver/backends/curved_kernel_data.hpp).
struct CurvedLayout {
  int Np = 0, Nfp = 0, Nq = 0, Nfq = 0;
  // cgeo [Kc][geo_stride()]: J at the volume points [Nq] (the norms' integrals), then per face point
  // [4][Nfq]: unit normal (3) and w·sJ (1)
  int geo_j() const { return 0; }
  int geo_faces() const { return Nq; }
  int geo_stride() const { return Nq + 16 * Nfq; }
  // cops: the volume weights w [Nq], If [4 faces][6 rankings][Nfq][Nfp] (face nodes to face
  // points), VqT [Np][Nq] (the nodal basis at the volume points, transposed: the norms' loop over
  // points reads it contiguously)
  int op_w() const { return 0; }
  int op_if() const { return Nq; }
  int op_vqt() const { return op_if() + 24 * Nfq * Nfp; }
  int op_size() const { return op_vqt() + Nq * Np; }
  // cmat [Kc][cmat_stride()]: each slot's four operators A_x, A_y, A_z, L [Np][Np], each stored
  // transposed (entry (i, j) at j * Np + i: consecutive nodes i, consecutive words)
  int cmat_stride() const { return 4 * Np * Np; }
};
inline CurvedLayout curved_layout(const KernelSpec& s) { return {s.Np, s.Nfp, s.curved_Nq, s.curved_Nfq}; }

// cinfo [Kc][kCurvedInfo]: the element, each face's vertex ranking (0..5, face_ranking), then each
// face's TF/SF sign (+1: the element is on the total-field side of a box face, -1: scattered, 0).
inline constexpr int kCurvedInfo = 9;
// Threads of the cuda block of dgmax_curved_norms (one element per block).
inline constexpr int kCurvedThreads = 128;

// dgmax_curved_stage's cuda blocks: `threads` threads computing `elements` curved slots at once (a
// face point or a node of one of them per thread and step), their scratch in `shared_bytes` of
// dynamic shared memory per block.
struct CurvedBlock {
  int threads = 0, elements = 0;
  long shared_bytes = 0;
};
// The plan's curved_batch, or default_curved_batch where it is 0.
CurvedBlock curved_block(const KernelSpec& s);
// Slots per block when the plan leaves it open: about 32 nodes per block (1 to 8 slots), as many
// as fit 48 KB of shared memory.
int default_curved_batch(const KernelSpec& s);

// Shared-memory bytes one curved slot's scratch needs.
long curved_shared_bytes(const KernelSpec& s);

// Why the cuda backend cannot run this problem's curved elements (a block's scratch needs more than
// `max_shared_bytes`, the device's opt-in limit), or "" when it can.
std::string curved_cuda_refusal(const KernelSpec& s, long max_shared_bytes);

// The section (empty without curved elements). cpu: extern "C" dgmax_curved_stage,
// dgmax_curved_initial, dgmax_curved_norms; cuda: the same names as __global__ kernels.
std::string curved_kernel_section(const KernelSpec& s, bool cuda);

}  // namespace dgmax::codegen
