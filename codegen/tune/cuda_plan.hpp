// How the cuda backend slices its kernels: the tuner's choices, as plain data. A plan is
// written into the generated source (sizes, layouts and loops are compile-time constants), named
// by a short string ("f2.b8.t2.T") in reports and in the tuning database, and parsed back.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dgmax::codegen {

// The curved group's elements per block that `dgmax tune` tries on a problem with curved elements.
inline constexpr int kCurvedBatches[] = {1, 2, 4, 8};

struct CudaPlan {
  // Kernels per LSERK stage: 2 = one fused kernel (volume, fluxes, lift, update; state ping-pongs
  // between two buffers), 1 = volume + fused surface/lift + update, 0 = volume, surface, lift, update.
  int fusion = 2;
  // Elements per block of the volume, lift and stage kernels (a multiple of elements_per_thread).
  int elements_per_block = 4;
  // Register blocking: each thread applies every operator entry it loads to this many elements
  // (all six fields each): a block has Np x (elements_per_block / elements_per_thread) threads.
  int elements_per_thread = 1;
  // Dr, Ds, Dt and LIFT stored transposed (column j contiguous): the threads of a warp, one node
  // each, read consecutive words instead of one row each.
  bool transposed = false;
  // Dr, Ds, Dt copied into shared memory by each block (else read through L1 from global memory).
  bool shared_ops = false;
  // 16-byte loads in the volume loop: the staged state node-major (the six fields of a node
  // together) and Dr, Ds, Dt interleaved (entry j of row i as one 4-vector); needs `transposed`.
  bool vector_loads = false;
  // Tensor cores (sm_80 and up): the stage kernel computes volume and lift terms of the block as
  // one GEMM, rhs[Np x 6E] = [Dr Ds Dt LIFT] x [curl-weighted state; face fluxes]. fp64: DMMA
  // m8n8k4, one warp per 8 output rows; fp32: TF32 m16n8k8 with each operand split in a high and
  // a low TF32 part (3 products: fp32-level accuracy), one warp per 16 rows. Needs fusion 2, one
  // element per thread and a multiple of 4 elements per block (6E columns in tiles of 8); shared
  // memory is dynamic.
  bool mma = false;
  // With mma: B staged one chunk at a time (each operator's rows, then the fluxes: 4 barriers, a
  // quarter of the shared memory) instead of all at once.
  bool mma_chunked = false;
  // With mma: the block's state and each lane's res entries copied into shared memory
  // asynchronously at the start (cp.async), so the staging of B and the final update read them
  // from there instead of waiting on device memory; costs 2 x EPB x 6 x Np words of shared memory.
  bool mma_staged = false;
  // With mma (sm_90): the GEMM on the fp64 tensor cores in tiles of 16 output rows (DMMA m16n8k4,
  // one warp per 16 rows). fp64: instead of 8-row m8n8k4 tiles; on the H100 an m16n8k4 issues at
  // the rate of an m8n8k4 and does twice its work (66 against 33 TFLOP/s, bench/NOTES.md), the
  // price is rows padded to 16. fp32: instead of split TF32 (3 products per tile): B converted to
  // fp64 when staged, one product, fp64 accuracy in the sums.
  bool mma_wide = false;
  // With mma, mma_chunked and mma_staged: the neighbours' face traces of the block's elements copied
  // asynchronously (cp.async, into B's flux rows) as soon as the group's face data are in, so they
  // arrive with the state; the fluxes are then staged and multiplied first (in registers across one
  // more barrier) instead of after the operators' chunks, waiting on a dependent global load.
  bool mma_neighbours = false;
  // With mma and mma_wide: two warps per 16-row tile, each taking half of the block's column tiles
  // (H). With 8 elements per block a warp then multiplies as many columns as with 4 (3 tiles),
  // while each A fragment it loads from L2 serves 8 elements: its second reader, the other warp of
  // the tile, finds it in L1. Needs an even number of column tiles (a multiple of 8 elements).
  bool mma_split_columns = false;
  // With mma, fp32 (split TF32, not W), on sm_90 (X): the GEMM as Hopper warpgroup MMAs (wgmma
  // m64nNk8 tf32, sm_90a), one instruction per 64 rows x all 6 x EPB columns x 8 k instead of one
  // per 16 x 8 x 8 plus its B fragment loads: A (the operators' TF32 high and low parts) from
  // registers as in the mma.sync plans, B from shared memory in wgmma's K-major core-matrix
  // layout. Warps come in groups of 4 (row tiles padded to a multiple of 4). 2.4x the DMMA rate of
  // the W plans in the stage's shape (bench/NOTES.md, "the GEMM rate in the stage's shape").
  bool mma_warpgroup = false;
  // With mma, mma_warpgroup and mma_staged, not chunked (E): the GEMM transposed, its rows the
  // block's element-fields: rhs^T[6 EPB][NPK] = [curl-weighted state per operator, face fluxes]
  // [6 EPB][3 NPK + NFK] x [Dr^T; Ds^T; Dt^T; LIFT^T]. Rows pad to whole warpgroups of 64 element-fields
  // (not Np to 64 as in X), columns only to 8 nodes; A is computed in registers from the staged state
  // (the fluxes staged in shared memory first); B, the operators' TF32 high and low parts, is copied
  // into shared memory once per block, and the blocks are persistent (as many as fit the GPU, each
  // looping over element groups), so it is read from L2 once per block, not once per group.
  // Any number of elements per block up to 42 (4 warpgroups), even where Np is odd (the groups'
  // states are copied 16 bytes at a time); B must fit shared memory (up to N = 5 with 10 elements).
  bool mma_state_rows = false;
  // With E: element groups a block works on at once (E2, E3, E4; 1 = E), each by its own warpgroups
  // with its own barrier (bar.sync id, not __syncthreads) and buffers, all sharing the block's one
  // copy of the operators: more warps per SM for the same shared memory (E's copies of B per block
  // capped it at 1-3 blocks of 4 warps, bench/NOTES.md, "plan option E").
  int state_row_groups = 1;
  // One-node-per-thread plans (not M): registers per thread capped at this many (0: the compiler's
  // choice), through the kernels' __launch_bounds__ minimum of blocks per SM. More resident warps
  // to hide the face gathers' latency, for the price of spills if the cap is too low (plan suffix
  // R64, R56, ...).
  int max_registers = 0;
  // The curved group's kernel (codegen/emit/curved_kernels.hpp): curved elements each block
  // computes at once (plan suffix Q1 .. Q8; 0: default_curved_batch's choice, about 32 nodes).
  int curved_batch = 0;
  // The minimum of resident blocks per SM that the kernels' __launch_bounds__ ask for, from
  // max_registers (1 without a cap).
  int min_blocks_per_sm(int Np, bool single = false) const;

