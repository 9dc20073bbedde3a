// The rules of the plan search's sustained finals (codegen/tune/search_finals.hpp): when they fit
// the search's budget, and when a finalist displaces the burst winner.
#include <gtest/gtest.h>

#include "codegen/tune/search_finals.hpp"

using namespace dgmax::codegen;

namespace {

TEST(SearchFinals, FitTheBudgetWithAWarmUpAMeasuredSecondAndACheckEach) {
  // 4 finalists x (0.4 + 1.0 + 1.0) s = 9.6 s on top of what the search took (search times from
  // bench/NOTES.md: "sizing wgmma for the fp32 stage", job 6; "two warps per row tile (H)", job 4)
  EXPECT_TRUE(finals_fit_budget(45.3, 1.0));
  EXPECT_FALSE(finals_fit_budget(45.5, 1.0));
  EXPECT_TRUE(finals_fit_budget(49.3, 0.0));   // 5.6 s: the checks are already done
  EXPECT_FALSE(finals_fit_budget(49.5, 0.0));
  EXPECT_TRUE(finals_fit_budget(38.7, 1.0));   // fp32 N = 7 (the first of the two)
  EXPECT_FALSE(finals_fit_budget(52.9, 4.0));  // fp64 N = 8 (the second): the finals were skipped
  EXPECT_TRUE(finals_fit_budget(12.6, 1.7));   // fp64 N = 5
}

TEST(SearchFinals, AFinalistDisplacesTheBurstWinnerOnlyWhenClearlyFaster) {
  EXPECT_EQ(sustained_winner({1.0}), 0);
  EXPECT_EQ(sustained_winner({1.0, 0.99}), 0) << "1% faster: within the windows' spread";
  EXPECT_EQ(sustained_winner({1.0, 0.98}), 1) << "2% faster displaces it";
  // the one standing after a displacement is the one to beat
  EXPECT_EQ(sustained_winner({1.0, 0.98, 0.975}), 1);
  EXPECT_EQ(sustained_winner({1.0, 0.99, 0.97}), 2);
  EXPECT_EQ(sustained_winner({1.0, 1.2, 0.9}), 2);
  // bench/NOTES.md, "two warps per row tile (H)", fp32 N = 4: job 2's burst winner
  // f2.b4.t1.M.W.C.A.G against the H plan, at job 3's sustained
  // GDOF/s (50.64, 53.52, and 49.86 for f2.b4.t1.M.W.C.A)
  EXPECT_EQ(sustained_winner({1 / 50.64, 1 / 53.52, 1 / 49.86}), 1);
  // job 3, fp32 N = 5: 49.85 against 49.97, level: the burst winner stays
  EXPECT_EQ(sustained_winner({1 / 49.85, 1 / 48.15, 1 / 49.97}), 0);
  // bench/NOTES.md, "Plan option X", fp32 N = 5: the burst's top three sustained (job 6) and the
  // fourth, the warpgroup-MMA plan f2.b8.t1.M.X.C.A, sustained in job 5
  EXPECT_EQ(sustained_winner({1 / 51.15, 1 / 49.44, 1 / 51.52, 1 / 56.11}), 3);
}

TEST(SearchFinals, TheVerdictSaysWhetherTheBurstWinnerWasKeptOrDisplacedAndByHowMuch) {
  // bench/NOTES.md, "the in-block neighbours measured", fp64 N = 1: the burst winner T.V (45.87
  // GDOF/s sustained) kept against T.S's 46.20, listed first in the finals line: 0.7% is within the
  // margin
  const std::vector<double> s = {1 / 45.87, 1 / 46.20};
  ASSERT_EQ(sustained_winner(s), 0);
  EXPECT_EQ(finals_verdict("f2.b32.t1.T.V", s[0], "f2.b32.t1.T.V", s[0]),
            "kept: the fastest burst, f2.b32.t1.T.V (no finalist was 1.5% faster sustained)");
  // fp32 N = 4 above: the H plan 53.52 against the burst winner's 50.64, 5.7% faster
  EXPECT_EQ(finals_verdict("f2.b4.t1.M.W.C.A.G", 1 / 50.64, "f2.b8.t1.M.W.H.C.A", 1 / 53.52),
            "displaced: the fastest burst, f2.b4.t1.M.W.C.A.G, by f2.b8.t1.M.W.H.C.A (5.7% faster sustained)");
}

}  // namespace
