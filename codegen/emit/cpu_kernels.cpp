#include "codegen/emit/cpu_kernels.hpp"

#include <fmt/format.h>

#include <sstream>

#include "codegen/emit/kernel_common.hpp"

namespace dgmax::codegen {

std::string generate_cpu_source(const KernelSpec& s) {
  std::ostringstream src;
  src << kernel_header_comment(s, "cpu") << "\n#include <cmath>\n\n"
      << "#define DGMAX_FN static inline\n#define DGMAX_TABLE static const\n#define __restrict__ __restrict\n\n"
      << kernel_common_section(s, false);

  // Volume: d/dr, d/ds, d/dt of the six components at node i, then the curl.
  src << fmt::format(R"(// Volume terms: rhs_E = curl H, rhs_H = -curl E.
extern "C" void dgmax_volume(int K, const real_t* __restrict q, const real_t* __restrict geo,
                             real_t* __restrict rhs) {{
#pragma omp parallel for schedule(static, {chunk})
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

)",
                     fmt::arg("chunk", s.plan.elements_per_chunk));

  src << fmt::format(R"(// Surface: traces at the 4*NFP face nodes of each element, the flux scaled by Fscale.
extern "C" void dgmax_surface(int K, const real_t* __restrict q, const real_t* __restrict geo,
                              const real_t* __restrict mat, const int* __restrict etoe,
                              const int* __restrict bc, const int* __restrict vmapP,
                              const int* __restrict inc_offset, const real_t* __restrict inc,
                              real_t* __restrict flux) {{
#pragma omp parallel for schedule(static, {chunk})
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f)
      for (int j = 0; j < NFP; ++j)
        face_node_flux(k, f, j, q, geo, mat, etoe, bc, vmapP, inc_offset, inc,
                       flux + ((long)k * NFACE_NODES + f * NFP + j) * 6);
}}

// Lift: rhs_E = (curl H - LIFT flux_E) / eps - (sigma/eps) E - J/eps;  rhs_H = (-curl E + LIFT flux_H) / mu.
extern "C" void dgmax_lift(int K, const real_t* __restrict flux, const real_t* __restrict mat,
                           const real_t* __restrict q, const real_t* __restrict J,
                           real_t* __restrict rhs) {{
  const long KNp = (long)K * NP;
#pragma omp parallel for schedule(static, {chunk})
  for (int k = 0; k < K; ++k) {{
    const real_t* fl = flux + (long)k * NFACE_NODES * 6;
    const real_t* mk = mat + (long)k * MAT;
    const real_t* qk = q + (long)k * 6 * NP;
    real_t* rk = rhs + (long)k * 6 * NP;
    for (int i = 0; i < NP; ++i) {{
      real_t acc[6] = {{0, 0, 0, 0, 0, 0}};
      for (int m = 0; m < NFACE_NODES; ++m) {{
        const real_t l = LIFT[i][m];
        for (int c = 0; c < 6; ++c) acc[c] += l * fl[m * 6 + c];
      }}
      for (int c = 0; c < 3; ++c) {{
        real_t e = (rk[c * NP + i] - acc[c]) * mk[{inv_eps}] - mk[{sigma_eps}] * qk[c * NP + i];
        if (J) e -= J[c * KNp + (long)k * NP + i] * mk[{inv_eps}];
        rk[c * NP + i] = e;
        rk[(3 + c) * NP + i] = (rk[(3 + c) * NP + i] + acc[3 + c]) * mk[{inv_mu}];
      }}
    }}
  }}
}}

// One LSERK stage over all n values.
extern "C" void dgmax_update(long n, real_t a, real_t b, real_t dt, const real_t* __restrict rhs,
                             real_t* __restrict res, real_t* __restrict q) {{
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {{
    res[i] = a * res[i] + dt * rhs[i];
    q[i] += b * res[i];
  }}
}}
)",
                     fmt::arg("chunk", s.plan.elements_per_chunk), fmt::arg("inv_eps", kMatInvEps),
                     fmt::arg("inv_mu", kMatInvMu), fmt::arg("sigma_eps", kMatSigmaOverEps));
  return src.str();
}

}  // namespace dgmax::codegen
