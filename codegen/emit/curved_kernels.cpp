#include "codegen/emit/curved_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace dgmax::codegen {

namespace {

// NODE_FACES[i][3]: the face nodes f·NFP + j that are node i (Fmask[f][j] == i), -1 for none; a
// node lies on at most three faces. The lift gathers per node in this fixed order (no atomics: the
// cuda result does not depend on scheduling).
std::string node_faces_table(const KernelSpec& s) {
  std::ostringstream t;
  t << "DGMAX_TABLE int NODE_FACES[NP][3] = {\n";
  for (int i = 0; i < s.Np; ++i) {
    int found[3] = {-1, -1, -1}, n = 0;
    for (int f = 0; f < 4; ++f)
      for (int j = 0; j < s.Nfp; ++j)
        if (s.Fmask[static_cast<size_t>(f) * s.Nfp + j] == i && n < 3) found[n++] = f * s.Nfp + j;
    t << "  {" << found[0] << ", " << found[1] << ", " << found[2] << "},\n";
  }
  t << "};\n";
  return t.str();
}

// The element's right-hand side, written once for both backends: TEAM_FOR spreads a loop over the
// threads of a cuda block (all iterations one after another on the cpu) and TEAM_SYNC separates the phases.
// The matrix products over volume points have a cpu form too (CURVED_CPU): the loop over points
// or nodes innermost, which the host compiler vectorizes; the cuda form gives each thread a point.
const char* kCurvedRhs = R"(
#if CURVED_CPU
// out[x][i] += Σ_p opT[p][i] in[p][x]: the product of a transposed operator opT [ROWS][COLS] with
// point or node values in [ROWS][6], the loop over outputs innermost (vectorized, no reassociation).
template <int ROWS, int COLS>
DGMAX_FN void curved_add_product(const real_t* __restrict__ opT, const real_t* __restrict__ in,
                                 real_t (*__restrict__ out)[COLS]) {
  for (int p = 0; p < ROWS; ++p) {
    const real_t* __restrict__ o = opT + p * COLS;
    for (int x = 0; x < 6; ++x) {
      const real_t ix = in[p * 6 + x];
      for (int i = 0; i < COLS; ++i) out[x][i] += o[i] * ix;
    }
  }
}
#endif

// Right-hand side of curved element slot c (element k = cinfo[c][0]) into r [6][NP], as
// ref_curved.cpp computes it: the volume curl Σ_a C_a × ∂_a u at the volume points, the flux at
// the face points weighted by w·sJ, both taken to the nodes (Pq, Minv), then the weight-adjusted
// inverse of the curved mass matrix, P_N((1/J) ·), and the materials: E: (R - sigma E - J) / eps,
// H: R / mu. Scratch (per team): u [6][NP], v [NQ][6], g [4][NFQ][6], b [NP][6]; r is scratch too
// until the last phase.
DGMAX_FN void curved_rhs(int c, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                         const int* __restrict__ etoe, const int* __restrict__ bc, const int* __restrict__ vmapP,
                         const int* __restrict__ cinfo, const real_t* __restrict__ cgeo,
                         const real_t* __restrict__ cops, const double* __restrict__ cx, double t,
                         real_t* __restrict__ u, real_t* __restrict__ v, real_t* __restrict__ g,
                         real_t* __restrict__ b, real_t* __restrict__ r) {
  const int k = cinfo[c * CINFO];
  const real_t* __restrict__ cg = cgeo + (long)c * CGEO;
  const real_t* __restrict__ mk = mat + (long)k * MAT;
  const real_t* __restrict__ qk = q + (long)k * 6 * NP;
  TEAM_FOR(m, 6 * NP) u[m] = qk[m];
  TEAM_SYNC();
  // volume points: v[i] = (J curl H, -J curl E)
#if CURVED_CPU
  // the derivatives at all points at once, the loops over points innermost (vectorized)
  real_t dd[3][6][NQ];
  for (int a = 0; a < 3; ++a)
    for (int x = 0; x < 6; ++x)
      for (int i = 0; i < NQ; ++i) dd[a][x][i] = real_t(0);
  for (int j = 0; j < NP; ++j) {
    const real_t* __restrict__ gr = cops + OP_GRT + j * NQ;
    const real_t* __restrict__ gs = cops + OP_GST + j * NQ;
    const real_t* __restrict__ gt = cops + OP_GTT + j * NQ;
    for (int x = 0; x < 6; ++x) {
      const real_t uj = u[x * NP + j];
      for (int i = 0; i < NQ; ++i) {
        dd[0][x][i] += gr[i] * uj;
        dd[1][x][i] += gs[i] * uj;
        dd[2][x][i] += gt[i] * uj;
      }
    }
  }
#endif
  TEAM_FOR(i, NQ) {
    real_t d[3][6];
#if CURVED_CPU
    for (int a = 0; a < 3; ++a)
      for (int x = 0; x < 6; ++x) d[a][x] = dd[a][x][i];
#else
    for (int a = 0; a < 3; ++a)
      for (int x = 0; x < 6; ++x) d[a][x] = real_t(0);
    for (int j = 0; j < NP; ++j) {
      const real_t gr = cops[OP_GR + i * NP + j], gs = cops[OP_GS + i * NP + j], gt = cops[OP_GT + i * NP + j];
      for (int x = 0; x < 6; ++x) {
        const real_t uj = u[x * NP + j];
        d[0][x] += gr * uj;
        d[1][x] += gs * uj;
        d[2][x] += gt * uj;
      }
    }
#endif
    real_t cE[3] = {0, 0, 0}, cH[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) {
      const real_t C0 = cg[(3 * a + 0) * NQ + i], C1 = cg[(3 * a + 1) * NQ + i], C2 = cg[(3 * a + 2) * NQ + i];
      cH[0] += C1 * d[a][5] - C2 * d[a][4];
      cH[1] += C2 * d[a][3] - C0 * d[a][5];
      cH[2] += C0 * d[a][4] - C1 * d[a][3];
      cE[0] += C1 * d[a][2] - C2 * d[a][1];
      cE[1] += C2 * d[a][0] - C0 * d[a][2];
      cE[2] += C0 * d[a][1] - C1 * d[a][0];
    }
    for (int x = 0; x < 3; ++x) {
      v[i * 6 + x] = cH[x];
      v[i * 6 + 3 + x] = -cE[x];
    }
  }
  // face points: g = w·sJ (-flux_E, +flux_H) from the traces interpolated there
  TEAM_FOR(m, 4 * NFQ) {
    const int f = m / NFQ, i = m % NFQ;
    const int kP = etoe[k * 4 + f];
    const real_t* __restrict__ If = cops + OP_IF + ((f * 6 + cinfo[c * CINFO + 1 + f]) * NFQ + i) * NFP;
    real_t in[29];
    for (int x = 0; x < 29; ++x) in[x] = real_t(0);
#if CURVED_INCIDENT
    const int bcf = kP < 0 ? bc[k * 4 + f] : -1;
    const bool inc = CURVED_READS_INCIDENT(bcf);
#endif
    for (int j = 0; j < NFP; ++j) {
      const real_t l = If[j];
      const int iM = Fmask[f][j];
      for (int x = 0; x < 6; ++x) in[x] += l * u[x * NP + iM];
      if (kP >= 0) {
        const int nP = vmapP[(k * 4 + f) * NFP + j];
        const real_t* __restrict__ qP = q + (long)(nP / NP) * 6 * NP + nP % NP;
        for (int x = 0; x < 6; ++x) in[6 + x] += l * qP[x * NP];
#if CURVED_TFSF
        // a TF/SF box face: the other side's trace gets sign * the incident field (as ref_curved.cpp)
        if (const int sg = cinfo[c * CINFO + 5 + f]) {
          expr_t p[4], w6[6];
          const double* xn = cx + ((long)c * NP + iM) * 3;
          p[0] = xn[0], p[1] = xn[1], p[2] = xn[2], p[3] = t;
          field_incident(p, w6);
          for (int x = 0; x < 6; ++x) in[6 + x] += l * (real_t)(sg * w6[x]);
        }
#endif
      }
#if CURVED_INCIDENT
      if (inc) {
        expr_t p[4], w6[6];
        const double* xn = cx + ((long)c * NP + iM) * 3;
        p[0] = xn[0], p[1] = xn[1], p[2] = xn[2], p[3] = t;
        field_incident(p, w6);
        for (int x = 0; x < 6; ++x) in[23 + x] += l * (real_t)w6[x];
      }
#endif
    }
    const real_t* __restrict__ fq = cg + CG_FACES + (f * NFQ + i) * 4;
    in[12] = fq[0], in[13] = fq[1], in[14] = fq[2];
    const real_t* __restrict__ mp = kP >= 0 ? mat + (long)kP * MAT : mk;
    in[15] = mk[MAT_EPS]; in[16] = mp[MAT_EPS]; in[17] = mk[MAT_MU]; in[18] = mp[MAT_MU];
    in[19] = mk[MAT_Z]; in[20] = mp[MAT_Z]; in[21] = mk[MAT_Y]; in[22] = mp[MAT_Y];
    if (kP < 0) {
      real_t ext[6] = {0, 0, 0, 0, 0, 0};
      for (int x = 0; x < 6; ++x) in[6 + x] = in[x];
      switch (bc[k * 4 + f]) {
CURVED_EXTERIOR_CASES        default: break;
      }
      for (int x = 0; x < 6; ++x) in[6 + x] = ext[x];
    }
    real_t out[6];
    numerical_flux(in, out);
    const real_t ws = fq[3];
    for (int x = 0; x < 3; ++x) {
      g[m * 6 + x] = -ws * out[x];
      g[m * 6 + 3 + x] = ws * out[3 + x];
    }
  }
  TEAM_SYNC();
  // the face integrals at the nodes: r[i] = Σ over the face nodes that are node i of If^T g
  TEAM_FOR(i, NP) {
    real_t s[6] = {0, 0, 0, 0, 0, 0};
    for (int e = 0; e < 3; ++e) {
      const int fj = NODE_FACES[i][e];
      if (fj < 0) continue;
      const int f = fj / NFP, j = fj % NFP;
      const real_t* __restrict__ If = cops + OP_IF + (f * 6 + cinfo[c * CINFO + 1 + f]) * NFQ * NFP;
      for (int p = 0; p < NFQ; ++p) {
        const real_t l = If[p * NFP + j];
        for (int x = 0; x < 6; ++x) s[x] += l * g[(f * NFQ + p) * 6 + x];
      }
    }
    for (int x = 0; x < 6; ++x) r[i * 6 + x] = s[x];
  }
  TEAM_SYNC();
  // b = Pq v + Minv (face integrals)
#if CURVED_CPU
  real_t sb[6][NP] = {}, sw[6][NQ] = {}, sr[6][NP] = {};
  curved_add_product<NQ, NP>(cops + OP_PQT, v, sb);
  curved_add_product<NP, NP>(cops + OP_MINV, r, sb);  // M^{-1} is symmetric: its own transpose
  for (int i = 0; i < NP; ++i)
    for (int x = 0; x < 6; ++x) b[i * 6 + x] = sb[x][i];
  // the weight-adjusted inverse: v = (Vq b) / J at the volume points, then r = Pq v
  curved_add_product<NP, NQ>(cops + OP_VQT, b, sw);
  for (int p = 0; p < NQ; ++p) {
    const real_t jinv = real_t(1) / cg[CG_J + p];
    for (int x = 0; x < 6; ++x) v[p * 6 + x] = sw[x][p] * jinv;
  }
  curved_add_product<NQ, NP>(cops + OP_PQT, v, sr);
  for (int i = 0; i < NP; ++i) {
    real_t s[6];
    for (int x = 0; x < 6; ++x) s[x] = sr[x][i];
#else
  // b = Pq v + Minv (face integrals)
  TEAM_FOR(i, NP) {
    real_t s[6] = {0, 0, 0, 0, 0, 0};
    for (int p = 0; p < NQ; ++p) {
      const real_t w = cops[OP_PQ + i * NQ + p];
      for (int x = 0; x < 6; ++x) s[x] += w * v[p * 6 + x];
    }
    for (int j = 0; j < NP; ++j) {
      const real_t w = cops[OP_MINV + i * NP + j];
      for (int x = 0; x < 6; ++x) s[x] += w * r[j * 6 + x];
    }
    for (int x = 0; x < 6; ++x) b[i * 6 + x] = s[x];
  }
  TEAM_SYNC();
  // the weight-adjusted inverse: v = (Vq b) / J at the volume points, then r = Pq v
  TEAM_FOR(p, NQ) {
    real_t s[6] = {0, 0, 0, 0, 0, 0};
    for (int j = 0; j < NP; ++j) {
      const real_t w = cops[OP_VQ + p * NP + j];
      for (int x = 0; x < 6; ++x) s[x] += w * b[j * 6 + x];
    }
    const real_t jinv = real_t(1) / cg[CG_J + p];
    for (int x = 0; x < 6; ++x) v[p * 6 + x] = s[x] * jinv;
  }
  TEAM_SYNC();
  TEAM_FOR(i, NP) {
    real_t s[6] = {0, 0, 0, 0, 0, 0};
    for (int p = 0; p < NQ; ++p) {
      const real_t w = cops[OP_PQ + i * NQ + p];
      for (int x = 0; x < 6; ++x) s[x] += w * v[p * 6 + x];
    }
#endif
#if HAS_CURRENT
    expr_t pos[4], jn[3];
    const double* xn = cx + ((long)c * NP + i) * 3;
    pos[0] = xn[0], pos[1] = xn[1], pos[2] = xn[2], pos[3] = t;
    field_current(pos, jn);
#endif
    for (int x = 0; x < 3; ++x) {
      real_t e = s[x] - mk[MAT_SIGMA_EPS] * mk[MAT_EPS] * u[x * NP + i];
#if HAS_CURRENT
      e -= (real_t)jn[x];
#endif
      r[x * NP + i] = e * mk[MAT_INV_EPS];
      r[(3 + x) * NP + i] = s[3 + x] * mk[MAT_INV_MU];
    }
  }
  TEAM_SYNC();
}

// Energy and error integrals of curved slot c (the quadrature of Problem::inner) into acc[6]:
// energy, |E - E_ex|^2, |H - H_ex|^2 (nodal differences, integrated), their nodal maxima, ∫|J|^2/eps.
// Team scratch d [6][NP] (double); each thread adds its share of the points to acc.
DGMAX_FN void curved_norm_terms(int c, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                                const int* __restrict__ cinfo, const real_t* __restrict__ cgeo,
                                const real_t* __restrict__ cops, const double* __restrict__ cx, double t,
                                double* __restrict__ d, double* __restrict__ acc) {
  const int k = cinfo[c * CINFO];
  const real_t* __restrict__ cg = cgeo + (long)c * CGEO;
  const real_t* __restrict__ mk = mat + (long)k * MAT;
  const real_t* __restrict__ qk = q + (long)k * 6 * NP;
  TEAM_FOR(m, 6 * NP) d[m] = (double)qk[m];
  TEAM_SYNC();
  TEAM_FOR(p, NQ) {
    const double wJ = (double)cops[OP_W + p] * (double)cg[CG_J + p];
    double we = 0, wh = 0;
    for (int x = 0; x < 6; ++x) {
      double s = 0;
      for (int j = 0; j < NP; ++j) s += (double)cops[OP_VQ + p * NP + j] * d[x * NP + j];
      (x < 3 ? we : wh) += s * s;
    }
    acc[NORM_ENERGY] += 0.5 * wJ * ((double)mk[MAT_EPS] * we + (double)mk[MAT_MU] * wh);
  }
#if HAS_EXACT
  TEAM_SYNC();
  TEAM_FOR(i, NP) {
    expr_t pos[4], ex[6];
    const double* xn = cx + ((long)c * NP + i) * 3;
    pos[0] = xn[0], pos[1] = xn[1], pos[2] = xn[2], pos[3] = t;
    field_exact(pos, ex);
    for (int x = 0; x < 6; ++x) {
      const double e = d[x * NP + i] - ex[x];
      d[x * NP + i] = e;
      acc[x < 3 ? NORM_EINF : NORM_HINF] = curved_max_nan(acc[x < 3 ? NORM_EINF : NORM_HINF], fabs(e));
    }
  }
  TEAM_SYNC();
  TEAM_FOR(p, NQ) {
    const double wJ = (double)cops[OP_W + p] * (double)cg[CG_J + p];
    for (int x = 0; x < 6; ++x) {
      double s = 0;
      for (int j = 0; j < NP; ++j) s += (double)cops[OP_VQ + p * NP + j] * d[x * NP + j];
      acc[x < 3 ? NORM_E2 : NORM_H2] += wJ * s * s;
    }
  }
#endif
#if HAS_CURRENT
  TEAM_SYNC();
  TEAM_FOR(i, NP) {
    expr_t pos[4], jn[3];
    const double* xn = cx + ((long)c * NP + i) * 3;
    pos[0] = xn[0], pos[1] = xn[1], pos[2] = xn[2], pos[3] = t;
    field_current(pos, jn);
    for (int x = 0; x < 3; ++x) d[x * NP + i] = jn[x];
  }
  TEAM_SYNC();
  TEAM_FOR(p, NQ) {
    const double wJ = (double)cops[OP_W + p] * (double)cg[CG_J + p];
    for (int x = 0; x < 3; ++x) {
      double s = 0;
      for (int j = 0; j < NP; ++j) s += (double)cops[OP_VQ + p * NP + j] * d[x * NP + j];
      acc[NORM_J2] += wJ * s * s / (double)mk[MAT_EPS];
    }
  }
#endif
  TEAM_SYNC();
}

// The initial state at node i of curved slot c (at its curved position); as initial_node.
DGMAX_FN long curved_initial_node(int c, int i, const int* __restrict__ cinfo, const double* __restrict__ cx,
                                  real_t* __restrict__ q) {
  const int k = cinfo[c * CINFO];
  long bad = -1;
#if HAS_INITIAL
  expr_t p[4], w6[6];
  const double* xn = cx + ((long)c * NP + i) * 3;
  p[0] = xn[0], p[1] = xn[1], p[2] = xn[2], p[3] = 0;
  field_initial(p, w6);
#endif
  for (int x = 0; x < 6; ++x) {
    const long idx = ((long)k * 6 + x) * NP + i;
#if HAS_INITIAL
    const real_t v = (real_t)w6[x];
#else
    const real_t v = real_t(0);
#endif
    q[idx] = v;
    if (bad < 0 && !(v - v == real_t(0))) bad = idx;
  }
  return bad;
}
)";

const char* kCpuEntries = R"(
// One LSERK stage of curved slots [c0, c1) after the straight-sided stage (which wrote garbage for
// them): res_c [Kc][6][NP] is their own residual register, res_c = a res_c + dt rhs, copied to
// res; q_out = q + b res_c. q_out == 0: the right-hand side alone, into res.
extern "C" void dgmax_curved_stage(int c0, int c1, const real_t* __restrict q, const real_t* __restrict mat,
                                   const int* __restrict etoe, const int* __restrict bc, const int* __restrict vmapP,
                                   const int* __restrict cinfo, const real_t* __restrict cgeo,
                                   const real_t* __restrict cops, const double* __restrict cx, double t,
                                   real_t* __restrict res_c, real_t* __restrict res, real_t* __restrict q_out,
                                   real_t a, real_t b, real_t dt) {
#pragma omp parallel for schedule(dynamic, 4)
  for (int c = c0; c < c1; ++c) {
    real_t u[6 * NP], v[NQ * 6], g[4 * NFQ * 6], bb[NP * 6], r[6 * NP];
    curved_rhs(c, q, mat, etoe, bc, vmapP, cinfo, cgeo, cops, cx, t, u, v, g, bb, r);
    const long o = (long)cinfo[c * CINFO] * 6 * NP;
    if (!q_out) {
      for (int m = 0; m < 6 * NP; ++m) res[o + m] = r[m];
      continue;
    }
    real_t* rc = res_c + (long)c * 6 * NP;
    for (int m = 0; m < 6 * NP; ++m) {
      const real_t x = a * rc[m] + dt * r[m];
      rc[m] = x;
      res[o + m] = x;
      q_out[o + m] = q[o + m] + b * x;
    }
  }
}

// The initial state of the curved slots at their nodes' curved positions (after dgmax_initial);
// the smallest flat index of a value not finite in real_t, or -1.
extern "C" long dgmax_curved_initial(int Kc, const int* __restrict cinfo, const double* __restrict cx,
                                     real_t* __restrict q) {
  long first = -1;
  for (int c = 0; c < Kc; ++c)
    for (int i = 0; i < NP; ++i) {
      const long bad = curved_initial_node(c, i, cinfo, cx, q);
      if (bad >= 0 && (first < 0 || bad < first)) first = bad;
    }
  return first;
}

// The curved slots' share of dgmax_norms (which skips them: their vertex record has J = 0), added to out.
extern "C" void dgmax_curved_norms(int Kc, const real_t* __restrict q, const real_t* __restrict mat,
                                   const int* __restrict cinfo, const real_t* __restrict cgeo,
                                   const real_t* __restrict cops, const double* __restrict cx, double t,
                                   double* __restrict out) {
  for (int c = 0; c < Kc; ++c) {
    double d[6 * NP], acc[6] = {0, 0, 0, 0, 0, 0};
    curved_norm_terms(c, q, mat, cinfo, cgeo, cops, cx, t, d, acc);
    for (int n = 0; n < 6; ++n)
      out[n] = (n == NORM_EINF || n == NORM_HINF) ? curved_max_nan(out[n], acc[n]) : out[n] + acc[n];
  }
}
)";

