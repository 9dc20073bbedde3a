// Lowering of flux and exterior-state expressions: the built-ins against an independent copy of
// the hand-written reference-backend formulas, common subexpressions, constant folding.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "codegen/dsl/builtins.hpp"
#include "codegen/dsl/scalar_eval.hpp"
#include "lower_test_util.hpp"

namespace dgmax::codegen {
namespace {

using test::eval;
using test::exterior_scope;
using test::flux_scope;
using test::lower_text;
using V3 = Eigen::Vector3d;

V3 vec(const std::vector<double>& v, int slot) { return V3(v[slot], v[slot + 1], v[slot + 2]); }

// ---- an independent copy of solver/backends/ref/ref_backend.cpp -------------------------------
// There: dE = E⁺ − E⁻, fluxE = n×(H* − H⁻), fluxH = n×(E* − E⁻). The flux language computes the
// opposite sign, n×(H⁻ − H*) and n×(E⁻ − E*), so the expected values are −fluxE, −fluxH.
std::vector<double> ref_flux(const std::vector<double>& in, double alpha) {
  const V3 n = vec(in, kNormal), Em = vec(in, kEint), Hm = vec(in, kHint), Ep = vec(in, kEext),
           Hp = vec(in, kHext);
  const double Zm = in[kZInt], Zp = in[kZExt], Ym = 1 / Zm, Yp = 1 / Zp;
  const V3 dE = Ep - Em, dH = Hp - Hm;
  const V3 fluxE = (Zp * n.cross(dH) - alpha * n.cross(n.cross(dE))) / (Zm + Zp);
  const V3 fluxH = (Yp * n.cross(dE) + alpha * n.cross(n.cross(dH))) / (Ym + Yp);
  return {-fluxE[0], -fluxE[1], -fluxE[2], -fluxH[0], -fluxH[1], -fluxH[2]};
}

std::vector<double> ref_exterior(const std::string& kind, const std::vector<double>& in) {
  const V3 n = vec(in, kNormal), Em = vec(in, kEint), Hm = vec(in, kHint);
  const double Z = in[kZInt];
  V3 Ep, Hp;
  if (kind == "pec") {
    Ep = -Em;
    Hp = Hm;
  } else if (kind == "pmc") {
    Ep = Em;
    Hp = -Hm;
  } else if (kind == "absorbing") {
    const V3 Et = Em - n.dot(Em) * n, Ht = Hm - n.dot(Hm) * n;
    Ep = 0.5 * (Et + Z * Hm.cross(n));
    Hp = 0.5 * (Ht + n.cross(Em) / Z);
  } else {
    Ep = vec(in, kEinc);
    Hp = vec(in, kHinc);
  }
  return {Ep[0], Ep[1], Ep[2], Hp[0], Hp[1], Hp[2]};
}

// Each 3-vector within 1e-14 relative to its largest component (the formulas round in a
// different order: v/(a+b) against (1/(a+b))*v, Z*(n×v) against n×(Z*v)).
void expect_close(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), 6u);
  for (int v = 0; v < 2; ++v) {
    double scale = 0;
    for (int i = 0; i < 3; ++i) scale = std::max(scale, std::fabs(want[3 * v + i]));
    for (int i = 0; i < 3; ++i)
      EXPECT_LE(std::fabs(got[3 * v + i] - want[3 * v + i]), 1e-14 * scale)
          << "component " << 3 * v + i << ": " << got[3 * v + i] << " vs " << want[3 * v + i];
  }
}

TEST(FluxLowering, BuiltinFluxesMatchTheReferenceBackendFormulas) {
  std::mt19937_64 rng(42);
  const auto upwind = test::lower_builtin_flux("upwind");
  const auto central = test::lower_builtin_flux("central");
  const std::vector<double> alphas = {0.0, 0.3, 1.0};
  std::vector<LoweredFlux> alpha_fluxes;
  for (double a : alphas) alpha_fluxes.push_back(test::lower_builtin_flux("alpha", a));
  for (int trial = 0; trial < 2000; ++trial) {
    const auto in = test::random_inputs(rng);
    expect_close(eval(upwind.dag, in), ref_flux(in, 1.0));
    expect_close(eval(central.dag, in), ref_flux(in, 0.0));
    for (size_t k = 0; k < alphas.size(); ++k)
      expect_close(eval(alpha_fluxes[k].dag, in), ref_flux(in, alphas[k]));
    if (HasFailure()) return;
  }
}