  // Threads per block of the volume, lift and stage kernels (an mma stage: one warp per 8 nodes in
  // fp64, per 16 in fp32 and in W plans; two per 16 with H).
  int threads_per_block(int Np, bool single = false) const {
    const int rows = single || mma_wide ? 16 : 8, tiles = (Np + rows - 1) / rows;
    if (mma && mma_state_rows)  // E: 64 element-fields per warpgroup, per group
      return 128 * ((6 * elements_per_block + 63) / 64) * state_row_groups;
    if (mma && mma_warpgroup) return 128 * ((tiles + 3) / 4);  // whole warpgroups
    return mma ? 32 * tiles * (mma_split_columns ? 2 : 1) : Np * (elements_per_block / elements_per_thread);
  }
  // Elements a block of the stage kernel works on at once (its groups' elements).
  int elements_per_launch_block() const { return elements_per_block * (mma_state_rows ? state_row_groups : 1); }
  // Shared memory of the largest kernel the plan launches per stage, in bytes (static, or dynamic
  // for mma plans; `with_current`: the problem has a source current J, staged too).
  int shared_bytes(int Np, int Nfp, bool single, bool with_current = true) const;
  // "f2.b8.t2.T.S.V" or "f2.b8.t1.M.W.H.C.A.G": fusion, elements per block, per thread, T =
  // transposed, S = shared operators, V = vector loads, M = tensor cores, W = fp64 DMMA in 16-row
  // tiles (both precisions), H = two warps per tile (half the columns each), X = warpgroup MMAs
  // (fp32, sm_90a), E = element-fields as the GEMM's rows (with X; E2..E4: groups per block), C = chunked, A = asynchronous
  // staging, G = neighbours' traces gathered asynchronously, Qn = n curved elements per block of the
  // curved group, Rn = at most n registers per thread.
  std::string name() const;
  static std::optional<CudaPlan> parse(const std::string& name);
  bool operator==(const CudaPlan& o) const {
    return fusion == o.fusion && elements_per_block == o.elements_per_block &&
           elements_per_thread == o.elements_per_thread && transposed == o.transposed && shared_ops == o.shared_ops &&
           vector_loads == o.vector_loads && mma == o.mma && mma_chunked == o.mma_chunked && mma_staged == o.mma_staged &&
           mma_wide == o.mma_wide && mma_neighbours == o.mma_neighbours && mma_split_columns == o.mma_split_columns &&
           mma_warpgroup == o.mma_warpgroup && mma_state_rows == o.mma_state_rows &&
           state_row_groups == o.state_row_groups && max_registers == o.max_registers &&
           curved_batch == o.curved_batch;
  }
};

