// The C printer: golden output for the upwind flux and the absorbing state, deterministic and
// readable; and the printed code compiled by the host compiler computes bit for bit what the DAG
// interpreter computes.
#include <gtest/gtest.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <vector>

#include "codegen/emit/c_expr.hpp"
#include "lower_test_util.hpp"

namespace dgmax::codegen {
namespace {

// 64 operations: jump(E), jump(H) (shared by both fluxes), 1/(Z.int + Z.ext), then
// cross(n, Z.ext*jump(H) - cross(n, jump(E))) scaled; the same for H with Y.
// (the raw strings start with a line break, for alignment; golden() drops it)
const char* const kUpwind = R"(
  const real_t t0 = in[19] + in[20];  // Z.int + Z.ext
  const real_t t1 = real_t(1.0) / t0;
  const real_t t2 = in[3] - in[9];  // H.int.x - H.ext.x
  const real_t t3 = in[4] - in[10];  // H.int.y - H.ext.y
  const real_t t4 = in[5] - in[11];  // H.int.z - H.ext.z
  const real_t t5 = in[20] * t2;  // Z.ext * t2
  const real_t t6 = in[20] * t3;  // Z.ext * t3
  const real_t t7 = in[20] * t4;  // Z.ext * t4
  const real_t t8 = in[0] - in[6];  // E.int.x - E.ext.x
  const real_t t9 = in[1] - in[7];  // E.int.y - E.ext.y
  const real_t t10 = in[2] - in[8];  // E.int.z - E.ext.z
  const real_t t11 = in[13] * t10;  // n.y * t10
  const real_t t12 = in[14] * t9;  // n.z * t9
  const real_t t13 = t11 - t12;
  const real_t t14 = in[14] * t8;  // n.z * t8
  const real_t t15 = in[12] * t10;  // n.x * t10
  const real_t t16 = t14 - t15;
  const real_t t17 = in[12] * t9;  // n.x * t9
  const real_t t18 = in[13] * t8;  // n.y * t8
  const real_t t19 = t17 - t18;
  const real_t t20 = t5 - t13;
  const real_t t21 = t6 - t16;
  const real_t t22 = t7 - t19;
  const real_t t23 = in[13] * t22;  // n.y * t22
  const real_t t24 = in[14] * t21;  // n.z * t21
  const real_t t25 = t23 - t24;
  const real_t t26 = in[14] * t20;  // n.z * t20
  const real_t t27 = in[12] * t22;  // n.x * t22
  const real_t t28 = t26 - t27;
  const real_t t29 = in[12] * t21;  // n.x * t21
  const real_t t30 = in[13] * t20;  // n.y * t20
  const real_t t31 = t29 - t30;
  const real_t t32 = t1 * t25;
  const real_t t33 = t1 * t28;
  const real_t t34 = t1 * t31;
  const real_t t35 = in[21] + in[22];  // Y.int + Y.ext
  const real_t t36 = real_t(1.0) / t35;
  const real_t t37 = in[22] * t8;  // Y.ext * t8
  const real_t t38 = in[22] * t9;  // Y.ext * t9
  const real_t t39 = in[22] * t10;  // Y.ext * t10
  const real_t t40 = in[13] * t4;  // n.y * t4
  const real_t t41 = in[14] * t3;  // n.z * t3
  const real_t t42 = t40 - t41;
  const real_t t43 = in[14] * t2;  // n.z * t2
  const real_t t44 = in[12] * t4;  // n.x * t4
  const real_t t45 = t43 - t44;
  const real_t t46 = in[12] * t3;  // n.x * t3
  const real_t t47 = in[13] * t2;  // n.y * t2
  const real_t t48 = t46 - t47;
  const real_t t49 = t37 + t42;
  const real_t t50 = t38 + t45;
  const real_t t51 = t39 + t48;
  const real_t t52 = in[13] * t51;  // n.y * t51
  const real_t t53 = in[14] * t50;  // n.z * t50
  const real_t t54 = t52 - t53;
  const real_t t55 = in[14] * t49;  // n.z * t49
  const real_t t56 = in[12] * t51;  // n.x * t51
  const real_t t57 = t55 - t56;
  const real_t t58 = in[12] * t50;  // n.x * t50
  const real_t t59 = in[13] * t49;  // n.y * t49
  const real_t t60 = t58 - t59;
  const real_t t61 = t36 * t54;
  const real_t t62 = t36 * t57;
  const real_t t63 = t36 * t60;
  out[0] = t32;
  out[1] = t33;
  out[2] = t34;
  out[3] = t61;
  out[4] = t62;
  out[5] = t63;
)";

const char* const kAbsorbing = R"(
  const real_t t0 = in[12] * in[0];  // n.x * E.int.x
  const real_t t1 = in[13] * in[1];  // n.y * E.int.y
  const real_t t2 = t0 + t1;
  const real_t t3 = in[14] * in[2];  // n.z * E.int.z
  const real_t t4 = t2 + t3;
  const real_t t5 = t4 * in[12];  // t4 * n.x
  const real_t t6 = t4 * in[13];  // t4 * n.y
  const real_t t7 = t4 * in[14];  // t4 * n.z
  const real_t t8 = in[0] - t5;  // E.int.x - t5
  const real_t t9 = in[1] - t6;  // E.int.y - t6
  const real_t t10 = in[2] - t7;  // E.int.z - t7
  const real_t t11 = in[4] * in[14];  // H.int.y * n.z
  const real_t t12 = in[5] * in[13];  // H.int.z * n.y
  const real_t t13 = t11 - t12;
  const real_t t14 = in[5] * in[12];  // H.int.z * n.x
  const real_t t15 = in[3] * in[14];  // H.int.x * n.z
  const real_t t16 = t14 - t15;
  const real_t t17 = in[3] * in[13];  // H.int.x * n.y
  const real_t t18 = in[4] * in[12];  // H.int.y * n.x
  const real_t t19 = t17 - t18;
  const real_t t20 = in[19] * t13;  // Z.int * t13
  const real_t t21 = in[19] * t16;  // Z.int * t16
  const real_t t22 = in[19] * t19;  // Z.int * t19
  const real_t t23 = t8 + t20;
  const real_t t24 = t9 + t21;
  const real_t t25 = t10 + t22;
  const real_t t26 = t23 * real_t(0.5);
  const real_t t27 = t24 * real_t(0.5);
  const real_t t28 = t25 * real_t(0.5);
  const real_t t29 = in[12] * in[3];  // n.x * H.int.x
  const real_t t30 = in[13] * in[4];  // n.y * H.int.y
  const real_t t31 = t29 + t30;
  const real_t t32 = in[14] * in[5];  // n.z * H.int.z
  const real_t t33 = t31 + t32;
  const real_t t34 = t33 * in[12];  // t33 * n.x
  const real_t t35 = t33 * in[13];  // t33 * n.y
  const real_t t36 = t33 * in[14];  // t33 * n.z
  const real_t t37 = in[3] - t34;  // H.int.x - t34
  const real_t t38 = in[4] - t35;  // H.int.y - t35
  const real_t t39 = in[5] - t36;  // H.int.z - t36
  const real_t t40 = in[13] * in[2];  // n.y * E.int.z
  const real_t t41 = in[14] * in[1];  // n.z * E.int.y
  const real_t t42 = t40 - t41;
  const real_t t43 = in[14] * in[0];  // n.z * E.int.x
  const real_t t44 = in[12] * in[2];  // n.x * E.int.z
  const real_t t45 = t43 - t44;
  const real_t t46 = in[12] * in[1];  // n.x * E.int.y
  const real_t t47 = in[13] * in[0];  // n.y * E.int.x
  const real_t t48 = t46 - t47;
  const real_t t49 = in[21] * t42;  // Y.int * t42
  const real_t t50 = in[21] * t45;  // Y.int * t45
  const real_t t51 = in[21] * t48;  // Y.int * t48
  const real_t t52 = t37 + t49;
  const real_t t53 = t38 + t50;
  const real_t t54 = t39 + t51;
  const real_t t55 = t52 * real_t(0.5);
  const real_t t56 = t53 * real_t(0.5);
  const real_t t57 = t54 * real_t(0.5);
  out[0] = t26;
  out[1] = t27;
  out[2] = t28;
  out[3] = t55;
  out[4] = t56;
  out[5] = t57;
)";

