#include "codegen/emit/cuda_kernels.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "codegen/emit/cuda_mma_stage.hpp"
#include "codegen/emit/curved_kernels.hpp"
#include "codegen/emit/cuda_node_stage.hpp"
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
  // the plan's values, named in the templates of this file and of cuda_node_stage.cpp and
  // cuda_mma_stage.cpp, which are printed in this order
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  args.push_back(fmt::arg("epb", plan.elements_per_block));
  args.push_back(fmt::arg("ept", plan.elements_per_thread));
  args.push_back(fmt::arg("nt", plan.threads_per_block(s.Np, s.single)));
  args.push_back(fmt::arg("mma", plan.mma ? 1 : 0));
  args.push_back(fmt::arg("mt", mma.m_tiles));
  args.push_back(fmt::arg("ks", mma.k_steps));
  args.push_back(fmt::arg("ntl", mma.n_tiles));
  args.push_back(fmt::arg("wpt", plan.mma_split_columns ? 2 : 1));
  args.push_back(fmt::arg("npk", mma.np_padded));
  args.push_back(fmt::arg("nfk", mma.nf_padded));
  args.push_back(fmt::arg("chunk_rows", mma.chunk_rows));
  args.push_back(fmt::arg("mrows", mma.rows));
  args.push_back(fmt::arg("kstep", mma.k_step));
  args.push_back(fmt::arg("chunked", plan.mma_chunked ? 1 : 0));
  args.push_back(fmt::arg("bpad", mma.b_pad));
  args.push_back(fmt::arg("staged", plan.mma_staged ? 1 : 0));
  args.push_back(fmt::arg("wide", plan.mma_wide ? 1 : 0));
  args.push_back(fmt::arg("nb", plan.mma_neighbours ? 1 : 0));
  args.push_back(fmt::arg("wg", plan.mma_warpgroup ? 1 : 0));
  args.push_back(fmt::arg("e", plan.mma_state_rows ? 1 : 0));
  args.push_back(fmt::arg("gpb", plan.mma_state_rows ? plan.state_row_groups : 1));
  args.push_back(fmt::arg("vw", rows.vw));
  args.push_back(fmt::arg("npv", rows.state_row));
  args.push_back(fmt::arg("sf_row", rows.flux_row));
  args.push_back(fmt::arg("rows_section", plan.mma_state_rows ? state_rows_stage_section() : std::string()));
  args.push_back(fmt::arg("wgmma_fn", plan.mma_warpgroup ? wgmma_function(8 * mma.n_tiles) : std::string()));
  args.push_back(fmt::arg("nepb", cuda_norm_elements_per_block(s.Np)));
  args.push_back(fmt::arg("shared_ops", plan.shared_ops ? 1 : 0));
  args.push_back(fmt::arg("fusion", plan.fusion));
  args.push_back(fmt::arg("vec", plan.vector_loads ? 1 : 0));
  args.push_back(fmt::arg("single", s.single ? 1 : 0));
  args.push_back(fmt::arg("geo_fscale", kGeoFscale));
  args.push_back(fmt::arg("node_bounds", plan.max_registers > 0
                                              ? fmt::format("__launch_bounds__(NT, {})", plan.min_blocks_per_sm(s.Np, s.single))
                                              : std::string("__launch_bounds__(NT)")));
  args.push_back(fmt::arg("inv_eps", kMatInvEps));
  args.push_back(fmt::arg("inv_mu", kMatInvMu));
  args.push_back(fmt::arg("sigma_eps", kMatSigmaOverEps));
  src << fmt::vformat(R"(// Block shape of the volume, lift and stage kernels: (NP, TY) threads; thread (i, y) owns node i
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
// and level at N = 2 (bench/NOTES.md, "the H200 as it stands").
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

)", args);
  src << fmt::vformat(cuda_node_helpers_template(), args);
  src << fmt::vformat(R"(// J at node i of element k at time t (zero without sources).
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

)", args);
  src << fmt::vformat(cuda_node_kernels_template(), args);
  src << fmt::vformat(cuda_mma_stage_template(), args);
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
    // curved elements carry J = 0 here: dgmax_curved_norms integrates them
    const bool counted = k < K && vert[(long)(k < K ? k : 0) * VERT + VERT_J] != 0.0;
    if (k < K)
      for (int c = 0; c < 6; ++c) sv[e][c][i] = (double)q[((long)k * 6 + c) * NP + i];
    __syncthreads();
    if (counted) {{
      const real_t* mk = mat + (long)k * MAT;
      double we = 0, wh = 0;
      for (int c = 0; c < 6; ++c) (c < 3 ? we : wh) += mass_row(i, sv[e][c]);
      acc[{oW}] += 0.5 * vert[(long)k * VERT + VERT_J] * ((double)mk[{eps}] * we + (double)mk[{mu}] * wh);
    }}
#if HAS_EXACT
    __syncthreads();
    if (counted) {{
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
    if (counted) {{
      const double J = vert[(long)k * VERT + VERT_J];
      for (int c = 0; c < 6; ++c) acc[c < 3 ? {oE2} : {oH2}] += J * mass_row(i, sv[e][c]);
    }}
#endif
#if HAS_CURRENT
    __syncthreads();
    if (counted) {{
      expr_t p[4], jn[3];
      node_position(vert + (long)k * VERT, i, p);
      p[3] = t;
      field_current(p, jn);
      for (int c = 0; c < 3; ++c) sv[e][c][i] = jn[c];
    }}
    __syncthreads();
    if (counted) {{
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
  src << curved_kernel_section(s, true);
  return src.str();
}

}  // namespace dgmax::codegen
