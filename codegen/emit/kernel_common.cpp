#include "codegen/emit/kernel_common.hpp"

#include <fmt/format.h>

#include <sstream>

#include "codegen/dsl/ast.hpp"
#include "codegen/emit/c_expr.hpp"
#include "codegen/lower/flux_inputs.hpp"

namespace dgmax::codegen {

std::string matrix_literal(const std::string& name, const std::vector<double>& m, int rows, int cols,
                           const std::string& type) {
  std::ostringstream s;
  s << "DGMAX_TABLE " << type << " " << name << "[" << rows << "][" << cols << "] = {\n";
  for (int i = 0; i < rows; ++i) {
    s << "  {";
    for (int j = 0; j < cols; ++j) s << (j ? ", " : "") << dsl::format_number(m[static_cast<size_t>(i) * cols + j]);
    s << "},\n";
  }
  s << "};\n";
  return s.str();
}

namespace {

std::string indent(const std::string& text, const std::string& pad) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line)) out << pad << line << "\n";
  return out.str();
}


// Whether any DAG printed into the source calls besselj or bessely.
bool spec_uses_bessel(const KernelSpec& s) {
  bool any = uses_bessel(s.flux.dag);
  for (const LoweredFlux& e : s.exterior) any = any || uses_bessel(e.dag);
  for (const auto* f : {&s.initial, &s.exact, &s.current, &s.incident}) any = any || (*f && uses_bessel((*f)->dag));
  return any;
}

// A lowered space-time field as a function `name(in = (x, y, z, t), out)` in expr_t.
std::string field_function(const std::string& name, const LoweredField& f, const std::string& what, bool cuda) {
  CExprStyle st;
  st.cuda = cuda;
  st.type = "expr_t";
  st.temp_prefix = "v";
  st.input_label = field_input_label;
  std::ostringstream s;
  s << "// " << what << ":\n";
  for (size_t c = 0; c < f.texts.size(); ++c) s << "//   [" << c << "] " << f.texts[c] << "\n";
  s << "DGMAX_FN void " << name << "(const expr_t* __restrict__ in, expr_t* __restrict__ out) {\n"
    << emit_c_statements(f.dag, st) << "}\n\n";
  return s.str();
}

// Node positions from the vertex record, the space-time fields and their HAS_* switches.
std::string space_time_field_section(const KernelSpec& s, bool cuda) {
  std::ostringstream src;
  src << "// Space-time fields are evaluated in double precision whatever real_t is.\n"
      << "typedef double expr_t;\n"
      << fmt::format("enum {{ VERT = {}, VERT_J = {} }};\n", kVertStride, kVertJ)
      << fmt::format("#define HAS_INITIAL {}\n#define HAS_EXACT {}\n#define HAS_CURRENT {}\n#define HAS_INCIDENT {}\n\n",
                     s.initial ? 1 : 0, s.exact ? 1 : 0, s.current ? 1 : 0, s.incident ? 1 : 0);
  src << "// Barycentric weights of the nodes: x_i = sum_v NodeW[i][v] * vertex_v.\n"
      << matrix_literal("NodeW", s.node_weights, s.Np, 4, "double") << "\n"
      << R"(// Physical coordinates of node i of the element whose vertex record is vk (the host's formula,
// mesh/geometry.cpp map_to_physical, in the same order).
DGMAX_FN void node_position(const double* __restrict__ vk, int i, double* __restrict__ p) {
  for (int d = 0; d < 3; ++d) {
    double x = 0;
    for (int v = 0; v < 4; ++v) x += NodeW[i][v] * vk[3 * v + d];
    p[d] = x;
  }
}

)";
  if (s.initial) src << field_function("field_initial", *s.initial, "initial E, H (t = 0)", cuda);
  src << R"(// The initial state at node i of element k: q = (E, H)(x, 0), zero without an initial field.