std::string golden(const char* text) { return std::string(text).substr(1); }

TEST(CExpr, GoldenUpwindFlux) {
  EXPECT_EQ(emit_c_statements(test::lower_builtin_flux("upwind").dag, {}), golden(kUpwind));
}

TEST(CExpr, GoldenAbsorbingState) {
  EXPECT_EQ(emit_c_statements(test::lower_builtin_exterior("absorbing").dag, {}), golden(kAbsorbing));
}

TEST(CExpr, OutputIsDeterministic) {
  const std::string a = emit_c_statements(test::lower_builtin_flux("alpha", 0.3).dag, {});
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(emit_c_statements(test::lower_builtin_flux("alpha", 0.3).dag, {}), a);
}

TEST(CExpr, StyleOptions) {
  const auto l = test::lower_text("sqrt(Z.int)*n", "abs(Z.ext)*E.int", test::flux_scope());
  CExprStyle cuda;
  cuda.cuda = true;
  cuda.input_array = "q";
  cuda.output_array = "f";
  cuda.temp_prefix = "r";
  cuda.indent = "    ";
  EXPECT_EQ(emit_c_statements(l.dag, cuda),
            "    const real_t r0 = sqrt(q[19]);  // sqrt(Z.int)\n"
            "    const real_t r1 = r0 * q[12];  // r0 * n.x\n"
            "    const real_t r2 = r0 * q[13];  // r0 * n.y\n"
            "    const real_t r3 = r0 * q[14];  // r0 * n.z\n"
            "    const real_t r4 = fabs(q[20]);  // abs(Z.ext)\n"
            "    const real_t r5 = r4 * q[0];  // r4 * E.int.x\n"
            "    const real_t r6 = r4 * q[1];  // r4 * E.int.y\n"
            "    const real_t r7 = r4 * q[2];  // r4 * E.int.z\n"
            "    f[0] = r1;\n    f[1] = r2;\n    f[2] = r3;\n    f[3] = r5;\n    f[4] = r6;\n    f[5] = r7;\n");
  EXPECT_NE(emit_c_statements(l.dag, {}).find("std::sqrt(in[19])"), std::string::npos);
}

