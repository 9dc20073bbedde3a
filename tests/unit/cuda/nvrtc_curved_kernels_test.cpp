// The curved group's CUDA kernels (codegen/emit/curved_kernels.hpp) compile with NVRTC for every
// order the cuda backend runs them at, both precisions, with every field and boundary condition
// (incident states read the incident field on curved faces) and every number of elements per block
// (plan option Q) -- without a GPU, so CI catches a broken template. The default block's shared
// memory stays within the 48 KB every device allows without opting in.
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
      EXPECT_EQ(codegen::curved_cuda_refusal(spec, 227 * 1024), "") << "N = " << N;
      codegen::NvrtcOptions opt;
      opt.arch = codegen::cuda_plan_arch(spec.plan.cuda, "sm_90");  // sm_90a for warpgroup MMAs
      const std::vector<char> cubin =
          codegen::nvrtc_compile(src, "curved_N" + std::to_string(N) + (single ? "_fp32" : "_fp64"), opt);
      ASSERT_GE(cubin.size(), 4u);
      EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << "N = " << N;
    }
  }
}

TEST(NvrtcCurvedKernels, CompileWithEachNumberOfElementsPerBlock) {
  const Problem p = test::curved_mixed_problem(3, 3, 3, 1);
  for (int E : {1, 2, 3, 8}) {
    codegen::KernelSpec spec = make_kernel_spec(p, false);
    spec.plan.cuda.curved_batch = E;
    EXPECT_EQ(codegen::curved_block(spec).elements, E);
    EXPECT_EQ(codegen::curved_block(spec).shared_bytes, E * codegen::curved_shared_bytes(spec));
    const std::string src = codegen::generate_cuda_source(spec);
    EXPECT_NE(src.find("CURVED_E = " + std::to_string(E) + " "), std::string::npos) << "E = " << E;
    codegen::NvrtcOptions opt;
    opt.arch = "sm_90";
    const std::vector<char> cubin = codegen::nvrtc_compile(src, "curved_E" + std::to_string(E), opt);
    ASSERT_GE(cubin.size(), 4u);
  }
}

// Without Q in the plan a block computes about a warp's nodes: one element from N = 3 on (the
// fastest of 1, 2, 4 and 8 on the H100 at N = 3 and 4), three at N = 2, eight at N = 1.
TEST(NvrtcCurvedKernels, DefaultBlockIsAboutAWarpOfNodes) {
  const int expected[] = {0, 8, 3, 1, 1};
  for (int N = 1; N <= 4; ++N) {
    const Problem p = test::curved_mixed_problem(N, std::max(N, 2), 3, 1);
    const codegen::KernelSpec spec = make_kernel_spec(p, false);
    EXPECT_EQ(codegen::default_curved_batch(spec), expected[N]) << "N = " << N;
    EXPECT_EQ(codegen::curved_block(spec).elements, expected[N]) << "N = " << N;
    EXPECT_EQ(codegen::curved_block(spec).threads, 32 * ((expected[N] * spec.Np + 31) / 32)) << "N = " << N;
  }
}

TEST(NvrtcCurvedKernels, AbsentWithoutCurvedElements) {
  const Problem p = test::curved_mixed_problem(2, 2, 3, 1);
  codegen::KernelSpec spec = make_kernel_spec(p, false);
  spec.curved_Nq = spec.curved_Nfq = 0;
  EXPECT_EQ(codegen::generate_cuda_source(spec).find("dgmax_curved_stage"), std::string::npos);
}

// A block whose scratch needs more shared memory than the device allows (here a face rule of 144
// points against a device of 16 KB) is refused by the cuda backend with this message, naming the
// elements per block, the order and the rules' points; nothing is refused without curved elements.
TEST(NvrtcCurvedKernels, TooMuchSharedMemoryIsNamed) {
  const Problem p = test::curved_mixed_problem(2, 2, 3, 1);
  codegen::KernelSpec spec = make_kernel_spec(p, false);
  spec.curved_Nq = 1331;
  spec.curved_Nfq = 144;
  const long need = codegen::curved_block(spec).shared_bytes;
  EXPECT_EQ(codegen::default_curved_batch(spec), 1);
  EXPECT_EQ(codegen::curved_cuda_refusal(spec, 16 * 1024),
            "the curved elements of this problem need " + std::to_string(need / 1024) +
                " KB of shared memory per block on the cuda backend (1 element per block, order 2, 1331 volume "
                "points and 144 per face); this GPU allows 16 KB");
  EXPECT_EQ(codegen::curved_cuda_refusal(spec, need), "");
  spec.curved_Nq = spec.curved_Nfq = 0;
  EXPECT_EQ(codegen::curved_cuda_refusal(spec, 16 * 1024), "");
}
