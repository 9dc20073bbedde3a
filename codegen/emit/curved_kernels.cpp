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

// One LSERK stage of a curved element in two forms. The quadrature form (ref_curved.cpp) is linear
// in the element's state and face integrals, so its volume part and its weight-adjusted inverse are
// folded into four Np x Np matrices per element (cmat, curved_kernel_data.hpp): a node's
// right-hand side is Σ_j over the element's nodes, plus the flux at the face points. The cpu form
// (CURVED_CPU, curved_stage_slot) takes one element, its products with the loop over nodes innermost
// (vectorized by the host compiler); the cuda form (curved_stage_batch) takes CURVED_E elements,
// TEAM_FOR spreading each step over the threads of a block (all iterations one after another on the
// host, where tests run it) and TEAM_SYNC separating the steps. Both share the face-point, lift,
// finishing and storing steps below.
const char* kCurvedRhs = R"(
// Face point i of face f of curved slot c into g[f * NFQ + i][6]: w·sJ (-flux_E, +flux_H), from
// the traces interpolated there: in[0..5] interior, in[6..11] exterior (the neighbour's, with the
// TF/SF box's incident field; on a boundary its state replaces them here), in[23..28] incident.
DGMAX_FN void curved_point_flux(int c, int f, int i, real_t* __restrict__ in, const real_t* __restrict__ mat,
                                const int* __restrict__ etoe, const int* __restrict__ bc,
                                const int* __restrict__ cinfo, const real_t* __restrict__ cgeo,
                                real_t* __restrict__ g) {
  const int k = cinfo[c * CINFO];
  const int kP = etoe[k * 4 + f];
  const real_t* __restrict__ mk = mat + (long)k * MAT;
  const real_t* __restrict__ fq = cgeo + (long)c * CGEO + CG_FACES + (f * NFQ + i) * 4;
  in[12] = fq[0], in[13] = fq[1], in[14] = fq[2];
  const real_t* __restrict__ mp = kP >= 0 ? mat + (long)kP * MAT : mk;
  in[15] = mk[MAT_EPS]; in[16] = mp[MAT_EPS]; in[17] = mk[MAT_MU]; in[18] = mp[MAT_MU];
  in[19] = mk[MAT_Z]; in[20] = mp[MAT_Z]; in[21] = mk[MAT_Y]; in[22] = mp[MAT_Y];
  if (kP < 0) {
    real_t ext[6] = {0, 0, 0, 0, 0, 0};
    for (int x = 0; x < 6; ++x) in[6 + x] = in[x];
    switch (bc[k * 4 + f]) {
CURVED_EXTERIOR_CASES      default: break;
    }
    for (int x = 0; x < 6; ++x) in[6 + x] = ext[x];
  }
  real_t out[6];
  numerical_flux(in, out);
  const real_t ws = fq[3];
  real_t* __restrict__ gm = g + (f * NFQ + i) * 6;
  for (int x = 0; x < 3; ++x) {
    gm[x] = -ws * out[x];
    gm[3 + x] = ws * out[3 + x];
  }
}

#if CURVED_TFSF || CURVED_INCIDENT
// The incident field (E, H) at node i of curved slot c, at its curved position, at time t.
DGMAX_FN void curved_incident_at_node(int c, int i, const double* __restrict__ cx, double t, expr_t* w6) {
  expr_t p[4];
  const double* xn = cx + ((long)c * NP + i) * 3;
  p[0] = xn[0], p[1] = xn[1], p[2] = xn[2], p[3] = t;
  field_incident(p, w6);
}
#endif

