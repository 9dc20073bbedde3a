// The curved group's CUDA kernels (codegen/emit/curved_kernels.hpp) compile with NVRTC for every
// order the cuda backend runs them at, both precisions, with every field and boundary condition
// (incident states read the incident field on curved faces) -- without a GPU, so CI catches a
// broken template. The shared memory of one block stays within the 48 KB the backend allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/emit/cuda_kernels.hpp"
#include "codegen/emit/curved_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "codegen/tune/cuda_plan.hpp"
#include "curved_mixed_problem.hpp"
#include "solver/backends/kernel_spec_builder.hpp"

using namespace dgmax;

TEST(NvrtcCurvedKernels, CompileWithEveryFieldInBothPrecisions) {
  for (int N = 1; N <= 4; ++N) {
    const Problem p = test::curved_mixed_problem(N, std::min(N, 3) + (N == 1), 3, 1);
    for (bool single : {false, true}) {
      const codegen::KernelSpec spec = make_kernel_spec(p, single);
      ASSERT_GT(spec.curved_Nq, 0) << "N = " << N;
      const std::string src = codegen::generate_cuda_source(spec);
      for (const char* k : {"dgmax_curved_stage(", "dgmax_curved_initial(", "dgmax_curved_norms("})
        EXPECT_NE(src.find(k), std::string::npos) << k;
      EXPECT_NE(src.find("field_incident(p, w6)"), std::string::npos);
      EXPECT_LE(codegen::curved_block(spec).shared_bytes, 48 * 1024) << "N = " << N;
      EXPECT_EQ(codegen::curved_cuda_refusal(spec), "") << "N = " << N;
      codegen::NvrtcOptions opt;
      opt.arch = codegen::cuda_plan_arch(spec.plan.cuda, "sm_90");  // sm_90a for warpgroup MMAs
      const std::vector<char> cubin =
          codegen::nvrtc_compile(src, "curved_N" + std::to_string(N) + (single ? "_fp32" : "_fp64"), opt);
      ASSERT_GE(cubin.size(), 4u);
      EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << "N = " << N;
    }
  }
}

TEST(NvrtcCurvedKernels, AbsentWithoutCurvedElements) {
  const Problem p = test::curved_mixed_problem(2, 2, 3, 1);
  codegen::KernelSpec spec = make_kernel_spec(p, false);
  spec.curved_Nq = spec.curved_Nfq = 0;
  EXPECT_EQ(codegen::generate_cuda_source(spec).find("dgmax_curved_stage"), std::string::npos);
}

// An element whose rules need more than a block's 48 KB of shared memory (the conical products
// beyond degree 20: 1,331 volume points at N = q = 6) is refused by the cuda backend with this
// message, naming the order and the points; nothing is refused without curved elements.
TEST(NvrtcCurvedKernels, TooMuchSharedMemoryIsNamed) {
  const Problem p = test::curved_mixed_problem(2, 2, 3, 1);
  codegen::KernelSpec spec = make_kernel_spec(p, false);
  spec.curved_Nq = 1331;
  spec.curved_Nfq = 144;
  EXPECT_EQ(codegen::curved_cuda_refusal(spec),
            "the curved elements of this problem need " + std::to_string(codegen::curved_shared_bytes(spec) / 1024) +
                " KB of shared memory per block on the cuda backend (order 2, 1331 volume points and 144 per face); "
                "at most 48 KB");
  EXPECT_GT(codegen::curved_shared_bytes(spec), 48 * 1024);
  spec.curved_Nq = spec.curved_Nfq = 0;
  EXPECT_EQ(codegen::curved_cuda_refusal(spec), "");
}