// The shared-memory rows of the one-node-per-thread kernels (the generated VW, NPV and SF_ROW,
// and what shared_bytes counts): `vw` values per load of the staged state and face fluxes, 4 in
// fp32 (16 bytes), 1 in fp64, where pairs of doubles measured no faster; each field's state row
// padded to `state_row` = Np rounded up to whole vectors; each element's flux row (4 Nfp x 6) to
// `flux_row`, an odd number of vectors, so that two elements read by one warp use other banks.
struct StagedRows {
  int vw, state_row, flux_row;
};
StagedRows staged_rows(int Np, int Nfp, bool single);

// The plan used when the tuning database has none for a problem: measured on an H100
// (bench/NOTES.md), the best of the plan space over N = 1..8 in the mean.
// `arch`: the device's compute capability x 10 (tensor-core plans from 80). `with_current`: the
// problem has a source current J, whose staging some plans have no room for (true when unknown).
CudaPlan default_cuda_plan(int N, bool single, int arch = 90, bool with_current = true);

// The face-invariant values of the numerical flux that the one-node-per-thread kernels keep per
// element face in shared memory (block_fluxes); a flux with more is evaluated whole at every node.
inline constexpr int kCudaHoistedFluxValues = 8;
// Faces of at least this many nodes (N >= 3) take that once-per-face flux part (WIDE_FACES in the
// generated code). Measured on an H200 with the 16-byte state copies, against the kernels without
// both (bench/NOTES.md, 2026-11-29): 1.057x fp32 and 1.00x fp64 at N = 3; 0.89-0.99x at N = 1, 2,
// where the per-face pass and its barrier cost more than 3 or 6 nodes save. The copies alone won
// at N = 1, 2 too (1.01-1.018x, "fp64 N = 7 staged default landed") and are made at every order.
inline constexpr int kCudaWideFaceNodes = 10;
inline constexpr bool cuda_wide_faces(int Nfp) { return Nfp >= kCudaWideFaceNodes; }

// What a generated block may use (the device's limits for kernels with static shared memory).
struct CudaBlockLimits {
  int max_threads = 1024;
  int max_static_shared = 48 * 1024;
  int max_dynamic_shared = 227 * 1024;  // with the opt-in attribute (sm_90: 227 KB, sm_80: 163 KB)
  int arch = 90;                        // compute capability x 10 (mma needs 80)
};