// Returns the smallest flat index (k*6 + c)*NP + i of a value not finite in real_t, or -1
// (r - r is 0 exactly for finite r, NaN for infinities and NaN).
DGMAX_FN long initial_node(int k, int i, const double* __restrict__ vert, real_t* __restrict__ q) {
  long bad = -1;
#if HAS_INITIAL
  expr_t p[4], v[6];
  node_position(vert + (long)k * VERT, i, p);
  p[3] = 0;
  field_initial(p, v);
#endif
  for (int c = 0; c < 6; ++c) {
    const long idx = ((long)k * 6 + c) * NP + i;
#if HAS_INITIAL
    const real_t r = (real_t)v[c];
#else
    const real_t r = real_t(0);
#endif
    q[idx] = r;
    if (bad < 0 && !(r - r == real_t(0))) bad = idx;
  }
  return bad;
}

)";
  if (s.exact) src << field_function("field_exact", *s.exact, "exact E, H", cuda);
  if (s.current) src << field_function("field_current", *s.current, "current density J", cuda);
  if (s.incident) src << field_function("field_incident", *s.incident, "incident Einc, Hinc", cuda);
  // one entry point for all of them (probes, tests): absent fields and components give NaN
  src << "// Field `which` (0 initial, 1 exact, 2 current, 3 incident) at p = (x, y, z, t): out[0..5].\n"
      << "DGMAX_FN void field_at(int which, const expr_t* __restrict__ p, expr_t* __restrict__ out) {\n"
      << "  for (int c = 0; c < 6; ++c) out[c] = expr_t(0) / expr_t(0);\n"
      << "  switch (which) {\n";
  const std::pair<const char*, bool> fields[] = {{"field_initial", s.initial.has_value()},
                                                 {"field_exact", s.exact.has_value()},
                                                 {"field_current", s.current.has_value()},
                                                 {"field_incident", s.incident.has_value()}};
  for (int w = 0; w < 4; ++w)
    if (fields[w].second) src << "    case " << w << ": " << fields[w].first << "(p, out); break;\n";
  src << "    default: break;\n  }\n}\n\n";
  return src.str();
}