TEST(FluxLowering, UpwindIsTheAlphaFluxWithAlphaOneBitForBit) {
  // alpha*x with alpha = 1 folds to x: the same DAG, so the same bits.
  const auto upwind = test::lower_builtin_flux("upwind");
  const auto alpha1 = test::lower_builtin_flux("alpha", 1.0);
  EXPECT_EQ(upwind.dag.operation_count(), alpha1.dag.operation_count());
  const auto central = test::lower_builtin_flux("central");
  const auto alpha0 = test::lower_builtin_flux("alpha", 0.0);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    const auto in = test::random_inputs(rng);
    EXPECT_EQ(eval(upwind.dag, in), eval(alpha1.dag, in));
    // central is alpha = 0 up to the sign of zero (Z.ext*j - 0*c == Z.ext*j for finite c)
    EXPECT_EQ(eval(central.dag, in), eval(alpha0.dag, in));
  }
}

TEST(FluxLowering, FluxesVanishWhenBothTracesAgree) {
  std::mt19937_64 rng(3);
  for (const auto& name : builtin_flux_names()) {
    const auto f = test::lower_builtin_flux(name, 0.7);
    for (int trial = 0; trial < 20; ++trial) {
      auto in = test::random_inputs(rng);
      for (int i = 0; i < 6; ++i) in[kEext + i] = in[kEint + i];
      in[kZExt] = in[kZInt];
      in[kYExt] = in[kYInt];
      for (double v : eval(f.dag, in)) EXPECT_EQ(v, 0.0) << name;
    }
  }
}

TEST(FluxLowering, BuiltinExteriorStatesMatchTheReferenceBackend) {
  std::mt19937_64 rng(11);
  for (const auto& name : builtin_exterior_state_names()) {
    SCOPED_TRACE(name);
    const auto s = test::lower_builtin_exterior(name);
    for (int trial = 0; trial < 1000; ++trial) {
      const auto in = test::random_inputs(rng);
      const auto got = eval(s.dag, in), want = ref_exterior(name, in);
      if (name == "absorbing") {
        expect_close(got, want);
      } else {
        EXPECT_EQ(got, want);  // sign flips and copies are exact
      }
      if (HasFailure()) return;
    }
  }
}

TEST(FluxLowering, LibraryNamesAndTexts) {
  EXPECT_EQ(builtin_flux_names(), (std::vector<std::string>{"upwind", "central", "alpha"}));
  EXPECT_EQ(builtin_exterior_state_names(),
            (std::vector<std::string>{"pec", "pmc", "absorbing", "incident"}));
  EXPECT_EQ(builtin_flux("nope"), nullptr);
  EXPECT_EQ(builtin_exterior_state("upwind"), nullptr);
  EXPECT_EQ(builtin_flux("alpha")->E,
            "1/(Z.int + Z.ext) * cross(n, Z.ext*jump(H) - alpha*cross(n, jump(E)))");
  EXPECT_EQ(builtin_exterior_state("absorbing")->H,
            "(H.int - dot(n, H.int)*n + Y.int*cross(n, E.int))/2");
  // Canonical re-printed text, for generated-code headers.
  const auto up = test::lower_builtin_flux("upwind");
  EXPECT_EQ(up.E_text, "1/(Z.int + Z.ext)*cross(n, Z.ext*jump(H) - cross(n, jump(E)))");
  EXPECT_EQ(up.H_text, "1/(Y.int + Y.ext)*cross(n, Y.ext*jump(E) + cross(n, jump(H)))");
  for (const auto& name : builtin_flux_names()) EXPECT_FALSE(builtin_flux(name)->description.empty());
  for (const auto& name : builtin_exterior_state_names())
    EXPECT_FALSE(builtin_exterior_state(name)->description.empty());
}