// The tensor-core GEMM of an mma plan. The right-hand operand has K = 3 NPK + NFK rows (the
// curl-weighted state for Dr, Ds and Dt, each padded to NPK = Np rounded up to the k step, then
// the 4 Nfp face fluxes, padded to NFK) and N = 6 x elements per block columns in tiles of 8.
// fp64 tiles are 8 x 8 x 4, fp32 (TF32) tiles 16 x 8 x 8.
struct MmaShape {
  int m_tiles, k_steps, n_tiles, k_rows;
  int rows, k_step;  // output rows per tile (8, 16) and k per instruction (4, 8)
  int np_padded;     // NPK
  int nf_padded;     // NFK
  int chunk_rows;    // max(NPK, NFK): the rows staged at once by chunked plans
  // Shared memory B: each fragment register row (32 entries of 8 bytes, read by a warp as 32
  // consecutive entries) is followed by b_pad unused entries, chosen so that the staging stores
  // (a thread per node, lanes 4 rows apart in the fragment order) meet few bank conflicts.
  int b_pad;
  // Entries of 8 bytes that `rows` staged rows of B take, padding included.
  long b_entries(int rows) const { return static_cast<long>(rows) * n_tiles * 8 / 32 * (32 + b_pad); }
};
// `warpgroup` (X plans): row tiles padded to a multiple of 4 (one warpgroup per 64 rows) and B in
// wgmma's layout (no padding entries). `state_rows` (E plans, with warpgroup): the transposed GEMM,
// rows the 6 x EPB element-fields (m_tiles: 4 per warpgroup), n_tiles = NPK / 8 columns (nodes), B
// the operators [3 NPK + NFK][NPK].
MmaShape mma_shape(int Np, int Nfp, int elements_per_block, bool single = false, bool wide = false,
                   bool warpgroup = false, bool state_rows = false);
// E plans: the row stride of the staged face fluxes [6 EPB][NFK + 4] in words: a multiple of 4 but
// not of 8, so that the 8 rows of an A fragment load fall in different banks.
int mma_flux_row_stride(const MmaShape& m);
// The shape of a plan's GEMM (mma_shape with the plan's options).
MmaShape mma_shape(const CudaPlan& plan, int Np, int Nfp, bool single);
// The architecture a plan's kernels are compiled for on a device of `device_arch` ("sm_90"): X
// plans use sm_90a's own instructions (wgmma), "sm_90a"; the others the device's.
std::string cuda_plan_arch(const CudaPlan& plan, const std::string& device_arch);
// Shared-memory wavefronts the B staging stores of one block take with `pad` entries after every
// 32 (the model mma_shape picks b_pad with; 2 per half warp and column without conflicts).
// `tf32`: the split-TF32 fragment layout (fp32 without W), else the DMMA layout.
long mma_b_store_wavefronts(const MmaShape& m, int elements_per_block, bool tf32, int pad);

// The reason a plan cannot run for this order and precision, or "" when it can (as far as can be
// told before compiling; registers and spills are checked on the compiled kernel). `with_current`:
// the problem has a source current J, staged in shared memory too (true when unknown).
std::string cuda_plan_rejection(const CudaPlan& plan, int N, bool single, const CudaBlockLimits& limits = {},
                                bool with_current = true);

struct PlanCandidate {
  CudaPlan plan;
  std::string rejected;  // why it cannot run, or "" (then compile, validate and time it)
};

// The plan space searched for order N: fusion 2 and 1 over block sizes of about 64, 128 and 256
// threads, 1, 2 or 4 elements per thread, operators in global memory (row-major or transposed) or
// shared memory, and vector loads at one element per thread; plus the four-kernel path and the
// default plan. Rejected plans are listed with their
// reason. The default plan comes first. `with_current` as for cuda_plan_rejection.
std::vector<PlanCandidate> enumerate_cuda_plans(int N, bool single, const CudaBlockLimits& limits = {},
                                                bool with_current = true);

}  // namespace dgmax::codegen
