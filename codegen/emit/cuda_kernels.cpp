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

// Right-hand side of component c at node i of element k:
//   E: (curl H - LIFT flux_E) / eps - (sigma/eps) E - J/eps;   H: (-curl E + LIFT flux_H) / mu.
DGMAX_FN real_t rhs_component(int c, real_t volume, real_t lifted, const real_t* __restrict__ mk, real_t qc,
                              const real_t* __restrict__ J, int K, int k, int i) {{
  if (c >= 3) return (volume + lifted) * mk[{inv_mu}];
  real_t v = (volume - lifted) * mk[{inv_eps}] - mk[{sigma_eps}] * qc;
  if (J) v -= J[c * (long)K * NP + (long)k * NP + i] * mk[{inv_eps}];
  return v;
}}

// Lift the fluxes in shared memory onto the volume terms already in rhs (rhs := full right-hand side).
DGMAX_FN void lift_into_rhs(int K, int k, int i, const real_t* __restrict__ sf, const real_t* __restrict__ mat,
                            const real_t* __restrict__ q, const real_t* __restrict__ J, real_t* __restrict__ rhs) {{
  real_t acc[6];
  lift_node(i, sf, acc);
  const real_t* mk = mat + (long)k * MAT;
  const real_t* qk = q + (long)k * 6 * NP;
  real_t* rk = rhs + (long)k * 6 * NP;
#pragma unroll
  for (int c = 0; c < 6; ++c) rk[c * NP + i] = rhs_component(c, rk[c * NP + i], acc[c], mk, qk[c * NP + i], J, K, k, i);
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
                                         const int* __restrict__ inc_offset, const real_t* __restrict__ inc,
                                         real_t* __restrict__ flux) {{
  const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long)K * NFACE_NODES) return;
  const int k = (int)(t / NFACE_NODES), m = (int)(t % NFACE_NODES);
  face_node_flux(k, m / NFP, m % NFP, q, geo, mat, etoe, bc, vmapP, inc_offset, inc, flux + t * 6);
}}

// Lift: the face fluxes from device memory, staged in shared memory.
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_lift(int K, const real_t* __restrict__ flux, const real_t* __restrict__ mat, const real_t* __restrict__ q,
           const real_t* __restrict__ J, real_t* __restrict__ rhs) {{
  __shared__ real_t sf[EPB][NFACE_NODES * 6];
  const int i = threadIdx.x, e = threadIdx.y;
  const int k = blockIdx.x * EPB + e;
  if (k < K)
    for (int m = i; m < NFACE_NODES * 6; m += NP) sf[e][m] = flux[(long)k * NFACE_NODES * 6 + m];
  __syncthreads();
  if (k >= K) return;
  lift_into_rhs(K, k, i, sf[e], mat, q, J, rhs);
}}

// Surface and lift fused: the face fluxes of the block's elements stay in shared memory instead of
// a round trip through device memory.
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_surface_lift(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                   const real_t* __restrict__ mat, const int* __restrict__ etoe, const int* __restrict__ bc,
                   const int* __restrict__ vmapP, const int* __restrict__ inc_offset,
                   const real_t* __restrict__ inc, const real_t* __restrict__ J, real_t* __restrict__ rhs) {{
  __shared__ real_t sf[EPB][NFACE_NODES * 6];
  const int i = threadIdx.x, e = threadIdx.y;
  const int k = blockIdx.x * EPB + e;
  if (k < K)
    for (int m = i; m < NFACE_NODES; m += NP)
      face_node_flux(k, m / NFP, m % NFP, q, geo, mat, etoe, bc, vmapP, inc_offset, inc, &sf[e][m * 6]);
  __syncthreads();
  if (k >= K) return;
  lift_into_rhs(K, k, i, sf[e], mat, q, J, rhs);
}}

// One whole LSERK stage per element block: volume terms, face fluxes (shared memory), lift, then
// res = a·res + dt·rhs and q_out = q_in + b·res. q_in and q_out are different buffers (ping-pong),
// because neighbours read q_in while this block writes its elements' new state.
extern "C" __global__ void __launch_bounds__(NP * EPB)
dgmax_stage(int K, const real_t* __restrict__ q, const real_t* __restrict__ geo, const real_t* __restrict__ mat,
            const int* __restrict__ etoe, const int* __restrict__ bc, const int* __restrict__ vmapP,
            const int* __restrict__ inc_offset, const real_t* __restrict__ inc, const real_t* __restrict__ J,
            real_t* __restrict__ res, real_t* __restrict__ q_out, real_t a, real_t b, real_t dt) {{
  __shared__ real_t sq[EPB][6][NP];
  __shared__ real_t sf[EPB][NFACE_NODES * 6];
  const int i = threadIdx.x, e = threadIdx.y;
  const int k = blockIdx.x * EPB + e;
  if (k < K) {{
    for (int m = 0; m < 6; ++m) sq[e][m][i] = q[((long)k * 6 + m) * NP + i];
    for (int m = i; m < NFACE_NODES; m += NP)
      face_node_flux(k, m / NFP, m % NFP, q, geo, mat, etoe, bc, vmapP, inc_offset, inc, &sf[e][m * 6]);
  }}
  __syncthreads();
  if (k >= K) return;
  real_t curl[6], acc[6];
  volume_node(i, sq[e], geo + (long)k * GEO, curl);
  lift_node(i, sf[e], acc);
  const real_t* mk = mat + (long)k * MAT;
#pragma unroll
  for (int c = 0; c < 6; ++c) {{
    const real_t r = rhs_component(c, curl[c], acc[c], mk, sq[e][c][i], J, K, k, i);
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
)",
                     fmt::arg("epb", cuda_elements_per_block(s)), fmt::arg("inv_eps", kMatInvEps),
                     fmt::arg("inv_mu", kMatInvMu), fmt::arg("sigma_eps", kMatSigmaOverEps));
  return src.str();
}

}  // namespace dgmax::codegen