// The perfectly matched layer's coefficients and node terms (codegen/emit/pml_profile.hpp has the
// formulation and the host twin), and the hook that adds the extra terms of elements with a slot.
std::string extra_terms_section(const KernelSpec& s) {
  std::ostringstream src;
  src << fmt::format("#define HAS_PML {}\n#define HAS_XSCALE {}\n#define HAS_TFSF {}\n#define HAS_EXTRA (HAS_PML || HAS_TFSF)\n\n",
                     s.pml ? 1 : 0, s.pml && s.pml_scaled ? 1 : 0, s.tfsf && s.incident ? 1 : 0);
  if (s.tfsf && s.incident)
    src << "// LIFT for the total-field/scattered-field correction (whatever layout the plan gives LIFT).\n"
        << matrix_literal("TfsfLift", s.LIFT, s.Np, 4 * s.Nfp)
        << fmt::format(R"(
// The change of the flux (times Fscale) at face node j of face f of element k when the exterior
// trace gets sign * the incident field: flux(u-, u+ + sign u_inc) - flux(u-, u+), exact for any flux.
DGMAX_FN void tfsf_face_node(int k, int f, int j, int sign, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                             const real_t* __restrict__ mat, const int* __restrict__ etoe,
                             const int* __restrict__ vmapP, const double* __restrict__ vert, double t,
                             real_t* __restrict__ dfl) {{
  real_t in[29];
  face_inputs(k, f, j, q, geo, mat, etoe, in);  // the box never lies on the boundary: a neighbour
  const int nP = vmapP[(k * 4 + f) * NFP + j];
  const real_t* qp = q + (long)(nP / NP) * 6 * NP + nP % NP;
  for (int c = 0; c < 6; ++c) in[6 + c] = qp[c * NP];
  real_t out0[6], out1[6];
  numerical_flux(in, out0);
  expr_t p[4], v[6];
  node_position(vert + (long)k * VERT, Fmask[f][j], p);
  p[3] = t;
  field_incident(p, v);
  for (int c = 0; c < 6; ++c) in[6 + c] += (real_t)(sign * v[c]);
  numerical_flux(in, out1);
  const real_t fs = geo[(long)k * GEO + {fscale} + f];
  for (int c = 0; c < 6; ++c) dfl[c] = fs * (out1[c] - out0[c]);
}}

// Row i of the lifted correction of element k from its face-node corrections sf[NFACE_NODES][6]:
// E: -LIFT dflux_E / eps, H: +LIFT dflux_H / mu (as the fluxes enter the right-hand side).
DGMAX_FN void tfsf_lift_node(int k, int i, const real_t* __restrict__ sf, const real_t* __restrict__ mat,
                             real_t* __restrict__ out) {{
  real_t acc[6] = {{0, 0, 0, 0, 0, 0}};
  for (int m = 0; m < NFACE_NODES; ++m) {{
    const real_t l = (real_t)TfsfLift[i][m];
    for (int c = 0; c < 6; ++c) acc[c] += l * sf[m * 6 + c];
  }}
  const real_t* mk = mat + (long)k * MAT;
  for (int c = 0; c < 6; ++c) out[c] = c < 3 ? -acc[c] * mk[{inv_eps}] : acc[c] * mk[{inv_mu}];
}}

)",
                       fmt::arg("fscale", kGeoFscale), fmt::arg("inv_eps", kMatInvEps), fmt::arg("inv_mu", kMatInvMu));
  if (s.pml) {
    const PmlProfile& p = *s.pml;
    auto v3 = [](const double* x) {
      return fmt::format("{{{}, {}, {}}}", dsl::format_number(x[0]), dsl::format_number(x[1]), dsl::format_number(x[2]));
    };
    src << "// Perfectly matched layer: the undamped box, the layer thickness and sigma_max on each side.\n"
        << "DGMAX_TABLE double PmlInnerLo[3] = " << v3(p.inner_lo) << ", PmlInnerHi[3] = " << v3(p.inner_hi) << ";\n"
        << "DGMAX_TABLE double PmlWidthLo[3] = " << v3(p.width_lo) << ", PmlWidthHi[3] = " << v3(p.width_hi) << ";\n"
        << "DGMAX_TABLE double PmlSigmaLo[3] = " << v3(p.sigma_lo) << ", PmlSigmaHi[3] = " << v3(p.sigma_hi) << ";\n"
        << fmt::format("enum {{ PML_AUX = {}, PML_COEF = {}, PML_RATE = {}, PML_SCALE = {}, PML_ALPHA = {} }};\n", kPmlAux,
                       kPmlCoef, kPmlCoefRate, kPmlCoefScale, kPmlCoefAlpha)
        << fmt::format(R"(// sigma, kappa and alpha along each axis at x: graded as u^{order} with u the relative depth.
DGMAX_FN void pml_coefficients(const double* __restrict__ x, double* __restrict__ sigma, double* __restrict__ kappa,
                               double* __restrict__ alpha) {{
  for (int j = 0; j < 3; ++j) {{
    double u = 0, smax = 0;
    if (PmlWidthLo[j] > 0 && x[j] < PmlInnerLo[j]) {{ u = (PmlInnerLo[j] - x[j]) / PmlWidthLo[j]; smax = PmlSigmaLo[j]; }}
    if (PmlWidthHi[j] > 0 && x[j] > PmlInnerHi[j]) {{ u = (x[j] - PmlInnerHi[j]) / PmlWidthHi[j]; smax = PmlSigmaHi[j]; }}
    const double g = u > 0 ? pow(u < 1 ? u : 1.0, {order}) : 0.0;
    sigma[j] = smax * g;
    kappa[j] = 1 + ({kappa_max} - 1) * g;
    alpha[j] = {alpha};
  }}
}}

// Where the element's coefficients are taken (as codegen::pml_point on the host): along each axis
// the middle of its vertices' extent.
DGMAX_FN void pml_point(const double* __restrict__ vk, double* __restrict__ x) {{
  for (int d = 0; d < 3; ++d) {{
    double lo = vk[d], hi = vk[d];
    for (int n = 1; n < 4; ++n) lo = vk[3 * n + d] < lo ? vk[3 * n + d] : lo, hi = vk[3 * n + d] > hi ? vk[3 * n + d] : hi;
    x[d] = 0.5 * (lo + hi);
  }}
}}

// Layer slot `slot` with coefficients cf [PML_COEF] (pml_profile.hpp's PmlCoef order), component c
// at node i with state u: psi one LSERK stage on (a, b, dt) (psi_res = a psi_res + dt psi',
// psi += b psi_res); returns the source the element's right-hand side adds (pml_profile.hpp:
// rhs = C * kappa_a / (kappa_b kappa_c) + source). Component c's psi depends on component c alone.
DGMAX_FN real_t pml_advance(int slot, const real_t* __restrict__ cf, int c, int i, real_t u,
                            real_t* __restrict__ psi, real_t* __restrict__ psi_res, real_t a, real_t b, real_t dt) {{
  const int ax = c % 3, bx = (ax + 1) % 3, cx = (ax + 2) % 3;
  const real_t sa = cf[PML_RATE + ax], sb = cf[PML_RATE + bx], sc = cf[PML_RATE + cx];
  const long p0 = ((long)slot * PML_AUX + 3 * c) * NP + i;  // psi: [slots][18][NP]
  // psi1 needs sigma_a, psi2 sigma_c, psi3 sigma_b: without it the field stays exactly 0 (it
  // starts at 0 and its rate is -alpha psi), so it is neither read nor written. Most layer
  // elements lie in a face of the layer, with one axis damped: a third of the traffic.
  const bool on[3] = {{sa != real_t(0), sc != real_t(0), sb != real_t(0)}};
  const real_t ps0 = on[0] ? psi[p0] : real_t(0), ps1 = on[1] ? psi[p0 + NP] : real_t(0),
               ps2 = on[2] ? psi[p0 + 2 * NP] : real_t(0);
  real_t d[3];
  d[0] = -(cf[PML_ALPHA + ax] + sa) * ps0 + sa * u;
  const real_t u1 = u - ps0;
  d[1] = -cf[PML_ALPHA + cx] * ps1 + sc * u1;
  const real_t u2 = u1 + ps1;
  d[2] = -cf[PML_ALPHA + bx] * ps2 + sb * u2;
  for (int m = 0; m < 3; ++m) {{
    if (!on[m]) continue;
    const long at = p0 + m * NP;
    const real_t r = a * psi_res[at] + dt * d[m];
    psi_res[at] = r;
    psi[at] += b * r;
  }}
  return d[0] - d[1] - d[2];
}}

// One LSERK stage of the layer at node i of element k (slot `slot`), from the state q, with the
// source into xsrc (the pass before the stage, where the stage kernel does not do it itself).
DGMAX_FN void pml_node(int slot, int k, int i, const real_t* __restrict__ q, const double* __restrict__ vert,
                       real_t* __restrict__ psi, real_t* __restrict__ psi_res, real_t* __restrict__ xsrc,
                       real_t a, real_t b, real_t dt) {{
  // the coefficients are constant per element (pml_point): varying within the element,
  // their nodal products are not mass-consistent and excite modes that grow (bench/NOTES.md);
  // rounded as the host's pml_element_coefficients rounds them
  double x[3], sigma[3], kappa[3], alpha[3];
  pml_point(vert + (long)k * VERT, x);
  pml_coefficients(x, sigma, kappa, alpha);
  real_t cf[PML_COEF];
  for (int j = 0; j < 3; ++j) {{
    cf[PML_RATE + j] = (real_t)(sigma[j] / kappa[j]);
    cf[PML_SCALE + j] = (real_t)(kappa[j] / (kappa[(j + 1) % 3] * kappa[(j + 2) % 3]));
    cf[PML_ALPHA + j] = (real_t)alpha[j];
  }}
  for (int c = 0; c < 6; ++c)
    xsrc[((long)slot * 6 + c) * NP + i] = pml_advance(slot, cf, c, i, q[((long)k * 6 + c) * NP + i], psi, psi_res, a, b, dt);
}}

)",
                       fmt::arg("order", dsl::format_number(p.order)), fmt::arg("kappa_max", dsl::format_number(p.kappa_max)),
                       fmt::arg("alpha", dsl::format_number(p.alpha)));
  }
  src << R"(// The extra terms of an element with slot `slot` (a layer or total-field/scattered-field element):
