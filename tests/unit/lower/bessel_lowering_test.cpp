// besselj and bessely lowered to the ScalarDag and printed into the generated kernels: the order is
// part of a node (hash-consing, folding, pruning), the DAG interpreter and the host-compiled field
// give the reference values (mpmath 1.2.1, 40 digits; A&S table 9.1 where it has them) and the
// interpreter's bits, the kernel source defines dgmax_besselj/dgmax_bessely only when used,
// and the order is checked in fluxes as in fields.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "codegen/dsl/scalar_eval.hpp"
#include "codegen/emit/c_expr.hpp"
#include "codegen/emit/cpu_kernels.hpp"
#include "codegen/jit/host_jit.hpp"
#include "codegen/lower/field_lowering.hpp"
#include "lower_test_util.hpp"
#include "simulate.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/physics/flux_set.hpp"
#include "solver/physics/space_time_field.hpp"

namespace dgmax::codegen {
namespace {

using B = dsl::Builtin;
using Op = DagNode::Op;

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

// Six components of one field, each a function of x, and where to evaluate each: the reference
// value there (see the header; bessel_test.cpp has the same table for the interpreter).
struct Component {
  const char* text;
  double x;
  double value;
};
const std::vector<Component>& components() {
  static const std::vector<Component> c = {
      {"besselj(0, x)", 1.0, 0.76519768655796655},      // A&S 9.1: 0.765197686557967
      {"besselj(1, x)", 2.5, 0.49709410246427404},      // A&S 9.1: 0.497094102464274
      {"bessely(0, x)", 1.0, 0.088256964215676958},     // A&S 9.1: 0.088256964215677
      {"bessely(1, x)", 3.0, 0.32467442479179998},      // A&S 9.1: 0.324674424791800
      {"besselj(3, -x)", 2.0, -0.12894324947440205},    // J_3(-2) = -J_3(2)
      {"bessely(10, 3*x)", 10.0, 0.075056702122397113},  // Y_10(30)
  };
  return c;
}

std::vector<dsl::ExprSource> sources(const std::vector<std::string>& texts) {
  std::vector<dsl::ExprSource> s;
  for (const auto& t : texts) s.push_back(test::plain(t));
  return s;
}

std::vector<std::string> component_texts() {
  std::vector<std::string> t;
  for (const auto& c : components()) t.push_back(c.text);
  return t;
}

double dag_value(const ScalarDag& dag, int output, double x) {
  const double in[kNumFieldInputs] = {x, 0.25, -0.5, 0.125};
  std::vector<double> out(dag.outputs.size()), scratch(dag.nodes().size());
  evaluate(dag, in, out.data(), scratch.data());
  return out[output];
}

TEST(BesselLowering, TheOrderIsPartOfTheNode) {
  ScalarDag d;
  const int x = d.input(0);
  const int j1 = d.call_order(B::besselj, 1, x);
  EXPECT_EQ(d.call_order(B::besselj, 1, x), j1);  // the same call: one node
  const int j2 = d.call_order(B::besselj, 2, x);
  const int y1 = d.call_order(B::bessely, 1, x);
  EXPECT_NE(j2, j1);
  EXPECT_NE(y1, j1);
  EXPECT_EQ(d.nodes()[j2].order, 2);
  EXPECT_EQ(d.nodes()[j2].op, Op::call1);
  // a constant argument folds, with the order
  const int c = d.call_order(B::besselj, 1, d.constant(2.5));
  EXPECT_EQ(d.nodes()[c].op, Op::constant);
  EXPECT_NEAR(d.nodes()[c].value, 0.49709410246427404, 1e-14);
  // pruning keeps the orders
  d.outputs = {j2, y1};
  const ScalarDag p = d.pruned();
  ASSERT_EQ(p.outputs.size(), 2u);
  EXPECT_EQ(p.nodes()[p.outputs[0]].order, 2);
  EXPECT_EQ(p.nodes()[p.outputs[1]].fn, B::bessely);
  EXPECT_EQ(p.nodes()[p.outputs[1]].order, 1);
}

TEST(BesselLowering, LoweredFieldGivesTheReferenceValues) {
  const LoweredField f = lower_field(sources(component_texts()), {});
  EXPECT_FALSE(f.reads_time);
  for (size_t c = 0; c < components().size(); ++c) {
    const Component& k = components()[c];
    EXPECT_NEAR(dag_value(f.dag, static_cast<int>(c), k.x), k.value, 1e-14 * std::fabs(k.value)) << k.text;
  }
  // the re-printed text keeps the order
  EXPECT_EQ(f.texts[5], "bessely(10, 3*x)");
}

TEST(BesselLowering, DagEqualsTheInterpreterBitForBit) {
  const std::vector<std::string> texts = {"besselj(2, x) + besselj(2, y)", "bessely(1, abs(x)) * besselj(1, x)",
                                          "besselj(m, 100*x - t)", "bessely(2*m + 1, 700*y*y)",
                                          "besselj(0, x*1e303)", "bessely(0, x*1e-307)"};
  const std::map<std::string, double> consts = {{"m", 3.0}};
  dsl::ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  ctx.constants = consts;
  const LoweredField f = lower_field(sources(texts), consts);
  const double pts[][4] = {{0.3, -1.7, 0, 0.5}, {-2.0, 0.0, 0, 0},         {1.9, 1.5, 0, 3},
                           {0.0, -0.0, 0, 0},   {-1e-300, 2e-310, 0, 1}, {std::numeric_limits<double>::infinity(), 1, 0, 0}};
  for (size_t c = 0; c < texts.size(); ++c) {
    const dsl::ScalarFunction s = dsl::compile_scalar(test::plain(texts[c]), ctx);
    for (const auto& p : pts) {
      std::vector<double> out(f.dag.outputs.size()), scratch(f.dag.nodes().size());
      evaluate(f.dag, p, out.data(), scratch.data());
      EXPECT_TRUE(same_double(out[c], s(p))) << texts[c] << " at x = " << p[0] << ", y = " << p[1] << ": " << out[c]
                                             << " vs " << s(p);
    }
  }
}

TEST(BesselLowering, PrintedCallsNameTheOrder) {
  ScalarDag d;
  const int x = d.input(kFieldX);
  d.outputs = {d.call_order(B::besselj, 3, x), d.call_order(B::bessely, 12, d.mul(x, x))};
  CExprStyle st;
  st.type = "expr_t";
  st.temp_prefix = "v";
  st.input_label = field_input_label;
  EXPECT_EQ(emit_c_statements(d, st),
            "  const expr_t v0 = dgmax_besselj(3, in[0]);  // besselj(3, x)\n"
            "  const expr_t v1 = in[0] * in[0];  // x * x\n"
            "  const expr_t v2 = dgmax_bessely(12, v1);\n"
            "  out[0] = v0;\n"
            "  out[1] = v2;\n");
  st.cuda = true;  // the same call: the function is defined per backend (bessel_c_definitions)
  EXPECT_NE(emit_c_statements(d, st).find("dgmax_besselj(3, in[0])"), std::string::npos);
  EXPECT_TRUE(uses_bessel(d));
  d.outputs = {x};
  EXPECT_FALSE(uses_bessel(d));  // dead calls do not count
}

const Problem& tiny_problem() {
  static const Problem p = dgmax::test::box_problem(dgmax::test::unit_box(1), 1, 1.0);
  return p;
}

Problem with_exact(const std::vector<std::string>& texts, const std::map<std::string, double>& consts = {}) {
  Problem p = tiny_problem();
  p.exact = space_time_field_from_text(texts, "exact", consts);
  return p;
}

TEST(BesselLowering, KernelSourceDefinesTheFunctionsOnlyWhenUsed) {
  const std::string with = generate_cpu_source(make_kernel_spec(with_exact(component_texts()), false));
  const std::string without =
      generate_cpu_source(make_kernel_spec(with_exact({"sin(x)", "0", "0", "0", "0", "0"}), false));
  EXPECT_NE(with.find("DGMAX_FN double dgmax_besselj(int n, double x) {"), std::string::npos);
  EXPECT_NE(with.find("std::cyl_neumann(n, x)"), std::string::npos);
  EXPECT_EQ(without.find("dgmax_bessel"), std::string::npos);
  // defined once, before the first use
  const size_t def = with.find("double dgmax_besselj(");
  EXPECT_EQ(with.find("double dgmax_besselj(", def + 1), std::string::npos);
  EXPECT_LT(def, with.find("dgmax_besselj(0, "));
  // the order is in the source, so in the kernel's content hash
  const std::string j2 = generate_cpu_source(make_kernel_spec(with_exact({"besselj(2, x)", "0", "0", "0", "0", "0"}), false));
  const std::string j3 = generate_cpu_source(make_kernel_spec(with_exact({"besselj(3, x)", "0", "0", "0", "0", "0"}), false));
  EXPECT_NE(j2.find("dgmax_besselj(2, in[0])"), std::string::npos);
  EXPECT_NE(j2, j3);
  // a flux that uses them gets them too; the cuda source spells them with jn, yn
  Problem flux_problem = tiny_problem();
  const FluxSource custom{test::plain("besselj(1, Z.int)*jump(E)"), test::plain("bessely(2, 1 + Y.int)*jump(H)")};
  flux_problem.fluxes = make_flux_set("custom", 1, &custom, {});
  const std::string single = generate_cpu_source(make_kernel_spec(flux_problem, true));
  EXPECT_NE(single.find("double dgmax_bessely(int n, double x)"), std::string::npos);
  // and compiles with real_t = float (the double result is rounded into the float temporary)
  if (std::system("c++ --version > /dev/null 2>&1") == 0) {
    EXPECT_NE(jit_compile(single, "bessel_flux_fp32")->symbol("dgmax_field_at"), nullptr);
  }
  const std::string cuda = bessel_c_definitions(true);
  EXPECT_NE(cuda.find("jn(n, fabs(x))"), std::string::npos);
  EXPECT_NE(cuda.find("yn(n, x)"), std::string::npos);
}

TEST(BesselLowering, HostCompiledFieldGivesTheReferenceValuesAndTheInterpretersBits) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0 && !std::getenv("DGMAX_CXX") && !std::getenv("CXX"))
    GTEST_SKIP() << "no host C++ compiler";
  const auto lib = jit_compile(generate_cpu_source(make_kernel_spec(with_exact(component_texts()), false)), "bessel_field");
  using FieldAt = void (*)(int, long, const double*, double*);
  const auto field_at = reinterpret_cast<FieldAt>(lib->symbol("dgmax_field_at"));
  dsl::ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  // every component at every reference point, and at points where the edge cases are
  std::vector<double> xs;
  for (const auto& c : components()) xs.push_back(c.x);
  for (double x : {-7.25, -0.0, 0.0, 1e-310, 1500.5, 3e5, std::numeric_limits<double>::infinity()}) xs.push_back(x);
  std::vector<double> pts, out(6 * xs.size());
  for (double x : xs) pts.insert(pts.end(), {x, 0.5, -0.25, 0.75});
  field_at(1, static_cast<long>(xs.size()), pts.data(), out.data());
  for (size_t c = 0; c < components().size(); ++c) {
    const Component& k = components()[c];
    const dsl::ScalarFunction s = dsl::compile_scalar(test::plain(k.text), ctx);
    EXPECT_NEAR(out[6 * c + c], k.value, 1e-14 * std::fabs(k.value)) << k.text << " at x = " << k.x;
    for (size_t m = 0; m < xs.size(); ++m) {
      const double got = out[6 * m + c], want = s(&pts[4 * m]);
      EXPECT_TRUE(same_double(got, want)) << k.text << " at x = " << xs[m] << ": compiled " << got << ", interpreter " << want;
    }
  }
}

