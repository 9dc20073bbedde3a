// The CUDA driver layer on a real GPU (label gpu): device query, memory, NVRTC-compiled kernels,
// launches, timing, and the errors a user or a bug can cause. Every test skips, saying why, when no
// GPU is usable (driver_probe_test.cpp checks that answer itself).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "../jit/jit_test_util.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "expect_user_error.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/util/error.hpp"

namespace dgmax::cuda {
namespace {

using test::TempDir;

const std::string kKernels =
    "// test kernels\n"
    "extern \"C\" __global__ void saxpy(int n, double a, const double* x, double* y) {\n"
    "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "// reverses each block's slice of x into y through dynamic shared memory\n"
    "extern \"C\" __global__ void reverse_blocks(const double* x, double* y) {\n"
    "  extern __shared__ double s[];\n"
    "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  s[threadIdx.x] = x[i];\n"
    "  __syncthreads();\n"
    "  y[i] = s[blockDim.x - 1 - threadIdx.x];\n"
    "}\n";

class GpuDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  }

  // The test kernels, compiled for the device (in a private cache) and loaded.
  Module load_kernels(const std::string& arch = {}) {
    codegen::NvrtcOptions opt;
    opt.arch = arch.empty() ? Context::get().info().arch() : arch;
    opt.cache_dir = cache_.path();
    return Module(codegen::nvrtc_compile(kKernels, "gpu_driver_test", opt), "gpu_driver_test");
  }

  TempDir cache_;
};

// x[i] = i, y[i] = 3 i: y + k a x stays exact in double for these sizes.
std::vector<double> iota(size_t n, double scale) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<double>(i);
  return v;
}

TEST_F(GpuDriver, QueriesTheDevice) {
  EXPECT_GE(device_count(), 1);
  EXPECT_GE(driver_version(), 12000);
  Context& ctx = Context::get();
  EXPECT_EQ(&Context::get(0), &ctx);
  const DeviceInfo& d = ctx.info();
  EXPECT_EQ(d.ordinal, 0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.cc_major, 7);
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.total_mem, size_t(1) << 30);
  EXPECT_GT(d.free_mem, 0u);
  EXPECT_LE(d.free_mem, d.total_mem);
  EXPECT_GE(d.max_shared_per_block, 48u * 1024);
  EXPECT_GE(d.max_shared_per_block_optin, d.max_shared_per_block);
  EXPECT_GE(d.max_shared_per_sm, d.max_shared_per_block_optin);
  EXPECT_EQ(d.max_threads_per_block, 1024);
  EXPECT_EQ(d.warp_size, 32);
  EXPECT_GT(d.l2_bytes, 0);
  EXPECT_GT(d.max_grid_dim[0], 65535);
  EXPECT_EQ(d.driver_version, driver_version());
  EXPECT_TRUE(std::regex_match(d.arch(), std::regex("sm_[0-9]+"))) << d.arch();
  EXPECT_EQ(d.arch(), "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor));
  EXPECT_NE(d.summary().find(d.name), std::string::npos) << d.summary();
  const MemInfo m = ctx.mem_info();
  EXPECT_GT(m.total, 0u);
  EXPECT_LE(m.total, d.total_mem);
  EXPECT_LE(m.free, m.total);
  std::cout << d.summary() << ", " << m.free / (1 << 20) << " MiB free\n";

  const UserError e = test::expect_user_error([] { Context::get(device_count()); });
  EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
}

