// The manufactured-current convergence test (manufactured_current_test.cpp) on the cuda backend in
// fp64 (ctest label gpu; skipped with a message without a usable GPU): order ≥ N + 0.5 for
// N = 1..4, and the final states equal the ref backend's to 1e-12 relative.
#include <gtest/gtest.h>

#include "manufactured_current.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

using namespace dgmax::test;

TEST(GpuManufacturedCurrent, CudaFp64ConvergesAtOrderNPlusOneAndMatchesRef) {
  std::string why;
  if (!dgmax::cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  const auto gpu = check_manufactured_convergence("cuda");
  for (size_t i = 0; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].backend, "cuda");
  // against ref on the coarse mesh of every order (the fine ones are checked by the orders)
  const auto& cases = manufactured_cases();
  for (size_t c = 0; c < cases.size(); ++c) {
    const ManufacturedRun ref = run_manufactured("ref", cases[c].N, cases[c].coarse);
    const double d = state_difference(gpu[2 * c], ref);
    std::printf("  N = %d: cuda (fp64) vs ref, max relative state difference %.2e\n", cases[c].N, d);
    EXPECT_LE(d, 1e-12) << "N = " << cases[c].N;
  }
}
