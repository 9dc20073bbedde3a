// The cpu plan search (solver/backends/cpu/cpu_tuner.hpp): the plans it times, the check of every
// plan against ref before it may win, the final against the default, the tuning database entry and
// the plan the backend then runs with. Each search test has a kernel cache and tuning database of
// its own (DGMAX_CACHE_DIR), so that no other test picks up what it stores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "codegen/jit/host_jit.hpp"
#include "codegen/tune/cpu_plan.hpp"
#include "codegen/tune/tuning_db.hpp"
#include "curved_mixed_problem.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/cpu/cpu_tuner.hpp"
#include "solver/backends/plan_check.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "temp_path.hpp"

namespace dgmax {
namespace {

// DGMAX_CACHE_DIR set to a fresh folder for the test's lifetime (and DGMAX_CPU_PLAN unset).
class OwnCache {
 public:
  OwnCache() : dir_(test::unique_temp_dir("cpu_tuner")) {
    if (const char* old = std::getenv("DGMAX_CACHE_DIR")) old_ = old;
    setenv("DGMAX_CACHE_DIR", dir_.c_str(), 1);
    unsetenv("DGMAX_CPU_PLAN");
  }
  ~OwnCache() {
    if (old_.empty()) unsetenv("DGMAX_CACHE_DIR");
    else setenv("DGMAX_CACHE_DIR", old_.c_str(), 1);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, old_;
};

TEST(CpuTuner, PlansStartWithTheDefaultAndVaryTheHostDependentOptions) {
  for (int simd : {512, 256, 128})
    for (bool single : {false, true}) {
      const std::vector<codegen::CpuPlan> plans = codegen::enumerate_cpu_plans(3, single, simd);
      const codegen::CpuPlan d = codegen::default_cpu_plan_for_simd(3, single, simd);
      ASSERT_FALSE(plans.empty());
      EXPECT_TRUE(plans.front() == d) << plans.front().name();
      std::set<std::string> names;
      for (const codegen::CpuPlan& p : plans) {
        names.insert(p.name());
        const std::optional<codegen::CpuPlan> back = codegen::CpuPlan::parse(p.name());
        ASSERT_TRUE(back.has_value()) << p.name();
        EXPECT_TRUE(*back == p) << p.name();
        // one register of elements, one range of batches per thread, the default's vectors
        EXPECT_EQ(p.batch, d.batch) << p.name();
        EXPECT_EQ(p.elements_per_chunk, 0) << p.name();
        EXPECT_EQ(p.vector_bits, d.vector_bits) << p.name();
        EXPECT_TRUE(p.fused) << p.name();
      }
      EXPECT_EQ(names.size(), plans.size()) << "no duplicates";
      // 6 or 3 fields per pass x tu x gv, gv only where the batch is one 256- or 512-bit register
      const int batch_bits = d.batch * (single ? 32 : 64);
      const bool gather = batch_bits == 256 || batch_bits == 512;
      EXPECT_EQ(plans.size(), gather ? 8u : 4u) << simd << (single ? " fp32" : " fp64");
      EXPECT_EQ(std::any_of(plans.begin(), plans.end(), [](const codegen::CpuPlan& p) { return p.gather_instructions; }),
                gather);
    }
}

TEST(CpuTuner, SearchChecksEveryPlanAgainstRefAndStoresTheWinnerTheBackendThenRuns) {
  OwnCache cache;
  // every code path of the stage: materials, all boundary kinds, J and an incident field
  const Problem p = test::mixed_problem(1, 5);
  for (bool single : {false, true}) {
    std::vector<std::string> seen;
    const CpuTuneResult r = tune_cpu_plans(p, single, [&](const CpuPlanTrial& t) { seen.push_back(t.plan.name()); });
    const std::vector<codegen::CpuPlan> plans = codegen::enumerate_cpu_plans(1, single, codegen::host_simd_bits());
    ASSERT_EQ(r.trials.size(), plans.size());
    ASSERT_EQ(seen.size(), plans.size()) << "progress reports every plan";
    EXPECT_TRUE(r.trials.front().plan == codegen::default_cpu_plan(1, single));
    for (const CpuPlanTrial& t : r.trials) {
      // every plan of this space is correct: each was checked and timed
      EXPECT_EQ(t.rejected, "") << t.plan.name();
      EXPECT_LE(t.rhs_difference, plan_check_tolerance(single)) << t.plan.name();
      EXPECT_GT(t.stage_seconds, 0) << t.plan.name();
    }
    ASSERT_GE(r.best, 0);
    ASSERT_LT(r.best, static_cast<int>(r.trials.size()));
    // the winner is the default or the fastest of the first timings, decided by the final
    EXPECT_TRUE(r.best == 0 || r.best == r.fastest);
    for (const CpuPlanTrial& t : r.trials)
      EXPECT_GE(t.stage_seconds, r.trials[r.fastest].stage_seconds) << t.plan.name();
    if (r.fastest != 0) {
      const CpuPlanTrial &d = r.trials.front(), &f = r.trials[r.fastest];
      ASSERT_EQ(d.rounds.size(), static_cast<size_t>(kCpuFinalRounds));
      ASSERT_EQ(f.rounds.size(), static_cast<size_t>(kCpuFinalRounds));
      EXPECT_EQ(r.best == r.fastest, d.final_seconds > kCpuDisplaceMargin * f.final_seconds);
    } else {
      EXPECT_EQ(r.best, 0);
      EXPECT_TRUE(r.trials.front().rounds.empty()) << "no final when the default was the fastest";
    }
    EXPECT_GE(r.seconds, r.compile_seconds + r.timing_seconds + r.final_seconds - 1e-6);

    // stored as dgmax tune stores it, the entry is what the backend runs with
    std::string source;
    EXPECT_TRUE(cpu_plan_for_problem(p, single, &source) == codegen::default_cpu_plan(1, single));
    EXPECT_EQ(source, "default") << "nothing stored yet";
    codegen::TunedPlan entry;
    entry.plan = r.trials[r.best].plan.name();
    entry.elements = p.K();
    const codegen::TuningDb db(cache.dir(), "cpu");
    db.store(cpu_tuning_key(p, single), entry);
    EXPECT_TRUE(cpu_plan_for_problem(p, single, &source) == r.trials[r.best].plan);
    EXPECT_EQ(source, "tuned");
    EXPECT_EQ(make_cpu_backend(p, single)->name(), "cpu");
  }
}

// A compiler for DGMAX_CXX that refuses the sources with the transposed update (tu) and passes
// the rest to the real one; written into `dir`.
std::string compiler_refusing_tu(const std::string& dir) {
  const std::string real = codegen::HostJitOptions::default_compiler();
  const std::string wrapper = dir + "refuses_tu.sh";
  std::ofstream(wrapper) << "#!/bin/sh\n"
                            "for a in \"$@\"; do case \"$a\" in *.cpp) if grep -q transpose_tile \"$a\"; then\n"
                            "  echo 'error: the test compiler refuses the transposed update' >&2; exit 1; fi;; esac; done\n"
                            "exec " + real + " \"$@\"\n";
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  return wrapper;
}

// The search swaps plans of one data layout into one backend (adopt_cpu_plan) instead of making
// each backend's arrays anew: the swapped-in kernels must give what a backend made with that plan
// gives, bit for bit, and a plan of another layout, a plan that does not compile or another
// backend must leave the backend as it was.
TEST(CpuTuner, APlanOfTheSameLayoutIsSwappedInOverTheSameArrays) {
  OwnCache cache;
  const Problem p = test::mixed_problem(2, 5);
  const Fields q = plan_check_state(p);
  for (bool single : {false, true}) {
    const codegen::CpuPlan first = codegen::default_cpu_plan(2, single);
    codegen::CpuPlan other = first;  // kernel options only: the same arrays
    other.fields_per_pass = first.fields_per_pass == 6 ? 3 : 6;
    other.transposed_update = !first.transposed_update;
    other.fma = !first.fma;  // other roundings: the two plans' results differ in the last bits
    ASSERT_TRUE(first.same_data_layout(other));
    std::unique_ptr<Backend> be = make_cpu_backend_with_plan(p, single, first);
    std::unique_ptr<Backend> made = make_cpu_backend_with_plan(p, single, other);
    Fields r_made, r_swapped, r_first;
    made->rhs(q, kPlanCheckTime, r_made);
    be->rhs(q, kPlanCheckTime, r_first);
    ASSERT_NE(r_first.q, r_made.q) << "the test tells the plans apart";
    ASSERT_TRUE(adopt_cpu_plan(*be, other));
    be->rhs(q, kPlanCheckTime, r_swapped);
    EXPECT_EQ(r_swapped.q, r_made.q) << "rhs of the swapped-in plan, " << (single ? "fp32" : "fp64");
    // two steps from one state
    Fields s_made, s_swapped;
    for (Backend* b : {made.get(), be.get()}) {
      b->set_state(q);
      b->step(0.0, 1e-3);
      b->step(1e-3, 1e-3);
    }
    made->get_state(s_made);
    be->get_state(s_swapped);
    EXPECT_EQ(s_swapped.q, s_made.q) << "steps of the swapped-in plan";

    // another batch width: refused, the backend runs what it ran
    codegen::CpuPlan narrow = other;
    narrow.batch = std::max(1, other.batch / 2);
    ASSERT_FALSE(other.same_data_layout(narrow));
    EXPECT_FALSE(adopt_cpu_plan(*be, narrow));
    Fields r_after;
    be->rhs(q, kPlanCheckTime, r_after);
    EXPECT_EQ(r_after.q, r_made.q);

    // a plan whose kernels do not compile: thrown, the backend as it was (with tu where `other`
    // has none, and the other way round back to `first`)
    ASSERT_TRUE(adopt_cpu_plan(*be, first));
    codegen::CpuPlan tu = first;
    tu.transposed_update = true;
    tu.fields_per_pass = 2;  // a source no test compiled before: not in the cache
    setenv("DGMAX_CXX", compiler_refusing_tu(cache.dir()).c_str(), 1);
    EXPECT_THROW(adopt_cpu_plan(*be, tu), std::exception);
    unsetenv("DGMAX_CXX");
    be->rhs(q, kPlanCheckTime, r_after);
    EXPECT_EQ(r_after.q, r_first.q) << "still the first plan's kernels";
  }
  RefBackend ref(p);
  EXPECT_FALSE(adopt_cpu_plan(ref, codegen::default_cpu_plan(2, false))) << "no cpu backend";
}

// A plan whose kernels do not build is refused with the compiler's verdict (its first lines, the
// log's path) and the search goes on with the others. The compiler here is a wrapper that refuses
// the sources with the transposed update (tu); fp64, whose default has no tu on any host.
TEST(CpuTuner, APlanThatDoesNotCompileIsRefusedAndTheOthersStillRun) {
  OwnCache cache;
  setenv("DGMAX_CXX", compiler_refusing_tu(cache.dir()).c_str(), 1);
  const Problem p = test::mixed_problem(1, 11);
  const CpuTuneResult r = tune_cpu_plans(p, false);
  unsetenv("DGMAX_CXX");
  int refused = 0;
  for (const CpuPlanTrial& t : r.trials) {
    if (t.plan.transposed_update) {
      ++refused;
      EXPECT_NE(t.rejected.find("does not compile"), std::string::npos) << t.plan.name() << ": " << t.rejected;
      EXPECT_NE(t.rejected.find("log:"), std::string::npos) << t.rejected;
      EXPECT_EQ(t.rejected.find("--- compiler log"), std::string::npos) << "the table gets the first lines only";
      EXPECT_EQ(t.stage_seconds, 0) << t.plan.name();
    } else {
      EXPECT_EQ(t.rejected, "") << t.plan.name();
      EXPECT_GT(t.stage_seconds, 0) << t.plan.name();
    }
  }
  EXPECT_EQ(refused, static_cast<int>(r.trials.size()) / 2) << "half the plans have tu";
  EXPECT_FALSE(r.trials[r.best].plan.transposed_update);
  EXPECT_FALSE(r.trials[r.fastest].plan.transposed_update);
}

// The check every plan passes before it may win: the largest difference from ref relative to ref's
// largest magnitude; a NaN anywhere is an infinite difference (a plan that produces one never wins).
TEST(CpuTuner, TheCheckMeasuresTheLargestDifferenceAndCatchesNaN) {
  Fields ref(3000, 4), a(3000, 4);  // more entries than one thread's share
  for (size_t i = 0; i < ref.q.size(); ++i) ref.q[i] = a.q[i] = std::sin(0.01 * static_cast<double>(i));
  ref.q[777] = -4.0;
  a.q[777] = -4.0;
  EXPECT_EQ(max_relative_difference(a, ref), 0.0);
  a.q[70000] += 1e-3;
  EXPECT_NEAR(max_relative_difference(a, ref), 1e-3 / 4.0, 1e-15);
  a.q[12] = std::nan("");
  EXPECT_TRUE(std::isinf(max_relative_difference(a, ref)));
  Fields zero(2, 4), b(2, 4);
  b.q[5] = 2e-9;
  EXPECT_DOUBLE_EQ(max_relative_difference(b, zero), 2e-9) << "against zeros: the absolute difference";
}

TEST(CpuTuner, KeyNamesTheHostAndThreadsAndTheProblemClass) {
  const Problem p = test::mixed_problem(2, 3);
  const codegen::TuningKey k = cpu_tuning_key(p, true);
  EXPECT_EQ(k.device, cpu_tuning_device());
  EXPECT_NE(k.device.find(std::to_string(codegen::host_simd_bits()) + "-bit SIMD"), std::string::npos) << k.device;
  EXPECT_NE(k.device.find("threads"), std::string::npos) << k.device;
  EXPECT_EQ(k.order, 2);
  EXPECT_TRUE(k.single);
  EXPECT_EQ(k.elements, p.K());
  EXPECT_EQ(k.physics.size(), 16u);
  // another flux is another class; the precision and order are part of the key
  EXPECT_NE(cpu_tuning_key(test::mixed_problem(2, 3, "central"), true).physics, k.physics);
  EXPECT_NE(cpu_tuning_key(p, false).str(), k.str());
}

TEST(CpuTuner, AnEntryThatDoesNotParseOrAForcedPlanLeavesTheDatabaseAside) {
  OwnCache cache;
  const Problem p = test::mixed_problem(1, 7);
  codegen::TunedPlan entry;
  entry.plan = "f9.no.plan";
  const codegen::TuningDb db(cache.dir(), "cpu");
  db.store(cpu_tuning_key(p, false), entry);
  std::string source;
  testing::internal::CaptureStderr();
  EXPECT_TRUE(cpu_plan_for_problem(p, false, &source) == codegen::default_cpu_plan(1, false));
  const std::string note = testing::internal::GetCapturedStderr();
  EXPECT_EQ(source, "default");
  EXPECT_NE(note.find("f9.no.plan"), std::string::npos) << note;
  // a valid entry, overridden by DGMAX_CPU_PLAN (debugging)
  entry.plan = "f1.w1.c0.v0.fma.h3";
  db.store(cpu_tuning_key(p, false), entry);
  EXPECT_EQ(cpu_plan_for_problem(p, false, &source).name(), "f1.w1.c0.v0.fma.h3");
  EXPECT_EQ(source, "tuned");
  setenv("DGMAX_CPU_PLAN", "f1.w2.c0.v0.fma", 1);
  EXPECT_EQ(cpu_plan_for_problem(p, false, &source).name(), "f1.w2.c0.v0.fma");
  EXPECT_EQ(source, "DGMAX_CPU_PLAN");
  unsetenv("DGMAX_CPU_PLAN");
}

TEST(CpuTuner, ACurvedProblemIsAClassOfItsOwnAndStraightSidedKeysStayAsTheyWere) {
  // curved elements add their count and rules to the physics key (their own kernel, and the cuda
  // plans' Q); without them the key is what it was before curved elements entered it (pinned, so that
  // tuning databases written earlier still apply)
  const Problem curved = test::curved_mixed_problem(2, 2, 7);
  Problem straight = curved;
  straight.curved.reset();
  EXPECT_NE(tuning_physics_key(curved, false), tuning_physics_key(straight, false));
  EXPECT_EQ(tuning_physics_key(test::mixed_problem(2, 3), false), "f9c4efae383f7379");
}

}  // namespace
}  // namespace dgmax
