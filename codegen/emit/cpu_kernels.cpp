#include "codegen/emit/cpu_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <sstream>
#include <vector>

#include "codegen/emit/curved_kernels.hpp"
#include "codegen/emit/c_expr.hpp"
#include "codegen/emit/kernel_common.hpp"
#include "codegen/lower/flux_inputs.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {

namespace {

// The OpenMP schedule of a loop: `chunk` iterations per chunk, dealt round robin; 0: one
// contiguous range per thread (the ranges the state's first touch gave each thread's memory).
std::string omp_schedule(int chunk) { return chunk > 0 ? "static, " + std::to_string(chunk) : "static"; }

// The calls of `call` (batch_derivatives, batch_lift_fields) in 6 / nf passes of nf fields, each
// line `indent` + call<m0, nf>(args).
std::string field_passes(int nf, const std::string& call, const std::string& args, const std::string& indent) {
  DGMAX_ASSERT(nf >= 1 && 6 % nf == 0, "fields per pass " + std::to_string(nf) + " do not divide 6");
  std::string out;
  for (int m0 = 0; m0 < 6; m0 += nf) out += fmt::format("{}{}<{}, {}>({});\n", indent, call, m0, nf, args);
  return out;
}

// "qc[at[0]], qc[at[1]], ..., qc[at[W-1]]": the initializer of a batch's W lanes.
std::string lane_gather(int W) {
  std::string out;
  for (int e = 0; e < W; ++e) out += (e ? ", " : "") + fmt::format("qc[at[{}]]", e);
  return out;
}

// transpose_tile, the in-register transpose of a W2 x W2 tile (W2 a power of two) t: [W2] lanes_t
// that the update of plan option tu uses: stage s swaps the off-diagonal s x s blocks of every
// 2s x 2s block, with two-input shuffles (index l of the pair (x, y) is x[l], W2 + l is y[l]; GCC
// >= 12 and clang both have __builtin_shufflevector).
std::string transpose_tile_source(int W2) {
  std::string out =
      "// t: [W2] rows of a W2 x W2 tile, transposed in place (registers: no trip through memory).\n"
      "DGMAX_FN void transpose_tile(lanes_t* __restrict t) {\n";
  for (int s = 1; s < W2; s *= 2) {
    std::string lo, hi;
    for (int l = 0; l < W2; ++l) {
      lo += fmt::format("{}{}", l ? ", " : "", (l & s) ? W2 + l - s : l);
      hi += fmt::format("{}{}", l ? ", " : "", (l & s) ? W2 + l : l + s);
    }
    out += fmt::format(
        "  for (int i = 0; i < {0}; ++i)  // blocks of {1}\n"
        "    if (!(i & {1})) {{\n"
        "      const lanes_t x = t[i], y = t[i + {1}];\n"
        "      t[i] = __builtin_shufflevector(x, y, {2});\n"
        "      t[i + {1}] = __builtin_shufflevector(x, y, {3});\n"
        "    }}\n",
        W2, s, lo, hi);
  }
  return out + "}\n";
}

// Plan option gv: GATHER_FIELD(qc, tr, out), one field's exterior trace at a face node for the
// batch's W lanes by one gather instruction (base qc, the lanes' 32-bit offsets tr, stored whole to
// out), where the batch is one 512-bit (AVX-512F) or 256-bit (AVX2) register of reals and the
// compiler targets that extension; else nothing, and the lanes are built one by one.
std::string gather_instruction_source(bool enabled, bool single, int W) {
  const int bytes = W * (single ? 4 : 8);
  if (!enabled || (bytes != 64 && bytes != 32)) return "";
  const char* call =
      bytes == 64 ? (single ? "_mm512_store_ps((out), _mm512_i32gather_ps(_mm512_loadu_si512((const void*)(tr)), (qc), 4))"
                            : "_mm512_store_pd((out), _mm512_i32gather_pd(_mm256_loadu_si256((const __m256i*)(tr)), (qc), 8))")
                  : (single ? "_mm256_store_ps((out), _mm256_i32gather_ps((qc), _mm256_loadu_si256((const __m256i*)(tr)), 4))"
                            : "_mm256_store_pd((out), _mm256_i32gather_pd((qc), _mm_loadu_si128((const __m128i*)(tr)), 8))");
  return fmt::format(
      "// plan option gv: a field's W lanes of exterior trace by one gather instruction (32-bit offsets tr)\n"
      "#if defined({}) && !WIDE_TRACE_OFFSETS\n#include <immintrin.h>\n#define GATHER_FIELD(qc, tr, out) {}\n#endif\n",
      bytes == 64 ? "__AVX512F__" : "__AVX2__", call);
}

// The field loop of the exterior-trace gather: with GATHER_FIELD (plan option gv, where it fits)
// one gather instruction per field, else (and always without gv) the lanes built one by one.
std::string trace_gather_source(bool with_instruction, int W) {
  const std::string lanes = fmt::format(R"(        const lanes_t v = {{{}}};
        __builtin_memcpy(xP[c], &v, W * sizeof(real_t));
)",
                                        lane_gather(W));
  return R"(      for (int c = 0; c < 6; ++c) {
        const real_t* __restrict qc = q + c * NP;
)" + (with_instruction ? "#ifdef GATHER_FIELD\n        GATHER_FIELD(qc, tr, xP[c]);\n#else\n" + lanes + "#endif\n" : lanes) +
         "      }\n";
}

