#include "codegen/emit/cuda_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "codegen/emit/cuda_stage_rows.hpp"
#include "codegen/emit/kernel_common.hpp"

namespace dgmax::codegen {

namespace {

// A float rounded to TF32 as cvt.rna.tf32.f32 does (10 mantissa bits, ties away from zero).
float tf32_round(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  b = (b + 0x1000u) & 0xFFFFE000u;
  std::memcpy(&x, &b, 4);
  return x;
}

// The warpgroup MMA of X plans as an inline-assembly function: d (this lane's NCOL/2 accumulators,
// NCOL = 6 x EPB columns) += a (its A fragment: 4 TF32 words) x the k step's B tile at descriptor db.
std::string wgmma_function(int ncol) {
  const int nd = ncol / 2;
  std::string regs, outs;
  for (int i = 0; i < nd; ++i) {
    regs += (i ? ", %" : "%") + std::to_string(i);
    outs += (i ? ", \"+f\"(d[" : "\"+f\"(d[") + std::to_string(i) + "])";
  }
  return fmt::format(
      "DGMAX_FN void wgmma_tf32(float* d, const unsigned* a, unsigned long long db) {{\n"
      "  asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\n\"  // p: accumulate into d\n"
      "               \"wgmma.mma_async.sync.aligned.m64n{}k8.f32.tf32.tf32 {{{}}}, {{%{}, %{}, %{}, %{}}}, %{}, p, 1, 1;\\n}}\\n\"\n"
      "               : {}\n"
      "               : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(db), \"r\"(1));\n}}\n",
      nd + 5, ncol, regs, nd, nd + 1, nd + 2, nd + 3, nd + 4, outs);
}

// [Dr Ds Dt LIFT] (Np x K: each D padded to NPK columns, LIFT to NFK) as A fragments of the
// tensor-core op, zero-padded. fp64 (m8n8k4): Afrag[mt * KS + ks][lane] = A[8 mt + lane/4][4 ks +
// lane%4]; W plans, both precisions (m16n8k4): two doubles per lane, rows lane/4 and lane/4 + 8 of
// a 16-row tile. fp32 (m16n8k8, g = lane/4, t = lane%4): Afrag_hi/lo[mt * KS + ks][4 lane + v] =
// A[16 mt + g + 8 (v%2)][8 ks + t + 4 (v/2)], split into TF32 high and low parts. A warp loads a
// fragment as consecutive words.
std::string mma_operator_table(const KernelSpec& s) {
  const int Np = s.Np, Nf = 4 * s.Nfp;
  const MmaShape m = mma_shape(s.plan.cuda, Np, s.Nfp, s.single);
  const int NPK = m.np_padded;
  auto A = [&](int row, int col) -> double {  // columns: Dr, Ds, Dt (each padded to NPK), LIFT
    if (row >= Np || col >= 3 * NPK + Nf) return 0.0;
    const size_t r = static_cast<size_t>(row);
    if (col < 3 * NPK) {
      const std::vector<double>& D = col < NPK ? s.Dr : col < 2 * NPK ? s.Ds : s.Dt;
      return col % NPK < Np ? D[r * Np + col % NPK] : 0.0;
    }
    return s.LIFT[r * Nf + (col - 3 * NPK)];
  };
  const size_t tiles = static_cast<size_t>(m.m_tiles) * m.k_steps;
  if (s.plan.cuda.mma_wide || !s.single) {  // fp64 DMMA fragments (fp32 W plans multiply in fp64 too)
    const int V = m.rows / 8;  // A values per lane and k step: row g, and g + 8 in 16-row tiles
    std::vector<double> frag(tiles * 32 * V);
    for (int mt = 0; mt < m.m_tiles; ++mt)
      for (int ks = 0; ks < m.k_steps; ++ks)
        for (int lane = 0; lane < 32; ++lane)
          for (int v = 0; v < V; ++v)
            frag[((static_cast<size_t>(mt) * m.k_steps + ks) * 32 + lane) * V + v] =
                A(m.rows * mt + lane / 4 + 8 * v, 4 * ks + lane % 4);
    if (V == 1)
      return "// [Dr Ds Dt LIFT] (each D padded to NPK columns) as tensor-core A fragments:\n"
             "// Afrag[mt*KS + ks][lane] = A[8 mt + lane/4][4 ks + lane%4].\n" +
             matrix_literal("Afrag", frag, static_cast<int>(tiles), 32) + "\n";
    // a lane's pair: one 16-byte load
    return "// [Dr Ds Dt LIFT] (each D padded to NPK columns) as tensor-core A fragments (m16n8k4):\n"
           "// Afrag[mt*KS + ks][2 lane + v] = A[16 mt + lane/4 + 8 v][4 ks + lane%4].\n" +
           matrix_literal("Afrag", frag, static_cast<int>(tiles), 64, "__align__(16) double") + "\n";
  }
  std::vector<double> hi(tiles * 128), lo(tiles * 128);
  for (int mt = 0; mt < m.m_tiles; ++mt)
    for (int ks = 0; ks < m.k_steps; ++ks)
      for (int lane = 0; lane < 32; ++lane)
        for (int v = 0; v < 4; ++v) {
          const float x = static_cast<float>(A(16 * mt + lane / 4 + 8 * (v % 2), 8 * ks + lane % 4 + 4 * (v / 2)));
          const float h = tf32_round(x);
          const size_t at = (static_cast<size_t>(mt) * m.k_steps + ks) * 128 + 4 * lane + v;
          hi[at] = h;
          lo[at] = tf32_round(x - h);
        }
  std::string h_table = matrix_literal("Afrag_hi", hi, static_cast<int>(tiles), 128);
  std::string l_table = matrix_literal("Afrag_lo", lo, static_cast<int>(tiles), 128);
  for (std::string* t : {&h_table, &l_table})  // 16-byte loads of a lane's four words
    t->replace(t->find("DGMAX_TABLE real_t"), 18, "DGMAX_TABLE __align__(16) real_t");
  return "// [Dr Ds Dt LIFT] (each D padded to NPK columns, LIFT to NFK) as TF32 A fragments, high and low\n"
         "// parts: Afrag_hi/lo[mt*KS + ks][4 lane + v] = A[16 mt + lane/4 + 8 (v%2)][8 ks + lane%4 + 4 (v/2)].\n" +
         h_table + l_table + "\n";
}

// E plans: B = [Dr^T; Ds^T; Dt^T; LIFT^T] (K_ROWS = 3 NPK + NFK rows, NPK columns: B[m NPK + j][i] =
// D_m[i][j], B[3 NPK + f][i] = LIFT[i][f], zero-padded) as OpsT [2 K_ROWS][NPK]: its TF32 high parts,
// then its low parts, each in wgmma's no-swizzle K-major layout (the X plans' bslot: per k step of 8
// rows a tile of NPK x 8 words, core matrices of 8 columns x 4 rows 128 bytes apart along k and 256
// along the columns), copied into shared memory as it is.
std::string state_rows_operator_table(const KernelSpec& s) {
  const int Np = s.Np, Nf = 4 * s.Nfp;
  const MmaShape m = mma_shape(s.plan.cuda, Np, s.Nfp, s.single);
  const int NPK = m.np_padded, ntl = m.n_tiles;
  auto B = [&](int r, int i) -> double {
    if (i >= Np) return 0.0;
    const size_t row = static_cast<size_t>(i);
    if (r < 3 * NPK) {
      const std::vector<double>& D = r < NPK ? s.Dr : r < 2 * NPK ? s.Ds : s.Dt;
      return r % NPK < Np ? D[row * Np + r % NPK] : 0.0;
    }
    return r - 3 * NPK < Nf ? s.LIFT[row * Nf + (r - 3 * NPK)] : 0.0;
  };
  const size_t plane = static_cast<size_t>(m.k_rows) * NPK;
  std::vector<double> ops(2 * plane);
  for (int r = 0; r < m.k_rows; ++r)
    for (int i = 0; i < NPK; ++i) {
      const size_t slot = static_cast<size_t>((r >> 3) * (ntl * 64) + ((r >> 2) & 1) * 32 + (i >> 3) * 64 + (i & 7) * 4 + (r & 3));
      const float x = static_cast<float>(B(r, i)), h = tf32_round(x);
      ops[slot] = h;
      ops[plane + slot] = tf32_round(x - h);
    }
  std::string table = matrix_literal("OpsT", ops, 2 * m.k_rows, NPK);
  table.replace(table.find("DGMAX_TABLE real_t"), 18, "DGMAX_TABLE __align__(16) real_t");  // 16-byte copies
  return "// B = [Dr^T; Ds^T; Dt^T; LIFT^T] of the element-field-row stage (E), TF32 high parts then low\n"
         "// parts, in wgmma's no-swizzle K-major core-matrix layout (see state_rows_operator_table).\n" +
         table + "\n";
}

// Dr, Ds, Dt as one table [3][NP][NP] and LIFT, in the plan's layout, with accessors
// D_AT(ops, m, i, j) (operator m, row i, column j) and LIFT_AT(i, f) (row i, face node f).
std::string operator_tables(const KernelSpec& s) {
  if (s.plan.cuda.mma && s.plan.cuda.mma_state_rows) return state_rows_operator_table(s);
  if (s.plan.cuda.mma) return mma_operator_table(s);
  const int Np = s.Np, Nf = 4 * s.Nfp;
  const bool T = s.plan.cuda.transposed;
  std::vector<double> D(3 * static_cast<size_t>(Np) * Np), L(static_cast<size_t>(Np) * Nf);
  const std::vector<double>* ops[3] = {&s.Dr, &s.Ds, &s.Dt};
  for (int m = 0; m < 3; ++m)
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j)
        D[(static_cast<size_t>(m) * Np + (T ? j : i)) * Np + (T ? i : j)] = (*ops[m])[static_cast<size_t>(i) * Np + j];
  for (int i = 0; i < Np; ++i)
    for (int f = 0; f < Nf; ++f)
      L[T ? static_cast<size_t>(f) * Np + i : static_cast<size_t>(i) * Nf + f] = s.LIFT[static_cast<size_t>(i) * Nf + f];
  std::ostringstream src;
  if (s.plan.cuda.vector_loads) {  // interleaved: Dops[j*NP + i] = (Dr, Ds, Dt, 0)[i][j], one 16-byte aligned 4-vector
    std::vector<double> D4(4 * static_cast<size_t>(Np) * Np, 0.0);
    for (int m = 0; m < 3; ++m)
      for (int i = 0; i < Np; ++i)
        for (int j = 0; j < Np; ++j)
          D4[(static_cast<size_t>(j) * Np + i) * 4 + m] = (*ops[m])[static_cast<size_t>(i) * Np + j];
    std::string table = matrix_literal("Dops", D4, Np * Np, 4);
    table.replace(table.find("DGMAX_TABLE real_t"), 18, "DGMAX_TABLE __align__(16) real_t");
    src << "// Dr, Ds, Dt interleaved and transposed: Dops[j*NP + i] = (Dr[i][j], Ds[i][j], Dt[i][j], 0), so a\n"
           "// thread reads its three entries with one or two 16-byte loads and a warp's loads coalesce.\n"
        << table;
  }
  else
  src << (T ? "// Dr, Ds, Dt transposed: Dops[m*NP + j][i] = D_m[i][j] (a warp's threads, one node each, read\n"
              "// consecutive words of column j).\n"
            : "// Dr, Ds, Dt row-major: Dops[m*NP + i][j] = D_m[i][j].\n")
      << matrix_literal("Dops", D, 3 * Np, Np);
  src << (T ? "// LIFT transposed: LIFTop[f][i] = LIFT[i][f].\n" : "// LIFT row-major: LIFTop[i][f].\n")
      << (T ? matrix_literal("LIFTop", L, Nf, Np) : matrix_literal("LIFTop", L, Np, Nf))
      << (T ? "#define D_AT(ops, m, i, j) (ops)[((m) * NP + (j)) * NP + (i)]\n#define LIFT_AT(i, f) LIFTop[f][i]\n\n"
            : "#define D_AT(ops, m, i, j) (ops)[((m) * NP + (i)) * NP + (j)]\n#define LIFT_AT(i, f) LIFTop[i][f]\n\n");
  return src.str();
}

}  // namespace