TEST_F(GpuDriver, UploadDownloadRoundTrip) {
  const size_t n = size_t(1) << 20;
  const std::vector<double> x = iota(n, 0.5);
  DeviceBuffer a(n * sizeof(double), "x");
  EXPECT_EQ(a.size(), n * sizeof(double));
  EXPECT_NE(a.ptr(), 0u);
  a.upload(x);
  std::vector<double> back(n, -1.0);
  a.download(back);
  EXPECT_EQ(back, x);

  // Part of the buffer, at an offset.
  const std::vector<double> part{7.0, 8.0, 9.0};
  a.upload(part.data(), 3 * sizeof(double), 10 * sizeof(double));
  std::vector<double> got(3);
  a.download(got.data(), 3 * sizeof(double), 10 * sizeof(double));
  EXPECT_EQ(got, part);

  // Device to device, then zero the source.
  DeviceBuffer b(n * sizeof(double), "copy of x");
  b.copy_from(a, a.size());
  a.zero();
  a.download(back);
  EXPECT_EQ(std::count(back.begin(), back.end(), 0.0), static_cast<long>(n));
  b.download(back);
  EXPECT_EQ(back[10], 7.0);
  EXPECT_EQ(back[n - 1], x[n - 1]);

  // Out of range is a bug of the caller.
  EXPECT_THROW(a.upload(x.data(), a.size() + 8), InternalError);
  EXPECT_THROW(a.download(back.data(), 16, a.size() - 8), InternalError);

  // Moves hand the memory over.
  const DevicePtr p = b.ptr();
  DeviceBuffer c = std::move(b);
  EXPECT_EQ(c.ptr(), p);
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  DeviceBuffer empty;
  EXPECT_TRUE(empty.empty());
  DeviceBuffer zero_bytes(0, "nothing");
  EXPECT_TRUE(zero_bytes.empty());
}

TEST_F(GpuDriver, CompilesLaunchesAndTimesSaxpy) {
  Context& ctx = Context::get();
  Module m = load_kernels();
  EXPECT_EQ(m.name(), "gpu_driver_test");
  const Function saxpy = m.function("saxpy");
  const KernelAttributes k = kernel_attributes(saxpy);
  EXPECT_GT(k.num_regs, 0);
  EXPECT_GE(k.max_threads_per_block, 256);
  EXPECT_EQ(k.binary_version, ctx.info().cc_major * 10 + ctx.info().cc_minor);

  int n = 1 << 22;
  double a = 2.5;
  const std::vector<double> x = iota(n, 1.0), y0 = iota(n, 3.0);
  DeviceBuffer dx(n * sizeof(double), "x"), dy(n * sizeof(double), "y");
  dx.upload(x);
  dy.upload(y0);
  DevicePtr px = dx.ptr(), py = dy.ptr();
  void* args[] = {&n, &a, &px, &py};
  const Dim3 block(256), grid((n + 255) / 256);
  launch(saxpy, "saxpy", grid, block, 0, args);
  std::vector<double> y(n);
  dy.download(y);
  for (int i = 0; i < n; i += 997) ASSERT_EQ(y[i], 5.5 * i) << "i = " << i;
  ASSERT_EQ(y[n - 1], 5.5 * (n - 1));

  // Timed with events: 10 more launches.
  Event start, stop;
  start.record();
  for (int r = 0; r < 10; ++r) launch(saxpy, "saxpy", grid, block, 0, args);
  stop.record();
  const float ms = stop.elapsed_ms(start);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 10000.0f);
  std::cout << "10 x saxpy on " << n << " doubles: " << ms << " ms ("
            << 10.0 * 3 * 8 * n / (ms * 1e-3) / 1e9 << " GB/s)\n";
  dy.download(y);
  for (int i = 0; i < n; i += 997) ASSERT_EQ(y[i], 3.0 * i + 11 * 2.5 * i) << "i = " << i;
  ctx.synchronize();
  synchronize();
}

TEST_F(GpuDriver, DynamicSharedMemoryAboveTheDefaultNeedsOptIn) {
  const DeviceInfo& d = Context::get().info();
  Module m = load_kernels();
  const Function f = m.function("reverse_blocks");
  const unsigned threads = 1024;
  const int blocks = 64;
  const size_t n = size_t(threads) * blocks;
  const std::vector<double> x = iota(n, 1.0);
  DeviceBuffer dx(n * sizeof(double), "x"), dy(n * sizeof(double), "y");
  dx.upload(x);
  DevicePtr px = dx.ptr(), py = dy.ptr();
  void* args[] = {&px, &py};
  // More dynamic shared memory than the default limit (48 KiB) without opting in: refused.
  const size_t big = d.max_shared_per_block + 1024;
  ASSERT_LE(big, d.max_shared_per_block_optin);
  try {
    launch(f, "reverse_blocks", Dim3(blocks), Dim3(threads), big, args);
    FAIL() << "launch with " << big << " bytes of shared memory did not fail";
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("reverse_blocks"), std::string::npos) << msg;
    EXPECT_NE(msg.find("set_max_dynamic_shared"), std::string::npos) << msg;
  }
  set_max_dynamic_shared(f, "reverse_blocks", static_cast<int>(big));
  launch(f, "reverse_blocks", Dim3(blocks), Dim3(threads), big, args);
  std::vector<double> y(n);
  dy.download(y);
  for (size_t b = 0; b < static_cast<size_t>(blocks); ++b)
    for (size_t t = 0; t < threads; ++t)
      ASSERT_EQ(y[b * threads + t], x[b * threads + threads - 1 - t]) << "block " << b << ", thread " << t;
}

