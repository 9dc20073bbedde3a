// Probes and DFT monitors on the cuda backend (ctest label gpu; skipped with a message without a
// GPU): probe samples of a degree-N polynomial field exact to rounding, DFT accumulators against
// the closed-form sum, and the cuda accumulators of a stepped cavity against the ref backend's.
#include <gtest/gtest.h>

#include "monitor_cases.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

class GpuMonitors : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

}  // namespace

TEST_F(GpuMonitors, ProbesAreExactForDegreeNFields) {
  for (int N : {1, 3, 5}) {
    const Problem p = odd_box_problem(N);
    const double e64 = probe_polynomial_error(p, *make_cuda_backend(p, false), 50, N);
    const double e32 = probe_polynomial_error(p, *make_cuda_backend(p, true), 50, N);
    std::cout << "N = " << N << ": cuda probe error fp64 " << e64 << ", fp32 " << e32 << "\n";
    EXPECT_LE(e64, 1e-13) << "N = " << N;
    EXPECT_LE(e32, 1e-6) << "N = " << N;
  }
}

TEST_F(GpuMonitors, DftMatchesTheClosedFormSum) {
  const Problem p = odd_box_problem(3);
  const double e64 = dft_sinusoid_error(p, *make_cuda_backend(p, false), 150);
  const double e32 = dft_sinusoid_error(p, *make_cuda_backend(p, true), 150);
  std::cout << "cuda DFT vs closed form: fp64 " << e64 << ", fp32 " << e32 << "\n";
  EXPECT_LE(e64, 1e-14);
  EXPECT_LE(e32, 1e-7);
}

TEST_F(GpuMonitors, DftOfASteppedCavityMatchesRef) {
  const Problem p = box_problem(unit_box(2), 3, 1.0);
  std::vector<long> nodes;
  for (long n = 0; n < static_cast<long>(p.K()) * p.Np(); n += 3) nodes.push_back(n);
  double scale = 0;
  const double diff = dft_difference_to_ref(p, *make_cuda_backend(p, false), nodes, &scale);
  std::cout << "ref vs cuda accumulators: max difference " << diff << " of max " << scale << "\n";
  EXPECT_GT(scale, 0.01);
  EXPECT_LE(diff, 1e-12 * scale);
}