int cuda_norm_elements_per_block(int Np) { return std::max(1, 128 / Np); }

bool cuda_pml_in_stage(const KernelSpec& s) { return s.pml && s.plan.cuda.fusion == 2; }

// The extra terms at the end of a whole-stage kernel (fusion 2). A layer element advances its
// auxiliary fields there, from the state the stage has already read, instead of in a dgmax_pml pass
// before it: that pass read the state again and wrote a source the stage read back, 12 words per
// layer node and stage (bench/NOTES.md). Each (node, component) is one thread's: psi of component c
// depends on component c of the state alone (pml_profile.hpp).
namespace {

std::string stage_extra_section(const KernelSpec& s) {
  std::ostringstream src;
  src << "#define PML_IN_STAGE " << (cuda_pml_in_stage(s) ? 1 : 0) << "\n";
  src << R"(// Component c of node i of an element with slot `slot` (-1: none; cf: its layer coefficients, read
// only for slot < pml_slots): the stage's right-hand side rc with the element's extra terms, the
// layer's psi advanced on the way.
DGMAX_FN real_t stage_extra(int slot, const real_t* __restrict__ cf, int c, int i, real_t u, real_t rc,
                            const real_t* __restrict__ xsrc, const real_t* __restrict__ xscale,
                            real_t* __restrict__ psi, real_t* __restrict__ psi_res, int pml_slots, real_t a,
                            real_t b, real_t dt) {
#if PML_IN_STAGE
  if (slot >= 0 && slot < pml_slots)
    return rc * cf[PML_SCALE + c % 3] + pml_advance(slot, cf, c, i, u, psi, psi_res, a, b, dt);
#endif
  return extra_rhs_slot(slot, c, i, rc, xsrc, xscale);
}

// Element k's slot and layer coefficients (pcoef: [layer slots][PML_COEF]).
DGMAX_FN int element_slot(int k, const int* __restrict__ xslot) {
#if HAS_EXTRA
  return xslot[k];
#else
  return -1;
#endif
}
DGMAX_FN const real_t* element_pml_coef(int slot, int pml_slots, const real_t* __restrict__ pcoef) {
#if PML_IN_STAGE
  if (slot >= 0 && slot < pml_slots) return pcoef + (long)slot * PML_COEF;
#endif
  return pcoef;
}

)";
  return src.str();
}

}  // namespace

std::string generate_cuda_source(const KernelSpec& s) {
  const CudaPlan& plan = s.plan.cuda;
  const MmaShape mma = mma_shape(plan, s.Np, s.Nfp, s.single);
  const StagedRows rows = staged_rows(s.Np, s.Nfp, s.single);
  std::ostringstream src;
  src << kernel_header_comment(s, "cuda")
      << fmt::format("// Plan {}: fusion level {}, {} elements per block, {} per thread ({} threads per block),\n"
                     "// operators {}{}{}.\n\n",
                     plan.name(), plan.fusion, plan.elements_per_block, plan.elements_per_thread,
                     plan.threads_per_block(s.Np, s.single), plan.transposed ? "transposed" : "row-major",
                     plan.shared_ops ? ", staged in shared memory" : ", read from global memory through L1",
                     plan.vector_loads ? "; 16-byte loads of the state and the operators" : "")
      << (plan.mma ? "// Tensor cores: volume and lift terms as one GEMM per block (dgmax_stage).\n\n" : "")
      << "#define DGMAX_FN __device__ __forceinline__\n#define DGMAX_TABLE __device__ const\n\n"
      << kernel_common_section(s, true) << operator_tables(s) << stage_extra_section(s);
  src << fmt::format(R"(// Block shape of the volume, lift and stage kernels: (NP, TY) threads; thread (i, y) owns node i
// of the block's elements y*EPT .. y*EPT + EPT-1. Norms and initial state: (NP, NEPB).
enum {{ EPB = {epb}, EPT = {ept}, TY = EPB / EPT, NT = {nt}, NEPB = {nepb} }};
// Element groups a block works on at once (E plans with several: each by GT threads of its own, with
// its own barrier); GT = NT otherwise. The helpers that stage a group loop over its GT threads.
enum {{ GPB = {gpb}, GT = NT / GPB }};
// A barrier for the threads of one group: the block's, or (GPB > 1) named barrier 1 + the group's index.
DGMAX_FN void group_sync() {{
#if {gpb} > 1
  asm volatile("bar.sync %0, %1;\n" ::"r"(1 + (int)threadIdx.x / GT), "n"((int)GT) : "memory");
#else
  __syncthreads();
#endif
}}
// The one-node-per-thread kernels read the staged state and face fluxes in fp32 16 bytes (VW = 4
// values) at a time: each such load serves 4 operator columns, where scalar loads kept the
// L1/shared-memory pipe, not the FMAs or device memory, the stage's limit (fp32 N = 3: 86% busy,
// 1.12x with the vectors). fp64 keeps one value per load: pairs of doubles measured 0.98x at N = 1
// and level at N = 2 (bench/NOTES.md, eighteenth session).
enum {{ VW = {vw} }};
// A block's face fluxes: one row of NFACE_NODES*6 per element, padded to an odd number of
// VW-vectors, so that the lanes of a warp reading the same entries of two elements hit different
// banks (codegen/tune/cuda_plan.hpp: staged_rows).
enum {{ SF_ROW = {sf_row} }};
// The one-node-per-thread kernels' bounds: NT threads, and with a register cap (plan option R) the
// blocks per SM it leaves room for, so that the compiler keeps each thread within the cap.
#define NODE_KERNEL_BOUNDS {node_bounds}
// Only the kernels of the plan's fusion level are compiled (their shared memory is the plan's).
#define FUSION {fusion}
#define SHARED_OPS {shared_ops}
#define VEC {vec}
#define SINGLE {single}
#define MMA {mma}
// Copies from global to shared memory that run while the block works (sm_80 and up: cp.async, the
// data never passes through registers; older devices: a plain copy). The waits are per thread: a
// __syncthreads after them makes every thread's copies visible to the block.
template <class T>
DGMAX_FN void copy_async(T* dst, const T* src) {{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src),
               "n"(sizeof(T)));
#else
  *dst = *src;
#endif
}}
// 16 bytes that bypass L1 (cp.async.cg): streamed data leaves L1 to what is read again (operators).
DGMAX_FN void copy_async16(real_t* dst, const real_t* src) {{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src));
#else
  *reinterpret_cast<int4*>(dst) = *reinterpret_cast<const int4*>(src);
#endif
}}
DGMAX_FN void copy_async_commit() {{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}}
// Wait until at most `pending` of this thread's committed groups are still in flight.
template <int pending>
DGMAX_FN void copy_async_wait() {{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
#endif
}}

// The stage kernel's parameters, whichever form (one node per thread, or tensor cores) the plan
// compiles: the backend launches both with the same arguments.
#define STAGE_PARAMS                                                                                            \
  int K, const real_t *__restrict__ q, const real_t *__restrict__ geo, const real_t *__restrict__ mat,           \
      const int *__restrict__ etoe, const int *__restrict__ bc, const int *__restrict__ vmapP,                  \
      const double *__restrict__ vert, double t, real_t *__restrict__ res, real_t *__restrict__ q_out, real_t a, \
      real_t b, real_t dt, const int *__restrict__ xslot, const real_t *__restrict__ xsrc,                       \
      const real_t *__restrict__ xscale, real_t *__restrict__ psi, real_t *__restrict__ psi_res,                \
      const real_t *__restrict__ pcoef, int pml_slots, int k0

#if !MMA
#if SHARED_OPS
#define OPS sops
#else
#define OPS (&Dops[0][0])
#endif
#if VEC
// an element's staged state, node-major: the six fields of node j in one row (padded to 32 bytes
// in fp32), read with 16-byte loads
enum {{ SQW = SINGLE ? 8 : 6, OPW = 4 }};
typedef real_t elem_state_t[NP][SQW];
#define SQ_AT(s, c, j) (s)[j][c]
#else
// an element's staged state, field-major, each field's row padded to NPV nodes (whole vectors of
// VW values: the volume loop reads VW nodes of a field at once)
enum {{ OPW = 3, NPV = {npv} }};
typedef real_t elem_state_t[6][NPV];
#define SQ_AT(s, c, j) (s)[c][j]
#endif
// The fused stage reads its face fluxes' interior traces from the staged state (shared memory)
// instead of device memory where a staged element is laid out as in q ([6][NP]: field-major rows
// not padded); it then waits for the state before the face nodes, not after. On an H200, two
// alternated rounds: fp32 N = 1 1.027x, N = 3 1.017x, fp64 N = 2 1.016x; fp64 N = 1 (32 elements
// per block) 0.970x, so not there: its state's latency is no longer hidden behind the face
// gathers (bench/NOTES.md, twenty-seventh session).
#if VEC
enum {{ TRACE_STAGED = 0 }};
#else
enum {{ TRACE_STAGED = FUSION == 2 && NPV == NP && (SINGLE || NP > 4) }};
#endif
// Element e's state [6][NP] (element k = kb + e): staged, or in q.
DGMAX_FN const real_t* interior_state(const elem_state_t* __restrict__ sq, int e, const real_t* __restrict__ q, int k) {{
  if constexpr (TRACE_STAGED) return &SQ_AT(sq[e], 0, 0);
  else return q + (long)k * 6 * NP;
}}

// VW values at p (shared memory, aligned to VW values) into registers.
DGMAX_FN void load_vec(const real_t* __restrict__ p, real_t* __restrict__ v) {{
#if SINGLE
  const float4 a = *reinterpret_cast<const float4*>(p);
  v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
#else
  v[0] = *p;
#endif
}}

// The block's element states (contiguous in q as [EPB][6][NP]) into shared memory, zeros past K.
DGMAX_FN void stage_state(const real_t* __restrict__ q, int K, int kb, int tid, elem_state_t* __restrict__ sq) {{
  const real_t* qb = q + (long)kb * 6 * NP;
  const int valid = min(EPB, K - kb) * 6 * NP;
  for (int n = tid; n < EPB * 6 * NP; n += NT) {{
    const int e = n / (6 * NP), c = n / NP - 6 * e, j = n % NP;
    SQ_AT(sq[e], c, j) = n < valid ? qb[n] : real_t(0);
  }}
}}

// stage_state with asynchronous copies (one group): the block's loads all in flight at once
// instead of one load and store per loop turn.
DGMAX_FN void stage_state_async(const real_t* __restrict__ q, int K, int kb, int tid, elem_state_t* __restrict__ sq) {{
  const real_t* qb = q + (long)kb * 6 * NP;
  const int valid = min(EPB, K - kb) * 6 * NP;
#if !VEC
  // Rows not padded (fp64, fp32 with NP a multiple of 4): the block's states are one run of
  // EPB*6*NP values in q and in shared memory alike, whole 16-byte vectors (6*NP is a multiple of
  // their length, and so is every block's offset in q): 16-byte copies, a quarter (fp32) or half
  // (fp64) of the copies and their index arithmetic. At every order: on an H200 1.01x at N = 1 and
  // 1.018x at fp64 N = 2 against the value-by-value copies (bench/NOTES.md, twenty-sixth session).
#if SINGLE
  typedef float4 vec16_t;
#else
  typedef double2 vec16_t;
#endif
  enum {{ V16 = 16 / sizeof(real_t) }};
  if constexpr (NPV == NP && (6 * NP) % V16 == 0) {{
    real_t* s = &SQ_AT(sq[0], 0, 0);
    for (int n = tid * V16; n < EPB * 6 * NP; n += NT * V16) {{
      if (n < valid) copy_async(reinterpret_cast<vec16_t*>(s + n), reinterpret_cast<const vec16_t*>(qb + n));
      else *reinterpret_cast<vec16_t*>(s + n) = vec16_t{{}};
    }}
    copy_async_commit();
    return;
  }}
#endif
  for (int n = tid; n < EPB * 6 * NP; n += NT) {{
    const int e = n / (6 * NP), c = n / NP - 6 * e, j = n % NP;
    if (n < valid) copy_async(&SQ_AT(sq[e], c, j), qb + n);
    else SQ_AT(sq[e], c, j) = real_t(0);
  }}
  copy_async_commit();
}}