TEST_F(GpuDriver, OutOfMemoryIsAUserErrorSayingHowMuch) {
  Context& ctx = Context::get();
  const size_t bytes = 2 * ctx.info().total_mem;
  const UserError e = test::expect_user_error([&] { DeviceBuffer b(bytes, "test fields (2x the GPU's memory)"); });
  const std::string msg = e.what();
  EXPECT_NE(msg.find("out of GPU memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(bytes) + " bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test fields (2x the GPU's memory)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("are free"), std::string::npos) << msg;
  EXPECT_NE(msg.find(ctx.info().name), std::string::npos) << msg;
  EXPECT_NE(e.hint().find("backend cpu"), std::string::npos) << e.hint();
  // Nothing is broken afterwards.
  DeviceBuffer small(1 << 20, "small");
  small.zero();
}

TEST_F(GpuDriver, InvalidLaunchShapeNamesKernelAndShape) {
  Module m = load_kernels();
  const Function saxpy = m.function("saxpy");
  int n = 4096;
  double a = 1.0;
  DeviceBuffer dx(n * sizeof(double), "x"), dy(n * sizeof(double), "y");
  dx.zero();
  dy.zero();
  DevicePtr px = dx.ptr(), py = dy.ptr();
  void* args[] = {&n, &a, &px, &py};
  try {
    launch(saxpy, "saxpy", Dim3(1), Dim3(4096), 0, args);
    FAIL() << "a launch with 4096 threads per block did not fail";
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("kernel 'saxpy'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("grid (1, 1, 1)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("block (4096, 1, 1)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << msg;
    EXPECT_NE(msg.find("the block has 4096 threads"), std::string::npos) << msg;
    EXPECT_NE(msg.find("at most 1024 per block"), std::string::npos) << msg;
  }
  // The context is still usable.
  launch(saxpy, "saxpy", Dim3(16), Dim3(256), 0, args);
  Context::get().synchronize();
}

TEST_F(GpuDriver, MissingKernelIsAnInternalErrorNamingTheModule) {
  Module m = load_kernels();
  try {
    m.function("no_such_kernel");
    FAIL() << "found a kernel that does not exist";
  } catch (const InternalError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'gpu_driver_test' has no kernel 'no_such_kernel'"), std::string::npos) << msg;
  }
}

TEST_F(GpuDriver, CubinForAnotherArchitectureDoesNotLoad) {
  const DeviceInfo& d = Context::get().info();
  // Cubins run only on devices of their major compute capability.
  const std::string other = d.cc_major == 8 ? "sm_90" : "sm_80";
  try {
    Module m = load_kernels(other);
    FAIL() << "a cubin for " << other << " loaded on " << d.arch();
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("gpu_driver_test"), std::string::npos) << msg;
    EXPECT_NE(msg.find(d.arch()), std::string::npos) << msg;
  }
}

TEST_F(GpuDriver, WorksFromAnotherThread) {
  Context::get();
  Module m = load_kernels();
  const Function saxpy = m.function("saxpy");
  std::vector<double> y;
  std::thread worker([&] {
    // A fresh thread: no context is current on it until dgmax's objects make it so.
    int n = 1000;
    double a = 2.0;
    const std::vector<double> x = iota(n, 1.0);
    DeviceBuffer dx(n * sizeof(double), "x"), dy(n * sizeof(double), "y");
    dx.upload(x);
    dy.zero();
    DevicePtr px = dx.ptr(), py = dy.ptr();
    void* args[] = {&n, &a, &px, &py};
    launch(saxpy, "saxpy", Dim3(4), Dim3(256), 0, args);
    y.resize(n);
    dy.download(y);
  });
  worker.join();
  ASSERT_EQ(y.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(y[i], 2.0 * i);
}

}  // namespace
}  // namespace dgmax::cuda