// The fused stage's update of a batch (res = a·res + dt·r, q_out = q + b·res), element by element:
// each element's values are contiguous in res, q and q_out (three streams, as the prefetchers like
// them), r: [6*NP][W] holds them at a stride of W. `transposed` (plan option tu): r transposed into
// rt: [W][6*NP] first, in W x W tiles in registers (W a power of two; the rest one value at a
// time), so that r is read in whole vectors. The same operations in the same order: the same bits.
std::string batch_update_source(bool transposed) {
  const std::string loop = fmt::format(R"(    for (int e = 0; e < nb; ++e) {{
      const long base = (long)(kb + e) * 6 * NP;
#pragma omp simd
      for (int m = 0; m < 6 * NP; ++m) {{
        const real_t rs = a * res[base + m] + dt * {};
        res[base + m] = rs;
        q_out[base + m] = q[base + m] + b * rs;
      }}
    }}
)",
                                       transposed ? "rt[e][m]" : "r[m][e]");
  if (!transposed) return loop;
  return R"(    // r transposed (plan option tu): rt[e] holds element e's 6*NP values
    alignas(64) real_t rt[W][6 * NP];
    int m_done = 0;
    if (W == W2)
      for (; m_done + W <= 6 * NP; m_done += W) {
        lanes_t tile[W2];  // tile[x] = r[m_done + x][0..W-1], transposed: element x's W values
        for (int x = 0; x < W; ++x) __builtin_memcpy(&tile[x], r[m_done + x], sizeof(lanes_t));
        transpose_tile(tile);
        for (int e = 0; e < W; ++e) __builtin_memcpy(&rt[e][m_done], &tile[e], sizeof(lanes_t));
      }
    for (int m = m_done; m < 6 * NP; ++m)  // past the last whole tile (odd W: every value)
      for (int e = 0; e < W; ++e) rt[e][m] = r[m][e];
)" + loop;
}