// The split printer (the cpu stage's per-face and per-node parts): the same operations, the
// invariant part reading only invariant slots, the rest only the others.
TEST(CExpr, SplitByInvariantSlots) {
  const auto l = test::lower_text("sqrt(Z.int)*n", "abs(Z.ext)*E.int", test::flux_scope());
  std::vector<bool> face(29, false);
  for (int slot = 12; slot < 29; ++slot) face[slot] = true;
  const CSplitStatements s = emit_c_statements_split(l.dag, {}, face, "hv");
  EXPECT_EQ(s.invariant,
            "  const real_t ht0 = std::sqrt(in[19]);  // sqrt(Z.int)\n"
            "  const real_t ht1 = ht0 * in[12];  // ht0 * n.x\n"
            "  const real_t ht2 = ht0 * in[13];  // ht0 * n.y\n"
            "  const real_t ht3 = ht0 * in[14];  // ht0 * n.z\n"
            "  const real_t ht4 = std::fabs(in[20]);  // abs(Z.ext)\n"
            "  hv[0] = ht1;\n  hv[1] = ht2;\n  hv[2] = ht3;\n  hv[3] = ht4;\n");
  EXPECT_EQ(s.variant,
            "  const real_t t0 = hv[3] * in[0];  // hv[3] * E.int.x\n"
            "  const real_t t1 = hv[3] * in[1];  // hv[3] * E.int.y\n"
            "  const real_t t2 = hv[3] * in[2];  // hv[3] * E.int.z\n"
            "  out[0] = hv[0];\n  out[1] = hv[1];\n  out[2] = hv[2];\n  out[3] = t0;\n  out[4] = t1;\n  out[5] = t2;\n");
  EXPECT_EQ(s.hoisted, 4);

  // the upwind flux: both divisions per face, none per node, as many operations as unsplit
  const auto up = test::lower_builtin_flux("upwind");
  const CSplitStatements u = emit_c_statements_split(up.dag, {}, face, "hv");
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(u.invariant, " / "), 2);
  EXPECT_EQ(count(u.variant, " / "), 0);
  EXPECT_EQ(count(u.invariant, "const real_t") + count(u.variant, "const real_t"),
            count(emit_c_statements(up.dag, {}), "const real_t"));
  for (int slot = 0; slot < 29; ++slot) {
    const std::string in = "in[" + std::to_string(slot) + "]";
    if (slot < 12) EXPECT_EQ(count(u.invariant, in), 0) << in;
    else EXPECT_EQ(count(u.variant, in), 0) << in;
  }
}

TEST(CExpr, ConstantsAreFloatingLiterals) {
  const auto l = test::lower_text("3*n + 0.1*E.int - (-0)*H.int", "1e300*1e300*n + (0/0)*H.int + 12345678901234567890*E.int",
                                  test::flux_scope());
  const std::string c = emit_c_statements(l.dag, {});
  for (const char* s : {"real_t(3.0)", "real_t(0.1)", "real_t(-0.0)", "(real_t(1) / real_t(0))",
                        "(real_t(0) / real_t(0))", "real_t(12345678901234567168.0)"})
    EXPECT_NE(c.find(s), std::string::npos) << s << " in\n" << c;
}