TEST(BesselLowering, FluxOrdersAreCheckedLikeFieldOrders) {
  // a flux may use them, with a constant order
  const LoweredFlux ok = test::lower_text("besselj(m, Z.int)*jump(E)", "H.int", test::flux_scope({{"m", 2}}));
  bool found = false;
  for (const DagNode& n : ok.dag.nodes()) found = found || (n.op == Op::call1 && n.fn == B::besselj && n.order == 2);
  EXPECT_TRUE(found);
  const UserError e = test::expect_user_error(
      [] { lower_flux(test::in_yaml("besselj(Z.int, 1)*n"), test::plain("H.int"), test::flux_scope()); });
  EXPECT_EQ(e.message(), "the order of besselj must be a constant");
  EXPECT_EQ(e.where().column, test::kYamlColumn + 8);
  const UserError f = test::expect_user_error(
      [] { lower_flux(test::plain("bessely(2.5, Z.int)*n"), test::plain("H.int"), test::flux_scope()); });
  EXPECT_EQ(f.message(), "the order of bessely must be a whole number from 0 to 100, got 2.5 in expression "
                         "'bessely(2.5, Z.int)*n'");
  const UserError g = test::expect_user_error(
      [] { lower_flux(test::plain("besselj(Z.int)*n"), test::plain("H.int"), test::flux_scope()); });
  EXPECT_EQ(g.message(), "besselj takes 2 arguments, got 1 in expression 'besselj(Z.int)*n'");
  EXPECT_EQ(g.hint(), "as in 'besselj(1, x)'");
}

TEST(BesselLowering, FieldOrderErrorsAreWhereTheInterpreterPutsThem) {
  dsl::ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  // (argument counts: field_lowering_test.cpp, ArgumentCounts)
  for (const char* text : {"besselj(1.5, x)", "2*besselj(-1, x)", "besselj(t, x)", "bessely(101, y)", "bessely(x*y, 2)"}) {
    const UserError l = test::expect_user_error([&] { lower_field({test::in_yaml(text)}, {}); });
    const UserError i = test::expect_user_error([&] { dsl::compile_scalar(test::in_yaml(text), ctx); });
    EXPECT_EQ(l.message(), i.message()) << text;
    EXPECT_EQ(l.hint(), i.hint()) << text;
    EXPECT_EQ(l.where().column, i.where().column) << text;
  }
}

}  // namespace
}  // namespace dgmax::codegen