// The fused stage (plan.fused): dgmax_stage, one pass over the elements per LSERK stage, batch by
// batch of W elements held element-interleaved in local arrays.
std::string fused_stage_source(const KernelSpec& s) {
  const CpuPlan& plan = s.plan.cpu;
  const int W = std::max(1, plan.batch);
  const std::string gather_insn = gather_instruction_source(plan.gather_instructions, s.single, W);
  const std::string sched = omp_schedule(plan.elements_per_chunk > 0 ? (plan.elements_per_chunk + W - 1) / W : 0);
  CExprStyle lanes;
  lanes.lane_index = "[e]";
  lanes.indent = "    ";
  std::vector<bool> face_slot(kNumFluxInputs, false);  // the same at every node of a face
  for (int slot = kNormal; slot < kNumFluxInputs; ++slot) face_slot[slot] = true;
  // the traces read where they are: the interior one from the batch's state (uM = u + iM, rows
  // c * NP), the exterior one from the gathered xP: [6][W]. (Copied into one array first, GCC made
  // the interior copy a memcpy of 32-byte moves that the flux then re-read as 64-byte vectors.)
  lanes.input_rows.assign(kNumFluxInputs, "");
  for (int c = 0; c < 6; ++c) {
    lanes.input_rows[kEint + c] = "uM[" + std::to_string(c) + " * NP]";
    lanes.input_rows[kEext + c] = "xP[" + std::to_string(c) + "]";
  }
  const CSplitStatements flux = emit_c_statements_split(s.flux.dag, lanes, face_slot, "hv");
  return fmt::format(R"(// ---- The fused stage, plan {name} --------------------------------------------------------------
// One pass over the elements per LSERK stage: a batch of W consecutive elements is copied into
// element-interleaved local arrays (innermost index: the batch's element, the SIMD lane), then
// face fluxes, volume terms, lift, the layer's terms and the update are computed there and the
// new state and residual written once. Every operator entry loaded serves W elements x 6 fields.
enum {{ W = {W}, W2 = {W2} }};  // elements per batch (SIMD lanes); W rounded up to a power of two
// one value of each lane (a vector's length is a power of two: W rounded up, the rest unused)
typedef real_t lanes_t __attribute__((vector_size(W2 * sizeof(real_t))));
{transpose}// small elements (a few cache lines of state): prefetch the next batch's far neighbours. A C++
// constant, not a macro: NP is an enumerator, which #if would read as 0 (then always on).
static constexpr bool kPrefetchNeighbours = 6 * NP * sizeof(real_t) <= 512;
#define HAS_FMA {fma}
#define WIDE_TRACE_OFFSETS {wide}  // 1: tracew holds nodes k'*NP + i' (states of 2^31 entries or more), 0: offsets
{gather_insn}#if HAS_FMA  // operator products: one rounding, one instruction
#define OP_FMA(a, x, acc) std::fma(a, x, acc)
#else
#define OP_FMA(a, x, acc) ((acc) + (a) * (x))
#endif

// numerical_flux on the W lanes of a batch, split in two (the same statements): the part that
// depends on the face only (normal, materials: slots 12..28 of fin: [29][W]) once per face into
// hv: [NHOIST][W], then per face node the rest from the interior trace uM: rows c * NP, c < 6, of
// the batch's state (from the face node's row on) and the exterior one xP: [6][W], into out: [6][W].
enum {{ NHOIST = {nhoist} }};
DGMAX_FN void face_invariants_batch(const real_t (*__restrict in)[W], real_t (*__restrict hv)[W]) {{
#pragma omp simd
  for (int e = 0; e < W; ++e) {{
{flux_inv}  }}
}}
DGMAX_FN void numerical_flux_batch(const real_t (*__restrict uM)[W], const real_t (*__restrict xP)[W],
                                   const real_t (*__restrict hv)[W], real_t (*__restrict out)[W]) {{
#pragma omp simd
  for (int e = 0; e < W; ++e) {{
{flux_var}  }}
}}

// The face fluxes of a batch times Fscale, fl: [4*NFP][6][W] (face node f*NFP + j), the flux
// vectorized across lanes. A lane on the boundary is then recomputed by face_node_flux (exterior
// states, incident fields); the vector pass used its own trace as the exterior one there.
// u: [6*NP][W] the state; g: [GEO][W] geometry; mk: [MAT][W] materials; nbr: [4][W] the
// neighbour across each face (-1: boundary); matp: [4][4][W] eps, mu, Z, Y across each face (the
// element's own on the boundary); trace: [4*NFP][W] the exterior trace's node or offset (tracew).
DGMAX_FN void batch_fluxes(const int* __restrict ke, const real_t (*__restrict u)[W], const real_t (*__restrict g)[W],
                           const real_t (*__restrict mk)[W], const int (*__restrict nbr)[W],
                           const real_t (*__restrict matp)[W], const int (*__restrict trace)[W], const real_t* __restrict q, const real_t* __restrict geo,
                           const real_t* __restrict mat, const int* __restrict etoe, const int* __restrict bc,
                           const int* __restrict vmapP, const double* __restrict vert, double t,
                           real_t (*__restrict fl)[W]) {{
  for (int f = 0; f < 4; ++f) {{
    bool boundary = false;
    for (int e = 0; e < W; ++e) boundary |= nbr[f][e] < 0;
    const real_t (*__restrict mp)[W] = matp + 4 * f;  // eps, mu, Z, Y across face f
    alignas(64) real_t fin[29][W];  // the face's inputs (face_inputs' slots 12..28); incident fields zero
#pragma omp simd
    for (int e = 0; e < W; ++e) {{
      for (int x = 0; x < 3; ++x) fin[12 + x][e] = g[{normal} + 3 * f + x][e];
      fin[15][e] = mk[{eps}][e]; fin[16][e] = mp[0][e]; fin[17][e] = mk[{mu}][e]; fin[18][e] = mp[1][e];
      fin[19][e] = mk[{z}][e]; fin[20][e] = mp[2][e]; fin[21][e] = mk[{y}][e]; fin[22][e] = mp[3][e];
      for (int c = 23; c < 29; ++c) fin[c][e] = real_t(0);
    }}
    alignas(64) real_t hv[NHOIST][W];
    face_invariants_batch(fin, hv);
    for (int j = 0; j < NFP; ++j) {{
      const int iM = Fmask[f][j];
      const int* __restrict tr = trace[f * NFP + j];
      alignas(64) real_t xP[6][W];  // the node's exterior trace
      long at[W];  // each lane's node in q
      for (int e = 0; e < W; ++e) {{
#if WIDE_TRACE_OFFSETS  // tr: the node k'*NP + i'
        at[e] = (long)(tr[e] / NP) * 6 * NP + tr[e] % NP;
#else  // tr: the offset k'*6*NP + i' itself (the state has fewer than 2^31 entries)
        at[e] = tr[e];
#endif
      }}
      // a field's W lanes gathered into one register and stored whole: vectorized across lanes, the
      // gather was stored in 16-byte halves that the flux then read back as one vector, a load no
      // store could forward (and the indices went through vector registers first)
{trace_gather}      alignas(64) real_t o[6][W];
      numerical_flux_batch(u + iM, xP, hv, o);
      real_t (*__restrict out)[W] = fl + (f * NFP + j) * 6;
      for (int c = 0; c < 6; ++c)
#pragma omp simd
        for (int e = 0; e < W; ++e) out[c][e] = g[{fscale} + f][e] * o[c][e];
      if (!boundary) continue;
      for (int e = 0; e < W; ++e) {{
        if (nbr[f][e] >= 0) continue;
        real_t ob[6];
        face_node_flux(ke[e], f, j, q, geo, mat, etoe, bc, vmapP, vert, t, ob);
        for (int c = 0; c < 6; ++c) out[c][e] = ob[c];
      }}
    }}
  }}
}}

// LIFT times the face fluxes fl: [4*NFP][6][W] for every node, lf: [NP][6][W] (a pass of its
// own before the volume terms: the node loop then holds the 18 derivative accumulators only).
// LR rows at a time: each face-flux vector loaded serves LR rows, so the pass is bound by the FMAs
// rather than by reading fl (tens of KB at N >= 5, beyond L1) once per row. Fields C0 .. C0+NC-1
// (the plan's hF passes, as in the volume loop): LR x NC accumulators of W lanes, 18 for all six
// fields, which 16 vector registers do not hold; 9 for three.
enum {{ LR = 3 }};
template <int C0, int NC>
DGMAX_FN void batch_lift_fields(const real_t (*__restrict fl)[W], real_t (*__restrict lf)[W]) {{
  for (int i0 = 0; i0 < NP; i0 += LR) {{
    int row[LR];  // the last block repeats row NP-1 past the end (computed, not stored)
    for (int r = 0; r < LR; ++r) row[r] = i0 + r < NP ? i0 + r : NP - 1;
    alignas(64) real_t acc[LR][NC][W];
    for (int r = 0; r < LR; ++r)
      for (int c = 0; c < NC; ++c)
#pragma omp simd
        for (int e = 0; e < W; ++e) acc[r][c][e] = real_t(0);
    for (int m = 0; m < NFACE_NODES; ++m) {{
      real_t l[LR];
      for (int r = 0; r < LR; ++r) l[r] = LIFT[row[r]][m];
      for (int c = 0; c < NC; ++c)
#pragma omp simd
        for (int e = 0; e < W; ++e) {{
          const real_t v = fl[m * 6 + C0 + c][e];
          for (int r = 0; r < LR; ++r) acc[r][c][e] = OP_FMA(l[r], v, acc[r][c][e]);
        }}
    }}
    for (int r = 0; r < LR && i0 + r < NP; ++r)
      for (int c = 0; c < NC; ++c)
#pragma omp simd
        for (int e = 0; e < W; ++e) lf[(i0 + r) * 6 + C0 + c][e] = acc[r][c][e];
  }}
}}
DGMAX_FN void batch_lift(const real_t (*__restrict fl)[W], real_t (*__restrict lf)[W]) {{
{lift_passes}}}

// d/dr, d/ds, d/dt at node i of fields M0 .. M0+NF-1 into dr, ds, dt: [6][W]. The volume loop
// runs in passes of NF fields (the plan's hF): 3 NF accumulators of W lanes each, which a host with
// 16 vector registers holds for NF = 3 and not for 6.
template <int M0, int NF>
DGMAX_FN void batch_derivatives(int i, const real_t (*__restrict u)[W], real_t (*__restrict dr)[W],
                                real_t (*__restrict ds)[W], real_t (*__restrict dt)[W]) {{
  alignas(64) real_t ar[NF][W], as[NF][W], at[NF][W];
  for (int m = 0; m < NF; ++m)
#pragma omp simd
    for (int e = 0; e < W; ++e) ar[m][e] = as[m][e] = at[m][e] = real_t(0);
  for (int j = 0; j < NP; ++j) {{
    const real_t a = Dr[i][j], b = Ds[i][j], c = Dt[i][j];
    for (int m = 0; m < NF; ++m)
#pragma omp simd
      for (int e = 0; e < W; ++e) {{
        const real_t v = u[(M0 + m) * NP + j][e];
        ar[m][e] = OP_FMA(a, v, ar[m][e]);
        as[m][e] = OP_FMA(b, v, as[m][e]);
        at[m][e] = OP_FMA(c, v, at[m][e]);
      }}
  }}
  for (int m = 0; m < NF; ++m)
#pragma omp simd
    for (int e = 0; e < W; ++e) {{
      dr[M0 + m][e] = ar[m][e];
      ds[M0 + m][e] = as[m][e];
      dt[M0 + m][e] = at[m][e];
    }}
}}

// The right-hand side of a batch before source and extra terms, r: [6*NP][W]:
//   E: (curl H - LIFT fl_E) / eps - (sigma/eps) E,   H: (-curl E + LIFT fl_H) / mu.
// Node by node: d/dr, d/ds, d/dt of the six fields (batch_derivatives, in the plan's passes), the
// metric, then LIFT times the face fluxes (6 accumulators).
DGMAX_FN void batch_rhs(const real_t (*__restrict u)[W], const real_t (*__restrict g)[W], const real_t (*__restrict mk)[W],
                        const real_t (*__restrict fl)[W], real_t (*__restrict r)[W]) {{
  alignas(64) real_t lf[NP * 6][W];  // [node][field][lane]: LIFT times the face fluxes
  batch_lift(fl, lf);
  for (int i = 0; i < NP; ++i) {{
    alignas(64) real_t dr[6][W], ds[6][W], dt[6][W];  // [field][lane]
{volume_passes}    const real_t (*__restrict acc)[W] = lf + 6 * i;  // LIFT row i times the face fluxes
#pragma omp simd
    for (int e = 0; e < W; ++e) {{
      real_t d[3][6];  // d[axis][field]
      for (int m = 0; m < 6; ++m)
        for (int x = 0; x < 3; ++x) d[x][m] = g[x][e] * dr[m][e] + g[3 + x][e] * ds[m][e] + g[6 + x][e] * dt[m][e];
      const real_t curl[6] = {{d[1][5] - d[2][4], d[2][3] - d[0][5], d[0][4] - d[1][3],
                              -(d[1][2] - d[2][1]), -(d[2][0] - d[0][2]), -(d[0][1] - d[1][0])}};
      for (int c = 0; c < 3; ++c)
        r[c * NP + i][e] = (curl[c] - acc[c][e]) * mk[{inv_eps}][e] - mk[{sigma_eps}][e] * u[c * NP + i][e];
      for (int c = 3; c < 6; ++c) r[c * NP + i][e] = (curl[c] + acc[c][e]) * mk[{inv_mu}][e];
    }}
  }}
}}

// Lane e's element k: r := its full right-hand side, with J (HAS_CURRENT) and, for an element with
// a slot, the layer's terms (psi advanced one stage on (pa, pb, pdt) from the state u) or the TF/SF
// correction.
DGMAX_FN void element_sources(int k, int e, const real_t (*__restrict u)[W], const real_t (*__restrict mk)[W],
                              const double* __restrict vert, double t, const int* __restrict xslot,
                              const real_t* __restrict xsrc, const real_t* __restrict xscale, real_t* __restrict psi,
                              real_t* __restrict psi_res, const real_t* __restrict pcoef, int pml_slots, real_t pa,
                              real_t pb, real_t pdt, real_t (*__restrict r)[W]) {{
#if HAS_CURRENT
  for (int i = 0; i < NP; ++i) {{
    expr_t p[4], jv[3];
    node_position(vert + (long)k * VERT, i, p);
    p[3] = t;
    field_current(p, jv);
    for (int c = 0; c < 3; ++c) r[c * NP + i][e] -= (real_t)jv[c] * mk[{inv_eps}][e];
  }}
#endif
#if HAS_EXTRA
  const int slot = xslot[k];
  if (slot < 0) return;
#if HAS_PML
  if (slot < pml_slots) {{
    const real_t* cf = pcoef + (long)slot * PML_COEF;
    for (int c = 0; c < 6; ++c)
      for (int i = 0; i < NP; ++i)
        r[c * NP + i][e] = r[c * NP + i][e] * cf[PML_SCALE + c % 3] +
                           pml_advance(slot, cf, c, i, u[c * NP + i][e], psi, psi_res, pa, pb, pdt);
    return;
  }}
#endif
  for (int c = 0; c < 6; ++c)
    for (int i = 0; i < NP; ++i) r[c * NP + i][e] = extra_rhs_slot(slot, c, i, r[c * NP + i][e], xsrc, xscale);
#endif
}}

// One LSERK stage of elements [k0, k1) (k0 a multiple of W): res = a·res + dt·rhs; q_out = q + b·res.
// q and q_out are different buffers: neighbours read q while q_out is written. The layer's
// auxiliary fields go one stage on (pa, pb, pdt) (a right-hand side alone: a = b = 0, dt = 1 gives
// res = rhs, and pa = 1, pb = pdt = 0 leaves psi as it is). pcoef: [layer slots][PML_COEF].
// Batch-interleaved copies of per-element data (the backend makes them; batch n holds elements
// nW .. nW+W-1, lanes past the last element repeat it): geow: [batches][GEO][W], matw:
// [batches][MAT][W], nbrw: [batches][4][W] etoe, matpw: [batches][4][4][W] eps, mu, Z, Y across
// each face (the element's own on the boundary), tracew: [batches][4*NFP][W] the exterior trace's
// node k'*NP + i' (vmapP; the element's own face node on the boundary) with WIDE_TRACE_OFFSETS,
// else its offset k'*6*NP + i' in q.
extern "C" void dgmax_stage(int k0, int k1, const real_t* __restrict q, const real_t* __restrict geo,
                            const real_t* __restrict mat, const int* __restrict etoe, const int* __restrict bc,
                            const int* __restrict vmapP, const double* __restrict vert, double t,
                            real_t* __restrict res, real_t* __restrict q_out, real_t a, real_t b, real_t dt,
                            const int* __restrict xslot, const real_t* __restrict xsrc,
                            const real_t* __restrict xscale, real_t* __restrict psi, real_t* __restrict psi_res,
                            const real_t* __restrict pcoef, int pml_slots, real_t pa, real_t pb, real_t pdt,
                            const real_t* __restrict geow, const real_t* __restrict matw, const int* __restrict nbrw,
                            const real_t* __restrict matpw, const int* __restrict tracew) {{
  const int batches = (k1 - k0 + W - 1) / W;
#pragma omp parallel for schedule({sched})
  for (int n = 0; n < batches; ++n) {{
    const int kb = k0 + n * W, nb = k1 - kb < W ? k1 - kb : W, bn = kb / W;
    // lane e holds element kb + e; lanes past k1 repeat the last element (computed, never stored)
    int ke[W];
    for (int e = 0; e < W; ++e) ke[e] = kb + (e < nb ? e : nb - 1);
    const real_t (*__restrict g)[W] = (const real_t (*)[W])(geow + (long)bn * GEO * W);   // [GEO][W]
    const real_t (*__restrict mk)[W] = (const real_t (*)[W])(matw + (long)bn * MAT * W);  // [MAT][W]
    const int (*__restrict nbr)[W] = (const int (*)[W])(nbrw + (long)bn * 4 * W);          // [4][W]
    const real_t (*__restrict matp)[W] = (const real_t (*)[W])(matpw + (long)bn * 16 * W);  // [4][4][W]
    const int (*__restrict trace)[W] = (const int (*)[W])(tracew + (long)bn * NFACE_NODES * W);
    // the next batch's neighbours outside the window the hardware prefetcher streams in: their
    // face traces are gathered lane by lane, and a miss there stalls the batch
    if (kPrefetchNeighbours && n + 1 < batches)
      for (int m = 0; m < 4 * W; ++m) {{
        const int kp = nbrw[(long)(bn + 1) * 4 * W + m];
        if (kp < 0 || (kp >= kb - 4 * W && kp < kb + 4 * W)) continue;
        const char* p = (const char*)(q + (long)kp * 6 * NP);
        for (int l = 0; l < 6 * NP * (int)sizeof(real_t); l += 64) __builtin_prefetch(p + l);
      }}
    alignas(64) real_t u[6 * NP][W];            // u: [6][NP][W] the state
    alignas(64) real_t fl[NFACE_NODES * 6][W];  // fl: [4*NFP][6][W] face fluxes times Fscale
    alignas(64) real_t r[6 * NP][W];            // r: [6][NP][W] right-hand side
    if (nb == W) {{
      const real_t* __restrict qb = q + (long)kb * 6 * NP;  // the batch's W consecutive elements
      for (int m = 0; m < 6 * NP; ++m)
#pragma omp simd
        for (int e = 0; e < W; ++e) u[m][e] = qb[e * 6 * NP + m];
    }} else {{
      for (int m = 0; m < 6 * NP; ++m)
        for (int e = 0; e < W; ++e) u[m][e] = q[(long)ke[e] * 6 * NP + m];
    }}
    batch_fluxes(ke, u, g, mk, nbr, matp, trace, q, geo, mat, etoe, bc, vmapP, vert, t, fl);
    batch_rhs(u, g, mk, fl, r);
    for (int e = 0; e < nb; ++e)
      element_sources(kb + e, e, u, mk, vert, t, xslot, xsrc, xscale, psi, psi_res, pcoef, pml_slots, pa, pb, pdt, r);
{update}  }}
}}

)",
                     fmt::arg("name", plan.name()), fmt::arg("W", W), fmt::arg("trace_gather", trace_gather_source(!gather_insn.empty(), W)), fmt::arg("gather_insn", gather_insn), fmt::arg("W2", std::bit_ceil(static_cast<unsigned>(W))),
                     fmt::arg("update", batch_update_source(plan.transposed_update)),
                     fmt::arg("transpose", plan.transposed_update ? transpose_tile_source(static_cast<int>(std::bit_ceil(static_cast<unsigned>(W)))) : ""), fmt::arg("volume_passes", field_passes(plan.fields_per_pass, "batch_derivatives", "i, u, dr, ds, dt", "    ")),
                     fmt::arg("lift_passes", field_passes(plan.fields_per_pass, "batch_lift_fields", "fl, lf", "  ")), fmt::arg("flux_inv", flux.invariant), fmt::arg("flux_var", flux.variant), fmt::arg("nhoist", std::max(1, flux.hoisted)), fmt::arg("sched", sched),
                     fmt::arg("fma", plan.fma ? 1 : 0), fmt::arg("wide", plan.wide_trace_offsets ? 1 : 0), fmt::arg("eps", kMatEps), fmt::arg("mu", kMatMu),
                     fmt::arg("z", kMatZ), fmt::arg("y", kMatY), fmt::arg("normal", kGeoNormal),
                     fmt::arg("fscale", kGeoFscale), fmt::arg("inv_eps", kMatInvEps), fmt::arg("inv_mu", kMatInvMu),
                     fmt::arg("sigma_eps", kMatSigmaOverEps));
}

}  // namespace