// rc * xscale + xsrc for component c at node i; other elements (slot < 0) keep rc.
DGMAX_FN real_t extra_rhs_slot(int slot, int c, int i, real_t rc, const real_t* __restrict__ xsrc,
                               const real_t* __restrict__ xscale) {
#if HAS_EXTRA
  if (slot < 0) return rc;
  const long at = ((long)slot * 6 + c) * NP + i;
#if HAS_XSCALE
  rc *= xscale[at];
#endif
  return rc + xsrc[at];
#else
  return rc;
#endif
}

// The same for element k (xslot: [K] its slot, -1 without extra terms).
DGMAX_FN real_t extra_rhs(int k, int c, int i, real_t rc, const int* __restrict__ xslot,
                          const real_t* __restrict__ xsrc, const real_t* __restrict__ xscale) {
#if HAS_EXTRA
  return extra_rhs_slot(xslot[k], c, i, rc, xsrc, xscale);
#else
  return rc;
#endif
}

)";
  return src.str();
}

}  // namespace

std::string kernel_header_comment(const KernelSpec& s, const std::string& backend) {
  std::ostringstream h;
  h << "// Generated by dgmax for the " << backend << " backend (codegen/emit). Do not edit: regenerate.\n"
    << "// From: " << (s.origin.empty() ? "(unspecified)" : s.origin) << "\n"
    << fmt::format("// Order N = {}, Np = {}, Nfp = {}, precision {}.\n", s.N, s.Np, s.Nfp,
                   s.single ? "single" : "double")
    << "// Numerical flux (flux_E = n x (H- - H*), flux_H = n x (E- - E*)):\n"
    << "//   E: " << s.flux.E_text << "\n//   H: " << s.flux.H_text << "\n"
    << "// Boundary exterior states:\n";
  for (size_t b = 0; b < s.exterior.size(); ++b)
    h << "//   " << b << " " << (b < s.exterior_names.size() ? s.exterior_names[b] : "?")
      << ": E.ext = " << s.exterior[b].E_text << ", H.ext = " << s.exterior[b].H_text << "\n";
  return h.str();
}

