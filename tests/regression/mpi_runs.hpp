// Runs on several MPI ranks from the tests: the mpirun line, and the comparison of a several-rank
// run with the same run on one rank (shared by mpi_ranks_test.cpp and gpu_mpi_ranks_test.cpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

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

// A mesh of two pieces, the unit cubes [0,1]^3 and [2,3]^3 (2x2x2 cells each,
// tests/data/two_cubes.msh), with the cavity's mode in both, on `ranks` ranks: the partition cuts
// between the pieces, so each rank has no neighbour and exchanges nothing. The run must equal the
// one-rank run, and the pieces, which never meet, must each be the box run of one cube:
// twice its energy, sqrt(2) times its L2 errors, its maxima. `exact` (fp64): to rounding. Else
// (fp32) the two meshes' elements, the same tets numbered and oriented otherwise, round otherwise:
// energies agree to 1e-6 and the errors, small differences of fields of size 1, to 1e-3 (the cpu
// backend: 5e-8 and 2.4e-5).
inline void expect_two_pieces_on_ranks(std::vector<std::string> sets, const std::string& mpi, int ranks,
                                       bool exact = true) {
  const double tol = exact ? 1e-10 : 1e-3;
  std::vector<std::string> cube = sets;
  cube.push_back("mesh.box.cells=[2,2,2]");
  sets.push_back(std::string("mesh={file: ") + DGMAX_TEST_DATA_DIR + "/two_cubes.msh}");
  const ConfigRun one = run_config("cavity", sets);
  const ConfigRun many = run_config("cavity", sets, false, mpi);
  expect_same_run(one, many, ranks, exact);
  ASSERT_EQ(many.code, 0);
  EXPECT_EQ(many.summary["partition"]["edge_cut"].get<int>(), 0);
  for (const auto& faces : many.summary["partition"]["halo_faces"]) EXPECT_EQ(faces.get<int>(), 0);
  EXPECT_EQ(many.summary["exchange_wait_s"].get<double>(), 0.0) << "nothing to wait for";

  const ConfigRun box = run_config("cavity", cube);
  ASSERT_EQ(box.code, 0);
  ASSERT_EQ(box.energy.size(), one.energy.size());
  for (size_t i = 0; i < box.energy.size(); ++i)
    EXPECT_PRED_FORMAT3(RelNear, one.energy[i].energy, 2 * box.energy[i].energy, exact ? 1e-12 : 1e-6)
        << "step " << box.energy[i].step;
  for (const char* f : {"E", "H"}) {
    EXPECT_PRED_FORMAT3(RelNear, one.err_L2(f), std::sqrt(2.0) * box.err_L2(f), tol);
    EXPECT_PRED_FORMAT3(RelNear, one.err_Linf(f), box.err_Linf(f), tol);
  }
}

}  // namespace dgmax::test
