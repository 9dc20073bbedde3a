#include "codegen/emit/cuda_stage_rows.hpp"

namespace dgmax::codegen {

std::string state_rows_stage_section() {
  return R"(// The stage with element-field rows (plan option E). Per group of EPB elements, one GEMM gives every
// right-hand side before the material factors, transposed: out[6 EPB][NPK] = A x B, where row
// 6e + c is field c of element e, column i node i, and
//   A[6e + c][m NPK + j] (m = 0..2): the curl weight of field c at node j of element e for D_m, as in
//       stage_curl_rows: (g_m x H)_c for E, -(g_m x E)_c for H, with g_m = d r_m / dx;
//   A[6e + c][3 NPK + f]: the flux of field c at face node f times Fscale, negated for E;
//   B = [Dr^T; Ds^T; Dt^T; LIFT^T] (OpsT), in shared memory for the block's life.
// Warp w multiplies rows 16w .. 16w+15 (its warpgroup's wgmmas take 64 rows: all NPK columns and 8 k
// at a time). The lanes build their A fragments in registers: the curl weights from the staged
// state, the fluxes loaded from shared memory, where the block stages them first. The blocks are
// persistent: each copies B once, then loops over element groups; with GPB > 1 its GPB teams of
// warpgroups (GT threads each) loop over groups of their own, each team with its own buffers and
// barrier, all sharing B. (bslot and store_b, which stage_flux_rows stages the fluxes with, are
// defined with the other forms' ones.)
enum { K_ROWS = 3 * NPK + NFK, OPS_LO = K_ROWS * NPK, ROWS = 6 * EPB, NCT = NPK / 8 };
// k steps per batch of wgmmas: the lanes build a batch's A fragments (2 x 4 registers per step)
// while the batch before multiplies, so two batches' registers are live. A curl chunk per batch up
// to 3 steps (N = 3: 3, 1.02x the batches waited for one by one), 2 from N = 4 (1.005x at N = 4,
// 1.02x at N = 5; 3 steps there 0.99x and 1.025x; bench/NOTES.md, "cuda E stage: a batch's
// fragments built while the batch before multiplies").
enum { KBATCH = NPK / 8 <= 3 ? NPK / 8 : 2 };
static_assert(GT == 128 * ((ROWS + 63) / 64), "one warpgroup per 64 element-fields");
static_assert(NTL == NCT, "the wgmma's columns are the nodes");
// Group buffers per team: with one group per block two, so that the next group's copies land
// while this one is multiplied; with several teams one, the next group copied once this one is
// done, while the other teams work (level with two at N = 4, E3; what lets E2 fit at N = 5;
// bench/NOTES.md, "cuda: one group buffer per team").
enum { GROUP_BUFFERS = GPB > 1 ? 1 : 2 };

// The operators' high and low parts (OpsT) into shared memory: one asynchronous copy group.
// btid: the thread's index in the block (all of its groups' threads copy).
DGMAX_FN void copy_operators(int btid, real_t* __restrict__ ops) {
  const real_t* src = &OpsT[0][0];
  for (int v = btid; v < 2 * OPS_LO / 4; v += NT) copy_async16(ops + 4 * v, src + 4 * v);
  copy_async_commit();
}

// A curl-weighted row of A: element e's weight for field c and operator m at node j is
// al v[p][j] - be v[q][j] (E rows: (g x H)_c = g_u H_v - g_v H_u; H rows: -(g x E)_c = g_v E_u - g_u
// E_v, u = c+1, v = c+2 mod 3). Rows past 6 EPB weigh nothing.
struct curl_row_t {
  const real_t* vp;
  const real_t* vq;
  real_t al, be;
};
DGMAX_FN curl_row_t curl_row(int r, int m, const real_t* __restrict__ qb, const real_t* __restrict__ gb) {
  const bool live = r < ROWS;
  const int e = live ? r / 6 : 0, c = live ? r - 6 * e : r % 6, x = c % 3, u = (x + 1) % 3, v = (x + 2) % 3;
  const bool is_e = c < 3;
  const real_t* g = gb + e * GEO + 3 * m;
  curl_row_t w;
  w.vp = qb + (e * 6 + (is_e ? 3 + v : u)) * NP;
  w.vq = qb + (e * 6 + (is_e ? 3 + u : v)) * NP;
  w.al = live ? (is_e ? g[u] : g[v]) : real_t(0);
  w.be = live ? (is_e ? g[v] : g[u]) : real_t(0);
  return w;
}
DGMAX_FN float curl_weight(const curl_row_t& w, int j) { return j < NP ? w.al * w.vp[j] - w.be * w.vq[j] : 0.f; }

// x split into TF32 high and low parts (as store_b of the X plans).
DGMAX_FN void split_tf32(float x, unsigned& hi, unsigned& lo) {
  hi = to_tf32_hi(x);
  lo = to_tf32(x - __uint_as_float(hi));
}

// acc += the fragments (hi, lo) x B's k steps k0 .. k0 + steps - 1 (lo*hi + hi*lo + hi*hi), as the
// warpgroup's wgmmas, committed as one group and not waited for: the caller must not write the
// fragments (or read acc) until wgmma_wait says the group is done. (ptxas checks register reuse
// under an unfinished wgmma and serializes with an advisory where it finds one; it prints none for
// these kernels: nvcc -arch=sm_90a -Xptxas -v on the generated sources, 2026-11-26.)
template <int steps>
DGMAX_FN void gemm_rows(int k0, const unsigned (*__restrict__ hi)[4], const unsigned (*__restrict__ lo)[4],
                        const real_t* __restrict__ ops, float (*__restrict__ acc)[4]) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int ks = 0; ks < steps; ++ks) {
    const real_t* bk = ops + (k0 + ks) * (NCT * 64);
    wgmma_tf32(&acc[0][0], lo[ks], b_desc(bk));  // small terms first
    wgmma_tf32(&acc[0][0], hi[ks], b_desc(bk + OPS_LO));
    wgmma_tf32(&acc[0][0], hi[ks], b_desc(bk));
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Wait until at most `pending` committed wgmma groups are still running.
template <int pending>
DGMAX_FN void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
}

// acc += A's `steps` k steps (B's steps k_base ..) in batches of KBATCH, each batch's fragments
// built while the one before multiplies: value(s, x) gives this lane's four A values of step s (a0
// .. a3 of the m16n8k8 TF32 fragment layout: rows r0, r0 + 8, r0, r0 + 8; columns t, t, t + 4,
// t + 4), split into TF32 high and low parts here. The last batch is waited for unless
// last_in_flight (then the caller waits with wgmma_wait<0> before it reads acc).
template <int steps, bool last_in_flight, class Values>
DGMAX_FN void gemm_pipelined(int k_base, Values value, const real_t* __restrict__ ops, float (*__restrict__ acc)[4]) {
  enum { BATCHES = (steps + KBATCH - 1) / KBATCH };
  unsigned hi[2][KBATCH][4], lo[2][KBATCH][4];  // two batches' fragments, alternating
#pragma unroll
  for (int bt = 0; bt < BATCHES; ++bt) {
    const int k0 = bt * KBATCH, buf = bt & 1;
#pragma unroll
    for (int ks = 0; ks < KBATCH; ++ks) {
      if (k0 + ks >= steps) break;  // the last batch's steps end with the chunk's
      float x[4];
      value(k0 + ks, x);
#pragma unroll
      for (int v = 0; v < 4; ++v) split_tf32(x[v], hi[buf][ks][v], lo[buf][ks][v]);
    }
    if (k0 + KBATCH <= steps) gemm_rows<KBATCH>(k_base + k0, hi[buf], lo[buf], ops, acc);
    else gemm_rows<steps % KBATCH>(k_base + k0, hi[buf], lo[buf], ops, acc);  // the last, short batch
    if (bt + 1 < BATCHES) wgmma_wait<1>();  // the batch before is done: its registers are free again
  }
  if (!last_in_flight) wgmma_wait<0>();
}

// acc += the three curl chunks, one stream of 3 NPK / 8 k steps (this lane's rows r0 and r0 + 8,
// nodes 8 s + t and + 4 of operator m's step s), the last batch left in flight.
DGMAX_FN void curl_chunks(int r0, int t, const real_t* __restrict__ qb, const real_t* __restrict__ gb,
                          const real_t* __restrict__ ops, float (*__restrict__ acc)[4]) {
  enum { S1 = NPK / 8 };
  curl_row_t w[3][2];
#pragma unroll
  for (int m = 0; m < 3; ++m) w[m][0] = curl_row(r0, m, qb, gb), w[m][1] = curl_row(r0 + 8, m, qb, gb);
  gemm_pipelined<3 * S1, true>(0, [&](int s, float (&x)[4]) {
    const int m = s / S1, j = 8 * (s - m * S1) + t;
    x[0] = curl_weight(w[m][0], j), x[1] = curl_weight(w[m][1], j), x[2] = curl_weight(w[m][0], j + 4),
    x[3] = curl_weight(w[m][1], j + 4);
  }, ops, acc);
}

// acc += the flux chunk: this lane's fragments of the staged fluxes sa (rows past 6 EPB: zero).
DGMAX_FN void flux_chunk(int r0, int t, const real_t* __restrict__ sa, const real_t* __restrict__ ops,
                         float (*__restrict__ acc)[4]) {
  const real_t* a0 = sa + min(r0, ROWS - 1) * SA + t;
  const real_t* a1 = sa + min(r0 + 8, ROWS - 1) * SA + t;
  const float l0 = r0 < ROWS ? 1.f : 0.f, l1 = r0 + 8 < ROWS ? 1.f : 0.f;
  gemm_pipelined<NFK / 8, false>(3 * (NPK / 8), [&](int s, float (&x)[4]) {
    const int f = 8 * s;
    x[0] = l0 * a0[f], x[1] = l1 * a1[f], x[2] = l0 * a0[f + 4], x[3] = l1 * a1[f + 4];
  }, ops, acc);
}

// The team's buffers for one group (GROUP_BUFFERS of them): its states [EPB][6][NP] and face data
// (16-byte aligned: the states are copied 16 bytes at a time).
struct __align__(16) rows_group_t {
  real_t q[EPB][6][NP];
  group_faces_t faces;
};
// The group of EPB elements from kb: states and face data into g, one asynchronous copy group (an
// empty one past K, so that every loop turn commits as many).
DGMAX_FN void copy_rows_group(int K, int kb, int tid, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                              const int* __restrict__ etoe, const int* __restrict__ vmapP, rows_group_t* __restrict__ g) {
  if (kb < K) {
    copy_block_async(&g->q[0][0][0], q + (long)kb * 6 * NP, min(EPB, K - kb) * 6 * NP, tid);
    copy_group_faces(K, kb, tid, geo, etoe, vmapP, &g->faces);
  }
  copy_async_commit();
}

// One group of EPB elements from kb, its states and face data in g (arrived or arriving: the copy
// group before the res entries'). In flight on the way, as asynchronous copy groups: the group's
// res entries (into sres), the neighbours' traces (into sa, once the face data are in) and, with
// two group buffers, the next group's states and face data (from kb_next, into g_next; with one,
// an empty copy group in its place); the curl chunks multiply while they travel. Then the fluxes
// (staged in sa), their chunk, the layer, the update.
DGMAX_FN void stage_rows_group(int K, int kb, int kb_next, int tid, int warp, int lane, const real_t* __restrict__ q,
                               const real_t* __restrict__ geo, const real_t* __restrict__ mat,
                               const int* __restrict__ etoe, const int* __restrict__ bc, const int* __restrict__ vmapP,
                               const double* __restrict__ vert, double t, real_t* __restrict__ res,
                               real_t* __restrict__ q_out, real_t a, real_t b, real_t dt, const int* __restrict__ xslot,
                               const real_t* __restrict__ xsrc, const real_t* __restrict__ xscale,
                               real_t* __restrict__ psi, real_t* __restrict__ psi_res, const real_t* __restrict__ pcoef,
                               int pml_slots, const real_t* __restrict__ ops, real_t* __restrict__ sa,
                               real_t (*__restrict__ sres)[6][NP], const rows_group_t* __restrict__ g,
                               rows_group_t* __restrict__ g_next, real_t* __restrict__ after) {
  const real_t* qb = &g->q[0][0][0];
  const group_faces_t* gf = &g->faces;
  copy_block_async(&sres[0][0][0], res + (long)kb * 6 * NP, min(EPB, K - kb) * 6 * NP, tid);
  copy_async_commit();
  copy_async_wait<1>();  // the states and face data
  // wgmma reads shared memory through the async proxy: the copies' stores reach it after a fence
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  group_sync();
  prefetch_neighbours(K, kb, tid, q, gf, sa);  // commits
  if (GROUP_BUFFERS == 2) copy_rows_group(K, kb_next, tid, q, geo, etoe, vmapP, g_next);
  else copy_async_commit();  // (as many copy groups in flight either way)
  real_t (*sj)[3][NP] = reinterpret_cast<real_t (*)[3][NP]>(after);  // J: [EPB][3][NP]
#if HAS_CURRENT
  stage_group_current(K, kb, tid, vert, t, sj);
#endif
  float acc[NCT][4];
#pragma unroll
  for (int nt = 0; nt < NCT; ++nt)
#pragma unroll
    for (int h = 0; h < 4; ++h) acc[nt][h] = 0.f;
  const int gl = lane >> 2, tq = lane & 3, r0 = 16 * warp + gl;
  curl_chunks(r0, tq, qb, &gf->geo[0][0], ops, acc);
  copy_async_wait<1>();  // the res entries and the neighbours' traces (the next group may still travel)
  group_sync();
  wgmma_wait<0>();  // the curl chunks' last batch (it multiplied while the team waited)
  stage_flux_rows_nb(K, kb, tid, mat, bc, vert, t, qb, gf, sa);
  group_sync();
  flux_chunk(r0, tq, sa, ops, acc);
  real_t* sx = sa;  // the layer's sources [6 EPB][SA], in the consumed fluxes
#if PML_IN_STAGE
  advance_group_layer(K, kb, tid, q, xslot, psi, psi_res, pcoef, pml_slots, a, b, dt, SA, sx);
#endif
  // the material records of this lane's two rows' elements, loaded once instead of per value (the
  // stores between the values keep the compiler from reusing loads; unread words are never loaded)
  real_t mk[2][MAT];
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const int k = min(kb + min(r0 + 8 * hr, ROWS - 1) / 6, K - 1);
#pragma unroll
    for (int w = 0; w < MAT; ++w) mk[hr][w] = mat[(long)k * MAT + w];
  }
  // accumulator h of column tile nt: row r0 (+ 8 for h >= 2), node 8 nt + 2 tq + h % 2
#pragma unroll
  for (int nt = 0; nt < NCT; ++nt)
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      const int r = r0 + (h >> 1) * 8, i = 8 * nt + 2 * tq + (h & 1);
      if (r >= ROWS || i >= NP) continue;
      const int e = r / 6, c = r - 6 * e, k = kb + e;
      if (k >= K) continue;
      finish_value(k, c, i, acc[nt][h], g->q[e][c][i], sres[e][c][i], current_at(sj, e, c, i), sx + r * SA + i, mk[h >> 1],
                   xslot, xsrc, xscale, pcoef, pml_slots, a, b, dt, res, q_out);
    }
}

