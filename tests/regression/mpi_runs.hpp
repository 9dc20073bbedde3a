// Runs on several MPI ranks from the tests: the mpirun line, and the comparison of a several-rank
// run with the same run on one rank (shared by mpi_ranks_test.cpp and gpu_mpi_ranks_test.cpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "dgmax/config.hpp"
#include "regression_run.hpp"

namespace dgmax::test {

// "mpirun -np P ..." with what containers and CI need (root, more ranks than cores), or "" with a
// reason when this build or machine cannot start ranks.
inline std::string launcher(int ranks, std::string* why) {
  if (!DGMAX_HAS_MPI) {
    *why = "this build has no MPI";
    return "";
  }
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    *why = "mpirun is not installed";
    return "";
  }
  std::string s = "timeout 300 mpirun -np " + std::to_string(ranks) + " --oversubscribe ";
  if (::geteuid() == 0) s += "--allow-run-as-root ";
  // shared memory only: the ranks are on this machine
  return "OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none " + s;
}

#define REQUIRE_LAUNCHER(var, ranks)        \
  std::string why_##var;                   \
  const std::string var = launcher(ranks, &why_##var); \
  if (var.empty()) GTEST_SKIP() << why_##var

inline void expect_same_run(const ConfigRun& one, const ConfigRun& many, int ranks, bool exact_errors) {
  ASSERT_EQ(one.code, 0);
  ASSERT_EQ(many.code, 0) << many.err;
  EXPECT_EQ(many.summary["ranks"].get<int>(), ranks);
  EXPECT_EQ(many.summary["K"], one.summary["K"]);
  EXPECT_EQ(many.summary["steps"], one.summary["steps"]);
  EXPECT_EQ(many.summary["dt"].get<double>(), one.summary["dt"].get<double>());  // min over ranks: exact
  ASSERT_EQ(many.energy.size(), one.energy.size());
  double worst = 0;
  for (size_t i = 0; i < one.energy.size(); ++i) {
    EXPECT_EQ(many.energy[i].step, one.energy[i].step);
    worst = std::max(worst, std::abs(many.energy[i].energy - one.energy[i].energy) / std::abs(one.energy[i].energy));
  }
  EXPECT_LE(worst, 1e-13) << "energy on " << ranks << " ranks against one rank";
  if (exact_errors) {
    for (const char* f : {"E", "H"}) {
      EXPECT_PRED_FORMAT3(RelNear, many.err_L2(f), one.err_L2(f), 1e-12);
      EXPECT_EQ(many.err_Linf(f), one.err_Linf(f)) << "the largest nodal error is the same node's on any rank";
    }
  }
}

}  // namespace dgmax::test
