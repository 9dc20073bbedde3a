#include "codegen/emit/cuda_node_stage.hpp"

namespace dgmax::codegen {

const char* cuda_node_helpers_template() {
  return R"(#if !MMA
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
// gathers (bench/NOTES.md, "the stage's interior traces from the staged state").
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
  // 1.018x at fp64 N = 2 against the value-by-value copies (bench/NOTES.md,
  // "fp64 N = 7 staged default landed", item 2).
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

)";
}

const char* cuda_node_kernels_template() {
  return R"(#if !MMA
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

)";
}

}  // namespace dgmax::codegen