// res of the block's elements into sres ([EPB][6][NP], one group). Where 6*NP is a whole number of
// 16-byte vectors the block's run of EPB*6*NP values is copied 16 bytes at a time, bypassing L1
// (read once; WIDE_RES: the update then waits for the block); else each thread copies the entries
// of its own update.
enum {{ WIDE_RES = (6 * NP) % (16 / sizeof(real_t)) == 0 }};
DGMAX_FN void stage_res_async(const real_t* __restrict__ res, int K, int kb, int tid, int y,
                              real_t (*__restrict__ sres)[6][NP]) {{
  if constexpr (WIDE_RES) {{
    const real_t* rb = res + (long)kb * 6 * NP;
    const int valid = min(EPB, K - kb) * 6 * NP;
    real_t* s = &sres[0][0][0];
    for (int n = tid * (16 / (int)sizeof(real_t)); n < valid; n += NT * (16 / (int)sizeof(real_t)))
      copy_async16(s + n, rb + n);
  }} else {{
    const int i = tid - y * NP;
#pragma unroll
    for (int r = 0; r < EPT; ++r) {{
      const int e = y * EPT + r, k = kb + e;
      if (k < K)
#pragma unroll
        for (int c = 0; c < 6; ++c) copy_async(&sres[e][c][i], res + ((long)k * 6 + c) * NP + i);
    }}
  }}
  copy_async_commit();
}}

// The six fields of node j of an element's staged state.
DGMAX_FN void load_fields(const elem_state_t& s, int j, real_t* __restrict__ v) {{
#if VEC && SINGLE
  const float4 a = *reinterpret_cast<const float4*>(&s[j][0]);
  const float2 b = *reinterpret_cast<const float2*>(&s[j][4]);
  v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w; v[4] = b.x; v[5] = b.y;
#elif VEC
  const double2* p = reinterpret_cast<const double2*>(&s[j][0]);
  const double2 a = p[0], b = p[1], c = p[2];
  v[0] = a.x; v[1] = a.y; v[2] = b.x; v[3] = b.y; v[4] = c.x; v[5] = c.y;
#else
#pragma unroll
  for (int m = 0; m < 6; ++m) v[m] = s[m][j];
#endif
}}

// Dr[i][j], Ds[i][j], Dt[i][j] from the operator table (global or shared).
DGMAX_FN void load_ops(const real_t* __restrict__ ops, int i, int j, real_t& a, real_t& b, real_t& c) {{
#if VEC && SINGLE
  const float4 o = *reinterpret_cast<const float4*>(ops + ((long)j * NP + i) * 4);
  a = o.x; b = o.y; c = o.z;
#elif VEC
  const double2 o = *reinterpret_cast<const double2*>(ops + ((long)j * NP + i) * 4);
  a = o.x; b = o.y; c = ops[((long)j * NP + i) * 4 + 2];
#else
  a = D_AT(ops, 0, i, j); b = D_AT(ops, 1, i, j); c = D_AT(ops, 2, i, j);
#endif
}}

// Dr, Ds, Dt into shared memory (the plan's layout).
DGMAX_FN void stage_ops(int tid, real_t* __restrict__ sops) {{
  const real_t* d = &Dops[0][0];
  for (int n = tid; n < OPW * NP * NP; n += NT) sops[n] = d[n];
}}

// The face fluxes (times Fscale) of the block's elements into shared memory (sf: [EPB][SF_ROW]).
// TRACE_STAGED: the interior traces from sq, whose copies (the thread's first group in flight) are
// waited for here, behind the same barrier as hv.
DGMAX_FN void block_fluxes(int K, int kb, int tid, const real_t* __restrict__ q, const elem_state_t* __restrict__ sq,
                           const real_t* __restrict__ geo,
                           const real_t* __restrict__ mat, const int* __restrict__ etoe, const int* __restrict__ bc,
                           const int* __restrict__ vmapP, const double* __restrict__ vert, double t,
                           real_t (*__restrict__ sf)[SF_ROW], real_t (*__restrict__ hv)[4][HV_ROW]) {{
  // The flux's face-invariant part (normal, materials: for upwind its two divisions and the
  // material and normal loads) once per element face, into shared memory (hv: [EPB][4][HV_ROW],
  // declared by the kernel, whose shared memory the plan counts).
#if FLUX_SPLIT
  for (int n = tid; n < EPB * 4; n += NT) {{
    const int e = n / 4, f = n % 4, k = kb + e;
    if (k < K) {{
      real_t in[29];
      face_invariant_inputs(k, f, geo + (long)k * GEO, etoe[k * 4 + f], mat, in);
      flux_face_part(in, hv[e][f]);
    }}
  }}
#endif
  if constexpr (TRACE_STAGED) copy_async_wait<1>();  // the state
  if (FLUX_SPLIT || TRACE_STAGED) __syncthreads();
  // a fixed trip count, unrolled: the turns' index loads (vmapP, etoe) and the neighbour loads that
  // depend on them are issued together instead of one chain after the other
#pragma unroll
  for (int it = 0; it < (EPB * NFACE_NODES + NT - 1) / NT; ++it) {{
    const int n = tid + it * NT;
    const int e = n / NFACE_NODES, m = n - e * NFACE_NODES, k = kb + e;
    if (n >= EPB * NFACE_NODES || k >= K) continue;
    const int f = m / NFP, j = m % NFP;
    const int kP = etoe[k * 4 + f];
#if FLUX_SPLIT
    if (kP >= 0) {{  // an interior face: the node's part of the flux (boundaries: the whole one below)
      const int nP = vmapP[(k * 4 + f) * NFP + j], iM = Fmask[f][j];
      const real_t* qk = interior_state(sq, e, q, k);
      const real_t* xP = q + (long)(nP / NP) * 6 * NP + nP % NP;
      real_t in[12], out[6];
#pragma unroll
      for (int c = 0; c < 6; ++c) {{
        in[c] = qk[c * NP + iM];
        in[6 + c] = xP[c * NP];
      }}
      flux_node_part(in, hv[e][f], out);
      const real_t fs = geo[(long)k * GEO + {geo_fscale} + f];
#pragma unroll
      for (int c = 0; c < 6; ++c) sf[e][m * 6 + c] = fs * out[c];
      continue;
    }}
#endif
    face_node_flux_at(k, f, j, interior_state(sq, e, q, k), geo + (long)k * GEO, kP,
                      kP >= 0 ? vmapP[(k * 4 + f) * NFP + j] : 0, q, mat, bc, vert, t, &sf[e][m * 6]);
  }}
}}

// curl H and -curl E at node i of EPT consecutive elements (states sq[0..EPT-1] in shared
// memory, first element k0): each operator entry loaded once serves all of them and all six fields.
DGMAX_FN void volume_nodes(int i, const elem_state_t* __restrict__ sq, const real_t* __restrict__ ops,
                           const real_t* __restrict__ geo, int K, int k0, real_t (*__restrict__ curl)[6]) {{
  real_t dr[EPT][6], ds[EPT][6], dt[EPT][6];
#pragma unroll
  for (int r = 0; r < EPT; ++r)
#pragma unroll
    for (int m = 0; m < 6; ++m) dr[r][m] = ds[r][m] = dt[r][m] = real_t(0);
#if VEC
  constexpr int j_vec = 0;
#else
  // VW nodes at a time: one load (fp32: 16 bytes) of a field's nodes j0..j0+VW-1 per field and
  // element (the same address for every lane of an element: a broadcast), then VW operator columns;
  // the sums run over j in the same order as one node at a time
  constexpr int j_vec = NP / VW * VW;
  for (int j0 = 0; j0 < j_vec; j0 += VW) {{
    real_t a[VW], b[VW], c[VW];
#pragma unroll
    for (int u = 0; u < VW; ++u) load_ops(ops, i, j0 + u, a[u], b[u], c[u]);
#pragma unroll
    for (int r = 0; r < EPT; ++r)
#pragma unroll
      for (int m = 0; m < 6; ++m) {{
        real_t v[VW];
        load_vec(&sq[r][m][j0], v);
#pragma unroll
        for (int u = 0; u < VW; ++u) {{
          dr[r][m] += a[u] * v[u];
          ds[r][m] += b[u] * v[u];
          dt[r][m] += c[u] * v[u];
        }}
      }}
  }}
#endif
  // the nodes past the last whole vector (all of them with VEC: node-major state, one node's six
  // fields per load)
#if !VEC
#pragma unroll
#endif
  for (int j = j_vec; j < NP; ++j) {{
    real_t a, b, c;
    load_ops(ops, i, j, a, b, c);
#pragma unroll
    for (int r = 0; r < EPT; ++r) {{
      real_t v[6];
      load_fields(sq[r], j, v);
#pragma unroll
      for (int m = 0; m < 6; ++m) {{
        dr[r][m] += a * v[m];
        ds[r][m] += b * v[m];
        dt[r][m] += c * v[m];
      }}
    }}
  }}
#pragma unroll
  for (int r = 0; r < EPT; ++r) {{
    const real_t* g = geo + (long)min(k0 + r, K - 1) * GEO;  // past K: any element (not written)
    real_t d[3][6];  // d[axis][component]
#pragma unroll
    for (int m = 0; m < 6; ++m)
#pragma unroll
      for (int x = 0; x < 3; ++x) d[x][m] = g[x] * dr[r][m] + g[3 + x] * ds[r][m] + g[6 + x] * dt[r][m];
    curl[r][0] = d[1][5] - d[2][4];
    curl[r][1] = d[2][3] - d[0][5];
    curl[r][2] = d[0][4] - d[1][3];
    curl[r][3] = -(d[1][2] - d[2][1]);
    curl[r][4] = -(d[2][0] - d[0][2]);
    curl[r][5] = -(d[0][1] - d[1][0]);
  }}
}}

// acc[r] = row i of LIFT times the face fluxes of element r of EPT (sf: [EPT][SF_ROW]).
DGMAX_FN void lift_nodes(int i, const real_t (*__restrict__ sf)[SF_ROW], real_t (*__restrict__ acc)[6]) {{
#pragma unroll
  for (int r = 0; r < EPT; ++r)
#pragma unroll
    for (int c = 0; c < 6; ++c) acc[r][c] = 0;
  // LM face nodes per turn (fp32: 2, whose 12 fluxes are three 16-byte loads per element, the same
  // addresses for every lane of an element; fp64: 1, six loads); the sums run over m in order
  enum {{ LM = VW > 1 ? VW / 2 : 1, NV = 6 * LM / VW }};
  static_assert(NFACE_NODES % LM == 0, "whole turns of face nodes");
  for (int m0 = 0; m0 < NFACE_NODES; m0 += LM) {{
    real_t l[LM];
#pragma unroll
    for (int u = 0; u < LM; ++u) l[u] = LIFT_AT(i, m0 + u);
#pragma unroll
    for (int r = 0; r < EPT; ++r)
#pragma unroll
      for (int h = 0; h < NV; ++h) {{
        real_t v[VW];
        load_vec(&sf[r][m0 * 6 + h * VW], v);
#pragma unroll
        for (int u = 0; u < VW; ++u) acc[r][(h * VW + u) % 6] += l[(h * VW + u) / 6] * v[u];
      }}
  }}
}}

#endif  // !MMA

// J at node i of element k at time t (zero without sources).
DGMAX_FN void node_current(const double* __restrict__ vert, int k, int i, double t, real_t* __restrict__ src) {{
#if HAS_CURRENT
  expr_t p[4], jv[3];
  node_position(vert + (long)k * VERT, i, p);
  p[3] = t;
  field_current(p, jv);
#pragma unroll
  for (int c = 0; c < 3; ++c) src[c] = (real_t)jv[c];
#else
#pragma unroll
  for (int c = 0; c < 3; ++c) src[c] = real_t(0);
#endif
}}

// Right-hand side of component c at a node:
//   E: (curl H - LIFT flux_E) / eps - (sigma/eps) E - J/eps;   H: (-curl E + LIFT flux_H) / mu.
DGMAX_FN real_t rhs_component(int c, real_t volume, real_t lifted, const real_t* __restrict__ mk, real_t qc,
                              const real_t* __restrict__ src) {{
  if (c >= 3) return (volume + lifted) * mk[{inv_mu}];
  real_t v = (volume - lifted) * mk[{inv_eps}] - mk[{sigma_eps}] * qc;
#if HAS_CURRENT
  v -= src[c] * mk[{inv_eps}];
#endif
  return v;
}}