const char* kCudaEntries = R"(
// One LSERK stage of curved slots [c0, c1) (as the cpu's dgmax_curved_stage): block b's team y
// (CURVED_TEAM threads) computes slot c0 + b * CURVED_EPB + y. A team past c1 computes the last
// slot again (every team takes part in the block's barriers) and stores nothing.
extern "C" __global__ void __launch_bounds__(CURVED_TEAM * CURVED_EPB)
dgmax_curved_stage(int c0, int c1, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                   const int* __restrict__ etoe, const int* __restrict__ bc, const int* __restrict__ vmapP,
                   const int* __restrict__ cinfo, const real_t* __restrict__ cgeo, const real_t* __restrict__ cops,
                   const double* __restrict__ cx, double t, real_t* __restrict__ res_c, real_t* __restrict__ res,
                   real_t* __restrict__ q_out, real_t a, real_t b, real_t dt) {
  __shared__ real_t u[CURVED_EPB][6 * NP], v[CURVED_EPB][NQ * 6], g[CURVED_EPB][4 * NFQ * 6], bb[CURVED_EPB][NP * 6],
      r[CURVED_EPB][6 * NP];
  const int y = threadIdx.y, wanted = c0 + blockIdx.x * CURVED_EPB + y;
  const int c = wanted < c1 ? wanted : c1 - 1;
  curved_rhs(c, q, mat, etoe, bc, vmapP, cinfo, cgeo, cops, cx, t, u[y], v[y], g[y], bb[y], r[y]);
  if (wanted >= c1) return;
  const long o = (long)cinfo[c * CINFO] * 6 * NP;
  if (!q_out) {
    TEAM_FOR(m, 6 * NP) res[o + m] = r[y][m];
    return;
  }
  real_t* rc = res_c + (long)c * 6 * NP;
  TEAM_FOR(m, 6 * NP) {
    const real_t x = a * rc[m] + dt * r[y][m];
    rc[m] = x;
    res[o + m] = x;
    q_out[o + m] = q[o + m] + b * x;
  }
}