// ---- compiled and run --------------------------------------------------------------------------

// Expressions whose emitted C is compiled: the built-ins, and every function and operator.
struct Compiled {
  std::string name;
  LoweredFlux flux;
};

std::vector<Compiled> programs() {
  std::vector<Compiled> out;
  for (const auto& n : builtin_flux_names()) out.push_back({"flux_" + n, test::lower_builtin_flux(n, 0.3)});
  for (const auto& n : builtin_exterior_state_names())
    out.push_back({"exterior_" + n, test::lower_builtin_exterior(n)});
  const std::string e =
      "sin(Z.int)*n + cos(Z.ext)*E.int + (tan(eps.int) + asin(Y.int/4) + acos(Y.ext/4) + "
      "atan(mu.int))*H.int - sinh(dot(n, E.int))*E.ext/cosh(Z.ext) + tanh(mu.ext)*H.ext + "
      "exp(-dot(E.int, E.int))*cross(E.ext, H.int) - log(eps.int)*sqrt(mu.int)*avg(H)";
  const std::string h =
      "(atan2(dot(n, E.int), dot(n, H.int)) + abs(dot(n, E.ext)) + min(Z.int, Z.ext) - "
      "max(Y.int, Y.ext) + pow(Z.int, Z.ext) + Z.int^3 + Y.ext^eps.ext + dot(n, H.ext)^2 + "
      "floor(3*dot(n, E.int)) + ceil(3*dot(n, H.int)) + sign(dot(n, E.int)) + "
      "heaviside(dot(n, H.ext)) + erf(norm(jump(E))) - 1/3*jump(Z))*n - E.int/-7";
  out.push_back({"kitchen_sink", test::lower_text(e, h, test::flux_scope())});
  return out;
}

TEST(CExpr, CompiledCodeEqualsTheInterpreterBitForBit) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no host C++ compiler 'c++' found";
  const auto progs = programs();
  char dir_template[] = "/tmp/dgmax_c_expr_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::filesystem::path dir = dir_template;
  struct RemoveDir {
    std::filesystem::path p;
    ~RemoveDir() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } cleanup{dir};
  std::string src = "#include <cmath>\ntypedef double real_t;\n";
  for (const auto& p : progs)
    src += "\nextern \"C\" void " + p.name + "(const real_t* in, real_t* out) {\n" +
           emit_c_statements(p.flux.dag, {}) + "}\n";
  { std::ofstream(dir / "flux.cpp") << src; }
  // No -ffast-math; no FMA contraction (the interpreter does not contract either).
  const std::string cmd = "cd '" + dir.string() +
                          "' && c++ -std=c++17 -O2 -ffp-contract=off -Wall -Werror -shared -fPIC "
                          "-o flux.so flux.cpp > log.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  std::string log;
  if (rc != 0) {
    std::ifstream f(dir / "log.txt");
    log.assign(std::istreambuf_iterator<char>(f), {});
  }
  ASSERT_EQ(rc, 0) << log << "\n" << src;
  void* lib = dlopen((dir / "flux.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();

  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<int> pick(0, 9);
  const double special[] = {0.0, -0.0, 2.0, -1.0, std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
  for (const auto& p : progs) {
    SCOPED_TRACE(p.name);
    using Fn = void (*)(const double*, double*);
    const auto fn = reinterpret_cast<Fn>(dlsym(lib, p.name.c_str()));
    ASSERT_NE(fn, nullptr);
    for (int trial = 0; trial < 2000; ++trial) {
      auto in = test::random_inputs(rng);
      if (trial % 4 == 3)  // sprinkle special values: branches of sign, heaviside, pow
        for (double& v : in)
          if (pick(rng) == 0) v = special[pick(rng) % 6];
      double got[6];
      const auto want = test::eval(p.flux.dag, in);
      fn(in.data(), got);
      // NaN signs and payloads are left to the compiler (it may swap the operands of + and *),
      // so any NaN equals any NaN; everything else must have the same bits.
      for (int i = 0; i < 6; ++i)
        ASSERT_TRUE(std::memcmp(&got[i], &want[i], sizeof(double)) == 0 ||
                    (std::isnan(got[i]) && std::isnan(want[i])))
            << "output " << i << ": compiled " << got[i] << ", interpreter " << want[i];
    }
  }
  dlclose(lib);
}

}  // namespace
}  // namespace dgmax::codegen
