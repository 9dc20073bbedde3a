// ||J/sqrt(eps)|| from the cuda backend's dgmax_norms (the energy guard's source power) against
// the host quadrature, both precisions (gpu label; skipped without a GPU).
#include <gtest/gtest.h>

#include <string>

#include "mixed_problem.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

using namespace dgmax;

TEST(GpuCurrentNorm, MatchesTheHostQuadrature) {
  std::string why;
  if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  for (const int N : {1, 4}) {
    Problem p = test::mixed_problem(N, 11);
    for (const bool single : {false, true}) {
      auto be = make_cuda_backend(p, single);
      be->init_state();
      const double host = current_norm(p, p.current.eval, 0.3);
      // J in double on the device (its math library may differ from the host's by an ulp); single
      // precision stores eps as a float
      EXPECT_NEAR(be->norms(0.3).current, host, (single ? 1e-7 : 1e-11) * host) << "N = " << N << " single = " << single;
    }
  }
}