// The initial state of the curved slots (after dgmax_initial); *bad: the smallest flat index of a
// value not finite in real_t (left as it is when there is none).
extern "C" __global__ void dgmax_curved_initial(int Kc, const int* __restrict__ cinfo, const double* __restrict__ cx,
                                                real_t* __restrict__ q, unsigned long long* __restrict__ bad) {
  const long n = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= (long)Kc * NP) return;
  const long b = curved_initial_node((int)(n / NP), (int)(n % NP), cinfo, cx, q);
  if (b >= 0) atomicMin(bad, (unsigned long long)b);
}

// The curved slots' norms: block c writes partial[c][6] (the host adds them in order).
extern "C" __global__ void __launch_bounds__(CURVED_THREADS)
dgmax_curved_norms(int Kc, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                   const int* __restrict__ cinfo, const real_t* __restrict__ cgeo, const real_t* __restrict__ cops,
                   const double* __restrict__ cx, double t, double* __restrict__ partial) {
  __shared__ double d[6 * NP];
  __shared__ double red[6][CURVED_THREADS];
  const int c = blockIdx.x;
  if (c >= Kc) return;
  double acc[6] = {0, 0, 0, 0, 0, 0};
  curved_norm_terms(c, q, mat, cinfo, cgeo, cops, cx, t, d, acc);
  for (int n = 0; n < 6; ++n) red[n][threadIdx.x] = acc[n];
  __syncthreads();
  if (threadIdx.x < 6) {
    const int n = threadIdx.x;
    double s = red[n][0];
    for (int m = 1; m < CURVED_THREADS; ++m)
      s = (n == NORM_EINF || n == NORM_HINF) ? curved_max_nan(s, red[n][m]) : s + red[n][m];
    partial[(long)c * 6 + n] = s;
  }
}
)";

}  // namespace