// A team's buffers (after B, one set per team of the block): the fluxes [6 EPB][SA], res
// [EPB][6][NP], GROUP_BUFFERS groups' states and face data, J [EPB][3][NP]; 16-byte multiples, as
// the host's CudaPlan::shared_bytes counts them.
enum {
  GROUP_BYTES = ((ROWS * SA + EPB * 6 * NP) * sizeof(real_t) + GROUP_BUFFERS * sizeof(rows_group_t) +
                 (HAS_CURRENT ? EPB * 3 * NP * sizeof(real_t) : 0) + 15) / 16 * 16
};

extern "C" __global__ void __launch_bounds__(NT)
dgmax_stage(STAGE_PARAMS) {
  extern __shared__ __align__(128) unsigned char smem[];
  real_t* ops = reinterpret_cast<real_t*>(smem);  // B: [2][K_ROWS * NPK], high then low parts
  // this thread's group gi of the block: its threads tid = 0 .. GT - 1, its buffers
  const int gi = threadIdx.x / GT, tid = threadIdx.x - gi * GT, lane = tid & 31, warp = tid >> 5;
  real_t* sa = reinterpret_cast<real_t*>(smem + 2 * OPS_LO * sizeof(real_t) + gi * GROUP_BYTES);  // fluxes
  real_t (*sres)[6][NP] = reinterpret_cast<real_t (*)[6][NP]>(sa + ROWS * SA);  // res [EPB][6][NP]
  rows_group_t* groups = reinterpret_cast<rows_group_t*>(&sres[EPB][0][0]);     // groups' states
  real_t* after = reinterpret_cast<real_t*>(groups + GROUP_BUFFERS);            // J [EPB][3][NP]
  const int stride = gridDim.x * GPB * EPB;
  copy_operators(threadIdx.x, ops);
  int kb = k0 + (blockIdx.x * GPB + gi) * EPB, buf = 0;
  copy_rows_group(K, kb, tid, q, geo, etoe, vmapP, &groups[0]);
  copy_async_wait<1>();  // this thread's part of the operators (its group's first states may still travel)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // for wgmma's reads, as below
  __syncthreads();       // every thread's part: the operators are in
  for (; kb < K; kb += stride, buf ^= GROUP_BUFFERS - 1) {
    stage_rows_group(K, kb, kb + stride, tid, warp, lane, q, geo, mat, etoe, bc, vmapP, vert, t, res, q_out, a, b, dt,
                     xslot, xsrc, xscale, psi, psi_res, pcoef, pml_slots, ops, sa, sres, &groups[buf],
                     GROUP_BUFFERS == 2 ? &groups[buf ^ 1] : nullptr, after);
    group_sync();  // the group's buffers are consumed before the copies of a later group land in them
    if (GROUP_BUFFERS == 1) copy_rows_group(K, kb + stride, tid, q, geo, etoe, vmapP, &groups[0]);
  }
  copy_async_wait<0>();  // nothing in flight when the block exits
}
)";
}

}  // namespace dgmax::codegen
