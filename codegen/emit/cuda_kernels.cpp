#include "codegen/emit/cuda_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "codegen/emit/kernel_common.hpp"

namespace dgmax::codegen {

int cuda_elements_per_block(const KernelSpec& s) {
  return s.plan.elements_per_block > 0 ? s.plan.elements_per_block : std::max(1, 128 / s.Np);
}

std::string generate_cuda_source(const KernelSpec& s) {
  std::ostringstream src;
  src << kernel_header_comment(s, "cuda")
      << fmt::format("// Volume and lift blocks: {} threads per element x {} elements.\n\n", s.Np,
                     cuda_elements_per_block(s))
      << "#define DGMAX_FN __device__ __forceinline__\n#define DGMAX_TABLE __device__ const\n\n"
      << kernel_common_section(s, true);
  src << fmt::format(R"(enum {{ EPB = {epb} }};

// curl H and -curl E at node i from an element's state staged in shared memory (sq: [6][NP]).
DGMAX_FN void volume_node(int i, const real_t (*__restrict__ sq)[NP], const real_t* __restrict__ g,
                          real_t* __restrict__ curl) {{
  real_t dr[6] = {{0, 0, 0, 0, 0, 0}}, ds[6] = {{0, 0, 0, 0, 0, 0}}, dt[6] = {{0, 0, 0, 0, 0, 0}};
  for (int j = 0; j < NP; ++j) {{
    const real_t a = Dr[i][j], b = Ds[i][j], c = Dt[i][j];
#pragma unroll
    for (int m = 0; m < 6; ++m) {{
      const real_t v = sq[m][j];
      dr[m] += a * v;
      ds[m] += b * v;
      dt[m] += c * v;
    }}
  }}
  real_t d[3][6];  // d[axis][component]
#pragma unroll
  for (int m = 0; m < 6; ++m)
#pragma unroll
    for (int x = 0; x < 3; ++x) d[x][m] = g[x] * dr[m] + g[3 + x] * ds[m] + g[6 + x] * dt[m];
  curl[0] = d[1][5] - d[2][4];
  curl[1] = d[2][3] - d[0][5];
  curl[2] = d[0][4] - d[1][3];
  curl[3] = -(d[1][2] - d[2][1]);
  curl[4] = -(d[2][0] - d[0][2]);
  curl[5] = -(d[0][1] - d[1][0]);
}}

// acc = row i of LIFT times the element's face fluxes (sf: [NFACE_NODES][6]).
DGMAX_FN void lift_node(int i, const real_t* __restrict__ sf, real_t* __restrict__ acc) {{
#pragma unroll
  for (int c = 0; c < 6; ++c) acc[c] = 0;
  for (int m = 0; m < NFACE_NODES; ++m) {{
    const real_t l = LIFT[i][m];
#pragma unroll
    for (int c = 0; c < 6; ++c) acc[c] += l * sf[m * 6 + c];
  }}
}}

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

// Lift the fluxes in shared memory onto the volume terms already in rhs (rhs := full right-hand side).
DGMAX_FN void lift_into_rhs(int k, int i, const real_t* __restrict__ sf, const real_t* __restrict__ mat,
                            const real_t* __restrict__ q, const double* __restrict__ vert, double t,
                            real_t* __restrict__ rhs) {{
  real_t acc[6], src[3];
  lift_node(i, sf, acc);
  node_current(vert, k, i, t, src);
  const real_t* mk = mat + (long)k * MAT;
  const real_t* qk = q + (long)k * 6 * NP;
  real_t* rk = rhs + (long)k * 6 * NP;
#pragma unroll
  for (int c = 0; c < 6; ++c) rk[c * NP + i] = rhs_component(c, rk[c * NP + i], acc[c], mk, qk[c * NP + i], src);
}}

// Volume terms: rhs_E = curl H, rhs_H = -curl E.
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_volume(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo, real_t* __restrict__ rhs) {{
  __shared__ real_t sq[EPB][6][NP];
  const int i = threadIdx.x, e = threadIdx.y;
  const int k = blockIdx.x * EPB + e;
  if (k < K)
    for (int m = 0; m < 6; ++m) sq[e][m][i] = q[((long)k * 6 + m) * NP + i];
  __syncthreads();
  if (k >= K) return;
  real_t curl[6];
  volume_node(i, sq[e], geo + (long)k * GEO, curl);
  real_t* rk = rhs + (long)k * 6 * NP;
#pragma unroll
  for (int c = 0; c < 6; ++c) rk[c * NP + i] = curl[c];
}}

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

// Lift: the face fluxes from device memory, staged in shared memory.
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_lift(int K, const real_t* __restrict__ flux, const real_t* __restrict__ mat, const real_t* __restrict__ q,
           const double* __restrict__ vert, double t, real_t* __restrict__ rhs) {{
  __shared__ real_t sf[EPB][NFACE_NODES * 6];
  const int i = threadIdx.x, e = threadIdx.y;
  const int k = blockIdx.x * EPB + e;
  if (k < K)
    for (int m = i; m < NFACE_NODES * 6; m += NP) sf[e][m] = flux[(long)k * NFACE_NODES * 6 + m];
  __syncthreads();
  if (k >= K) return;
  lift_into_rhs(k, i, sf[e], mat, q, vert, t, rhs);
}}

// Surface and lift fused: the face fluxes of the block's elements stay in shared memory instead of
// a round trip through device memory.
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_surface_lift(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                   const real_t* __restrict__ mat, const int* __restrict__ etoe, const int* __restrict__ bc,
                   const int* __restrict__ vmapP, const double* __restrict__ vert, double t,
                   real_t* __restrict__ rhs) {{
  __shared__ real_t sf[EPB][NFACE_NODES * 6];
  const int i = threadIdx.x, e = threadIdx.y;
  const int k = blockIdx.x * EPB + e;
  if (k < K)
    for (int m = i; m < NFACE_NODES; m += NP)
      face_node_flux(k, m / NFP, m % NFP, q, geo, mat, etoe, bc, vmapP, vert, t, &sf[e][m * 6]);
  __syncthreads();
  if (k >= K) return;
  lift_into_rhs(k, i, sf[e], mat, q, vert, t, rhs);
}}

// One whole LSERK stage per element block: volume terms, face fluxes (shared memory), lift, then
// res = a·res + dt·rhs and q_out = q_in + b·res. q_in and q_out are different buffers (ping-pong),
// because neighbours read q_in while this block writes its elements' new state.
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_stage(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo, const real_t* __restrict__ mat,
            const int* __restrict__ etoe, const int* __restrict__ bc, const int* __restrict__ vmapP,
            const double* __restrict__ vert, double t, real_t* __restrict__ res, real_t* __restrict__ q_out,
            real_t a, real_t b, real_t dt) {{
  __shared__ real_t sq[EPB][6][NP];
  __shared__ real_t sf[EPB][NFACE_NODES * 6];
  const int i = threadIdx.x, e = threadIdx.y;
  const int k = blockIdx.x * EPB + e;
#if HAS_CURRENT
  // J first, while few registers are live, parked in shared memory until the update: evaluated
  // after the volume and lift terms it raised register use past the occupancy step (bench/NOTES.md)
  __shared__ real_t sj[EPB][3][NP];
  if (k < K) {{
    real_t j3[3];
    node_current(vert, k, i, t, j3);
    for (int c = 0; c < 3; ++c) sj[e][c][i] = j3[c];
  }}
#endif
  if (k < K) {{
    for (int m = 0; m < 6; ++m) sq[e][m][i] = q[((long)k * 6 + m) * NP + i];
    for (int m = i; m < NFACE_NODES; m += NP)
      face_node_flux(k, m / NFP, m % NFP, q, geo, mat, etoe, bc, vmapP, vert, t, &sf[e][m * 6]);
  }}
  __syncthreads();
  if (k >= K) return;
  real_t curl[6], acc[6], src[3];
  volume_node(i, sq[e], geo + (long)k * GEO, curl);
  lift_node(i, sf[e], acc);
#if HAS_CURRENT
  for (int c = 0; c < 3; ++c) src[c] = sj[e][c][i];
#else
  for (int c = 0; c < 3; ++c) src[c] = real_t(0);
#endif
  const real_t* mk = mat + (long)k * MAT;
#pragma unroll
  for (int c = 0; c < 6; ++c) {{
    const real_t r = rhs_component(c, curl[c], acc[c], mk, sq[e][c][i], src);
    const long idx = ((long)k * 6 + c) * NP + i;
    const real_t rs = a * res[idx] + dt * r;
    res[idx] = rs;
    q_out[idx] = sq[e][c][i] + b * rs;
  }}
}}

// One LSERK stage over all n values.
extern "C" __global__ void dgmax_update(long n, real_t a, real_t b, real_t dt, const real_t* __restrict__ rhs,
                                        real_t* __restrict__ res, real_t* __restrict__ q) {{
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {{
    const real_t r = a * res[i] + dt * rhs[i];
    res[i] = r;
    q[i] += b * r;
  }}
}}

// The initial state q = (E, H)(x, 0); *bad = min(*bad, flat index of a value not finite in real_t).
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_initial(int K, const double* __restrict__ vert, real_t* __restrict__ q, unsigned long long* __restrict__ bad) {{
  const int i = threadIdx.x, k = blockIdx.x * EPB + threadIdx.y;
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
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_norms(int K, const real_t* __restrict__ q, const real_t* __restrict__ mat, const double* __restrict__ vert,
            double t, double* __restrict__ partial) {{
  __shared__ double sv[EPB][6][NP];
  double* red = &sv[0][0][0];  // reused for the block's reduction: [6][EPB * NP]
  const int i = threadIdx.x, e = threadIdx.y, tid = e * NP + i;
  double acc[{nnorms}] = {{0, 0, 0, 0, 0, 0}};
  for (int k0 = blockIdx.x * EPB; k0 < K; k0 += gridDim.x * EPB) {{
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
  for (int n = 0; n < {nnorms}; ++n) red[n * EPB * NP + tid] = acc[n];
  __syncthreads();
  for (int n = tid; n < {nnorms}; n += EPB * NP) {{  // one thread per norm (a loop for tiny blocks)
    const double* r = red + n * EPB * NP;
    double s = r[0];
    for (int m = 1; m < EPB * NP; ++m) s = (n == {oEi} || n == {oHi}) ? max_nan(s, r[m]) : s + r[m];
    partial[(long)blockIdx.x * {nnorms} + n] = s;
  }}
}}
)",
                     fmt::arg("epb", cuda_elements_per_block(s)), fmt::arg("inv_eps", kMatInvEps),
                     fmt::arg("inv_mu", kMatInvMu), fmt::arg("sigma_eps", kMatSigmaOverEps),
                     fmt::arg("nnorms", kNumNorms), fmt::arg("eps", kMatEps), fmt::arg("mu", kMatMu),
                     fmt::arg("oW", kNormEnergy), fmt::arg("oE2", kNormE2), fmt::arg("oH2", kNormH2),
                     fmt::arg("oEi", kNormEinf), fmt::arg("oHi", kNormHinf), fmt::arg("oJ2", kNormJ2));
  return src.str();
}

}  // namespace dgmax::codegen
