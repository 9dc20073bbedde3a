// The cuda plan space (codegen/tune/cuda_plan.hpp): names round-trip, the enumeration is what its
// comment promises, and plans that cannot run are refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "codegen/tune/cuda_plan.hpp"

using namespace dgmax::codegen;

namespace {

int nodes(int N) { return (N + 1) * (N + 2) * (N + 3) / 6; }

TEST(CudaPlanSpace, NamesRoundTrip) {
  for (int N = 1; N <= 8; ++N)
    for (bool single : {false, true})
      for (const PlanCandidate& c : enumerate_cuda_plans(N, single)) {
        const auto back = CudaPlan::parse(c.plan.name());
        ASSERT_TRUE(back.has_value()) << c.plan.name();
        EXPECT_TRUE(*back == c.plan) << c.plan.name() << " -> " << back->name();
      }
  CudaPlan p;
  p.fusion = 1;
  p.elements_per_block = 12;
  p.elements_per_thread = 3;
  p.transposed = true;
  p.shared_ops = true;
  EXPECT_EQ(p.name(), "f1.b12.t3.T.S");
  p.vector_loads = true;
  EXPECT_EQ(p.name(), "f1.b12.t3.T.S.V");
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M")->mma, true);
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M")->name(), "f2.b8.t1.M");
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M.C")->mma_chunked, true);
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M.C")->name(), "f2.b8.t1.M.C");
  EXPECT_TRUE(CudaPlan::parse("f2.b4.t1.M.C.A")->mma_staged);
  EXPECT_EQ(CudaPlan::parse("f2.b4.t1.M.A")->name(), "f2.b4.t1.M.A");
  EXPECT_FALSE(CudaPlan::parse("f2.b4.t1.M.A.C").has_value()) << "A comes last";
  EXPECT_FALSE(CudaPlan::parse("f2.b4.t1.T.A").has_value()) << "A needs M";
  EXPECT_TRUE(CudaPlan::parse("f2.b4.t1.M.W.C.A")->mma_wide);
  EXPECT_EQ(CudaPlan::parse("f2.b4.t1.M.W.C.A")->name(), "f2.b4.t1.M.W.C.A");
  EXPECT_FALSE(CudaPlan::parse("f2.b4.t1.M.C.A")->mma_wide);
  EXPECT_TRUE(CudaPlan::parse("f2.b4.t1.M.W.C.A.G")->mma_neighbours);
  EXPECT_EQ(CudaPlan::parse("f2.b4.t1.M.W.C.A.G")->name(), "f2.b4.t1.M.W.C.A.G");
  EXPECT_FALSE(CudaPlan::parse("f2.b4.t1.M.W.C.A")->mma_neighbours);
  EXPECT_TRUE(CudaPlan::parse("f2.b8.t1.M.W.H.C.A")->mma_split_columns);
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M.W.H.C.A.G")->name(), "f2.b8.t1.M.W.H.C.A.G");
  EXPECT_FALSE(CudaPlan::parse("f2.b8.t1.M.W.C.A")->mma_split_columns);
  EXPECT_TRUE(CudaPlan::parse("f2.b8.t1.M.X.C.A")->mma_warpgroup);
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M.X.C.A.G")->name(), "f2.b8.t1.M.X.C.A.G");
  EXPECT_FALSE(CudaPlan::parse("f2.b8.t1.M.C.A")->mma_warpgroup);
  EXPECT_TRUE(CudaPlan::parse("f2.b10.t1.M.X.E.A")->mma_state_rows);
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E.A")->name(), "f2.b10.t1.M.X.E.A");
  for (const char* bad : {"f2.b10.t1.M.E.A", "f2.b10.t1.M.X.A.E", "f2.b10.t1.M.X.C.E", "f2.b10.t1.M.X.E.E", "f2.b10.t1.E"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": E follows X, before C and A";
  // element groups per block: E2 .. E4 (E alone is one)
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E.A")->state_row_groups, 1);
  for (int g = 2; g <= 4; ++g) {
    const std::string name = "f2.b10.t1.M.X.E" + std::to_string(g) + ".A";
    ASSERT_TRUE(CudaPlan::parse(name).has_value()) << name;
    EXPECT_EQ(CudaPlan::parse(name)->state_row_groups, g);
    EXPECT_TRUE(CudaPlan::parse(name)->mma_state_rows);
    EXPECT_EQ(CudaPlan::parse(name)->name(), name);
  }
  EXPECT_NE(*CudaPlan::parse("f2.b10.t1.M.X.E2.A"), *CudaPlan::parse("f2.b10.t1.M.X.E.A"));
  for (const char* bad : {"f2.b10.t1.M.X.E1.A", "f2.b10.t1.M.X.E5.A", "f2.b10.t1.M.X.E0.A", "f2.b10.t1.M.X.E22.A",
                          "f2.b10.t1.M.X.Ex.A", "f2.b10.t1.M.E2.A", "f2.b10.t1.M.X.E2.E.A"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": E2 .. E4 in E's place";
  for (const char* bad : {"f2.b8.t1.X", "f2.b8.t1.M.C.X", "f2.b8.t1.M.X.X", "f2.b8.t1.M.A.X", "f2.b8.t1.M.X.W"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": X follows M (and W, H), before C and A";
  for (const char* bad : {"f2.b8.t1.M.H", "f2.b8.t1.H", "f2.b8.t1.M.W.C.H", "f2.b8.t1.M.H.W", "f2.b8.t1.M.W.H.H"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": H follows W, before C and A";
  for (const char* bad : {"f2.b4.t1.G", "f2.b4.t1.M.G.A", "f2.b4.t1.M.G.C", "f2.b4.t1.M.G.W", "f2.b4.t1.M.A.G.G"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": G follows M, last";
  for (const char* bad : {"f2.b4.t1.W", "f2.b4.t1.T.W", "f2.b4.t1.M.C.W", "f2.b4.t1.M.A.W", "f2.b4.t1.M.W.W"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": W follows M, before C and A";
  for (const char* bad : {"f2.b4.t1.M.T", "f2.b4.t1.M.M", "f2.b4.t1.M.", "f2.b4.t1.C", "f2.b4.t1.C.M", "f2.b4.t1.M.C.C","", "f2", "f2.b4", "f3.b4.t1", "f2.b0.t1", "f2.b4.t0", "f2.b4.t1.X", "f2.b4.t1.S.T",
                          "f2.b4.t1.T.T", "f2.b4.t1.V.T", "f2.b4.t1.V.S", "f2.b4.t1.V.V", "f2.b4.t1.", "f-1.b4.t1", "f2.b4x.t1", "b4.f2.t1", "f2.b999999.t1"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad;
}

TEST(CudaPlanSpace, RegisterCapIsTheLastPartOfTheName) {
  ASSERT_TRUE(CudaPlan::parse("f2.b6.t2.T.R64").has_value());
  EXPECT_EQ(CudaPlan::parse("f2.b6.t2.T.R64")->max_registers, 64);
  EXPECT_EQ(CudaPlan::parse("f2.b6.t2.T.R64")->name(), "f2.b6.t2.T.R64");
  EXPECT_EQ(CudaPlan::parse("f2.b6.t1.R48")->name(), "f2.b6.t1.R48");
  EXPECT_EQ(CudaPlan::parse("f2.b6.t2.T")->max_registers, 0) << "no R: the compiler's choice";
  EXPECT_NE(*CudaPlan::parse("f2.b6.t2.T.R64"), *CudaPlan::parse("f2.b6.t2.T"));
  for (const char* bad : {"f2.b6.t2.R64.T", "f2.b6.t2.T.R64.R56", "f2.b6.t2.T.R", "f2.b6.t2.T.Rx", "f2.b6.t2.T.R64x",
                          "f2.b6.t2.T.R123456", "f2.b6.R64.t2"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": R, digits, last";
}

// Q<n>: curved elements per block of the curved group's kernel, before R; none (0) leaves it to
// default_curved_batch. 1 to 8.
TEST(CudaPlanSpace, CurvedBatchIsNamedBeforeTheRegisterCap) {
  ASSERT_TRUE(CudaPlan::parse("f2.b8.t1.M.W.H.C.A.Q4").has_value());
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M.W.H.C.A.Q4")->curved_batch, 4);
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M.W.H.C.A.Q4")->name(), "f2.b8.t1.M.W.H.C.A.Q4");
  EXPECT_EQ(CudaPlan::parse("f2.b6.t2.T.Q2.R64")->name(), "f2.b6.t2.T.Q2.R64");
  EXPECT_EQ(CudaPlan::parse("f2.b6.t2.T")->curved_batch, 0);
  EXPECT_NE(*CudaPlan::parse("f2.b6.t2.T.Q2"), *CudaPlan::parse("f2.b6.t2.T"));
  for (const char* bad : {"f2.b6.t2.T.Q0", "f2.b6.t2.T.Q", "f2.b6.t2.T.Qx", "f2.b6.t2.T.Q2.Q2", "f2.b6.t2.T.R64.Q2"})
    EXPECT_FALSE(CudaPlan::parse(bad).has_value()) << bad << ": Q, digits, not 0, before R";
  CudaPlan p = *CudaPlan::parse("f2.b6.t2.T.Q8");
  EXPECT_EQ(cuda_plan_rejection(p, 3, false), "");
  p.curved_batch = 9;
  EXPECT_EQ(cuda_plan_rejection(p, 3, false), "the curved group (Q) computes 1 to 8 elements per block, not 9");
}

TEST(CudaPlanSpace, RegisterCapSetsTheBlocksPerSmTheCompilerMustFit) {
  CudaPlan p = *CudaPlan::parse("f2.b6.t2.T");  // N = 3: 3 x 20 = 60 threads, two warps
  EXPECT_EQ(p.min_blocks_per_sm(20), 1) << "no cap";
  p.max_registers = 64;
  EXPECT_EQ(p.min_blocks_per_sm(20), 16);  // 65536 / (64 x 64)
  p.max_registers = 56;
  EXPECT_EQ(p.min_blocks_per_sm(20), 18);  // 65536 / (56 x 64) = 18.3
  p.max_registers = 32;
  EXPECT_EQ(p.min_blocks_per_sm(20), 32) << "at most 32 resident blocks";
  EXPECT_EQ(cuda_plan_rejection(p, 3, true), "");
  p.max_registers = 60;
  EXPECT_EQ(cuda_plan_rejection(p, 3, true),
            "a register cap (R) is a multiple of 8 from 32 to 248 (registers are allocated 8 at a time), not 60");
  p.max_registers = 24;
  EXPECT_NE(cuda_plan_rejection(p, 3, true), "");
  // 4 elements of 84 nodes (N = 6): 336 threads, 11 warps x 32 x 248 registers > 64K
  const CudaPlan big = *CudaPlan::parse("f2.b4.t1.T.R248");
  EXPECT_EQ(cuda_plan_rejection(big, 6, false),
            "248 registers per thread for 336 threads per block exceed the 64K registers of an SM");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b4.t1.M.C.A.R64"), 4, false),
            "a register cap (R) is an option of the one-node-per-thread kernels (not of M plans)");
}

TEST(CudaPlanSpace, EnumerationStartsWithTheDefaultAndHoldsNoDuplicates) {
  for (int N = 1; N <= 8; ++N)
    for (bool single : {false, true}) {
      const auto plans = enumerate_cuda_plans(N, single);
      ASSERT_FALSE(plans.empty());
      EXPECT_TRUE(plans.front().plan == default_cuda_plan(N, single)) << N;
      EXPECT_EQ(plans.front().rejected, "") << "the default plan must run at N = " << N;
      std::set<std::string> names;
      int accepted = 0;
      for (const PlanCandidate& c : plans) {
        EXPECT_TRUE(names.insert(c.plan.name()).second) << "duplicate " << c.plan.name();
        EXPECT_EQ(c.rejected, cuda_plan_rejection(c.plan, N, single)) << c.plan.name();
        if (!c.rejected.empty()) continue;
        ++accepted;
        EXPECT_LE(c.plan.threads_per_block(nodes(N)), 1024) << c.plan.name();
        EXPECT_LE(c.plan.shared_bytes(nodes(N), (N + 1) * (N + 2) / 2, single), (c.plan.mma ? 227 : 48) * 1024)
            << c.plan.name();
        EXPECT_EQ(c.plan.elements_per_block % c.plan.elements_per_thread, 0) << c.plan.name();
      }
      // every dimension is searched: fusion 0..2, 1/2/4 elements per thread, layouts and loads
      std::set<int> fusions, epts;
      std::set<std::string> layouts;
      for (const PlanCandidate& c : plans) {
        fusions.insert(c.plan.fusion), epts.insert(c.plan.elements_per_thread);
        const std::string n = c.plan.name();
        layouts.insert(n.substr(n.find(".t") + 3));
      }
      EXPECT_EQ(fusions, (std::set<int>{0, 1, 2}));
      EXPECT_EQ(epts, (std::set<int>{1, 2, 4}));
      // tensor cores on sm_90: fp64 8-row tiles up to N = 4 and 16-row tiles (W) at every order;
      // fp32 split TF32 chunked (C) and on the fp64 tensor cores chunked and staged (W.C.A); the
      // chunked, staged ones also with the neighbours' traces gathered asynchronously (G) up to N = 6;
      // fp32 split TF32 as warpgroup MMAs chunked and staged (X.C.A), and with element-field rows (X.E.A)
      std::set<std::string> expected =
          single ? std::set<std::string>{"", ".T", ".T.S", ".T.V", ".M.C", ".M.C.A", ".M.W.C.A", ".M.X.C.A", ".M.X.E.A",
                                         ".M.X.E2.A", ".M.X.E3.A"}
          : N <= 4
              ? std::set<std::string>{"", ".T", ".T.S", ".T.V", ".M", ".M.A", ".M.C", ".M.C.A", ".M.W", ".M.W.A",
                                      ".M.W.C", ".M.W.C.A"}
              : std::set<std::string>{"", ".T", ".T.S", ".T.V", ".M.W", ".M.W.A", ".M.W.C", ".M.W.C.A"};
      if (N <= 6) {
        expected.insert(".M.W.C.A.G");
        if (single || N <= 4) expected.insert(".M.C.A.G");
        // two warps per row tile (8 elements per block), chunked; with the neighbours' traces where staged
        expected.insert({".M.W.H.C.A", ".M.W.H.C.A.G"});
        if (!single) expected.insert(".M.W.H.C");
      }
      // the fused stage with transposed operators and at most 64 registers: fp32 up to N = 3
      if (single && N <= 3) expected.insert(".T.R64");
      EXPECT_EQ(layouts, expected) << "N = " << N << (single ? " fp32" : " fp64");
      for (const PlanCandidate& c : plans) {
        if (c.plan.mma_neighbours) { EXPECT_EQ(c.plan.elements_per_block, c.plan.mma_split_columns ? 8 : 4) << c.plan.name(); }
        if (c.plan.mma_split_columns) { EXPECT_EQ(c.plan.elements_per_block, 8) << c.plan.name(); }
      }
      EXPECT_EQ(plans.front().plan.mma_neighbours, N == 6 && !single)
          << "the default: neighbours' traces with the state at fp64 N = 6";
      EXPECT_EQ(plans.front().plan.mma_split_columns, single ? N == 6 : N == 3 || N == 4 || N == 6)
          << "the default: two warps per row tile at fp64 N = 3, 4, 6 and fp32 N = 6";
      EXPECT_EQ(plans.front().plan.name() == "f2.b10.t1.M.X.E3.A", single && N == 4)
          << "the default at fp32 N = 4 on sm_90: three groups of element-field rows per block";
      EXPECT_EQ(default_cuda_plan(4, true, 100).name(), "f2.b8.t1.M.W.H.C.A") << "E3 measured on sm_90 only";
      // below the tensor cores: one element per thread (about 64 threads), but two at fp32 N = 3;
      // fp32 N = 2 one since the 16-byte state and flux loads (bench/NOTES.md, "the H200 as it
      // stands")
      if (single && N == 2) { EXPECT_EQ(plans.front().plan.name(), "f2.b6.t1.T"); }
      if (single && N == 3) { EXPECT_EQ(plans.front().plan.name(), "f2.b6.t2.T.R64"); }
      if (single && N == 3) { EXPECT_EQ(default_cuda_plan(3, true, 80).name(), "f2.b6.t2.T") << "R64 measured on sm_90"; }
      if (N == 1) { EXPECT_EQ(plans.front().plan.name(), single ? "f2.b16.t1.T" : "f2.b32.t1.T.S"); }
      if (N == 1) { EXPECT_EQ(default_cuda_plan(1, false, 80).name(), "f2.b16.t1.T") << "b32.S measured on sm_90"; }
      if (plans.front().plan.mma) {
        EXPECT_EQ(plans.front().plan.elements_per_block,
                  single && N == 4 ? 10 : plans.front().plan.mma_split_columns || (single && (N == 5 || N == 7)) ? 8 : 4)
            << N;
      }
      EXPECT_EQ(plans.front().plan.mma, N >= (single ? 4 : 3)) << "the default: tensor cores from N = 3 (fp64), 4 (fp32)";
      if (plans.front().plan.mma) {
        EXPECT_EQ(plans.front().plan.mma_staged, single || N <= 7)
            << "the default: state staged (A) but at fp64 N = 8, where it costs blocks";
      }
      EXPECT_EQ(plans.front().plan.mma_wide, single ? N == 6 : N >= 3)
          << "the default: 16-row DMMA tiles from N = 3 in fp64, at N = 6 in fp32";
      EXPECT_EQ(plans.front().plan.mma_warpgroup, single && (N == 4 || N == 5 || N == 7))
          << "the default: warpgroup MMAs at fp32 N = 4 (element-field rows), 5, 7 (sm_90)";
      if (plans.front().plan.mma_warpgroup) { EXPECT_EQ(plans.front().plan.elements_per_block, N == 4 ? 10 : 8); }
      // elsewhere W where it was on sm_90 (sm_100 has no wgmma)
      EXPECT_FALSE(default_cuda_plan(N, single, 100).mma_warpgroup);
      EXPECT_EQ(default_cuda_plan(N, single, 100).mma_wide, single ? N >= 4 && N <= 7 : N >= 3);
      EXPECT_FALSE(default_cuda_plan(N, single, 75).mma) << "no tensor-core default below sm_80";
      // on sm_80 no wide tiles (DMMA m16n8k4 is sm_90): the default and every plan there is 8-row
      CudaBlockLimits ampere;
      ampere.arch = 80;
      EXPECT_FALSE(default_cuda_plan(N, single, 80).mma_wide);
      const auto on80 = enumerate_cuda_plans(N, single, ampere);
      EXPECT_EQ(on80.front().rejected, "") << N;
      for (const PlanCandidate& c : on80)
        EXPECT_FALSE(c.plan.mma_wide || c.plan.mma_split_columns || c.plan.mma_warpgroup) << c.plan.name();
      // sm_90: fp32 searches the warpgroup MMAs (chunked and staged: with 4 and 8 elements; with
      // element-field rows: 10 elements, refused for shared memory from N = 6)
      // (and two and three groups of them per block, E2 and E3, refused from N = 5 with J: the search
      // without J takes E2 at N = 5 too, as its default)
      EXPECT_EQ(std::count_if(plans.begin(), plans.end(), [](const PlanCandidate& c) { return c.plan.mma_warpgroup; }),
                single ? 5 : 0) << N;
      const auto without_j = enumerate_cuda_plans(N, single, {}, false);
      for (const auto* space : {&plans, &without_j})
        for (const PlanCandidate& c : *space)
          if (c.plan.mma_state_rows) {
            EXPECT_EQ(c.plan.elements_per_block, 10) << N;
            const int fits_to = c.plan.state_row_groups == 1 || (c.plan.state_row_groups == 2 && space == &without_j) ? 5 : 4;
            EXPECT_EQ(c.rejected.empty(), N <= fits_to) << N << " " << c.plan.name() << ": " << c.rejected;
            // E2 at N = 5 is refused for J's staging alone, and says so; E3 does not fit either way
            if (!c.rejected.empty() && space == &plans && N == 5) {
              EXPECT_EQ(c.rejected.find("without J it fits") != std::string::npos, c.plan.state_row_groups == 2)
                  << c.rejected;
            }
          }
      EXPECT_EQ(without_j.front().rejected, "") << N;
      EXPECT_EQ(plans.front().rejected, "") << N << " " << plans.front().plan.name() << ": the default runs with J too";
      EXPECT_EQ(without_j.front().plan.name() == "f2.b10.t1.M.X.E2.A", single && N == 5)
          << "the default at fp32 N = 5 on sm_90 without J: two groups of element-field rows per block";
      EXPECT_TRUE(without_j.front().plan == default_cuda_plan(N, single, 90, false)) << N;
      if (!(single && N == 5)) { EXPECT_TRUE(without_j.front().plan == plans.front().plan) << "J changes the default at fp32 N = 5 only"; }
      if (on80.front().plan.mma) { EXPECT_EQ(on80.front().plan.elements_per_block, 4) << N; }
      EXPECT_EQ(std::count_if(on80.begin(), on80.end(), [](const PlanCandidate& c) { return c.plan.mma; }),
                (single ? 4 : 8) + (N <= 6 ? 1 : 0));
      EXPECT_EQ(default_cuda_plan(N, single, 80).mma_neighbours, false) << "measured on sm_90 only";
      EXPECT_GE(accepted, 12) << "N = " << N << (single ? " fp32" : " fp64");
    }
}

TEST(CudaPlanSpace, PlansThatCannotRunSayWhy) {
  CudaPlan p;
  p.elements_per_block = 6;
  p.elements_per_thread = 4;
  EXPECT_EQ(cuda_plan_rejection(p, 3, false), "6 elements per block is no multiple of 4 elements per thread");
  p.elements_per_block = 8;
  p.elements_per_thread = 1;  // 8 x 165 threads at N = 8
  EXPECT_EQ(cuda_plan_rejection(p, 8, true), "1320 threads per block, more than the 1024 a block may have");
  p.elements_per_block = 1;
  p.shared_ops = true;  // Dr, Ds, Dt at N = 6 in fp64: 3 x 84^2 x 8 B = 165 KB
  const std::string why = cuda_plan_rejection(p, 6, false);
  EXPECT_NE(why.find("KB of shared memory per block, more than the 48 KB"), std::string::npos) << why;
  EXPECT_EQ(cuda_plan_rejection(p, 2, false), "");
  p.vector_loads = true;
  EXPECT_EQ(cuda_plan_rejection(p, 2, false), "vector loads need the transposed operator layout (T)");
  p.transposed = true;
  EXPECT_EQ(cuda_plan_rejection(p, 2, false), "");
  p.vector_loads = false;
  p.fusion = 3;
  EXPECT_EQ(cuda_plan_rejection(p, 2, false), "fusion level 3 is not 0, 1 or 2");
  // the limits are the device's: a smaller block limit rejects what the default allows
  CudaPlan q = default_cuda_plan(4, false);
  EXPECT_EQ(cuda_plan_rejection(q, 4, false), "");
  EXPECT_NE(cuda_plan_rejection(q, 4, false, CudaBlockLimits{64, 48 * 1024}), "");
}

TEST(CudaPlanSpace, TensorCorePlansSayWhyTheyCannotRun) {
  CudaPlan m = *CudaPlan::parse("f2.b4.t1.M");
  EXPECT_EQ(cuda_plan_rejection(m, 4, false), "");
  EXPECT_EQ(m.threads_per_block(35), 5 * 32);  // one warp per 8 nodes
  EXPECT_EQ(cuda_plan_rejection(m, 4, true), "");  // fp32: split TF32
  EXPECT_EQ(m.threads_per_block(35, true), 3 * 32);  // one warp per 16 nodes
  CudaBlockLimits turing;
  turing.arch = 75;
  EXPECT_EQ(cuda_plan_rejection(m, 4, false, turing), "tensor-core plans need sm_80 or newer (the device is sm_75)");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f1.b4.t1.M"), 4, false),
            "tensor-core plans need fusion level 2 (one kernel per stage)");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b4.t1.T.M"), 4, false),
            "tensor-core plans have one element per thread and no T, S or V");
  CudaPlan c;
  c.mma_chunked = true;
  EXPECT_EQ(cuda_plan_rejection(c, 4, false), "chunked staging (C) is a tensor-core option (needs M)");
  // wide fp64 tiles: one warp per 16 nodes, sm_90 only, fp64 only
  const CudaPlan w = *CudaPlan::parse("f2.b4.t1.M.W.C.A");
  EXPECT_EQ(cuda_plan_rejection(w, 4, false), "");
  EXPECT_EQ(w.threads_per_block(35), 3 * 32);
  EXPECT_EQ(mma_shape(35, 15, 4, false, true).m_tiles, 3);
  EXPECT_EQ(mma_shape(35, 15, 4, false, true).k_step, 4);
  EXPECT_EQ(cuda_plan_rejection(w, 4, true), "");  // fp32 data on the fp64 tensor cores
  EXPECT_EQ(w.threads_per_block(35, true), 3 * 32);
  EXPECT_EQ(mma_shape(35, 15, 4, true, true).k_step, 4);  // DMMA, not TF32's 8
  EXPECT_EQ(mma_shape(35, 15, 4, true, false).k_step, 8);
  CudaBlockLimits ampere;
  ampere.arch = 80;
  EXPECT_EQ(cuda_plan_rejection(w, 4, false, ampere),
            "wide fp64 tiles (W, DMMA m16n8k4) need sm_90 or newer (the device is sm_80)");
  CudaPlan wn;
  wn.mma_wide = true;
  EXPECT_EQ(cuda_plan_rejection(wn, 4, false), "wide tiles (W) are a tensor-core option (needs M)");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b6.t1.M"), 4, false),
            "tensor-core plans need a multiple of 4 elements per block (6 x 6 columns are no whole tiles of 8)");
  EXPECT_EQ(cuda_plan_rejection(CudaPlan{2, 4, 1, false, false, false, false, false, true}, 4, false),
            "asynchronous staging (A) is a tensor-core option (needs M)");
  // the neighbours' traces gathered asynchronously go with chunked, staged plans: M.C.G, M.A.G refused
  for (const char* name : {"f2.b4.t1.M.C.G", "f2.b4.t1.M.A.G", "f2.b4.t1.M.W.A.G"})
    EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse(name), 4, false),
              "neighbours' traces gathered asynchronously (G) go with chunked, asynchronous staging (needs M, C and A)")
        << name;
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b4.t1.M.W.C.A.G"), 6, false), "");
  // two warps per row tile: 16-row tiles only, an even number of column tiles, twice the warps
  const CudaPlan h = *CudaPlan::parse("f2.b8.t1.M.W.H.C.A");
  EXPECT_EQ(cuda_plan_rejection(h, 4, false), "");
  EXPECT_EQ(h.threads_per_block(35), 2 * 3 * 32);
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b4.t1.M.W.H.C.A"), 4, false),
            "two warps per tile (H) need an even number of column tiles: a multiple of 8 elements per block, not 4");
  CudaPlan h8 = h;
  h8.mma_wide = false;
  EXPECT_EQ(cuda_plan_rejection(h8, 4, false), "two warps per tile (H) go with the 16-row fp64 tiles (needs M and W)");
  EXPECT_NE(cuda_plan_rejection(h, 4, false, ampere), "");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b4.t1.M.C.A.G"), 4, true), "");
  // warpgroup MMAs: fp32 split TF32 on sm_90 only, whole warpgroups (rows padded to 64 per group)
  const CudaPlan x = *CudaPlan::parse("f2.b8.t1.M.X.C.A");
  EXPECT_EQ(cuda_plan_rejection(x, 4, true), "");
  EXPECT_EQ(x.threads_per_block(35, true), 128);     // 3 row tiles -> one warpgroup
  EXPECT_EQ(x.threads_per_block(84, true), 2 * 128);  // N = 6: 6 row tiles -> two
  EXPECT_EQ(mma_shape(35, 15, 8, true, false, true).m_tiles, 4);
  EXPECT_EQ(mma_shape(35, 15, 8, true, false, true).b_pad, 0);
  // refused in fp64, with W, without M, and off sm_90 (wgmma is sm_90a's own)
  CudaPlan xw = x, xm;
  xw.mma_wide = true;
  xm.mma_warpgroup = true;
  const std::string split_tf32 = "warpgroup MMAs (X) multiply split TF32: single precision without W";
  const struct {
    CudaPlan plan;
    bool single;
    int arch;
    std::string why;
  } refused[] = {{x, false, 90, split_tf32},
                 {xw, true, 90, split_tf32},
                 {xm, true, 90, "warpgroup MMAs (X) are a tensor-core option (needs M)"},
                 {x, true, 80, "warpgroup MMAs (X, wgmma) are sm_90a instructions (the device is sm_80)"},
                 {x, true, 100, "warpgroup MMAs (X, wgmma) are sm_90a instructions (the device is sm_100)"}};
  for (const auto& r : refused) {
    CudaBlockLimits limits;
    limits.arch = r.arch;
    EXPECT_EQ(cuda_plan_rejection(r.plan, 4, r.single, limits), r.why) << r.plan.name() << " sm_" << r.arch;
  }
  EXPECT_EQ(cuda_plan_arch(x, "sm_90"), "sm_90a");
  // element-field rows (E): with X and A only; any number of elements up to 4 warpgroups, an even
  // number of words per group's states; shared memory holds all of B, so it ends at N = 5 (one
  // warpgroup)
  const CudaPlan e10 = *CudaPlan::parse("f2.b10.t1.M.X.E.A");
  EXPECT_EQ(cuda_plan_rejection(e10, 4, true), "");
  EXPECT_EQ(e10.threads_per_block(35, true), 128);                               // 60 rows
  EXPECT_EQ(CudaPlan::parse("f2.b30.t1.M.X.E.A")->threads_per_block(35, true), 384);  // 180 rows
  EXPECT_EQ(cuda_plan_arch(e10, "sm_90"), "sm_90a");
  EXPECT_EQ(mma_shape(e10, 35, 15, true).n_tiles, 5);  // the nodes padded to 40 columns
  EXPECT_EQ(mma_shape(e10, 35, 15, true).m_tiles, 4);  // one warpgroup
  EXPECT_EQ(mma_flux_row_stride(mma_shape(e10, 35, 15, true)), 68);
  CudaPlan ex = e10, ec = e10;
  ex.mma_warpgroup = false;
  ec.mma_chunked = true;
  EXPECT_EQ(cuda_plan_rejection(ex, 4, true), "element-field rows (E) are a form of the warpgroup MMAs (needs M and X)");
  EXPECT_EQ(cuda_plan_rejection(ec, 4, true),
            "element-field rows (E) keep all of B in shared memory and read the staged state: A, without C or G");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b43.t1.M.X.E.A"), 1, true),
            "element-field rows (E) take at most 42 elements per block (4 warpgroups of 64 rows), not 43");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b21.t1.M.X.E.A"), 4, true),
            "element-field rows (E) copy each group's states 16 bytes at a time: 21 elements of 35 nodes are no "
            "whole 16 bytes (an even number of elements is)");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b21.t1.M.X.E.A"), 3, true), "");  // 20 nodes
  EXPECT_EQ(cuda_plan_rejection(e10, 5, true), "");
  // several element groups per block (E2..E4): a team of warpgroups each, one copy of B
  const CudaPlan e3 = *CudaPlan::parse("f2.b10.t1.M.X.E3.A");
  EXPECT_EQ(e3.threads_per_block(35, true), 3 * 128);
  EXPECT_EQ(e3.elements_per_launch_block(), 30);
  EXPECT_EQ(e10.elements_per_launch_block(), 10);
  EXPECT_EQ(CudaPlan::parse("f2.b8.t1.M.X.C.A")->elements_per_launch_block(), 8);
  EXPECT_EQ(CudaPlan::parse("f2.b20.t1.M.X.E4.A")->threads_per_block(35, true), 4 * 256);
  EXPECT_EQ(cuda_plan_rejection(e3, 4, true), "");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b30.t1.M.X.E3.A"), 1, true),
            "1152 threads per block, more than the 1024 a block may have");
  // one group buffer per team: 4 teams of 40 KB (with J) and B's 58 KB fit at N = 4, not at N = 5
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b10.t1.M.X.E4.A"), 4, true), "");
  EXPECT_NE(cuda_plan_rejection(*CudaPlan::parse("f2.b10.t1.M.X.E4.A"), 5, true, {}, false).find("KB of shared memory per block, more than"),
            std::string::npos);
  CudaPlan g_only = *CudaPlan::parse("f2.b8.t1.M.X.C.A"), g5 = e10;
  g_only.state_row_groups = 2;
  g5.state_row_groups = 5;
  EXPECT_EQ(cuda_plan_rejection(g_only, 4, true),
            "element groups per block (E2..E4) are a form of the element-field rows (needs E)");
  EXPECT_EQ(cuda_plan_rejection(g5, 4, true), "element-field rows (E) take 1 to 4 element groups per block, not 5");
  EXPECT_NE(cuda_plan_rejection(e10, 6, true).find("KB of shared memory per block"), std::string::npos);
  EXPECT_EQ(cuda_plan_arch(*CudaPlan::parse("f2.b8.t1.M.C.A"), "sm_90"), "sm_90");
  // N = 8, chunked: a chunk of max(168, 4 x 45) = 180 rows x 6 x 16 columns x 8 B + J (16 x 3 x 165 x 8 B): 197 KB
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b16.t1.M.C"), 8, false), "");
  // all of B at once: 3 x 168 + 180 = 684 rows x 96 columns x 8 B = 513 KB
  const std::string why = cuda_plan_rejection(*CudaPlan::parse("f2.b16.t1.M"), 8, false);
  EXPECT_NE(why.find("KB of shared memory per block, more than the 227 KB a block may have"), std::string::npos) << why;
  // E2 at fp32 N = 5: 229.6 KB with J's [10][3][56] floats per team (6.6 KB each), 216.5 without
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b10.t1.M.X.E2.A"), 5, true, {}, true),
            "229.6 KB of shared memory per block (13.1 KB of them the source current J's staging: without J it fits), "
            "more than the 227 KB a block may have");
  EXPECT_EQ(cuda_plan_rejection(*CudaPlan::parse("f2.b10.t1.M.X.E2.A"), 5, true, {}, false), "");
}

TEST(CudaPlanSpace, SharedBytesCountWhatTheKernelsDeclare) {
  CudaPlan p;  // fusion 2: state + fluxes + current (+ operators)
  p.elements_per_block = 2;
  // the flux rows are padded to an odd number of vectors (fp64: single values, 24 x 6 + 1; fp32:
  // quads, 36 + 1), the state's rows to whole vectors (fp32: 10 floats to 12); the res entries are
  // staged too
  EXPECT_EQ(p.shared_bytes(10, 6, false), 2 * 2 * 6 * 10 * 8 + 2 * (24 * 6 + 1) * 8 + 2 * 3 * 10 * 8);
  // wide faces (N = 3: 10 nodes): and the flux's face invariants, 4 faces x kCudaHoistedFluxValues
  // per element
  EXPECT_EQ(p.shared_bytes(20, 10, false),
            2 * 2 * 6 * 20 * 8 + 2 * (40 * 6 + 1) * 8 + 2 * 4 * kCudaHoistedFluxValues * 8 + 2 * 3 * 20 * 8);
  p.shared_ops = true;
  EXPECT_EQ(p.shared_bytes(10, 6, true),
            (2 * 6 * 12 + 2 * 6 * 10 + 2 * (24 * 6 + 4) + 2 * 3 * 10 + 3 * 100) * 4);
  p.fusion = 1;  // the larger of volume (state + operators) and surface+lift (fluxes)
  EXPECT_EQ(p.shared_bytes(10, 6, true), (2 * 6 * 12 + 3 * 100) * 4);
  p.vector_loads = true;  // node rows padded to 8 floats (6 doubles), operators as 4-vectors
  EXPECT_EQ(p.shared_bytes(10, 6, true), (2 * 8 * 10 + 4 * 100) * 4);
  EXPECT_EQ(p.shared_bytes(10, 6, false), (2 * 6 * 10 + 4 * 100) * 8);
  // tensor cores (N = 2, 4 elements): B fragments of 3 x 12 + 24 rows x 24 columns (45 fragment
  // registers of 32 entries, each padded by 4), then J; chunked: max(12, 24) rows (18 registers)
  const MmaShape s = mma_shape(10, 6, 4);
  ASSERT_EQ(s.b_pad, 4);
  const CudaPlan m = *CudaPlan::parse("f2.b4.t1.M");
  EXPECT_EQ(m.shared_bytes(10, 6, false), (45 * 36 + 4 * 3 * 10) * 8);
  EXPECT_EQ(m.shared_bytes(10, 6, false, /*with_current=*/false), 45 * 36 * 8);
  EXPECT_EQ(CudaPlan::parse("f2.b4.t1.M.C")->shared_bytes(10, 6, false), (18 * 36 + 4 * 3 * 10) * 8);
  EXPECT_EQ(s.np_padded, 12);
  EXPECT_EQ(s.k_rows, 3 * 12 + 24);
  EXPECT_EQ(s.k_steps, 15);
  EXPECT_EQ(s.chunk_rows, 24);
  // fp32 (TF32 m16n8k8): k steps of 8, 16 rows per tile; N = 1: 12 face nodes padded to 16
  const MmaShape f = mma_shape(4, 3, 4, true);
  EXPECT_EQ(f.np_padded, 8);
  EXPECT_EQ(f.nf_padded, 16);
  EXPECT_EQ(f.k_rows, 3 * 8 + 16);
  EXPECT_EQ(f.k_steps, 5);
  EXPECT_EQ(f.m_tiles, 1);
  ASSERT_EQ(f.b_pad, 4);
  EXPECT_EQ(CudaPlan::parse("f2.b4.t1.M")->shared_bytes(4, 3, true, false), 40 * 24 / 32 * 36 * 8);
  // A: the block's states and res entries after B (2 x 4 x 6 x 4 floats), then each element's
  // geometry record (25 floats), neighbours (4 ints) and neighbour nodes (4 x 3 ints)
  EXPECT_EQ(CudaPlan::parse("f2.b4.t1.M.A")->shared_bytes(4, 3, true, false),
            40 * 24 / 32 * 36 * 8 + 2 * 4 * 6 * 4 * 4 + 4 * (25 * 4 + 4 * 4 + 12 * 4));
  // E (N = 4, 10 elements): B [2][3 x 40 + 64][40] floats, the fluxes [60][68], res [10][6][35],
  // two groups of states and face data (10 x (6 x 35 + 25 + 4 + 60) words: 11960 bytes, rounded up to
  // 11968), J [10][3][35]; a group's buffers rounded up to 16 bytes (52856 to 52864)
  const int ops4 = 2 * 184 * 40 * 4, group4 = (60 * 68 + 2100) * 4 + 2 * 11968 + 1050 * 4 + 8;
  EXPECT_EQ(group4, 52864);
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E.A")->shared_bytes(35, 15, true), ops4 + group4);
  // E2, E3: each team's buffers with one group of states and face data (the other team's work hides
  // the copies), B once
  const int team4 = group4 - 11968;
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E2.A")->shared_bytes(35, 15, true), ops4 + 2 * team4);
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E3.A")->shared_bytes(35, 15, true), ops4 + 3 * team4);
  // N = 5, E2 without J: B [2][3 x 56 + 88][56] floats, per team the fluxes [60][92], res [10][6][56]
  // and one group (10 x (6 x 56 + 25 + 4 + 84) words = 17960 bytes): 221,664 bytes, under 227 KB;
  // J's [10][3][56] per team would make it 235,104
  const int ops5 = 2 * 256 * 56 * 4, team5 = (60 * 92 + 3360) * 4 + 17968;
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E2.A")->shared_bytes(56, 21, true, false), ops5 + 2 * team5);
  EXPECT_EQ(ops5 + 2 * team5, 221664);
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E2.A")->shared_bytes(56, 21, true, true), ops5 + 2 * (team5 + 1680 * 4));
  // N = 3: a group is 10 x (6 x 20 + 25 + 4 + 40) words = 7560 bytes, rounded up to 7568
  EXPECT_EQ(CudaPlan::parse("f2.b10.t1.M.X.E.A")->shared_bytes(20, 10, true, false),
            (2 * 112 * 24 + 60 * 44 + 1200) * 4 + 2 * 7568);
  // B rounded up to 16 bytes (the state after it is copied 16 bytes at a time): fp64 N = 4,
  // chunked, 4 elements: 60 rows x 24 columns = 45 fragment registers of 32 + b_pad entries
  const MmaShape c4 = mma_shape(35, 15, 4);
  const int b_bytes = 45 * (32 + c4.b_pad) * 8;
  EXPECT_EQ(CudaPlan::parse("f2.b4.t1.M.C.A")->shared_bytes(35, 15, false, false),
            (b_bytes + 15) / 16 * 16 + 2 * 4 * 6 * 35 * 8 + 4 * (25 * 8 + 4 * 4 + 60 * 4));
  EXPECT_EQ(s.m_tiles, 2);
  EXPECT_EQ(s.n_tiles, 3);
}

// The B staging stores of tensor-core plans: unpadded, the nodes a half warp stores land 4 rows
// apart in the fragment order, a multiple of 32 entries, so every store of fp64 N = 4 (NPK = 36) is
// a 4-way bank conflict; the chosen pad spreads them (at least 3x fewer wavefronts in the defaults).
TEST(CudaPlanSpace, TensorCoreStagingPadAvoidsBankConflicts) {
  for (auto [N, single] : {std::pair{4, false}, {5, false}, {8, false}, {5, true}, {8, true}}) {
    const int Np = (N + 1) * (N + 2) * (N + 3) / 6, Nfp = (N + 1) * (N + 2) / 2;
    const MmaShape m = mma_shape(Np, Nfp, 4, single);
    const long unpadded = mma_b_store_wavefronts(m, 4, single, 0), padded = mma_b_store_wavefronts(m, 4, single, m.b_pad);
    EXPECT_GT(m.b_pad, 0) << N;
    EXPECT_LT(3 * padded, unpadded) << "N = " << N << (single ? " fp32" : " fp64");
    // a half warp's column store takes at least one wavefront: (NPK + NFK) x 4 elements / 16 lanes x 6 columns
    EXPECT_GE(padded, (m.np_padded + m.nf_padded) * 4 / 16 * 6);
  }
}

}  // namespace