std::string generate_cpu_source(const KernelSpec& s) {
  std::ostringstream src;
  src << kernel_header_comment(s, "cpu") << "\n#include <cmath>\n\n"
      << "#define DGMAX_FN static inline\n#define DGMAX_TABLE static const\n#define __restrict__ __restrict\n\n"
      << kernel_common_section(s, false);

  // one section of the source, with the named arguments every section may use
  auto section = [&](const char* text) {
    src << fmt::format(fmt::runtime(text), fmt::arg("sched", omp_schedule(s.plan.cpu.elements_per_chunk)),
                       fmt::arg("inv_eps", kMatInvEps), fmt::arg("inv_mu", kMatInvMu),
                       fmt::arg("sigma_eps", kMatSigmaOverEps), fmt::arg("nnorms", kNumNorms), fmt::arg("eps", kMatEps),
                       fmt::arg("mu", kMatMu), fmt::arg("oW", kNormEnergy), fmt::arg("oE2", kNormE2),
                       fmt::arg("oH2", kNormH2), fmt::arg("oEi", kNormEinf), fmt::arg("oHi", kNormHinf),
                       fmt::arg("oJ2", kNormJ2));
  };

  if (s.plan.cpu.fused) {
    src << fused_stage_source(s);
  } else {
    // Four passes per stage. Volume: d/dr, d/ds, d/dt of the six components at node i, then the curl.
    section(R"(// Volume terms: rhs_E = curl H, rhs_H = -curl E.
extern "C" void dgmax_volume(int K, const real_t* __restrict q, const real_t* __restrict geo,
                             real_t* __restrict rhs) {{
#pragma omp parallel for schedule({sched})
  for (int k = 0; k < K; ++k) {{
    const real_t* qk = q + (long)k * 6 * NP;
    real_t* rk = rhs + (long)k * 6 * NP;
    const real_t* g = geo + (long)k * GEO;
    // node-major copy, so the six components of node j are contiguous in the inner loop
    real_t qt[NP][6];
    for (int m = 0; m < 6; ++m)
      for (int j = 0; j < NP; ++j) qt[j][m] = qk[m * NP + j];
    for (int i = 0; i < NP; ++i) {{
      real_t dr[6] = {{0, 0, 0, 0, 0, 0}}, ds[6] = {{0, 0, 0, 0, 0, 0}}, dt[6] = {{0, 0, 0, 0, 0, 0}};
      for (int j = 0; j < NP; ++j) {{
        const real_t a = Dr[i][j], b = Ds[i][j], c = Dt[i][j];
        for (int m = 0; m < 6; ++m) {{
          const real_t v = qt[j][m];
          dr[m] += a * v;
          ds[m] += b * v;
          dt[m] += c * v;
        }}
      }}
      real_t d[3][6];  // d[axis][component]
      for (int m = 0; m < 6; ++m)
        for (int x = 0; x < 3; ++x) d[x][m] = g[x] * dr[m] + g[3 + x] * ds[m] + g[6 + x] * dt[m];
      rk[0 * NP + i] = d[1][5] - d[2][4];
      rk[1 * NP + i] = d[2][3] - d[0][5];
      rk[2 * NP + i] = d[0][4] - d[1][3];
      rk[3 * NP + i] = -(d[1][2] - d[2][1]);
      rk[4 * NP + i] = -(d[2][0] - d[0][2]);
      rk[5 * NP + i] = -(d[0][1] - d[1][0]);
    }}
  }}
}}

)");
    section(R"(// Surface: traces at the 4*NFP face nodes of each element, the flux scaled by Fscale.
extern "C" void dgmax_surface(int K, const real_t* __restrict q, const real_t* __restrict geo,
                              const real_t* __restrict mat, const int* __restrict etoe,
                              const int* __restrict bc, const int* __restrict vmapP,
                              const double* __restrict vert, double t, real_t* __restrict flux) {{
#pragma omp parallel for schedule({sched})
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f)
      for (int j = 0; j < NFP; ++j)
        face_node_flux(k, f, j, q, geo, mat, etoe, bc, vmapP, vert, t,
                       flux + ((long)k * NFACE_NODES + f * NFP + j) * 6);
}}

// Lift: rhs_E = (curl H - LIFT flux_E) / eps - (sigma/eps) E - J/eps;  rhs_H = (-curl E + LIFT flux_H) / mu.
// J(x, t) is evaluated at the node (HAS_CURRENT).
extern "C" void dgmax_lift(int K, const real_t* __restrict flux, const real_t* __restrict mat,
                           const real_t* __restrict q, const double* __restrict vert, double t,
                           real_t* __restrict rhs, const int* __restrict xslot, const real_t* __restrict xsrc,
                           const real_t* __restrict xscale) {{
#pragma omp parallel for schedule({sched})
  for (int k = 0; k < K; ++k) {{
    const real_t* fl = flux + (long)k * NFACE_NODES * 6;
    const real_t* mk = mat + (long)k * MAT;
    const real_t* qk = q + (long)k * 6 * NP;
    real_t* rk = rhs + (long)k * 6 * NP;
    for (int i = 0; i < NP; ++i) {{
      real_t src[3] = {{0, 0, 0}};
#if HAS_CURRENT
      {{
        expr_t p[4], jv[3];
        node_position(vert + (long)k * VERT, i, p);
        p[3] = t;
        field_current(p, jv);
        for (int c = 0; c < 3; ++c) src[c] = (real_t)jv[c];
      }}
#endif
      real_t acc[6] = {{0, 0, 0, 0, 0, 0}};
      for (int m = 0; m < NFACE_NODES; ++m) {{
        const real_t l = LIFT[i][m];
        for (int c = 0; c < 6; ++c) acc[c] += l * fl[m * 6 + c];
      }}
      for (int c = 0; c < 3; ++c) {{
        real_t e = (rk[c * NP + i] - acc[c]) * mk[{inv_eps}] - mk[{sigma_eps}] * qk[c * NP + i];
#if HAS_CURRENT
        e -= src[c] * mk[{inv_eps}];
#endif
        rk[c * NP + i] = extra_rhs(k, c, i, e, xslot, xsrc, xscale);
        rk[(3 + c) * NP + i] = extra_rhs(k, 3 + c, i, (rk[(3 + c) * NP + i] + acc[3 + c]) * mk[{inv_mu}], xslot, xsrc, xscale);
      }}
    }}
  }}
}}

)");
  }
  section(R"(#if HAS_TFSF
// The total-field/scattered-field correction at time t, before the fields' right-hand side: for
// each element with a face on the box (slot first_slot + e), the flux changes at those faces'
// nodes, lifted into xsrc. tfsf_sign: [n][4].
extern "C" void dgmax_tfsf(int n, int first_slot, const int* __restrict tfsf_elem, const int* __restrict tfsf_sign,
                           const real_t* __restrict q, const real_t* __restrict geo, const real_t* __restrict mat,
                           const int* __restrict etoe, const int* __restrict vmapP, const double* __restrict vert,
                           double t, real_t* __restrict xsrc) {{
#pragma omp parallel for schedule({sched})
  for (int e = 0; e < n; ++e) {{
    const int k = tfsf_elem[e], slot = first_slot + e;
    real_t sf[NFACE_NODES * 6];
    for (int m = 0; m < NFACE_NODES; ++m) {{
      const int f = m / NFP, sign = tfsf_sign[e * 4 + f];
      if (sign != 0) tfsf_face_node(k, f, m % NFP, sign, q, geo, mat, etoe, vmapP, vert, t, &sf[m * 6]);
      else for (int c = 0; c < 6; ++c) sf[m * 6 + c] = real_t(0);
    }}
    for (int i = 0; i < NP; ++i) {{
      real_t out[6];
      tfsf_lift_node(k, i, sf, mat, out);
      for (int c = 0; c < 6; ++c) xsrc[((long)slot * 6 + c) * NP + i] = out[c];
    }}
  }}
}}
#endif

)");
  if (!s.plan.cpu.fused) section(R"(#if HAS_PML
// One LSERK stage of the perfectly matched layer, before the fields' right-hand side: advances the
// auxiliary fields of every layer element and writes the source dgmax_lift adds (pml_node).
extern "C" void dgmax_pml(int slots, const int* __restrict pml_elem, const real_t* __restrict q,
                          const double* __restrict vert, real_t* __restrict psi, real_t* __restrict psi_res,
                          real_t* __restrict xsrc, real_t a, real_t b, real_t dt) {{
#pragma omp parallel for schedule({sched})
  for (int slot = 0; slot < slots; ++slot)
    for (int i = 0; i < NP; ++i) pml_node(slot, pml_elem[slot], i, q, vert, psi, psi_res, xsrc, a, b, dt);
}}
#endif

// One LSERK stage over all n values.
extern "C" void dgmax_update(long n, real_t a, real_t b, real_t dt, const real_t* __restrict rhs,
                             real_t* __restrict res, real_t* __restrict q) {{
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {{
    res[i] = a * res[i] + dt * rhs[i];
    q[i] += b * res[i];
  }}
}}

)");
  section(R"(// The initial state: q = (E, H)(x, 0) at every node. Returns the smallest flat index
// ((k*6 + c)*NP + i) whose value is not finite in real_t, or -1.
extern "C" long dgmax_initial(int K, const double* __restrict vert, real_t* __restrict q) {{
  long first = (long)K * 6 * NP;
#pragma omp parallel for schedule({sched}) reduction(min : first)
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < NP; ++i) {{
      const long bad = initial_node(k, i, vert, q);
      if (bad >= 0 && bad < first) first = bad;
    }}
  return first < (long)K * 6 * NP ? first : -1;
}}

