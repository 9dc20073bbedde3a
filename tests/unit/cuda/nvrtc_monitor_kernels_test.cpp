// The probe and DFT-monitor kernels (codegen/emit/cuda_monitor_kernels) compile with NVRTC for
// sm_80 and sm_90 in both state precisions, and define both entry points — without a GPU.
#include <gtest/gtest.h>

#include "codegen/emit/cuda_monitor_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"

using namespace dgmax;

TEST(NvrtcMonitorKernels, CompileForBothPrecisionsAndArchitectures) {
  for (bool single : {false, true}) {
    const std::string src = codegen::cuda_monitor_source(single);
    EXPECT_NE(src.find(single ? "typedef float real;" : "typedef double real;"), std::string::npos);
    for (const char* arch : {"sm_80", "sm_90"}) {
      codegen::NvrtcOptions opt;
      opt.arch = arch;
      const std::vector<char> cubin = codegen::nvrtc_compile(src, std::string("test_monitors_") + arch, opt);
      ASSERT_GE(cubin.size(), 4u);
      EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << arch;
      const std::string bytes(cubin.begin(), cubin.end());
      EXPECT_NE(bytes.find("dgmax_probe_sample"), std::string::npos);
      EXPECT_NE(bytes.find("dgmax_dft_accumulate"), std::string::npos);
    }
  }
}