#if !MMA
// rhs := full right-hand side at node i of element k, from the volume terms already in rhs and the
// lifted fluxes acc.
DGMAX_FN void finish_rhs(int k, int i, const real_t* __restrict__ acc, const real_t* __restrict__ mat,
                         const real_t* __restrict__ q, const double* __restrict__ vert, double t,
                         real_t* __restrict__ rhs, const int* __restrict__ xslot, const real_t* __restrict__ xsrc, const real_t* __restrict__ xscale) {{
  real_t src[3];
  node_current(vert, k, i, t, src);
  const real_t* mk = mat + (long)k * MAT;
  const real_t* qk = q + (long)k * 6 * NP;
  real_t* rk = rhs + (long)k * 6 * NP;
#pragma unroll
  for (int c = 0; c < 6; ++c)
    rk[c * NP + i] = extra_rhs(k, c, i, rhs_component(c, rk[c * NP + i], acc[c], mk, qk[c * NP + i], src), xslot, xsrc, xscale);
}}

// Lift the block's face fluxes (sf, in shared memory) onto the volume terms in rhs: thread (i, y)
// finishes node i of its EPT elements.
DGMAX_FN void lift_block(int K, int kb, int i, int y, const real_t (*__restrict__ sf)[SF_ROW],
                         const real_t* __restrict__ mat, const real_t* __restrict__ q, const double* __restrict__ vert,
                         double t, real_t* __restrict__ rhs, const int* __restrict__ xslot, const real_t* __restrict__ xsrc, const real_t* __restrict__ xscale) {{
  real_t acc[EPT][6];
  lift_nodes(i, sf + y * EPT, acc);
#pragma unroll
  for (int r = 0; r < EPT; ++r) {{
    const int k = kb + y * EPT + r;
    if (k >= K) break;
    finish_rhs(k, i, acc[r], mat, q, vert, t, rhs, xslot, xsrc, xscale);
  }}
}}

#endif  // !MMA

#if FUSION <= 1
// Volume terms: rhs_E = curl H, rhs_H = -curl E.
extern "C" __global__ void NODE_KERNEL_BOUNDS
dgmax_volume(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo, real_t* __restrict__ rhs) {{
  __shared__ __align__(16) elem_state_t sq[EPB];
#if SHARED_OPS
  __shared__ __align__(16) real_t sops[OPW * NP * NP];
  stage_ops(threadIdx.y * NP + threadIdx.x, sops);
#endif
  const int i = threadIdx.x, y = threadIdx.y, kb = blockIdx.x * EPB;
  stage_state(q, K, kb, y * NP + i, sq);
  __syncthreads();
  real_t curl[EPT][6];
  volume_nodes(i, sq + y * EPT, OPS, geo, K, kb + y * EPT, curl);
#pragma unroll
  for (int r = 0; r < EPT; ++r) {{
    const int k = kb + y * EPT + r;
    if (k >= K) break;
    real_t* rk = rhs + (long)k * 6 * NP;
#pragma unroll
    for (int c = 0; c < 6; ++c) rk[c * NP + i] = curl[r][c];
  }}
}}

#endif

#if FUSION == 0
// Surface: one thread per face node.
extern "C" __global__ void dgmax_surface(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                                         const real_t* __restrict__ mat, const int* __restrict__ etoe,
                                         const int* __restrict__ bc, const int* __restrict__ vmapP,
                                         const double* __restrict__ vert, double t, real_t* __restrict__ flux) {{
  const long n = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= (long)K * NFACE_NODES) return;
  const int k = (int)(n / NFACE_NODES), m = (int)(n % NFACE_NODES);
  face_node_flux(k, m / NFP, m % NFP, q, geo, mat, etoe, bc, vmapP, vert, t, flux + n * 6);
}}

// Lift: the face fluxes of the block's elements (contiguous in flux) staged in shared memory.
extern "C" __global__ void NODE_KERNEL_BOUNDS
dgmax_lift(int K, const real_t* __restrict__ flux, const real_t* __restrict__ mat, const real_t* __restrict__ q,
           const double* __restrict__ vert, double t, real_t* __restrict__ rhs, const int* __restrict__ xslot, const real_t* __restrict__ xsrc, const real_t* __restrict__ xscale) {{
  __shared__ __align__(16) real_t sf[EPB][SF_ROW];
  const int i = threadIdx.x, y = threadIdx.y, tid = y * NP + i, kb = blockIdx.x * EPB;
  {{
    const real_t* fb = flux + (long)kb * NFACE_NODES * 6;
    const int valid = min(EPB, K - kb) * NFACE_NODES * 6;
    for (int n = tid; n < valid; n += NT) sf[n / (NFACE_NODES * 6)][n % (NFACE_NODES * 6)] = fb[n];
  }}
  __syncthreads();
  lift_block(K, kb, i, y, sf, mat, q, vert, t, rhs, xslot, xsrc, xscale);
}}

#endif

#if FUSION == 1
// Surface and lift fused: the face fluxes of the block's elements stay in shared memory instead of
// a round trip through device memory.
extern "C" __global__ void NODE_KERNEL_BOUNDS
dgmax_surface_lift(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                   const real_t* __restrict__ mat, const int* __restrict__ etoe, const int* __restrict__ bc,
                   const int* __restrict__ vmapP, const double* __restrict__ vert, double t,
                   real_t* __restrict__ rhs, const int* __restrict__ xslot, const real_t* __restrict__ xsrc, const real_t* __restrict__ xscale) {{
  __shared__ __align__(16) real_t sf[EPB][SF_ROW];
  const int i = threadIdx.x, y = threadIdx.y, kb = blockIdx.x * EPB;
#if WIDE_FACES
  __shared__ real_t hv[EPB][4][HV_ROW];
#else
  real_t (*hv)[4][HV_ROW] = nullptr;
#endif
  block_fluxes(K, kb, y * NP + i, q, nullptr, geo, mat, etoe, bc, vmapP, vert, t, sf, hv);
  __syncthreads();
  lift_block(K, kb, i, y, sf, mat, q, vert, t, rhs, xslot, xsrc, xscale);
}}

#endif

#if FUSION == 2 && !MMA
// One whole LSERK stage per element block: volume terms, face fluxes (shared memory), lift, then
// res = a·res + dt·rhs and q_out = q_in + b·res. q_in and q_out are different buffers (ping-pong),
// because neighbours read q_in while this block writes its elements' new state. The blocks cover
// elements [k0, K): a partitioned run launches the interior range while face traces travel, then
// the rest (k0 a multiple of EPB, so the blocks are those of one launch over all elements).
extern "C" __global__ void NODE_KERNEL_BOUNDS
dgmax_stage(STAGE_PARAMS) {{
  __shared__ __align__(16) elem_state_t sq[EPB];
  __shared__ __align__(16) real_t sf[EPB][SF_ROW];
  const int i = threadIdx.x, y = threadIdx.y, tid = y * NP + i, kb = k0 + blockIdx.x * EPB;
#if HAS_CURRENT
  // J first, while few registers are live, parked in shared memory until the update: evaluated
  // after the volume and lift terms it raised register use past the occupancy step (bench/NOTES.md)
  __shared__ real_t sj[EPB][3][NP];
#pragma unroll
  for (int r = 0; r < EPT; ++r) {{
    const int e = y * EPT + r, k = kb + e;
    if (k < K) {{
      real_t j3[3];
      node_current(vert, k, i, t, j3);
      for (int c = 0; c < 3; ++c) sj[e][c][i] = j3[c];
    }}
  }}
#endif
#if SHARED_OPS
  __shared__ __align__(16) real_t sops[OPW * NP * NP];
  stage_ops(tid, sops);
#endif
  // the state and res (for the update at the end) are copied while the block computes its fluxes,
  // volume and lift terms: waiting for them where they are used left most of the stage's time to
  // device-memory latency (bench/NOTES.md)
  __shared__ __align__(16) real_t sres[EPB][6][NP];
  stage_state_async(q, K, kb, tid, sq);
  stage_res_async(res, K, kb, tid, y, sres);
#if WIDE_FACES
  __shared__ real_t hv[EPB][4][HV_ROW];
#else
  real_t (*hv)[4][HV_ROW] = nullptr;
#endif
  real_t curl[EPT][6], acc[EPT][6];
  block_fluxes(K, kb, tid, q, sq, geo, mat, etoe, bc, vmapP, vert, t, sf, hv);
  if constexpr (TRACE_STAGED) {{
    // the state arrived inside block_fluxes; the volume terms before the barrier on the fluxes
    volume_nodes(i, sq + y * EPT, OPS, geo, K, kb + y * EPT, curl);
    __syncthreads();
  }} else {{
    copy_async_wait<1>();  // the state
    __syncthreads();
    volume_nodes(i, sq + y * EPT, OPS, geo, K, kb + y * EPT, curl);
  }}
  lift_nodes(i, sf + y * EPT, acc);
  copy_async_wait<0>();  // res
  if (WIDE_RES) __syncthreads();  // copied by the block, not by each thread for itself
#pragma unroll
  for (int r = 0; r < EPT; ++r) {{
    const int e = y * EPT + r, k = kb + e;
    if (k >= K) break;
    real_t src[3];
#if HAS_CURRENT
    for (int c = 0; c < 3; ++c) src[c] = sj[e][c][i];
#else
    for (int c = 0; c < 3; ++c) src[c] = real_t(0);
#endif
    const real_t* mk = mat + (long)k * MAT;
    const int slot = element_slot(k, xslot);
    const real_t* cf = element_pml_coef(slot, pml_slots, pcoef);
#pragma unroll
    for (int c = 0; c < 6; ++c) {{
      const real_t qc = SQ_AT(sq[e], c, i);
      const real_t rc = stage_extra(slot, cf, c, i, qc, rhs_component(c, curl[r][c], acc[r][c], mk, qc, src), xsrc,
                                     xscale, psi, psi_res, pml_slots, a, b, dt);
      const long idx = ((long)k * 6 + c) * NP + i;
      const real_t rs = a * sres[e][c][i] + dt * rc;
      res[idx] = rs;
      q_out[idx] = qc + b * rs;
    }}
  }}
}}
#endif

#if FUSION == 2 && MMA
// The stage on tensor cores. Per block of EPB elements, one GEMM gives every right-hand side before
// the material factors: out[NP][6 EPB] = [Dr Ds Dt LIFT] x B, where B's rows are
//   m*NPK + j (m = 0..2): node j's state weighted for the curl. The metric is constant per element
//       and d/dx_x = sum_m g[3m+x] D_m, so curl H_x = sum_m D_m (g[3m+1] Hz - g[3m+2] Hy), and so on;
//   3*NPK + f: face node f's flux times Fscale, negated for E (E: curl H - lift, H: -curl E + lift);
// and column e*6 + c is field c of element e. fp64: DMMA m8n8k4, 8 output rows per warp (MMA_WIDE:
// m16n8k4, 16 rows per warp, the same B fragments; fp32 with MMA_WIDE: the same in fp64, B
// converted when staged). fp32:
// TF32 m16n8k8, 16 rows per warp, each operand split into TF32 high and low parts and the product
// taken as lo*hi + hi*lo + hi*hi (fp32-level accuracy; the TF32 product alone would keep 10 bits).
// B is staged in shared memory all at once, or one chunk at a time (MMA_CHUNKED: the rows of one
// operator, then the fluxes; MMA_NB: the fluxes first, from the neighbours' traces copied
// asynchronously into the chunk while the state arrives). Warp w computes output rows
// MROWS*w .. MROWS*w + MROWS-1 (all columns; with WPT = 2, plan option H, warps 2m and 2m+1 share
// tile m's rows and take half of the column tiles each); each lane then finishes the values it holds.
#define MMA_CHUNKED {chunked}
#define MMA_STAGED {staged}
#define MMA_WIDE {wide}
#define MMA_NB {nb}
#define MMA_WG {wg}
#define MMA_E {e}
enum {{ MT = {mt}, KS = {ks}, NTL = {ntl}, NPK = {npk}, NFK = {nfk}, MROWS = {mrows}, KSTEP = {kstep},
        B_ROWS = MMA_CHUNKED ? {chunk_rows} : 3 * NPK + NFK }};