long curved_shared_bytes(const KernelSpec& s) {
  const long w = s.single ? 4 : 8;
  return w * (18L * s.Np + 6L * s.curved_Nq + 24L * s.curved_Nfq);
}

CurvedBlock curved_block(const KernelSpec& s) {
  CurvedBlock b;
  // a warp multiple near the volume points (the widest phase), at most 128
  b.threads = std::min(128, 32 * ((std::max(s.curved_Nq, 32) + 31) / 32));
  const long per = curved_shared_bytes(s);
  b.elements = static_cast<int>(std::max(1L, std::min<long>(256 / b.threads, 48L * 1024 / per)));
  b.shared_bytes = per * b.elements;
  return b;
}

std::string curved_cuda_refusal(const KernelSpec& s) {
  if (s.curved_Nq == 0 || curved_block(s).shared_bytes <= 48 * 1024) return "";
  return fmt::format("the curved elements of this problem need {} KB of shared memory per block on the cuda backend "
                     "(order {}, {} volume points and {} per face); at most 48 KB",
                     curved_shared_bytes(s) / 1024, s.N, s.curved_Nq, s.curved_Nfq);
}

std::string curved_kernel_section(const KernelSpec& s, bool cuda) {
  if (s.curved_Nq == 0) return "";
  const CurvedLayout L = curved_layout(s);
  std::ostringstream src;
  src << "// ---- The curved element group (codegen/emit/curved_kernels.hpp) ----\n"
      << fmt::format("enum {{ NQ = {}, NFQ = {}, CINFO = {}, CGEO = {}, CG_J = {}, CG_FACES = {} }};\n", L.Nq, L.Nfq,
                     kCurvedInfo, L.geo_stride(), L.geo_j(), L.geo_faces())
      << fmt::format("enum {{ OP_GR = {}, OP_GS = {}, OP_GT = {}, OP_VQ = {}, OP_PQ = {}, OP_W = {}, OP_MINV = {}, OP_IF = {} }};\n",
                     L.op_gr(), L.op_gs(), L.op_gt(), L.op_vq(), L.op_pq(), L.op_w(), L.op_minv(), L.op_if())
      << fmt::format("enum {{ OP_GRT = {}, OP_GST = {}, OP_GTT = {}, OP_VQT = {}, OP_PQT = {} }};\n", L.op_grt(),
                     L.op_gst(), L.op_gtt(), L.op_vqt(), L.op_pqt())
      << "#define CURVED_CPU " << (cuda || s.curved_team_loops ? 0 : 1) << "\n"
      << fmt::format("enum {{ MAT_EPS = {}, MAT_MU = {}, MAT_Z = {}, MAT_Y = {}, MAT_INV_EPS = {}, MAT_INV_MU = {}, "
                     "MAT_SIGMA_EPS = {} }};\n",
                     kMatEps, kMatMu, kMatZ, kMatY, kMatInvEps, kMatInvMu, kMatSigmaOverEps)
      << fmt::format("enum {{ NORM_ENERGY = {}, NORM_E2 = {}, NORM_H2 = {}, NORM_EINF = {}, NORM_HINF = {}, NORM_J2 = {} }};\n",
                     kNormEnergy, kNormE2, kNormH2, kNormEinf, kNormHinf, kNormJ2)
      << fmt::format("enum {{ CURVED_THREADS = {}, CURVED_TEAM = {}, CURVED_EPB = {} }};\n", kCurvedThreads,
                     curved_block(s).threads, curved_block(s).elements);
  if (cuda)
    src << "#define TEAM_FOR(i, n) for (int i = threadIdx.x; i < (n); i += blockDim.x)\n#define TEAM_SYNC() __syncthreads()\n";
  else
    src << "#define TEAM_FOR(i, n) for (int i = 0; i < (n); ++i)\n#define TEAM_SYNC()\n";
  src << "DGMAX_FN double curved_max_nan(double m, double a) { return (a > m || a != a) ? a : m; }\n";
  // which boundary states read the incident field (evaluated at the face nodes, interpolated)
  std::string reads;
  for (size_t b = 0; b < s.exterior.size(); ++b)
    if (s.incident && b < s.exterior_reads_incident.size() && s.exterior_reads_incident[b])
      reads += (reads.empty() ? "" : " || ") + fmt::format("(b) == {}", b);
  src << "#define CURVED_INCIDENT " << (reads.empty() ? 0 : 1) << "\n"
      << "#define CURVED_TFSF " << (s.tfsf && s.incident ? 1 : 0) << "\n"
      << "#define CURVED_READS_INCIDENT(b) (" << (reads.empty() ? "false" : reads) << ")\n"
      << node_faces_table(s);
  std::ostringstream cases;
  for (size_t b = 0; b < s.exterior.size(); ++b)
    cases << "        case " << b << ": exterior_" << b << "(in, ext); break;\n";
  std::string body = kCurvedRhs;
  const std::string marker = "CURVED_EXTERIOR_CASES";
  body.replace(body.find(marker), marker.size(), cases.str());
  src << body << (cuda ? kCudaEntries : kCpuEntries);
  return src.str();
}

}  // namespace dgmax::codegen