std::string kernel_common_section(const KernelSpec& s, bool cuda) {
  const int Np = s.Np, Nfp = s.Nfp;
  std::ostringstream src;
  src << "typedef " << (s.single ? "float" : "double") << " real_t;\n"
      << fmt::format("enum {{ NP = {}, NFP = {}, NFACE_NODES = {}, GEO = {}, MAT = {} }};\n\n", Np, Nfp,
                     4 * Nfp, kGeoStride, kMatStride)
      ;
  if (!cuda)  // the cuda source prints its operators in the layout of its plan (cuda_kernels.cpp)
    src << matrix_literal("Dr", s.Dr, Np, Np) << matrix_literal("Ds", s.Ds, Np, Np)
        << matrix_literal("Dt", s.Dt, Np, Np) << matrix_literal("LIFT", s.LIFT, Np, 4 * Nfp);
  src << "// Mass matrix (energy and error norms, accumulated in double).\n"
      << matrix_literal("Mass", s.M, Np, Np, "double");
  src << "DGMAX_TABLE int Fmask[4][NFP] = {\n";
  for (int f = 0; f < 4; ++f) {
    src << "  {";
    for (int j = 0; j < Nfp; ++j) src << (j ? ", " : "") << s.Fmask[static_cast<size_t>(f) * Nfp + j];
    src << "},\n";
  }
  src << "};\n\n";
  if (spec_uses_bessel(s)) src << bessel_c_definitions(cuda);

  CExprStyle st;
  st.cuda = cuda;
  for (size_t b = 0; b < s.exterior.size(); ++b)
    src << "// Exterior state " << b << " (" << (b < s.exterior_names.size() ? s.exterior_names[b] : "?")
        << "): out = (E.ext, H.ext).\n"
        << "DGMAX_FN void exterior_" << b << "(const real_t* __restrict__ in, real_t* __restrict__ out) {\n"
        << emit_c_statements(s.exterior[b].dag, st) << "}\n\n";
  src << "// Numerical flux: out = (flux_E, flux_H) at one face node.\n"
      << "DGMAX_FN void numerical_flux(const real_t* __restrict__ in, real_t* __restrict__ out) {\n"
      << emit_c_statements(s.flux.dag, st) << "}\n\n";
  if (cuda) {
    // the same statements split: what depends on the face alone (normal, materials: slots 12..28)
    // once per face, the rest per face node
    std::vector<bool> face_slot(kNumFluxInputs, false);
    for (int slot = kNormal; slot < kNumFluxInputs; ++slot) face_slot[slot] = true;
    const CSplitStatements split = emit_c_statements_split(s.flux.dag, st, face_slot, "hv");
    src << fmt::format(R"(// numerical_flux in two parts: flux_face_part from a face's invariant inputs (in[12..28]) into hv
// (FLUX_HOISTED values, at most HV_ROW: else FLUX_SPLIT is 0 and the callers use numerical_flux),
// flux_node_part from a node's traces (in[0..11]) and hv. The same operations in the same order.
// WIDE_FACES: faces of 10 nodes or more (N >= 3), where the one-node-per-thread kernels keep hv in
// shared memory and use the split (cuda_wide_faces: it pays there, not at N = 1, 2).
enum {{ FLUX_HOISTED = {hoisted}, HV_ROW = {hv_row} }};
#define WIDE_FACES {wide}
#define FLUX_SPLIT {split}
DGMAX_FN void flux_face_part(const real_t* __restrict__ in, real_t* __restrict__ hv) {{
{invariant}}}
DGMAX_FN void flux_node_part(const real_t* __restrict__ in, const real_t* __restrict__ hv, real_t* __restrict__ out) {{
{variant}}}

)",
                       fmt::arg("hoisted", split.hoisted), fmt::arg("hv_row", kCudaHoistedFluxValues),
                       fmt::arg("wide", cuda_wide_faces(s.Nfp) ? 1 : 0),
                       fmt::arg("split", cuda_wide_faces(s.Nfp) && split.hoisted <= kCudaHoistedFluxValues ? 1 : 0),
                       fmt::arg("invariant", split.hoisted <= kCudaHoistedFluxValues ? split.invariant : ""),
                       fmt::arg("variant", split.hoisted <= kCudaHoistedFluxValues ? split.variant : ""));
  }

  src << fmt::format(R"(// The flux inputs of face node j of face f of element k that do not depend on what lies outside:
// the interior trace (in[0..5]), the normal (in[12..14]), the materials of both sides (in[15..22];
// the element's own on a boundary) and zero incident fields (in[23..28]). The caller sets the
// exterior trace in[6..11]. face_inputs_at takes the element's state qk [6][NP], its geometry
// record g and its neighbour kP across f (-1: none) from wherever the caller keeps them (device or
// shared memory).
// face_invariant_inputs: the slots that are the same at every node of the face (in[12..28]).
DGMAX_FN void face_invariant_inputs(int k, int f, const real_t* __restrict__ g, int kP, const real_t* __restrict__ mat,
                                    real_t* __restrict__ in) {{
  const real_t* mk = mat + (long)k * MAT;
  const real_t* mp = kP >= 0 ? mat + (long)kP * MAT : mk;
  for (int x = 0; x < 3; ++x) in[12 + x] = g[{normal} + 3 * f + x];
  in[15] = mk[{eps}]; in[16] = mp[{eps}]; in[17] = mk[{mu}]; in[18] = mp[{mu}];
  in[19] = mk[{z}]; in[20] = mp[{z}]; in[21] = mk[{y}]; in[22] = mp[{y}];
  for (int c = 0; c < 6; ++c) in[23 + c] = real_t(0);
}}
DGMAX_FN void face_inputs_at(int k, int f, int j, const real_t* __restrict__ qk, const real_t* __restrict__ g, int kP,
                             const real_t* __restrict__ mat, real_t* __restrict__ in) {{
  const int iM = Fmask[f][j];
  for (int c = 0; c < 6; ++c) in[c] = qk[c * NP + iM];
  face_invariant_inputs(k, f, g, kP, mat, in);
}}
DGMAX_FN void face_inputs(int k, int f, int j, const real_t* __restrict__ q, const real_t* __restrict__ geo,
                          const real_t* __restrict__ mat, const int* __restrict__ etoe, real_t* __restrict__ in) {{
  face_inputs_at(k, f, j, q + (long)k * 6 * NP, geo + (long)k * GEO, etoe[k * 4 + f], mat, in);
}}

)",
                     fmt::arg("normal", kGeoNormal), fmt::arg("eps", kMatEps), fmt::arg("mu", kMatMu),
                     fmt::arg("z", kMatZ), fmt::arg("y", kMatY));
  src << space_time_field_section(s, cuda) << extra_terms_section(s);

  // Boundary faces whose state reads Einc/Hinc evaluate the incident field at the node first.
  std::string reads_incident;
  for (size_t b = 0; b < s.exterior.size(); ++b)
    if (s.incident && b < s.exterior_reads_incident.size() && s.exterior_reads_incident[b])
      reads_incident += (reads_incident.empty() ? "" : " || ") + fmt::format("b == {}", b);
  std::string incident_code;
  if (!reads_incident.empty())
    incident_code = fmt::format(R"(    if ({}) {{
      expr_t p[4], v[6];
      node_position(vert + (long)k * VERT, Fmask[f][j], p);
      p[3] = t;
      field_incident(p, v);
      for (int c = 0; c < 6; ++c) in[23 + c] = (real_t)v[c];
    }}
)",
                                reads_incident);
  std::ostringstream cases;
  for (size_t b = 0; b < s.exterior.size(); ++b) cases << "case " << b << ": exterior_" << b << "(in, ext); break;\n";
  src << fmt::format(R"(// The flux at face node j of face f of element k, times Fscale: fl[0..5].
// Gathers the interior trace, the exterior one (neighbour or boundary state) and the materials;
// `t` is the time of the stage (incident fields). face_node_flux_from takes what face_inputs_at
// does and xP, the neighbour's trace at this node (field c at xP[c * xstride], read when kP >= 0);
// face_node_flux_at takes nP, the neighbour's node in q, instead.
DGMAX_FN void face_node_flux_from(int k, int f, int j, const real_t* __restrict__ qk, const real_t* __restrict__ g,
                                  int kP, const real_t* __restrict__ xP, int xstride, const real_t* __restrict__ mat,
                                  const int* __restrict__ bc, const double* __restrict__ vert, double t,
                                  real_t* __restrict__ fl) {{
  real_t in[29];
  face_inputs_at(k, f, j, qk, g, kP, mat, in);
  if (kP >= 0) {{
    for (int c = 0; c < 6; ++c) in[6 + c] = xP[c * xstride];
  }} else {{
    const int b = bc[k * 4 + f];
{incident}    real_t ext[6] = {{0, 0, 0, 0, 0, 0}};
    switch (b) {{
{cases}      default: break;
    }}
    for (int c = 0; c < 6; ++c) in[6 + c] = ext[c];
  }}
  real_t out[6];
  numerical_flux(in, out);
  const real_t fs = g[{fscale} + f];
  for (int c = 0; c < 6; ++c) fl[c] = fs * out[c];
}}
DGMAX_FN void face_node_flux_at(int k, int f, int j, const real_t* __restrict__ qk, const real_t* __restrict__ g,
                                int kP, int nP, const real_t* __restrict__ q, const real_t* __restrict__ mat,
                                const int* __restrict__ bc, const double* __restrict__ vert, double t,
                                real_t* __restrict__ fl) {{
  face_node_flux_from(k, f, j, qk, g, kP, q + (long)(nP / NP) * 6 * NP + nP % NP, NP, mat, bc, vert, t, fl);
}}
DGMAX_FN void face_node_flux(int k, int f, int j, const real_t* __restrict__ q,
                             const real_t* __restrict__ geo, const real_t* __restrict__ mat,
                             const int* __restrict__ etoe, const int* __restrict__ bc,
                             const int* __restrict__ vmapP, const double* __restrict__ vert, double t,
                             real_t* __restrict__ fl) {{
  const int kP = etoe[k * 4 + f];
  const int nP = kP >= 0 ? vmapP[(k * 4 + f) * NFP + j] : 0;
  face_node_flux_at(k, f, j, q + (long)k * 6 * NP, geo + (long)k * GEO, kP, nP, q, mat, bc, vert, t, fl);
}}

)",
                     fmt::arg("fscale", kGeoFscale), fmt::arg("cases", indent(cases.str(), "      ")),
                     fmt::arg("incident", incident_code));
  return src.str();
}

}  // namespace dgmax::codegen