// warps per row tile (2 with plan option H) and the column tiles each of them multiplies
enum {{ WPT = {wpt}, NTW = NTL / WPT }};
static_assert(NTL % WPT == 0, "the column tiles split evenly between a row tile's warps");
// This warp's row tile and the first of its column tiles.
DGMAX_FN int warp_row_tile(int warp) {{ return warp / WPT; }}
DGMAX_FN int warp_first_column_tile(int warp) {{ return warp % WPT * NTW; }}
// B in shared memory: each fragment register row of 32 entries (a warp's load) is followed by BPAD
// unused entries, so that the staging stores (consecutive nodes land 4 rows apart in the fragment
// order) spread over the banks (mma_shape in cuda_plan.cpp picks BPAD with a model of them).
enum {{ BPAD = {bpad}, BREG = 32 + BPAD }};

#if SINGLE && !MMA_WIDE
typedef float acc_t;
enum {{ NACC = 4, BW = 2 }};  // accumulators per lane and tile; words per B entry (TF32 hi, lo)
#if !MMA_WG
// Where B[r][col] of a chunk lives: in the m16n8k8 B fragment of tile (r/8, col/8), register r%8/4,
// lane (col%8)*4 + r%4; a warp reads each fragment register as 32 consecutive float2 (hi, lo).
DGMAX_FN int bslot(int r, int col) {{
  const int s = ((r >> 3) * NTL + (col >> 3)) * 64 + ((r >> 2) & 1) * 32 + (col & 7) * 4 + (r & 3);
  return s + (s >> 5) * BPAD;
}}
#endif
// x rounded to TF32 (10 mantissa bits, ties away from zero) by integer arithmetic, as the host
// rounds A (tf32_round): the bits of cvt.rna.tf32.f32 for every finite |x| < 3e38, in fewer
// instructions than cvt's 5 on sm_90 (bench/NOTES.md, tenth session). to_tf32_hi passes NaN, Inf and
// |x| >= 3e38 through unchanged (the integer rounding would carry a NaN's payload into the sign:
// 0x7fffffff gives -0), so a non-finite state stays non-finite in the products; the tensor cores
// read the top 19 bits of what passes. to_tf32 serves the low part, finite whenever the high part is.
DGMAX_FN unsigned to_tf32(float x) {{ return (__float_as_uint(x) + 0x1000u) & 0xffffe000u; }}
DGMAX_FN unsigned to_tf32_hi(float x) {{ return fabsf(x) < 3.0e38f ? to_tf32(x) : __float_as_uint(x); }}
#if MMA_WG
// The shared-memory matrix descriptor of a k step's tile at p: start address, leading (k) byte
// offset 128, stride (column) byte offset 256, no swizzle; each field in units of 16 bytes.
DGMAX_FN unsigned long long b_desc(const real_t* p) {{
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  return (unsigned long long)((a & 0x3FFFF) >> 4) | (8ull << 16) | (16ull << 32);
}}
{wgmma_fn}
#if !MMA_E  // (E plans: cuda_stage_rows.cpp)
// Warpgroup MMAs (plan option X, sm_90a): warps 4g .. 4g+3 multiply row tiles 4g .. 4g+3 (64 rows)
// by all NTL column tiles in one wgmma per k step and part (lo*hi + hi*lo + hi*hi). B in shared
// memory as wgmma reads it: per k step of 8 rows a tile of NTL*64 words, core matrices of 8
// columns x 4 rows (16 bytes per column, 128 bytes each; along k 128 bytes apart, along the
// columns 256); the TF32 high parts, then (B_LO words on) the low parts.
enum {{ B_LO = B_ROWS * NTL * 8 }};
DGMAX_FN int bslot(int r, int col) {{
  return (r >> 3) * (NTL * 64) + ((r >> 2) & 1) * 32 + (col >> 3) * 64 + (col & 7) * 4 + (r & 3);
}}
DGMAX_FN void store_b(real_t* __restrict__ chunk, int slot, float x) {{
  const unsigned hi = to_tf32_hi(x);
  chunk[slot] = __uint_as_float(hi);
  chunk[slot + B_LO] = __uint_as_float(to_tf32(x - __uint_as_float(hi)));
}}
// The warp's A fragments of one chunk (high and low parts, up to KS_CHUNK k steps) in registers:
// loaded before the chunk's B is staged, so that their trip from L2 overlaps the staging, and
// never overwritten while a wgmma may still read them.
enum {{ KS_CHUNK = (MMA_CHUNKED ? (NPK > NFK ? NPK : NFK) : B_ROWS) / KSTEP }};
struct a_regs_t {{ float4 hi[KS_CHUNK], lo[KS_CHUNK]; }};
DGMAX_FN void load_a(int k0, int steps, int warp, int lane, a_regs_t& a) {{
  const float4* ah = reinterpret_cast<const float4*>(&Afrag_hi[0][0]) + ((long)warp * KS + k0) * 32 + lane;
  const float4* al = reinterpret_cast<const float4*>(&Afrag_lo[0][0]) + ((long)warp * KS + k0) * 32 + lane;
#pragma unroll
  for (int ks = 0; ks < KS_CHUNK; ++ks)
    if (ks < steps) a.hi[ks] = ah[ks * 32], a.lo[ks] = al[ks * 32];
}}
// acc += the fragments a (steps k steps) x the staged chunk bf, as the warpgroup's wgmmas
// (committed and waited for before returning: B may then be overwritten).
DGMAX_FN void gemm_loaded(int steps, const a_regs_t& a, const real_t* __restrict__ bf, int, int,
                          float (*__restrict__ acc)[4]) {{
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int ks = 0; ks < KS_CHUNK; ++ks) {{
    if (ks >= steps) break;
    const float4 h = a.hi[ks], l = a.lo[ks];
    const unsigned ahi[4] = {{__float_as_uint(h.x), __float_as_uint(h.y), __float_as_uint(h.z), __float_as_uint(h.w)}};
    const unsigned alo[4] = {{__float_as_uint(l.x), __float_as_uint(l.y), __float_as_uint(l.z), __float_as_uint(l.w)}};
    const real_t* bk = bf + ks * (NTL * 64);
    wgmma_tf32(&acc[0][0], alo, b_desc(bk));  // small terms first
    wgmma_tf32(&acc[0][0], ahi, b_desc(bk + B_LO));
    wgmma_tf32(&acc[0][0], ahi, b_desc(bk));
  }}
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}}
// acc += the warp's A fragments for k steps k0 .. k0+steps-1 x the staged chunk (steps <= KS_CHUNK).
DGMAX_FN void gemm_chunk(int k0, int steps, const real_t* __restrict__ bf, int warp, int lane, float (*__restrict__ acc)[4]) {{
  a_regs_t a;
  load_a(k0, steps, warp, lane, a);
  gemm_loaded(steps, a, bf, warp, lane, acc);
}}
#else
// E plans (cuda_stage_rows.cpp): stage_flux_rows writes the fluxes as A's rows, A_flux[row = 6e + c][f]
// at row * SA + f in fp32 (split when the lanes load their fragments). SA is 4 times an odd number:
// the 8 rows of a fragment load fall in different banks.
enum {{ SA = NFK + 4 }};
DGMAX_FN int bslot(int f, int row) {{ return row * SA + f; }}
DGMAX_FN void store_b(real_t* __restrict__ sa, int slot, float x) {{ sa[slot] = x; }}
#endif  // !MMA_E
#else
DGMAX_FN void store_b(real_t* __restrict__ chunk, int slot, float x) {{
  const unsigned hi = to_tf32_hi(x);
  reinterpret_cast<float2*>(chunk)[slot] = make_float2(__uint_as_float(hi), __uint_as_float(to_tf32(x - __uint_as_float(hi))));
}}
// c += a x b for one 16x8 output tile and k = 8 (this lane's TF32 fragments).
DGMAX_FN void mma_16x8x8(const unsigned* a, unsigned b0, unsigned b1, float* c) {{
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{%0, %1, %2, %3}}, {{%4, %5, %6, %7}}, {{%8, %9}}, "
               "{{%0, %1, %2, %3}};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}}
// acc += the warp's A fragments for k steps k0 .. k0+steps-1 x the staged chunk.
DGMAX_FN void gemm_chunk(int k0, int steps, const real_t* __restrict__ bf, int warp, int lane, acc_t (*__restrict__ acc)[NACC]) {{
  const float4* ah = reinterpret_cast<const float4*>(&Afrag_hi[0][0]) + ((long)warp_row_tile(warp) * KS + k0) * 32 + lane;
  const float4* al = reinterpret_cast<const float4*>(&Afrag_lo[0][0]) + ((long)warp_row_tile(warp) * KS + k0) * 32 + lane;
  const float2* b = reinterpret_cast<const float2*>(bf) + warp_first_column_tile(warp) * 2 * BREG + lane;
#pragma unroll 2
  for (int ks = 0; ks < steps; ++ks) {{
    const float4 h = ah[ks * 32], l = al[ks * 32];
    const unsigned ahi[4] = {{__float_as_uint(h.x), __float_as_uint(h.y), __float_as_uint(h.z), __float_as_uint(h.w)}};
    const unsigned alo[4] = {{__float_as_uint(l.x), __float_as_uint(l.y), __float_as_uint(l.z), __float_as_uint(l.w)}};
#pragma unroll
    for (int nt = 0; nt < NTW; ++nt) {{
      const float2 b0 = b[(ks * NTL + nt) * 2 * BREG], b1 = b[((ks * NTL + nt) * 2 + 1) * BREG];
      mma_16x8x8(alo, __float_as_uint(b0.x), __float_as_uint(b1.x), acc[nt]);  // small terms first
      mma_16x8x8(ahi, __float_as_uint(b0.y), __float_as_uint(b1.y), acc[nt]);
      mma_16x8x8(ahi, __float_as_uint(b0.x), __float_as_uint(b1.x), acc[nt]);
    }}
  }}
}}
#endif  // MMA_WG
#else
// fp64 tensor cores (DMMA), also for fp32 data with MMA_WIDE: B entries and products in fp64.
typedef double acc_t;
enum {{ NACC = MMA_WIDE ? 4 : 2, BW = sizeof(double) / sizeof(real_t) }};
// Where B[r][col] of a chunk lives: in the m8n8k4 / m16n8k4 B fragment of tile (r/4, col/8), lane
// (col%8)*4 + r%4, so that a warp reads a fragment as 32 consecutive words (no bank conflicts).
DGMAX_FN int bslot(int r, int col) {{
  const int s = ((r >> 2) * NTL + (col >> 3)) * 32 + (col & 7) * 4 + (r & 3);
  return s + (s >> 5) * BPAD;
}}
DGMAX_FN void store_b(real_t* __restrict__ chunk, int slot, real_t x) {{ reinterpret_cast<double*>(chunk)[slot] = x; }}
#if MMA_WIDE
// c += A x B for one 16x8 output tile and k = 4 (this lane's fragments: rows g and g + 8 of A).
DGMAX_FN void mma_16x8x4(double a0, double a1, double b, double* c) {{
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {{%0, %1, %2, %3}}, {{%4, %5}}, {{%6}}, {{%0, %1, %2, %3}};\n"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(a0), "d"(a1), "d"(b));
}}
// acc += the warp's A fragments for k steps k0 .. k0+steps-1 x the staged chunk.
DGMAX_FN void gemm_chunk(int k0, int steps, const real_t* __restrict__ bf, int warp, int lane, acc_t (*__restrict__ acc)[NACC]) {{
  const double2* af = reinterpret_cast<const double2*>(&Afrag[0][0]) + ((long)warp_row_tile(warp) * KS + k0) * 32 + lane;
#pragma unroll 4
  for (int ks = 0; ks < steps; ++ks) {{
    const double2 av = af[ks * 32];
    const double* bk = reinterpret_cast<const double*>(bf) + (ks * NTL + warp_first_column_tile(warp)) * BREG + lane;
#pragma unroll
    for (int nt = 0; nt < NTW; ++nt) mma_16x8x4(av.x, av.y, bk[nt * BREG], acc[nt]);
  }}
}}
#else
// (c0, c1) += A x B for one 8x8 output tile and k = 4 (this lane's fragments; fp64 DMMA).
DGMAX_FN void mma_8x8x4(double a, double b, double& c0, double& c1) {{
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {{%0, %1}}, {{%2}}, {{%3}}, {{%0, %1}};\n"
               : "+d"(c0), "+d"(c1)
               : "d"(a), "d"(b));
}}
// acc += the warp's A fragments for k steps k0 .. k0+steps-1 x the staged chunk.
DGMAX_FN void gemm_chunk(int k0, int steps, const real_t* __restrict__ bf, int warp, int lane, acc_t (*__restrict__ acc)[NACC]) {{
  const real_t* af = &Afrag[0][0] + ((long)warp_row_tile(warp) * KS + k0) * 32 + lane;
#pragma unroll 4
  for (int ks = 0; ks < steps; ++ks) {{
    const double av = af[ks * 32];
    const real_t* bk = bf + (ks * NTL + warp_first_column_tile(warp)) * BREG + lane;
#pragma unroll
    for (int nt = 0; nt < NTW; ++nt) mma_8x8x4(av, bk[nt * BREG], acc[nt][0], acc[nt][1]);
  }}
}}
#endif  // MMA_WIDE
#endif
#if !MMA_WG
// Without X the A fragments are loaded inside gemm_chunk: load_a only notes the chunk's first k step.
struct a_regs_t {{ int k0; }};
DGMAX_FN void load_a(int k0, int, int, int, a_regs_t& a) {{ a.k0 = k0; }}
DGMAX_FN void gemm_loaded(int steps, const a_regs_t& a, const real_t* __restrict__ bf, int warp, int lane,
                          acc_t (*__restrict__ acc)[NACC]) {{
  gemm_chunk(a.k0, steps, bf, warp, lane, acc);
}}
#endif

