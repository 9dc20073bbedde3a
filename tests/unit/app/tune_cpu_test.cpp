// `dgmax tune --backend cpu` end to end on a tiny box, with a kernel cache and tuning database of
// its own: the table, the JSON, the stored winner, and `dgmax bench` running the tuned plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/tune/cpu_plan.hpp"
#include "refused_json_targets.hpp"
#include "run_cli.hpp"
#include "temp_path.hpp"

using dgmax::test::run_dgmax_env;
using nlohmann::json;

TEST(TuneCpuCli, SearchPrintsThePlansStoresTheWinnerAndBenchRunsIt) {
  const std::string dir = dgmax::test::unique_temp_dir("tune_cpu");
  const std::string env = "DGMAX_CACHE_DIR='" + dir + "cache' ";
  const auto r = run_dgmax_env(env, "tune --backend cpu --order 1 --elements 48 --json '" + dir + "tune.json'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("dgmax tune (cpu backend): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host ceilings (fp64)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host ceilings (fp64) after the searches: memory bandwidth"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stored in " + dir + "cache/tuning/cpu.json"), std::string::npos) << r.out;
  const json j = json::parse(std::ifstream(dir + "tune.json"));
  ASSERT_EQ(j["results"].size(), 1u);
  // the ceilings before the fp64 searches and again after them, with how far the readings lie apart
  ASSERT_EQ(j["host_ceilings"].size(), 1u);
  const json& hc = j["host_ceilings"][0];
  EXPECT_EQ(hc["precision"], "double");
  const double f0 = hc["flops"], b0 = hc["bandwidth_Bps"], f1 = hc["after"]["flops"], b1 = hc["after"]["bandwidth_Bps"];
  EXPECT_GT(std::min(f0, f1), 1e9);
  EXPECT_GT(std::min(b0, b1), 1e8);
  const double moved = std::max(std::max(f0, f1) / std::min(f0, f1), std::max(b0, b1) / std::min(b0, b1)) - 1;
  EXPECT_NEAR(hc["moved"].get<double>(), moved, 1e-12);
  EXPECT_EQ(moved > 0.15, r.out.find("since the first reading") != std::string::npos) << r.out;
  const json& res = j["results"][0];
  EXPECT_EQ(res["N"], 1);
  EXPECT_EQ(res["precision"], "double");
  const std::string best = res["best"];
  const auto plans = dgmax::codegen::enumerate_cpu_plans(1, false, dgmax::codegen::host_simd_bits());
  ASSERT_EQ(res["plans"].size(), plans.size());
  bool listed = false;
  for (const json& t : res["plans"]) {
    EXPECT_EQ(t["rejected"], "") << t;
    EXPECT_LE(t["rhs_difference"].get<double>(), 1e-12) << t;
    EXPECT_GT(t["stage_s"].get<double>(), 0) << t;
    listed = listed || t["plan"] == best;
  }
  EXPECT_TRUE(listed) << best;
  EXPECT_EQ(res["plans"][0]["plan"], dgmax::codegen::default_cpu_plan(1, false).name());

  // the bench on the same box finds the entry and says so
  const auto b = run_dgmax_env(env, "bench --order 1 --elements 48 --backends cpu --steps 2 --json '" + dir + "b.json'");
  ASSERT_EQ(b.code, 0) << b.err;
  const json bj = json::parse(std::ifstream(dir + "b.json"));
  ASSERT_EQ(bj["results"].size(), 1u);
  EXPECT_EQ(bj["results"][0]["plan"], best + " (tuned)");
  // --no-store leaves the database as it was (another precision, so a new entry would show)
  const std::string db = dgmax::test::read_all(dir + "cache/tuning/cpu.json");
  ASSERT_FALSE(db.empty());
  const auto n = run_dgmax_env(env, "tune --backend cpu --order 1 --elements 48 --precision single --no-store --json ''");
  ASSERT_EQ(n.code, 0) << n.err;
  EXPECT_NE(n.out.find("best: "), std::string::npos) << n.out;
  EXPECT_EQ(n.out.find("stored in"), std::string::npos) << n.out;
  EXPECT_EQ(dgmax::test::read_all(dir + "cache/tuning/cpu.json"), db);
}

TEST(TuneCpuCli, JsonThatIsNotARegularFileIsRefusedAndKept) {
  const std::string dir = dgmax::test::unique_temp_dir("tune_json");
  dgmax::test::expect_json_targets_refused(dir, "DGMAX_CACHE_DIR='" + dir + "cache' ",
                                           "tune --backend cpu --order 1 --elements 48");
}