// The traces at face node j of face f of curved slot c (u [6][NP]: the slot's state) into tr[18]:
// interior (0..5), exterior (6..11: the neighbour's, plus sign * the incident field on a TF/SF box
// face, as ref_curved.cpp; 0 on a boundary), incident (12..17, where the boundary state reads it).
DGMAX_FN void curved_node_traces(int c, int f, int j, const real_t* __restrict__ q, const int* __restrict__ etoe,
                                 const int* __restrict__ bc, const int* __restrict__ vmapP,
                                 const int* __restrict__ cinfo, const double* __restrict__ cx, double t,
                                 const real_t* __restrict__ u, real_t* __restrict__ tr) {
  const int k = cinfo[c * CINFO];
  const int kP = etoe[k * 4 + f];
  const int iM = Fmask[f][j];
  for (int x = 0; x < 18; ++x) tr[x] = real_t(0);
  for (int x = 0; x < 6; ++x) tr[x] = u[x * NP + iM];
  if (kP >= 0) {
    const int nP = vmapP[(k * 4 + f) * NFP + j];
    const real_t* __restrict__ qP = q + (long)(nP / NP) * 6 * NP + nP % NP;
    for (int x = 0; x < 6; ++x) tr[6 + x] = qP[x * NP];
#if CURVED_TFSF
    if (const int sg = cinfo[c * CINFO + 5 + f]) {
      expr_t w6[6];
      curved_incident_at_node(c, iM, cx, t, w6);
      for (int x = 0; x < 6; ++x) tr[6 + x] += (real_t)(sg * w6[x]);
    }
#endif
  }
#if CURVED_INCIDENT
  else if (CURVED_READS_INCIDENT(bc[k * 4 + f])) {
    expr_t w6[6];
    curved_incident_at_node(c, iM, cx, t, w6);
    for (int x = 0; x < 6; ++x) tr[12 + x] = (real_t)w6[x];
  }
#endif
}

// Face point m (f = m / NFQ) of curved slot c into g[m][6] (curved_point_flux), its traces
// interpolated from the face nodes' (curved_node_traces) one node at a time.
DGMAX_FN void curved_face_point(int c, int m, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                                const int* __restrict__ etoe, const int* __restrict__ bc,
                                const int* __restrict__ vmapP, const int* __restrict__ cinfo,
                                const real_t* __restrict__ cgeo, const real_t* __restrict__ cops,
                                const double* __restrict__ cx, double t, const real_t* __restrict__ u,
                                real_t* __restrict__ g) {
  const int f = m / NFQ, i = m % NFQ;
  const real_t* __restrict__ If = cops + OP_IF + ((f * 6 + cinfo[c * CINFO + 1 + f]) * NFQ + i) * NFP;
  real_t in[29];
  for (int x = 0; x < 29; ++x) in[x] = real_t(0);
  for (int j = 0; j < NFP; ++j) {
    real_t tr[18];
    curved_node_traces(c, f, j, q, etoe, bc, vmapP, cinfo, cx, t, u, tr);
    const real_t l = If[j];
    for (int x = 0; x < 12; ++x) in[x] += l * tr[x];
    for (int x = 0; x < 6; ++x) in[23 + x] += l * tr[12 + x];
  }
  curved_point_flux(c, f, i, in, mat, etoe, bc, cinfo, cgeo, g);
}

// The face integrals at node i of slot c: r[i][6] = Σ over the face nodes that are node i of If^T g.
DGMAX_FN void curved_lift_node(int c, int i, const int* __restrict__ cinfo, const real_t* __restrict__ cops,
                               const real_t* __restrict__ g, real_t* __restrict__ r) {
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

// Node i of slot c from s[6], its curl and flux terms after the weight-adjusted inverse: the
// materials and the current, E: (s - sigma E - J) / eps, H: s / mu, into o[6].
DGMAX_FN void curved_finish_node(int c, int i, const real_t* __restrict__ s, const real_t* __restrict__ mat,
                                 const int* __restrict__ cinfo, const double* __restrict__ cx, double t,
                                 const real_t* __restrict__ u, real_t* __restrict__ o) {
  const real_t* __restrict__ mk = mat + (long)cinfo[c * CINFO] * MAT;
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
    o[x] = e * mk[MAT_INV_EPS];
    o[3 + x] = s[3 + x] * mk[MAT_INV_MU];
  }
}