// Accumulator h of this warp's column tile nt of this lane: out[i][col] with i = MROWS*(row tile)
// + lane/4 (+ 8 for h >= 2) and col = 8 (first column tile + nt) + 2 (lane%4) + h%2, that is node
// i, field c of element e of the block.
DGMAX_FN void lane_output(int nt, int h, int warp, int lane, int& i, int& e, int& c) {{
  i = warp_row_tile(warp) * MROWS + (lane >> 2) + (h >> 1) * 8;
  const int col = (warp_first_column_tile(warp) + nt) * 8 + (lane & 3) * 2 + (h & 1);
  e = col / 6;
  c = col - 6 * e;
}}

// b_staging_item: item n of a staging loop over EPB elements x `rows` rows, element e and row r;
// b_rows: the first word of B's chunk that starts at row `rows` (a multiple of KSTEP: whole
// registers); b_end: past B; b_ready: B's staged rows complete and visible to the block's MMAs.
#if MMA_WG && !MMA_E
// X plans take the elements fastest: a warp's stores then spread over the columns (otherwise its
// 32 consecutive rows land in 4 banks of wgmma's layout: 8-way conflicts).
DGMAX_FN void b_staging_item(int n, int rows, int& e, int& r) {{ (void)rows; r = n / EPB; e = n - r * EPB; }}
DGMAX_FN real_t* b_rows(real_t* bf, int rows) {{ return bf + (long)rows * NTL * 8; }}
DGMAX_FN real_t* b_end(real_t* bf) {{ return bf + 2 * B_LO; }}  // high and low parts
// wgmma reads shared memory through the async proxy, which the block's ordinary stores reach only
// after a proxy fence.
DGMAX_FN void b_ready() {{
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}}
#else
DGMAX_FN void b_staging_item(int n, int rows, int& e, int& r) {{ e = n / rows; r = n - e * rows; }}
DGMAX_FN real_t* b_rows(real_t* bf, int rows) {{ return bf + (long)rows * NTL * 8 / 32 * BREG * BW; }}
DGMAX_FN real_t* b_end(real_t* bf) {{ return b_rows(bf, B_ROWS); }}
DGMAX_FN void b_ready() {{ __syncthreads(); }}
#endif

// What the stage reads of a group's elements besides their states, staged with them (A plans):
// geometry records, neighbours across each face and the neighbours' face nodes.
struct group_faces_t {{
  real_t geo[EPB][GEO];
  int etoe[EPB][4];
  int vmapP[EPB][NFACE_NODES];
}};

// B rows m*NPK + j for the operators m0 <= m < m1 (chunk m - m0 at b_rows(bf, (m - m0) * NPK)):
// node j's curl-weighted state, zero past NP and past K. qb: the block's states [EPB][6][NP] (in
// device memory, or staged in shared memory).
// gb: the block's geometry records [EPB][GEO] (staged), or null: read from geo in device memory.
DGMAX_FN void stage_curl_rows(int K, int kb, int tid, const real_t* __restrict__ qb, const real_t* __restrict__ geo,
                              const real_t* __restrict__ gb, int m0, int m1, real_t* __restrict__ bf) {{
  for (int n = tid; n < EPB * NPK; n += NT) {{
    int e, j;
    b_staging_item(n, NPK, e, j);
    const int k = kb + e;
    const bool live = k < K && j < NP;
    real_t v[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) v[c] = live ? qb[(e * 6 + c) * NP + j] : real_t(0);
    for (int m = m0; m < m1; ++m) {{
      const real_t* gk = (gb ? gb + e * GEO : geo + (long)min(k, K - 1) * GEO) + 3 * m;  // (d r_m/dx, d r_m/dy, d r_m/dz)
      const real_t gx = gk[0], gy = gk[1], gz = gk[2];
      const real_t w[6] = {{gy * v[5] - gz * v[4], gz * v[3] - gx * v[5], gx * v[4] - gy * v[3],   // curl H
                           gz * v[1] - gy * v[2], gx * v[2] - gz * v[0], gy * v[0] - gx * v[1]}};  // -curl E
      real_t* chunk = b_rows(bf, (m - m0) * NPK);
#pragma unroll
      for (int c = 0; c < 6; ++c) store_b(chunk, bslot(j, e * 6 + c), w[c]);
    }}
  }}
}}

// B rows 3*NPK + f (a chunk of their own at bf): face node f's flux, negated for E; zero rows up to NFK.
// qb, gf: the block's staged states and face data (A plans), or null: read from device memory.
DGMAX_FN void stage_flux_rows(int K, int kb, int tid, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                              const real_t* __restrict__ mat, const int* __restrict__ etoe, const int* __restrict__ bc,
                              const int* __restrict__ vmapP, const double* __restrict__ vert, double t,
                              const real_t* __restrict__ qb, const group_faces_t* __restrict__ gf,
                              real_t* __restrict__ bf) {{
  for (int n = tid; n < EPB * NFK; n += NT) {{
    int e, f;
    b_staging_item(n, NFK, e, f);
    const int k = kb + e;
    real_t fl[6] = {{0, 0, 0, 0, 0, 0}};
    if (k < K && f < NFACE_NODES) {{
      if (gf) {{
        const int kP = gf->etoe[e][f / NFP];
        face_node_flux_at(k, f / NFP, f % NFP, qb + e * 6 * NP, gf->geo[e], kP, kP >= 0 ? gf->vmapP[e][f] : 0, q, mat,
                          bc, vert, t, fl);
      }} else {{
        face_node_flux(k, f / NFP, f % NFP, q, geo, mat, etoe, bc, vmapP, vert, t, fl);
      }}
    }}
#pragma unroll
    for (int c = 0; c < 6; ++c) store_b(bf, bslot(f, e * 6 + c), c < 3 ? -fl[c] : fl[c]);
  }}
}}

#if MMA_NB || MMA_E
// The neighbours' traces of the group's face nodes into nb [EPB][NFACE_NODES][6] (B's flux chunk,
// free until the fluxes are staged) as one asynchronous copy group; gf must have arrived.
DGMAX_FN void prefetch_neighbours(int K, int kb, int tid, const real_t* __restrict__ q,
                                  const group_faces_t* __restrict__ gf, real_t* __restrict__ nb) {{
  for (int n = tid; n < EPB * NFACE_NODES; n += GT) {{
    const int e = n / NFACE_NODES, f = n - e * NFACE_NODES;
    if (kb + e >= K || gf->etoe[e][f / NFP] < 0) continue;
    const int nP = gf->vmapP[e][f];
    const real_t* qp = q + (long)(nP / NP) * 6 * NP + nP % NP;
#pragma unroll
    for (int c = 0; c < 6; ++c) copy_async(nb + n * 6 + c, qp + c * NP);
  }}
  copy_async_commit();
}}

// The words of B's flux rows (E: of the staged fluxes), where the neighbours' traces wait.
#if MMA_E
enum {{ FLUX_WORDS = 6 * EPB * SA }};
#else
enum {{ FLUX_WORDS = NFK * NTL * 8 }};
#endif

// B's flux rows at bf from the staged states (qb), face data (gf) and the neighbours' traces (in
// bf, prefetch_neighbours): the fluxes wait in registers until every trace has been read (a
// barrier inside: call with all the group's threads).
DGMAX_FN void stage_flux_rows_nb(int K, int kb, int tid, const real_t* __restrict__ mat, const int* __restrict__ bc,
                                 const double* __restrict__ vert, double t, const real_t* __restrict__ qb,
                                 const group_faces_t* __restrict__ gf, real_t* __restrict__ bf) {{
  enum {{ NFI = (EPB * NFK + GT - 1) / GT }};
  static_assert(EPB * NFACE_NODES * 6 <= FLUX_WORDS, "the traces fit in B's flux rows");
  real_t fl[NFI][6];
#pragma unroll
  for (int u = 0; u < NFI; ++u) {{
    const int n = tid + u * GT;
    int e, f;
    b_staging_item(n, NFK, e, f);
    const int k = kb + e;
#pragma unroll
    for (int c = 0; c < 6; ++c) fl[u][c] = real_t(0);
    if (n < EPB * NFK && k < K && f < NFACE_NODES)
      face_node_flux_from(k, f / NFP, f % NFP, qb + e * 6 * NP, gf->geo[e], gf->etoe[e][f / NFP],
                          bf + (e * NFACE_NODES + f) * 6, 1, mat, bc, vert, t, fl[u]);
  }}
  group_sync();  // every trace is read before the fluxes overwrite them
#pragma unroll
  for (int u = 0; u < NFI; ++u) {{
    const int n = tid + u * GT;
    int e, f;
    b_staging_item(n, NFK, e, f);
    if (n < EPB * NFK)
#pragma unroll
      for (int c = 0; c < 6; ++c) store_b(bf, bslot(f, e * 6 + c), c < 3 ? -fl[u][c] : fl[u][c]);
  }}
}}
#endif

// n words of a block's contiguous data (both ends 16-byte aligned) into shared memory: 16-byte
// copies past L1, the tail word by word, zeros from n up to EPB * 6 * NP.
DGMAX_FN void copy_block_async(real_t* __restrict__ dst, const real_t* __restrict__ src, int n, int tid) {{
  enum {{ V = 16 / sizeof(real_t) }};
  const int nv = n / V;
  for (int v = tid; v < nv; v += GT) copy_async16(dst + v * V, src + v * V);
  for (int w = nv * V + tid; w < EPB * 6 * NP; w += GT) {{
    if (w < n) copy_async(dst + w, src + w);
    else dst[w] = real_t(0);
  }}
}}

// The res entries of the group of EPB elements from kb into sqr[1] (asynchronous; the caller commits).
DGMAX_FN void copy_group_res(int K, int kb, int tid, const real_t* __restrict__ res, real_t (*__restrict__ sqr)[EPB][6][NP]) {{
  copy_block_async(&sqr[1][0][0][0], res + (long)kb * 6 * NP, min(EPB, K - kb) * 6 * NP, tid);
}}