// Space-time field `which` (see field_at) at n points pts[n][4] = (x, y, z, t): out[n][6].
extern "C" void dgmax_field_at(int which, long n, const double* __restrict pts, double* __restrict out) {{
  for (long m = 0; m < n; ++m) field_at(which, pts + 4 * m, out + 6 * m);
}}

// NaN-propagating maximum (a NaN error must not hide behind a finite one).
static inline double max_nan(double m, double a) {{ return (a > m || a != a) ? a : m; }}

// out[6] = (energy, ||E - E_exact||^2, ||H - H_exact||^2, max|E - E_exact|, max|H - H_exact|,
// ∫|J|²/eps), the integrals with the mass matrix; accumulated in double. Without an exact solution
// (a current): zeros there.
extern "C" void dgmax_norms(int K, const real_t* __restrict q, const real_t* __restrict mat,
                            const double* __restrict vert, double t, double* __restrict out) {{
  for (int n = 0; n < {nnorms}; ++n) out[n] = 0;
#pragma omp parallel
  {{
    double W = 0, e2 = 0, h2 = 0, einf = 0, hinf = 0, j2 = 0;
#pragma omp for schedule({sched})
    for (int k = 0; k < K; ++k) {{
      const real_t* qk = q + (long)k * 6 * NP;
      const double* vk = vert + (long)k * VERT;
      if (vk[VERT_J] == 0) continue;  // a curved element: dgmax_curved_norms integrates it
      const real_t* mk = mat + (long)k * MAT;
      double v[6][NP];
      for (int c = 0; c < 6; ++c)
        for (int i = 0; i < NP; ++i) v[c][i] = (double)qk[c * NP + i];
      double we = 0, wh = 0;
      for (int c = 0; c < 6; ++c)
        for (int i = 0; i < NP; ++i) {{
          double mv = 0;
          for (int j = 0; j < NP; ++j) mv += Mass[i][j] * v[c][j];
          (c < 3 ? we : wh) += v[c][i] * mv;
        }}
      W += 0.5 * vk[VERT_J] * ((double)mk[{eps}] * we + (double)mk[{mu}] * wh);
#if HAS_EXACT
      for (int i = 0; i < NP; ++i) {{
        expr_t p[4], ex[6];
        node_position(vk, i, p);
        p[3] = t;
        field_exact(p, ex);
        for (int c = 0; c < 6; ++c) {{
          v[c][i] -= ex[c];
          if (c < 3) einf = max_nan(einf, std::fabs(v[c][i]));
          else hinf = max_nan(hinf, std::fabs(v[c][i]));
        }}
      }}
      for (int c = 0; c < 6; ++c) {{
        double s = 0;
        for (int i = 0; i < NP; ++i) {{
          double mv = 0;
          for (int j = 0; j < NP; ++j) mv += Mass[i][j] * v[c][j];
          s += v[c][i] * mv;
        }}
        (c < 3 ? e2 : h2) += vk[VERT_J] * s;
      }}
#endif
#if HAS_CURRENT
      double jv[3][NP];
      for (int i = 0; i < NP; ++i) {{
        expr_t p[4], jn[3];
        node_position(vk, i, p);
        p[3] = t;
        field_current(p, jn);
        for (int c = 0; c < 3; ++c) jv[c][i] = jn[c];
      }}
      double js = 0;
      for (int c = 0; c < 3; ++c)
        for (int i = 0; i < NP; ++i) {{
          double mv = 0;
          for (int j = 0; j < NP; ++j) mv += Mass[i][j] * jv[c][j];
          js += jv[c][i] * mv;
        }}
      j2 += vk[VERT_J] * js / (double)mk[{eps}];
#endif
    }}
#pragma omp critical
    {{
      out[{oW}] += W;
      out[{oE2}] += e2;
      out[{oH2}] += h2;
      out[{oEi}] = max_nan(out[{oEi}], einf);
      out[{oHi}] = max_nan(out[{oHi}], hinf);
      out[{oJ2}] += j2;
    }}
  }}
}}
)");
  src << curved_kernel_section(s, false);
  return src.str();
}

}  // namespace dgmax::codegen