// Node i of slot c's right-hand side o[6] (its element k = cinfo[c][0]) stored: q_out == 0: into
// res alone; else one LSERK stage, res_c [Kc][6][NP] the slot's own residual register, res_c =
// a res_c + dt o, copied to res (the straight-sided stage wrote garbage there), q_out = q + b res_c.
DGMAX_FN void curved_store_node(int c, int i, const real_t* __restrict__ o, const int* __restrict__ cinfo,
                                const real_t* __restrict__ q, real_t* __restrict__ res_c, real_t* __restrict__ res,
                                real_t* __restrict__ q_out, real_t a, real_t b, real_t dt) {
  const long n = (long)cinfo[c * CINFO] * 6 * NP + i;
  if (!q_out) {
    for (int x = 0; x < 6; ++x) res[n + x * NP] = o[x];
    return;
  }
  real_t* __restrict__ rc = res_c + (long)c * 6 * NP + i;
  for (int x = 0; x < 6; ++x) {
    const real_t y = a * rc[x * NP] + dt * o[x];
    rc[x * NP] = y;
    res[n + x * NP] = y;
    q_out[n + x * NP] = q[n + x * NP] + b * y;
  }
}

#if CURVED_CPU
// One LSERK stage of curved slot c (see curved_store_node), one element at a time: scratch u [6][NP],
// g [4][NFQ][6], r [NP][6]. The operators' products loop over nodes innermost (vectorized).
DGMAX_FN void curved_stage_slot(int c, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                                const int* __restrict__ etoe, const int* __restrict__ bc,
                                const int* __restrict__ vmapP, const int* __restrict__ cinfo,
                                const real_t* __restrict__ cgeo, const real_t* __restrict__ cops,
                                const real_t* __restrict__ cmat, const double* __restrict__ cx, double t,
                                real_t* __restrict__ u, real_t* __restrict__ g, real_t* __restrict__ r,
                                real_t* __restrict__ res_c, real_t* __restrict__ res, real_t* __restrict__ q_out,
                                real_t a, real_t b, real_t dt) {
  const real_t* __restrict__ qk = q + (long)cinfo[c * CINFO] * 6 * NP;
  for (int m = 0; m < 6 * NP; ++m) u[m] = qk[m];
  // each face: its nodes' traces once, then interpolated to its points
  for (int f = 0; f < 4; ++f) {
    real_t tr[NFP][18];
    for (int j = 0; j < NFP; ++j) curved_node_traces(c, f, j, q, etoe, bc, vmapP, cinfo, cx, t, u, tr[j]);
    const real_t* __restrict__ If = cops + OP_IF + (f * 6 + cinfo[c * CINFO + 1 + f]) * NFQ * NFP;
    for (int i = 0; i < NFQ; ++i) {
      real_t s18[18], in[29];
      for (int x = 0; x < 18; ++x) s18[x] = real_t(0);
      for (int j = 0; j < NFP; ++j) {
        const real_t l = If[i * NFP + j];
        for (int x = 0; x < 18; ++x) s18[x] += l * tr[j][x];
      }
      for (int x = 0; x < 12; ++x) in[x] = s18[x];
      for (int x = 0; x < 6; ++x) in[23 + x] = s18[12 + x];
      curved_point_flux(c, f, i, in, mat, etoe, bc, cinfo, cgeo, g);
    }
  }
  for (int i = 0; i < NP; ++i) curved_lift_node(c, i, cinfo, cops, g, r);
  // s = the curl's terms A_b and the face integrals' L (curved_kernel_data.hpp), all nodes at once
  real_t s[6][NP];
  for (int x = 0; x < 6; ++x)
    for (int i = 0; i < NP; ++i) s[x][i] = real_t(0);
  const real_t* __restrict__ A = cmat + (long)c * 4 * NP * NP;
  for (int j = 0; j < NP; ++j) {
    const real_t* __restrict__ ax = A + j * NP;
    const real_t* __restrict__ ay = A + (NP + j) * NP;
    const real_t* __restrict__ az = A + (2 * NP + j) * NP;
    const real_t* __restrict__ l = A + (3 * NP + j) * NP;
    const real_t Ex = u[j], Ey = u[NP + j], Ez = u[2 * NP + j], Hx = u[3 * NP + j], Hy = u[4 * NP + j],
                 Hz = u[5 * NP + j];
    const real_t* __restrict__ rj = r + j * 6;
    for (int i = 0; i < NP; ++i) {
      s[0][i] += ay[i] * Hz - az[i] * Hy + l[i] * rj[0];
      s[1][i] += az[i] * Hx - ax[i] * Hz + l[i] * rj[1];
      s[2][i] += ax[i] * Hy - ay[i] * Hx + l[i] * rj[2];
      s[3][i] += az[i] * Ey - ay[i] * Ez + l[i] * rj[3];
      s[4][i] += ax[i] * Ez - az[i] * Ex + l[i] * rj[4];
      s[5][i] += ay[i] * Ex - ax[i] * Ey + l[i] * rj[5];
    }
  }
  for (int i = 0; i < NP; ++i) {
    real_t si[6], o[6];
    for (int x = 0; x < 6; ++x) si[x] = s[x][i];
    curved_finish_node(c, i, si, mat, cinfo, cx, t, u, o);
    curved_store_node(c, i, o, cinfo, q, res_c, res, q_out, a, b, dt);
  }
}
#else
// One LSERK stage of the CURVED_E curved slots slot[e] (the first `stored` of them stored; the
// others repeat a slot to fill the block), each step's loop spread over a block's threads
// (TEAM_FOR): a face point or a node of one slot per iteration. Scratch per slot: u [6][NP],
// g [4][NFQ][6], r [NP][6]. The operators are read transposed: consecutive nodes, consecutive words.
DGMAX_FN void curved_stage_batch(const int* __restrict__ slot, int stored, const real_t* __restrict__ q,
                                 const real_t* __restrict__ mat, const int* __restrict__ etoe,
                                 const int* __restrict__ bc, const int* __restrict__ vmapP,
                                 const int* __restrict__ cinfo, const real_t* __restrict__ cgeo,
                                 const real_t* __restrict__ cops, const real_t* __restrict__ cmat,
                                 const double* __restrict__ cx, double t, real_t (*__restrict__ u)[6 * NP],
                                 real_t (*__restrict__ g)[4 * NFQ * 6], real_t (*__restrict__ r)[NP * 6],
                                 real_t* __restrict__ res_c, real_t* __restrict__ res, real_t* __restrict__ q_out,
                                 real_t a, real_t b, real_t dt) {
  TEAM_FOR(m, CURVED_E * 6 * NP) {
    const int e = m / (6 * NP), n = m % (6 * NP);
    u[e][n] = q[(long)cinfo[slot[e] * CINFO] * 6 * NP + n];
  }
  TEAM_SYNC();
  TEAM_FOR(m, CURVED_E * 4 * NFQ) {
    const int e = m / (4 * NFQ);
    curved_face_point(slot[e], m % (4 * NFQ), q, mat, etoe, bc, vmapP, cinfo, cgeo, cops, cx, t, u[e], g[e]);
  }
  TEAM_SYNC();
  TEAM_FOR(m, CURVED_E * NP) {
    const int e = m / NP;
    curved_lift_node(slot[e], m % NP, cinfo, cops, g[e], r[e]);
  }
  TEAM_SYNC();
  // node i: the curl's terms A_b and the face integrals' L (curved_kernel_data.hpp), then stored
  TEAM_FOR(m, stored * NP) {
    const int e = m / NP, i = m % NP, c = slot[e];
    const real_t* __restrict__ A = cmat + (long)c * 4 * NP * NP + i;
    const real_t* __restrict__ ue = u[e];
    real_t s[6] = {0, 0, 0, 0, 0, 0};
    for (int j = 0; j < NP; ++j) {
      const real_t ax = A[j * NP], ay = A[(NP + j) * NP], az = A[(2 * NP + j) * NP], l = A[(3 * NP + j) * NP];
      const real_t Ex = ue[j], Ey = ue[NP + j], Ez = ue[2 * NP + j], Hx = ue[3 * NP + j], Hy = ue[4 * NP + j],
                   Hz = ue[5 * NP + j];
      const real_t* __restrict__ rj = r[e] + j * 6;
      s[0] += ay * Hz - az * Hy + l * rj[0];
      s[1] += az * Hx - ax * Hz + l * rj[1];
      s[2] += ax * Hy - ay * Hx + l * rj[2];
      s[3] += az * Ey - ay * Ez + l * rj[3];
      s[4] += ax * Ez - az * Ex + l * rj[4];
      s[5] += ay * Ex - ax * Ey + l * rj[5];
    }
    real_t o[6];
    curved_finish_node(c, i, s, mat, cinfo, cx, t, ue, o);
    curved_store_node(c, i, o, cinfo, q, res_c, res, q_out, a, b, dt);
  }
}
#endif

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
      for (int j = 0; j < NP; ++j) s += (double)cops[OP_VQT + j * NQ + p] * d[x * NP + j];
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
      for (int j = 0; j < NP; ++j) s += (double)cops[OP_VQT + j * NQ + p] * d[x * NP + j];
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
      for (int j = 0; j < NP; ++j) s += (double)cops[OP_VQT + j * NQ + p] * d[x * NP + j];
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
// One LSERK stage of curved slots [c0, c1) after the straight-sided stage (curved_store_node).
// With the cuda form (tests): CURVED_E slots at a time, as one block computes them.
extern "C" void dgmax_curved_stage(int c0, int c1, const real_t* __restrict q, const real_t* __restrict mat,
                                   const int* __restrict etoe, const int* __restrict bc, const int* __restrict vmapP,
                                   const int* __restrict cinfo, const real_t* __restrict cgeo,
                                   const real_t* __restrict cops, const real_t* __restrict cmat,
                                   const double* __restrict cx, double t, real_t* __restrict res_c,
                                   real_t* __restrict res, real_t* __restrict q_out, real_t a, real_t b, real_t dt) {
#if CURVED_CPU
#pragma omp parallel for schedule(dynamic, 4)
  for (int c = c0; c < c1; ++c) {
    real_t u[6 * NP], g[4 * NFQ * 6], r[NP * 6];
    curved_stage_slot(c, q, mat, etoe, bc, vmapP, cinfo, cgeo, cops, cmat, cx, t, u, g, r, res_c, res, q_out, a, b, dt);
  }
#else
  for (int c = c0; c < c1; c += CURVED_E) {
    int slot[CURVED_E];
    for (int e = 0; e < CURVED_E; ++e) slot[e] = c + e < c1 ? c + e : c1 - 1;
    real_t u[CURVED_E][6 * NP], g[CURVED_E][4 * NFQ * 6], r[CURVED_E][NP * 6];
    const int stored = c1 - c < CURVED_E ? c1 - c : CURVED_E;
    curved_stage_batch(slot, stored, q, mat, etoe, bc, vmapP, cinfo, cgeo, cops, cmat, cx, t, u, g, r, res_c, res,
                       q_out, a, b, dt);
  }
#endif
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
// One LSERK stage of curved slots [c0, c1) (as the cpu's dgmax_curved_stage): block b computes
// slots c0 + b * CURVED_E + e, e < CURVED_E (curved_stage_batch); past c1 it repeats the last slot
// (every thread takes part in the barriers) and stores nothing. Its scratch is dynamic shared
// memory (curved_block's shared_bytes): u, g and r of each slot, as curved_stage_batch takes them.
extern "C" __global__ void __launch_bounds__(CURVED_BLOCK)
dgmax_curved_stage(int c0, int c1, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                   const int* __restrict__ etoe, const int* __restrict__ bc, const int* __restrict__ vmapP,
                   const int* __restrict__ cinfo, const real_t* __restrict__ cgeo, const real_t* __restrict__ cops,
                   const real_t* __restrict__ cmat, const double* __restrict__ cx, double t,
                   real_t* __restrict__ res_c, real_t* __restrict__ res, real_t* __restrict__ q_out, real_t a,
                   real_t b, real_t dt) {
  extern __shared__ __align__(16) unsigned char curved_smem[];
  __shared__ int slot[CURVED_E];
  real_t* sm = reinterpret_cast<real_t*>(curved_smem);
  real_t(*u)[6 * NP] = reinterpret_cast<real_t(*)[6 * NP]>(sm);
  real_t(*g)[4 * NFQ * 6] = reinterpret_cast<real_t(*)[4 * NFQ * 6]>(sm + CURVED_E * 6 * NP);
  real_t(*r)[NP * 6] = reinterpret_cast<real_t(*)[NP * 6]>(sm + CURVED_E * (6 * NP + 24 * NFQ));
  const int first = c0 + blockIdx.x * CURVED_E;
  if (threadIdx.x < CURVED_E) slot[threadIdx.x] = first + (int)threadIdx.x < c1 ? first + (int)threadIdx.x : c1 - 1;
  __syncthreads();
  const int stored = c1 - first < CURVED_E ? c1 - first : CURVED_E;
  curved_stage_batch(slot, stored, q, mat, etoe, bc, vmapP, cinfo, cgeo, cops, cmat, cx, t, u, g, r, res_c, res,
                     q_out, a, b, dt);
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
  return w * (12L * s.Np + 24L * s.curved_Nfq);  // u [6][NP], g [4][NFQ][6], r [NP][6]
}

int default_curved_batch(const KernelSpec& s) {
  // about a warp's nodes per block (a thread per node in the last step): one element at N >= 3, the
  // fastest of 1, 2, 4 and 8 there (bench/NOTES.md, "The curved group's cuda kernel on the H100");
  // within 48 KB of shared memory
  const long per = curved_shared_bytes(s);
  int e = std::clamp(32 / std::max(1, s.Np), 1, 8);
  while (e > 1 && e * per > 48L * 1024) --e;
  return e;
}

CurvedBlock curved_block(const KernelSpec& s) {
  CurvedBlock b;
  b.elements = s.plan.cuda.curved_batch > 0 ? s.plan.cuda.curved_batch : default_curved_batch(s);
  // a warp multiple covering the block's nodes (the widest step but the face points'), at most 256
  b.threads = std::min(256, 32 * ((b.elements * s.Np + 31) / 32));
  b.shared_bytes = curved_shared_bytes(s) * b.elements;
  return b;
}

std::string curved_cuda_refusal(const KernelSpec& s, long max_shared_bytes) {
  if (s.curved_Nq == 0 || curved_block(s).shared_bytes <= max_shared_bytes) return "";
  const CurvedBlock b = curved_block(s);
  return fmt::format("the curved elements of this problem need {} KB of shared memory per block on the cuda backend "
                     "({} element{} per block, order {}, {} volume points and {} per face); this GPU allows {} KB",
                     b.shared_bytes / 1024, b.elements, b.elements == 1 ? "" : "s", s.N, s.curved_Nq, s.curved_Nfq,
                     max_shared_bytes / 1024);
}

std::string curved_kernel_section(const KernelSpec& s, bool cuda) {
  if (s.curved_Nq == 0) return "";
  const CurvedLayout L = curved_layout(s);
  std::ostringstream src;
  src << "// ---- The curved element group (codegen/emit/curved_kernels.hpp) ----\n"
      << fmt::format("enum {{ NQ = {}, NFQ = {}, CINFO = {}, CGEO = {}, CG_J = {}, CG_FACES = {} }};\n", L.Nq, L.Nfq,
                     kCurvedInfo, L.geo_stride(), L.geo_j(), L.geo_faces())
      << fmt::format("enum {{ OP_W = {}, OP_IF = {}, OP_VQT = {} }};\n", L.op_w(), L.op_if(), L.op_vqt())
      << "#define CURVED_CPU " << (cuda || s.curved_team_loops ? 0 : 1) << "\n"
      << fmt::format("enum {{ MAT_EPS = {}, MAT_MU = {}, MAT_Z = {}, MAT_Y = {}, MAT_INV_EPS = {}, MAT_INV_MU = {}, "
                     "MAT_SIGMA_EPS = {} }};\n",
                     kMatEps, kMatMu, kMatZ, kMatY, kMatInvEps, kMatInvMu, kMatSigmaOverEps)
      << fmt::format("enum {{ NORM_ENERGY = {}, NORM_E2 = {}, NORM_H2 = {}, NORM_EINF = {}, NORM_HINF = {}, NORM_J2 = {} }};\n",
                     kNormEnergy, kNormE2, kNormH2, kNormEinf, kNormHinf, kNormJ2)
      << fmt::format("enum {{ CURVED_THREADS = {}, CURVED_BLOCK = {}, CURVED_E = {} }};\n", kCurvedThreads,
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
