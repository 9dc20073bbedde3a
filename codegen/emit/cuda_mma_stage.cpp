#include "codegen/emit/cuda_mma_stage.hpp"

namespace dgmax::codegen {

const char* cuda_mma_stage_template() {
  return R"(#if FUSION == 2 && MMA
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
// instructions than cvt's 5 on sm_90 (bench/NOTES.md, "the TF32 split by integer rounding").
// to_tf32_hi passes NaN, Inf and
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

)";
}

}  // namespace dgmax::codegen