// ---- common subexpressions ---------------------------------------------------------------------

TEST(FluxLowering, CommonSubexpressionsAreComputedOnce) {
  // the same cross product written twice: 9 operations (6 mul, 3 sub) once, then 3 adds
  auto l = lower_text("cross(n, E.int) + cross(n, E.int)", "H.int", flux_scope());
  EXPECT_EQ(l.dag.operation_count(), 12);
  // jump(E) used twice, and the same jump spelled out: 3 subs in all
  l = lower_text("Z.int*jump(E) + Z.ext*jump(E)", "E.int - E.ext", flux_scope());
  EXPECT_EQ(l.dag.operation_count(), 3 + 3 + 3 + 3);
  EXPECT_EQ(l.dag.outputs[3], l.dag.nodes()[l.dag.nodes()[l.dag.outputs[0]].b].b);
  // x*y and y*x are one node
  l = lower_text("Z.int*n - n*Z.int", "avg(H) + (H.int + H.ext)/2", flux_scope());
  EXPECT_EQ(l.dag.operation_count(), 3 + 3 + 3 + 3 + 3);  // 3 mul, 3 sub; 3 add, 3 mul (x/2 = x*0.5), 3 add
  for (int i = 0; i < 3; ++i) {
    const DagNode& d = l.dag.nodes()[l.dag.outputs[i]];
    EXPECT_EQ(d.op, DagNode::Op::sub);
    EXPECT_EQ(d.a, d.b);  // the difference of one node with itself (kept: inf - inf is NaN)
    const DagNode& h = l.dag.nodes()[l.dag.outputs[3 + i]];
    EXPECT_EQ(h.a, h.b);  // avg(H) and the written-out average are one node
  }
}

TEST(FluxLowering, UpwindOperationCountIsWithinItsBound) {
  // upwind: 6 jump subs, 2 × (add + reciprocal), and per output vector: 3 scalings by Z.ext/Y.ext,
  // 2 cross products (9 each), 3 sums, 3 scalings by the reciprocal: 6 + 4 + 2×27 = 64.
  // jump(E) and jump(H) are shared between the E and H fluxes (each is used in both).
  EXPECT_LE(test::lower_builtin_flux("upwind").dag.operation_count(), 64);
  EXPECT_LE(test::lower_builtin_flux("central").dag.operation_count(), 40);
  EXPECT_LE(test::lower_builtin_flux("alpha").dag.operation_count(), 70);
  EXPECT_EQ(test::lower_builtin_exterior("pec").dag.operation_count(), 3);
  EXPECT_EQ(test::lower_builtin_exterior("pmc").dag.operation_count(), 3);
  EXPECT_LE(test::lower_builtin_exterior("absorbing").dag.operation_count(), 58);
  EXPECT_EQ(test::lower_builtin_exterior("incident").dag.operation_count(), 0);
  // no dead nodes are kept
  for (const auto& name : builtin_flux_names()) {
    const auto l = test::lower_builtin_flux(name);
    const auto live = l.dag.live();
    EXPECT_TRUE(std::all_of(live.begin(), live.end(), [](bool b) { return b; })) << name;
  }
}

// ---- constants ---------------------------------------------------------------------------------