// The face data of the group of EPB elements from kb into gf (asynchronous; the caller commits):
// zero geometry past K.
DGMAX_FN void copy_group_faces(int K, int kb, int tid, const real_t* __restrict__ geo, const int* __restrict__ etoe,
                               const int* __restrict__ vmapP, group_faces_t* __restrict__ gf) {{
  const int live = min(EPB, K - kb);
  for (int n = tid; n < EPB * GEO; n += GT) {{
    if (n < live * GEO) copy_async(&gf->geo[0][0] + n, geo + (long)kb * GEO + n);
    else (&gf->geo[0][0])[n] = real_t(0);
  }}
  for (int n = tid; n < live * 4; n += GT) copy_async(&gf->etoe[0][0] + n, etoe + (long)kb * 4 + n);
  for (int n = tid; n < live * NFACE_NODES; n += GT) copy_async(&gf->vmapP[0][0] + n, vmapP + (long)kb * NFACE_NODES + n);
}}

// The group of EPB elements from kb: its states into sqr[0] and its res entries into sqr[1]
// ([EPB][6][NP] each, contiguous in device memory too), as two asynchronous copy groups, the
// first with the group's face data.
DGMAX_FN void prefetch_group(int K, int kb, int tid, const real_t* __restrict__ q, const real_t* __restrict__ res,
                             const real_t* __restrict__ geo, const int* __restrict__ etoe,
                             const int* __restrict__ vmapP, real_t (*__restrict__ sqr)[EPB][6][NP],
                             group_faces_t* __restrict__ gf) {{
  const long first = (long)kb * 6 * NP;
  const int valid = min(EPB, K - kb) * 6 * NP;
#if !MMA_NB
  copy_block_async(&sqr[0][0][0][0], q + first, valid, tid);
#endif
  copy_group_faces(K, kb, tid, geo, etoe, vmapP, gf);
  copy_async_commit();
#if MMA_NB
  copy_block_async(&sqr[0][0][0][0], q + first, valid, tid);  // after the face data: see stage_group
#else
  copy_group_res(K, kb, tid, res, sqr);
#endif
  copy_async_commit();
}}

#if HAS_CURRENT
// J at the nodes of the group of EPB elements from kb into sj [EPB][3][NP] (zero past K).
DGMAX_FN void stage_group_current(int K, int kb, int tid, const double* __restrict__ vert, double t,
                                  real_t (*__restrict__ sj)[3][NP]) {{
  for (int n = tid; n < EPB * NP; n += GT) {{
    const int e = n / NP, j = n - e * NP, k = kb + e;
    real_t j3[3] = {{0, 0, 0}};
    if (k < K) node_current(vert, k, j, t, j3);
    for (int c = 0; c < 3; ++c) sj[e][c][j] = j3[c];
  }}
}}
#endif

#if PML_IN_STAGE
// The layer's elements of the group from kb advance psi, one node per thread and all six components
// (in the epilogues the lanes of a warp hold different components, whose damped axes differ), and
// park the source of component c at node j of element e in sx[(e * 6 + c) * stride + j] (what sx
// held is consumed: a barrier before and after, so call it with all the group's threads).
DGMAX_FN void advance_group_layer(int K, int kb, int tid, const real_t* __restrict__ q, const int* __restrict__ xslot,
                                  real_t* __restrict__ psi, real_t* __restrict__ psi_res,
                                  const real_t* __restrict__ pcoef, int pml_slots, real_t a, real_t b, real_t dt,
                                  int stride, real_t* __restrict__ sx) {{
  group_sync();
  for (int n = tid; n < EPB * NP; n += GT) {{
    const int e = n / NP, j = n - e * NP, k = kb + e;
    const int slot = k < K ? element_slot(k, xslot) : -1;
    if (slot < 0 || slot >= pml_slots) continue;
    const real_t* cf = pcoef + (long)slot * PML_COEF;
#pragma unroll
    for (int c = 0; c < 6; ++c)
      sx[(e * 6 + c) * stride + j] = pml_advance(slot, cf, c, j, q[((long)k * 6 + c) * NP + j], psi, psi_res, a, b, dt);
  }}
  group_sync();
}}
#endif

// J's component c at node i of group element e (staged in sj), zero for H and without a current.
DGMAX_FN real_t current_at(const real_t (*__restrict__ sj)[3][NP], int e, int c, int i) {{
#if HAS_CURRENT
  return c < 3 ? sj[e][c][i] : real_t(0);
#else
  (void)sj, (void)e, (void)c, (void)i;
  return real_t(0);
#endif
}}

// The end of the stage for component c at node i of element k: the right-hand side from the
// GEMM's value v (volume and lifted terms), the material (mk: the element's record), J's component jc, then the layer (its
// source parked at *sxp, PML_IN_STAGE) or an extra source; then res = a res + dt rhs (r0: res on
// entry) and q_out = q + b res (qc: q).
DGMAX_FN void finish_value(int k, int c, int i, real_t v, real_t qc, real_t r0, real_t jc,
                           const real_t* __restrict__ sxp, const real_t* __restrict__ mk,
                           const int* __restrict__ xslot, const real_t* __restrict__ xsrc,
                           const real_t* __restrict__ xscale, const real_t* __restrict__ pcoef, int pml_slots,
                           real_t a, real_t b, real_t dt, real_t* __restrict__ res, real_t* __restrict__ q_out) {{
  const real_t src[3] = {{jc, jc, jc}};  // rhs_component reads src[c] only
  real_t rc = rhs_component(c, v, real_t(0), mk, qc, src);
  const int slot = element_slot(k, xslot);
#if PML_IN_STAGE
  if (slot >= 0 && slot < pml_slots)
    rc = rc * pcoef[(long)slot * PML_COEF + PML_SCALE + c % 3] + *sxp;
  else
#else
  (void)sxp, (void)pcoef, (void)pml_slots;
#endif
    rc = extra_rhs_slot(slot, c, i, rc, xsrc, xscale);
  const long idx = ((long)k * 6 + c) * NP + i;
  const real_t rs = a * r0 + dt * rc;
  res[idx] = rs;
  q_out[idx] = qc + b * rs;
}}

#if MMA_E
{rows_section}
#else
// One group of EPB elements from kb: J, B staged and multiplied (by chunks or at once), the layer,
// the update. With staging, sqr holds the group's states and res entries (prefetch_group).
DGMAX_FN void stage_group(int K, int kb, int tid, int warp, int lane, const real_t* __restrict__ q,
                          const real_t* __restrict__ geo, const real_t* __restrict__ mat, const int* __restrict__ etoe,
                          const int* __restrict__ bc, const int* __restrict__ vmapP, const double* __restrict__ vert,
                          double t, real_t* __restrict__ res, real_t* __restrict__ q_out, real_t a, real_t b, real_t dt,
                          const int* __restrict__ xslot, const real_t* __restrict__ xsrc,
                          const real_t* __restrict__ xscale, real_t* __restrict__ psi, real_t* __restrict__ psi_res,
                          const real_t* __restrict__ pcoef, int pml_slots, real_t* __restrict__ bf,
                          real_t (*__restrict__ sqr)[EPB][6][NP], const group_faces_t* __restrict__ gf,
                          real_t* __restrict__ after_b) {{
#if MMA_STAGED
  const real_t* qb = &sqr[0][0][0][0];
  const real_t* gb = &gf->geo[0][0];
#else
  const real_t* qb = q + (long)kb * 6 * NP;
  const real_t* gb = nullptr;
  gf = nullptr;
#endif
#if MMA_NB
  // As soon as the face data are in, the neighbours' traces follow the state (then res): they
  // arrive while the state does, instead of being waited for after the operators' chunks.
  copy_async_wait<1>();
  __syncthreads();
  prefetch_neighbours(K, kb, tid, q, gf, bf);  // G plans are chunked: B holds one chunk
  copy_group_res(K, kb, tid, res, sqr);
  copy_async_commit();
#endif
  real_t (*sj)[3][NP] = reinterpret_cast<real_t (*)[3][NP]>(after_b);  // J: [EPB][3][NP]
#if HAS_CURRENT
  stage_group_current(K, kb, tid, vert, t, sj);
#endif
  acc_t acc[NTW][NACC];
#pragma unroll
  for (int nt = 0; nt < NTW; ++nt)
#pragma unroll
    for (int h = 0; h < NACC; ++h) acc[nt][h] = 0;
#if MMA_STAGED
  copy_async_wait<1>();  // the states (MMA_NB: and the neighbours' traces)
  __syncthreads();
#endif
#if MMA_NB  // (G plans are chunked)
  // the fluxes first (their inputs are in), then the operators' chunks
  stage_flux_rows_nb(K, kb, tid, mat, bc, vert, t, qb, gf, bf);
  b_ready();
  gemm_chunk(3 * (NPK / KSTEP), NFK / KSTEP, bf, warp, lane, acc);
  for (int m = 0; m < 3; ++m) {{
    __syncthreads();  // the previous chunk is consumed
    stage_curl_rows(K, kb, tid, qb, geo, gb, m, m + 1, bf);
    b_ready();
    gemm_chunk(m * (NPK / KSTEP), NPK / KSTEP, bf, warp, lane, acc);
  }}
#elif MMA_CHUNKED
  // each chunk's A fragments requested before its B is staged (X plans; the others load them in
  // gemm_chunk)
  for (int m = 0; m < 3; ++m) {{
    a_regs_t a;
    load_a(m * (NPK / KSTEP), NPK / KSTEP, warp, lane, a);
    if (m > 0) __syncthreads();  // the previous chunk is consumed
    stage_curl_rows(K, kb, tid, qb, geo, gb, m, m + 1, bf);
    b_ready();
    gemm_loaded(NPK / KSTEP, a, bf, warp, lane, acc);
  }}
  {{
    a_regs_t a;
    load_a(3 * (NPK / KSTEP), NFK / KSTEP, warp, lane, a);
    __syncthreads();
    stage_flux_rows(K, kb, tid, q, geo, mat, etoe, bc, vmapP, vert, t, qb, gf, bf);
    b_ready();
    gemm_loaded(NFK / KSTEP, a, bf, warp, lane, acc);
  }}
#else
  stage_curl_rows(K, kb, tid, qb, geo, gb, 0, 3, bf);
  stage_flux_rows(K, kb, tid, q, geo, mat, etoe, bc, vmapP, vert, t, qb, gf, b_rows(bf, 3 * NPK));
  b_ready();
  gemm_chunk(0, KS, bf, warp, lane, acc);
#endif
  real_t* sx = bf;  // the layer's sources [EPB][6][NP], in the consumed B fragments
#if PML_IN_STAGE
  advance_group_layer(K, kb, tid, q, xslot, psi, psi_res, pcoef, pml_slots, a, b, dt, NP, sx);
#endif

#if MMA_STAGED
  copy_async_wait<0>();  // the res entries (copied block-wide)
  __syncthreads();
#endif
#if MMA_STAGED
  // A lane's accumulators h and h + 2 are one column (an element's field) at two nodes: its
  // element's material record is loaded with the first (h < 2) and kept for the second (the stores
  // between the values keep the compiler from reusing loads; unread words are never loaded).
  // Unstaged plans load it per value: keeping it cost the fp64 N = 7, 8 stage 4-9% (bench/NOTES.md).
  real_t mk[2][MAT];
#endif
#pragma unroll
  for (int nt = 0; nt < NTW; ++nt)
#pragma unroll
    for (int h = 0; h < NACC; ++h) {{
      int i, e, c;
      lane_output(nt, h, warp, lane, i, e, c);
      const int k = kb + e;
      if (k >= K) continue;
#if MMA_STAGED
      if (h < 2)
#pragma unroll
        for (int w = 0; w < MAT; ++w) mk[h][w] = mat[(long)k * MAT + w];
      const real_t* mkh = mk[h & 1];
#else
      const real_t* mkh = mat + (long)k * MAT;
#endif
      if (i >= NP) continue;
#if MMA_STAGED
      const real_t qc = sqr[0][e][c][i], r0 = sqr[1][e][c][i];
#else
      const long idx = ((long)k * 6 + c) * NP + i;
      const real_t qc = q[idx], r0 = res[idx];
#endif
      finish_value(k, c, i, (real_t)acc[nt][h], qc, r0, current_at(sj, e, c, i), sx + (e * 6 + c) * NP + i, mkh, xslot,
                   xsrc, xscale, pcoef, pml_slots, a, b, dt, res, q_out);
    }}
}}

