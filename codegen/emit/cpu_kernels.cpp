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
                              const double* __restrict vert, double t, real_t* __restrict flux) {{
#pragma omp parallel for schedule(static, {chunk})
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
#pragma omp parallel for schedule(static, {chunk})
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

#if HAS_TFSF
// The total-field/scattered-field correction at time t, before the fields' right-hand side: for
// each element with a face on the box (slot first_slot + e), the flux changes at those faces'
// nodes, lifted into xsrc. tfsf_sign: [n][4].
extern "C" void dgmax_tfsf(int n, int first_slot, const int* __restrict tfsf_elem, const int* __restrict tfsf_sign,
                           const real_t* __restrict q, const real_t* __restrict geo, const real_t* __restrict mat,
                           const int* __restrict etoe, const int* __restrict vmapP, const double* __restrict vert,
                           double t, real_t* __restrict xsrc) {{
#pragma omp parallel for schedule(static, {chunk})
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

#if HAS_PML
// One LSERK stage of the perfectly matched layer, before the fields' right-hand side: advances the
// auxiliary fields of every layer element and writes the source dgmax_lift adds (pml_node).
extern "C" void dgmax_pml(int slots, const int* __restrict pml_elem, const real_t* __restrict q,
                          const double* __restrict vert, real_t* __restrict psi, real_t* __restrict psi_res,
                          real_t* __restrict xsrc, real_t a, real_t b, real_t dt) {{
#pragma omp parallel for schedule(static, {chunk})
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

// The initial state: q = (E, H)(x, 0) at every node. Returns the smallest flat index
// ((k*6 + c)*NP + i) whose value is not finite in real_t, or -1.
extern "C" long dgmax_initial(int K, const double* __restrict vert, real_t* __restrict q) {{
  long first = (long)K * 6 * NP;
#pragma omp parallel for schedule(static, {chunk}) reduction(min : first)
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
#pragma omp for schedule(static, {chunk})
    for (int k = 0; k < K; ++k) {{
      const real_t* qk = q + (long)k * 6 * NP;
      const double* vk = vert + (long)k * VERT;
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
)",
                     fmt::arg("chunk", s.plan.elements_per_chunk), fmt::arg("inv_eps", kMatInvEps),
                     fmt::arg("inv_mu", kMatInvMu), fmt::arg("sigma_eps", kMatSigmaOverEps),
                     fmt::arg("nnorms", kNumNorms), fmt::arg("eps", kMatEps), fmt::arg("mu", kMatMu),
                     fmt::arg("oW", kNormEnergy), fmt::arg("oE2", kNormE2), fmt::arg("oH2", kNormH2),
                     fmt::arg("oEi", kNormEinf), fmt::arg("oHi", kNormHinf), fmt::arg("oJ2", kNormJ2));
  return src.str();
}

}  // namespace dgmax::codegen