TEST(FluxLowering, ConstantSubexpressionsFoldToOneConstant) {
  const auto l = lower_text("2*pi*alpha*n", "(alpha - 1/4)*H.int + 0*n", flux_scope({{"alpha", 0.25}}));
  const double c = 2 * dsl::kPi * 0.25;  // left to right, as written
  int constants = 0;
  for (const DagNode& n : l.dag.nodes()) constants += n.op == DagNode::Op::constant;
  EXPECT_EQ(constants, 2);  // 2*pi*alpha and 0 (alpha - 1/4 is 0 too: the same node)
  for (int i = 0; i < 3; ++i) {
    const DagNode& e = l.dag.nodes()[l.dag.outputs[i]];
    ASSERT_EQ(e.op, DagNode::Op::mul);
    EXPECT_EQ(l.dag.nodes()[e.a].value, c);
    EXPECT_EQ(l.dag.nodes()[e.b].input, kNormal + i);
  }
  // 0*H.int and 0*n are not folded away (NaN, inf), and are kept as written
  EXPECT_EQ(l.dag.operation_count(), 3 + 3 + 3 + 3);
  // a constant the user names folds to its value; x^2 is x*x
  const auto m = lower_text("omega^2*n", "Z.int^2*n", flux_scope({{"omega", 3}}));
  EXPECT_EQ(m.dag.nodes()[m.dag.nodes()[m.dag.outputs[0]].a].value, 9.0);
  EXPECT_EQ(m.dag.operation_count(), 3 + 1 + 3);
}

TEST(FluxLowering, ScalarFunctionsAgreeWithScalarExpressionsBitForBit) {
  // f(Z.int, Z.ext) * n with n = (1, 0, 0) is f itself: compare with dsl::ScalarFunction.
  dsl::ScalarContext ctx;
  ctx.variables = {"x", "y"};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  for (const auto& f : dsl::scalar_functions()) {
    // (the order of besselj and bessely is a constant: 2, and their argument x)
    const std::string call = std::string(f.name) + (f.order ? "(2, x)" : f.arity == 1 ? "(x)" : "(x, y)");
    const dsl::ScalarFunction ref = dsl::compile_scalar(test::plain(call), ctx);
    std::string flux = std::string(f.name) + (f.order ? "(2, Z.int)" : f.arity == 1 ? "(Z.int)" : "(Z.int, Z.ext)");
    const auto l = lower_text(flux + "*n", "H.int", flux_scope());
    std::vector<double> in(kNumFluxInputs, 0.0);
    in[kNormal] = 1;
    for (int k = 0; k < 50; ++k) {
      const double xy[2] = {k < 5 ? 0.0 : u(rng), k % 7 == 0 ? 2.0 : u(rng)};
      in[kZInt] = xy[0];
      in[kZExt] = xy[1];
      const double got = eval(l.dag, in)[0], want = ref(xy);
      EXPECT_TRUE(std::memcmp(&got, &want, 8) == 0 || (std::isnan(got) && std::isnan(want)))
          << flux << " at " << xy[0] << ", " << xy[1] << ": " << got << " vs " << want;
    }
  }
}

TEST(FluxLowering, VectorOperations) {
  const auto l = lower_text("dot(n, E.int)*n - norm(H.int)*E.ext/Z.ext",
                            "-cross(E.int, H.int) + avg(Z)*jump(H) - jump(eps)*n", flux_scope());
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 200; ++trial) {
    const auto in = test::random_inputs(rng);
    const V3 n = vec(in, kNormal), Ei = vec(in, kEint), Hi = vec(in, kHint), Ee = vec(in, kEext),
             He = vec(in, kHext);
    const V3 e = n.dot(Ei) * n - Hi.norm() * Ee / in[kZExt];
    const V3 h = -Ei.cross(Hi) + (in[kZInt] + in[kZExt]) / 2 * (Hi - He) - (in[kEpsInt] - in[kEpsExt]) * n;
    expect_close(eval(l.dag, in), {e[0], e[1], e[2], h[0], h[1], h[2]});
  }
}

TEST(FluxLowering, ExteriorContextReadsIncidentFieldsAndInteriorTraces) {
  const auto l = lower_text("Einc - E.int", "Hinc*Z.int", exterior_scope());
  std::mt19937_64 rng(1);
  const auto in = test::random_inputs(rng);
  const auto out = eval(l.dag, in);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i], in[kEinc + i] - in[kEint + i]);
    EXPECT_EQ(out[3 + i], in[kHinc + i] * in[kZInt]);
  }
}

}  // namespace
}  // namespace dgmax::codegen