extern "C" __global__ void __launch_bounds__(NT)
dgmax_stage(STAGE_PARAMS) {{
  extern __shared__ __align__(16) unsigned char smem[];
  real_t* bf = reinterpret_cast<real_t*>(smem);  // B fragments: B_ROWS x 6 EPB entries of BW words
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  // after B (from a 16-byte boundary): (A) the staging buffers sqr[q, res][EPB][6][NP]; then J
  real_t* after_b = reinterpret_cast<real_t*>((reinterpret_cast<unsigned long>(b_end(bf)) + 15) & ~15ul);
  real_t (*sqr)[EPB][6][NP] = reinterpret_cast<real_t (*)[EPB][6][NP]>(after_b);
  const int kb = k0 + blockIdx.x * EPB;
  group_faces_t* gf = nullptr;
#if MMA_STAGED
  // then the group's face data, then J
  gf = reinterpret_cast<group_faces_t*>(&sqr[2][0][0][0]);
  after_b = reinterpret_cast<real_t*>(gf + 1);
  prefetch_group(K, kb, tid, q, res, geo, etoe, vmapP, sqr, gf);
#endif
  stage_group(K, kb, tid, warp, lane, q, geo, mat, etoe, bc, vmapP, vert, t, res, q_out, a, b, dt, xslot, xsrc, xscale,
              psi, psi_res, pcoef, pml_slots, bf, sqr, gf, after_b);
}}
#endif  // MMA_E
#endif

)",
                     fmt::arg("epb", plan.elements_per_block), fmt::arg("ept", plan.elements_per_thread),
                     fmt::arg("nt", plan.threads_per_block(s.Np, s.single)), fmt::arg("mma", plan.mma ? 1 : 0),
                     fmt::arg("mt", mma.m_tiles), fmt::arg("ks", mma.k_steps), fmt::arg("ntl", mma.n_tiles),
                     fmt::arg("wpt", plan.mma_split_columns ? 2 : 1),
                     fmt::arg("npk", mma.np_padded), fmt::arg("nfk", mma.nf_padded), fmt::arg("chunk_rows", mma.chunk_rows),
                     fmt::arg("mrows", mma.rows), fmt::arg("kstep", mma.k_step),
                     fmt::arg("chunked", plan.mma_chunked ? 1 : 0), fmt::arg("bpad", mma.b_pad),
                     fmt::arg("staged", plan.mma_staged ? 1 : 0), fmt::arg("wide", plan.mma_wide ? 1 : 0), fmt::arg("nb", plan.mma_neighbours ? 1 : 0),
                     fmt::arg("wg", plan.mma_warpgroup ? 1 : 0), fmt::arg("e", plan.mma_state_rows ? 1 : 0),
                     fmt::arg("gpb", plan.mma_state_rows ? plan.state_row_groups : 1), fmt::arg("vw", rows.vw), fmt::arg("npv", rows.state_row), fmt::arg("sf_row", rows.flux_row),
                     fmt::arg("rows_section", plan.mma_state_rows ? state_rows_stage_section() : std::string()),
                     fmt::arg("wgmma_fn", plan.mma_warpgroup ? wgmma_function(8 * mma.n_tiles) : std::string()),
                     fmt::arg("nepb", cuda_norm_elements_per_block(s.Np)), fmt::arg("shared_ops", plan.shared_ops ? 1 : 0), fmt::arg("fusion", plan.fusion),
                     fmt::arg("vec", plan.vector_loads ? 1 : 0), fmt::arg("single", s.single ? 1 : 0),
                     fmt::arg("geo_fscale", kGeoFscale),
                     fmt::arg("node_bounds", plan.max_registers > 0
                                                 ? fmt::format("__launch_bounds__(NT, {})", plan.min_blocks_per_sm(s.Np, s.single))
                                                 : std::string("__launch_bounds__(NT)")),
                     fmt::arg("inv_eps", kMatInvEps), fmt::arg("inv_mu", kMatInvMu), fmt::arg("sigma_eps", kMatSigmaOverEps));
  src << fmt::format(R"(// One LSERK stage over all n values.
extern "C" __global__ void dgmax_update(long n, real_t a, real_t b, real_t dt, const real_t* __restrict__ rhs,
                                        real_t* __restrict__ res, real_t* __restrict__ q) {{
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {{
    const real_t r = a * res[i] + dt * rhs[i];
    res[i] = r;
    q[i] += b * r;
  }}
}}

#if HAS_TFSF
// The total-field/scattered-field correction of the stage at time t, before the stage of the fields:
// block e handles element tfsf_elem[e] (slot first_slot + e): the flux changes at its box faces'
// nodes (shared memory), lifted into xsrc. tfsf_sign: [n][4].
extern "C" __global__ void __launch_bounds__(128)
dgmax_tfsf(int n, int first_slot, const int* __restrict__ tfsf_elem, const int* __restrict__ tfsf_sign,
           const real_t* __restrict__ q, const real_t* __restrict__ geo, const real_t* __restrict__ mat,
           const int* __restrict__ etoe, const int* __restrict__ vmapP, const double* __restrict__ vert, double t,
           real_t* __restrict__ xsrc) {{
  __shared__ real_t sf[NFACE_NODES * 6];
  const int e = blockIdx.x, k = tfsf_elem[e], slot = first_slot + e;
  for (int m = threadIdx.x; m < NFACE_NODES; m += blockDim.x) {{
    const int f = m / NFP, sign = tfsf_sign[e * 4 + f];
    if (sign != 0) tfsf_face_node(k, f, m % NFP, sign, q, geo, mat, etoe, vmapP, vert, t, &sf[m * 6]);
    else for (int c = 0; c < 6; ++c) sf[m * 6 + c] = real_t(0);
  }}
  __syncthreads();
  for (int i = threadIdx.x; i < NP; i += blockDim.x) {{
    real_t out[6];
    tfsf_lift_node(k, i, sf, mat, out);
    for (int c = 0; c < 6; ++c) xsrc[((long)slot * 6 + c) * NP + i] = out[c];
  }}
}}
#endif

#if HAS_PML
// One LSERK stage of the perfectly matched layer, before the stage of the fields: thread n of a
// flat grid of 256-thread blocks advances the auxiliary fields at node n % NP of layer element slot
// n / NP and writes the source the stage kernel adds (pml_node; consecutive threads touch
// consecutive words of psi, psi_res and xsrc: [slots][...][NP]).
extern "C" __global__ void __launch_bounds__(256)
dgmax_pml(int slots, const int* __restrict__ pml_elem, const real_t* __restrict__ q, const double* __restrict__ vert,
          real_t* __restrict__ psi, real_t* __restrict__ psi_res, real_t* __restrict__ xsrc, real_t a, real_t b, real_t dt) {{
  const long n = (long)blockIdx.x * 256 + threadIdx.x;
  if (n >= (long)slots * NP) return;
  const int slot = (int)(n / NP), i = (int)(n % NP);
  pml_node(slot, pml_elem[slot], i, q, vert, psi, psi_res, xsrc, a, b, dt);
}}
#endif

// The initial state q = (E, H)(x, 0); *bad = min(*bad, flat index of a value not finite in real_t).
extern "C" __global__ void __launch_bounds__(NP * NEPB)
dgmax_initial(int K, const double* __restrict__ vert, real_t* __restrict__ q, unsigned long long* __restrict__ bad) {{
  const int i = threadIdx.x, k = blockIdx.x * NEPB + threadIdx.y;
  if (k >= K) return;
  const long first = initial_node(k, i, vert, q);
  if (first >= 0) atomicMin(bad, (unsigned long long)first);
}}

// Space-time field `which` (see field_at) at n points pts[n][4] = (x, y, z, t): out[n][6].
extern "C" __global__ void dgmax_field_at(int which, long n, const double* __restrict__ pts, double* __restrict__ out) {{
  const long m = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (m < n) field_at(which, pts + 4 * m, out + 6 * m);
}}

// NaN-propagating maximum (a NaN error must not hide behind a finite one).
DGMAX_FN double max_nan(double m, double a) {{ return (a > m || a != a) ? a : m; }}

// x^T Mass x for the element's values in shared memory, this thread's row i: x_i (Mass x)_i.
DGMAX_FN double mass_row(int i, const double* __restrict__ x) {{
  double s = 0;
  for (int j = 0; j < NP; ++j) s += Mass[i][j] * x[j];
  return x[i] * s;
}}

// Energy and error norms, in double: each block strides over element groups and writes its
// partial results partial[block][6] = (energy, |E-E_ex|^2, |H-H_ex|^2, max|E-E_ex|, max|H-H_ex|, ∫|J|^2/eps);
// the host adds the blocks in order (deterministic).
extern "C" __global__ void __launch_bounds__(NP * NEPB)
dgmax_norms(int K, const real_t* __restrict__ q, const real_t* __restrict__ mat, const double* __restrict__ vert,
            double t, double* __restrict__ partial) {{
  __shared__ double sv[NEPB][6][NP];
  double* red = &sv[0][0][0];  // reused for the block's reduction: [6][NEPB * NP]
  const int i = threadIdx.x, e = threadIdx.y, tid = e * NP + i;
  double acc[{nnorms}] = {{0, 0, 0, 0, 0, 0}};
  for (int k0 = blockIdx.x * NEPB; k0 < K; k0 += gridDim.x * NEPB) {{
    const int k = k0 + e;
    if (k < K)
      for (int c = 0; c < 6; ++c) sv[e][c][i] = (double)q[((long)k * 6 + c) * NP + i];
    __syncthreads();
    if (k < K) {{
      const real_t* mk = mat + (long)k * MAT;
      double we = 0, wh = 0;
      for (int c = 0; c < 6; ++c) (c < 3 ? we : wh) += mass_row(i, sv[e][c]);
      acc[{oW}] += 0.5 * vert[(long)k * VERT + VERT_J] * ((double)mk[{eps}] * we + (double)mk[{mu}] * wh);
    }}
#if HAS_EXACT
    __syncthreads();
    if (k < K) {{
      expr_t p[4], ex[6];
      node_position(vert + (long)k * VERT, i, p);
      p[3] = t;
      field_exact(p, ex);
      for (int c = 0; c < 6; ++c) {{
        const double d = sv[e][c][i] - ex[c];
        sv[e][c][i] = d;
        acc[c < 3 ? {oEi} : {oHi}] = max_nan(acc[c < 3 ? {oEi} : {oHi}], fabs(d));
      }}
    }}
    __syncthreads();
    if (k < K) {{
      const double J = vert[(long)k * VERT + VERT_J];
      for (int c = 0; c < 6; ++c) acc[c < 3 ? {oE2} : {oH2}] += J * mass_row(i, sv[e][c]);
    }}
#endif
#if HAS_CURRENT
    __syncthreads();
    if (k < K) {{
      expr_t p[4], jn[3];
      node_position(vert + (long)k * VERT, i, p);
      p[3] = t;
      field_current(p, jn);
      for (int c = 0; c < 3; ++c) sv[e][c][i] = jn[c];
    }}
    __syncthreads();
    if (k < K) {{
      const double J = vert[(long)k * VERT + VERT_J];
      const real_t* mk = mat + (long)k * MAT;
      for (int c = 0; c < 3; ++c) acc[{oJ2}] += J * mass_row(i, sv[e][c]) / (double)mk[{eps}];
    }}
#endif
    __syncthreads();
  }}
  for (int n = 0; n < {nnorms}; ++n) red[n * NEPB * NP + tid] = acc[n];
  __syncthreads();
  for (int n = tid; n < {nnorms}; n += NEPB * NP) {{  // one thread per norm (a loop for tiny blocks)
    const double* r = red + n * NEPB * NP;
    double s = r[0];
    for (int m = 1; m < NEPB * NP; ++m) s = (n == {oEi} || n == {oHi}) ? max_nan(s, r[m]) : s + r[m];
    partial[(long)blockIdx.x * {nnorms} + n] = s;
  }}
}}
)",
                     fmt::arg("nnorms", kNumNorms), fmt::arg("eps", kMatEps), fmt::arg("mu", kMatMu),
                     fmt::arg("oW", kNormEnergy), fmt::arg("oE2", kNormE2), fmt::arg("oH2", kNormH2),
                     fmt::arg("oEi", kNormEinf), fmt::arg("oHi", kNormHinf), fmt::arg("oJ2", kNormJ2));
  return src.str();
}

}  // namespace dgmax::codegen
