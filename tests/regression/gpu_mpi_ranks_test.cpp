// Several ranks on the GPU (ctest label gpu; skipped without one or without mpirun): 2 ranks of
// the cuda backend share the machine's GPUs (local rank modulo the count) and must give the
// one-rank run to rounding, with the face-trace exchange behind the interior elements and without
// it (DGMAX_HALO_OVERLAP=0), in fp64 and fp32; ranks without a neighbour; and a PML with probes
// on 2 ranks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mpi_runs.hpp"
#include "regression_run.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

namespace dgmax::test {
namespace {

#define REQUIRE_GPU()                                                   \
  do {                                                                  \
    std::string why_gpu;                                                \
    if (!cuda::driver_available(&why_gpu)) GTEST_SKIP() << "no GPU: " << why_gpu; \
  } while (0)

TEST(GpuMpiRanks, CavityEqualsOneRankWithAndWithoutOverlap) {
  REQUIRE_GPU();
  REQUIRE_LAUNCHER(mpi, 2);
  for (const char* precision : {"double", "single"}) {
    const std::vector<std::string> sets = {"mesh.box.cells=[8,8,8]", "discretization.order=4", "backend=cuda",
                                           std::string("discretization.precision=") + precision};
    const ConfigRun one = run_config("cavity", sets);
    for (const char* overlap : {"1", "0"}) {
      SCOPED_TRACE(std::string(precision) + ", DGMAX_HALO_OVERLAP=" + overlap);
      const ConfigRun many = run_config("cavity", sets, false, std::string("DGMAX_HALO_OVERLAP=") + overlap + " " + mpi);
      expect_same_run(one, many, 2, precision == std::string("double"));
      ASSERT_TRUE(many.summary.contains("exchange_hidden_s"));
      if (overlap == std::string("0")) {
        EXPECT_EQ(many.summary["exchange_hidden_s"].get<double>(), 0.0);
      }
    }
  }
}

// Ranks without a neighbour (a mesh of two pieces, one a rank): the stage's interior launch is all
// of each rank's elements and the exchange does nothing; in both precisions.
TEST(GpuMpiRanks, TwoCubesOnTwoRanksExchangeNothing) {
  REQUIRE_GPU();
  REQUIRE_LAUNCHER(mpi, 2);
  for (const char* precision : {"double", "single"}) {
    SCOPED_TRACE(precision);
    expect_two_pieces_on_ranks({"backend=cuda", std::string("discretization.precision=") + precision}, mpi, 2,
                               precision == std::string("double"));
  }
}

// The layer advanced inside the stage kernel on each rank's own layer elements (the partition cuts
// through the layer), with probes: the same as one rank.
TEST(GpuMpiRanks, DipoleInAPmlEqualsOneRank) {
  REQUIRE_GPU();
  REQUIRE_LAUNCHER(mpi, 2);
  const std::vector<std::string> sets = {"backend=cuda", "time.final=1.5"};
  const ConfigRun one = run_config("dipole_pml", sets);
  const ConfigRun many = run_config("dipole_pml", sets, false, mpi);
  expect_same_run(one, many, 2, false);
}

}  // namespace
}  // namespace dgmax::test
