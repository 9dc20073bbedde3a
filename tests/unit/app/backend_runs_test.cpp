// Whole runs through the CLI: the generated cpu backend reproduces the ref backend's norms, a
// user-written flux in a config gives the same run as the built-in it spells out, and a second
// run compiles nothing (kernel cache).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/tune/cpu_plan.hpp"
#include "run_cli.hpp"

using dgmax::test::run_dgmax;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class BackendRuns : public ::testing::Test {
 protected:
  void SetUp() override {
    // the pid too: two builds' suites (e.g. the sanitizer build's) may run this test at once
    dir_ = ::testing::TempDir() + "dgmax_backend_runs_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + std::to_string(::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  json run(const std::string& args, const std::string& out) {
    const auto r = run_dgmax("run " + args + " --quiet --output " + dir_ + "/" + out);
    EXPECT_EQ(r.code, 0) << r.err;
    std::ifstream in(dir_ + "/" + out + "/summary.json");
    return json::parse(in);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    return dir_ + "/" + name;
  }
  std::string dir_;
};

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// Two dielectrics, absorbing and PMC walls and a source: every part of the scheme is used.
const char* kMixed = R"yaml(mesh:
  box: {upper: [2, 1, 1], cells: [4, 2, 2], regions: [{tag: glass, lower: [1, 0, 0], upper: [2, 1, 1]}]}
discretization: {order: 3}
materials: {default: {eps: 1, mu: 1}, glass: {eps: 2.25, mu: 1, sigma: 0.1}}
boundaries: {default: absorbing, ymin: pmc, ymax: pmc}
initial:
  E: ["0", "exp(-((x-0.6)^2+(y-0.5)^2+(z-0.5)^2)/0.05)", "0"]
sources:
  J: ["0", "0", "exp(-((x-1.5)^2+(y-0.5)^2+(z-0.5)^2)/0.02)*sin(8*t)"]
time: {final: 0.3}
)yaml";

}  // namespace

TEST_F(BackendRuns, CpuReproducesRefNorms) {
  const json ref = run("--backend ref --set time.final=0.3", "ref");
  const json cpu = run("--backend cpu --set time.final=0.3", "cpu");
  EXPECT_EQ(ref["backend"], "ref");
  EXPECT_EQ(cpu["backend"], "cpu");
  EXPECT_FALSE(ref.contains("kernel_plan"));  // the ref backend has no plan; the cpu says which ran
  EXPECT_EQ(cpu["kernel_plan"], dgmax::codegen::default_cpu_plan(cpu["N"].get<int>(), false).name() + " (default)");
  EXPECT_EQ(ref["steps"], cpu["steps"]);
  for (const char* f : {"E", "H"}) {
    EXPECT_LT(rel(cpu["errors"]["L2"][f], ref["errors"]["L2"][f]), 1e-9) << f;
    EXPECT_LT(rel(cpu["errors"]["Linf"][f], ref["errors"]["Linf"][f]), 1e-9) << f;
  }
  EXPECT_LT(rel(cpu["energy"]["final"], ref["energy"]["final"]), 1e-12);

  const std::string cfg = write("mixed.yaml", kMixed);
  const json a = run(cfg + " --backend ref", "mixed_ref");
  const json b = run(cfg + " --backend cpu", "mixed_cpu");
  EXPECT_GT(a["energy"]["final"].get<double>(), 0);
  EXPECT_LT(rel(b["energy"]["final"], a["energy"]["final"]), 1e-11);
  // single precision agrees to single-precision accuracy
  const json s = run(cfg + " --backend cpu --set discretization.precision=single", "mixed_single");
  EXPECT_EQ(s["precision"], "single");
  EXPECT_LT(rel(s["energy"]["final"], a["energy"]["final"]), 1e-4);
}

TEST_F(BackendRuns, UserWrittenFluxEqualsTheBuiltIn) {
  const std::string builtin = write("builtin.yaml", std::string(kMixed) + "backend: cpu\n");
  const std::string custom = write("custom.yaml", std::string(kMixed) + R"yaml(backend: cpu
# the built-in upwind flux, written out
flux:
  E: "1/(Z.int+Z.ext) * cross(n, Z.ext*jump(H) - cross(n, jump(E)))"
  H: "1/(Y.int+Y.ext) * cross(n, Y.ext*jump(E) + cross(n, jump(H)))"
boundary_states:
  my_absorbing:
    E: "(E.int - dot(n, E.int)*n + Z.int*cross(H.int, n))/2"
    H: "(H.int - dot(n, H.int)*n + Y.int*cross(n, E.int))/2"
)yaml");
  const json a = run(builtin, "builtin");
  const json b = run(custom + " --set boundaries.default=my_absorbing", "custom");
  EXPECT_EQ(b["flux"], "custom");
  EXPECT_LT(rel(b["energy"]["final"], a["energy"]["final"]), 1e-13);
  // and a different flux (central) gives a different run
  const json c = run(builtin + " --set discretization.flux=central", "central");
  EXPECT_GT(rel(c["energy"]["final"], a["energy"]["final"]), 1e-6);
}

TEST_F(BackendRuns, SecondRunCompilesNothing) {
  const std::string env = "DGMAX_CACHE_DIR=" + dir_ + "/cache ";
  const std::string cmd = "run --backend cpu --set time.final=0.05 --set discretization.order=2 --quiet --output ";
  auto r1 = dgmax::test::run_dgmax_env(env, cmd + dir_ + "/a");
  ASSERT_EQ(r1.code, 0) << r1.err;
  auto r2 = dgmax::test::run_dgmax_env(env, cmd + dir_ + "/b");
  ASSERT_EQ(r2.code, 0) << r2.err;
  const json s1 = json::parse(std::ifstream(dir_ + "/a/summary.json"));
  const json s2 = json::parse(std::ifstream(dir_ + "/b/summary.json"));
  EXPECT_EQ(s1["kernels"]["compiled"], 1);
  EXPECT_EQ(s2["kernels"]["compiled"], 0);
  EXPECT_EQ(s2["kernels"]["cache_hits"], 1);
  // a corrupted entry is rebuilt, not loaded
  for (const auto& e : fs::directory_iterator(dir_ + "/cache/cpu"))
    if (e.path().extension() == ".so") std::ofstream(e.path(), std::ios::trunc) << "garbage";
  auto r3 = dgmax::test::run_dgmax_env(env, cmd + dir_ + "/c");
  ASSERT_EQ(r3.code, 0) << r3.err;
  const json s3 = json::parse(std::ifstream(dir_ + "/c/summary.json"));
  EXPECT_EQ(s3["kernels"]["compiled"], 1);
  EXPECT_EQ(s3["errors"]["L2"]["E"], s1["errors"]["L2"]["E"]);
}
