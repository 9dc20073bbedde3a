// NVRTC JIT (label nvrtc): compiling to cubins, the disk cache, the cache key, and the report for
// generated source that does not compile. Needs the CUDA Toolkit's NVRTC, not a GPU. Each test uses
// its own cache directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "../jit/jit_test_util.hpp"
#include "codegen/jit/jit_cache.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "expect_user_error.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace {

namespace fs = std::filesystem;
using test::read_text;
using test::TempDir;
using test::write_text;

const std::string kSaxpy =
    "// test kernel: y = a x + y\n"
    "extern \"C\" __global__ void saxpy(int n, double a, const double* x, double* y) {\n"
    "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

NvrtcOptions nvrtc_options_for(const TempDir& cache, const std::string& arch = "sm_90") {
  NvrtcOptions opt;
  opt.arch = arch;
  opt.cache_dir = cache.path();
  return opt;
}

bool is_elf(const std::vector<char>& b) {
  return b.size() > 4 && b[0] == '\x7f' && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
}

struct Delta {
  int compiled, hits, rebuilt;
};
Delta since(const NvrtcStats& before) {
  const NvrtcStats now = nvrtc_stats();
  return {now.compiled - before.compiled, now.cache_hits - before.cache_hits, now.rebuilt - before.rebuilt};
}

TEST(NvrtcCompile, VersionAndArchitectures) {
  EXPECT_TRUE(std::regex_match(nvrtc_version_string(), std::regex("NVRTC [0-9]+\\.[0-9]+")))
      << nvrtc_version_string();
  const std::vector<std::string> archs = nvrtc_supported_archs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), "sm_80"), archs.end());
  EXPECT_NE(std::find(archs.begin(), archs.end(), "sm_90"), archs.end());
}

TEST(NvrtcCompile, SmallKernelToCubinForSm80AndSm90) {
  TempDir cache;
  std::vector<std::string> keys;
  for (const char* arch_name : {"sm_80", "sm_90"}) {
    const std::string arch = arch_name;
    SCOPED_TRACE(arch);
    const NvrtcOptions opt = nvrtc_options_for(cache, arch);
    const NvrtcStats before = nvrtc_stats();
    const std::vector<char> cubin = nvrtc_compile(kSaxpy, "saxpy_" + arch, opt);
    ASSERT_TRUE(is_elf(cubin)) << "not an ELF image, " << cubin.size() << " bytes";
    EXPECT_NE(std::string(cubin.begin(), cubin.end()).find("saxpy"), std::string::npos)
        << "the kernel's name is not in the cubin";
    EXPECT_EQ(since(before).compiled, 1);
    EXPECT_EQ(since(before).hits, 0);
    EXPECT_GT(nvrtc_stats().compile_seconds, before.compile_seconds);

    const std::string key = nvrtc_key(kSaxpy, opt);
    ASSERT_EQ(key.size(), 32u);
    EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
    keys.push_back(key);
    const std::string dir = cache / "cuda";
    EXPECT_EQ(read_text(dir + "/" + key + ".cu"), kSaxpy);  // the source is kept, readable
    const std::string cubin_path = dir + "/" + key + ".cubin";
    EXPECT_TRUE(artifact_is_valid(cubin_path));
    EXPECT_TRUE(fs::exists(cubin_path + ".sum"));
    EXPECT_EQ(read_text(cubin_path), std::string(cubin.begin(), cubin.end()));
    EXPECT_FALSE(fs::exists(dir + "/" + key + ".log"));
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  EXPECT_NE(keys[0], keys[1]);
}

// DGMAX_CUDA_LINEINFO (profiling) adds -lineinfo to the kernels' options: the cubin then carries
// a line table (.debug_line) naming the source, under a key of its own; unset, neither.
TEST(NvrtcCompile, LineInfoFromTheEnvironment) {
  TempDir cache;
  ::unsetenv("DGMAX_CUDA_LINEINFO");
  NvrtcOptions plain = NvrtcOptions::for_kernels("sm_90");
  EXPECT_EQ(plain.arch, "sm_90");
  const std::vector<std::string> po = plain.options();
  EXPECT_EQ(std::count(po.begin(), po.end(), "-lineinfo"), 0);
  ::setenv("DGMAX_CUDA_LINEINFO", "1", 1);
  NvrtcOptions lines = NvrtcOptions::for_kernels("sm_90");
  ::unsetenv("DGMAX_CUDA_LINEINFO");
  const std::vector<std::string> o = lines.options();
  EXPECT_EQ(std::count(o.begin(), o.end(), "-lineinfo"), 1);
  EXPECT_NE(nvrtc_key(kSaxpy, plain), nvrtc_key(kSaxpy, lines));
  plain.cache_dir = lines.cache_dir = cache.path();
  const std::vector<char> without = nvrtc_compile(kSaxpy, "saxpy_plain", plain);
  const std::vector<char> with = nvrtc_compile(kSaxpy, "saxpy_lines", lines);
  ASSERT_TRUE(is_elf(without) && is_elf(with));
  EXPECT_EQ(std::string(without.begin(), without.end()).find(".debug_line"), std::string::npos);
  EXPECT_NE(std::string(with.begin(), with.end()).find(".debug_line"), std::string::npos);
}

TEST(NvrtcCompile, SecondCallIsACacheHit) {
  TempDir cache;
  const NvrtcOptions opt = nvrtc_options_for(cache);
  const NvrtcStats before = nvrtc_stats();
  const std::vector<char> first = nvrtc_compile(kSaxpy, "saxpy", opt);
  const std::vector<char> second = nvrtc_compile(kSaxpy, "saxpy", opt);
  EXPECT_EQ(first, second);
  EXPECT_EQ(since(before).compiled, 1);
  EXPECT_EQ(since(before).hits, 1);
  EXPECT_EQ(since(before).rebuilt, 0);
  EXPECT_GE(nvrtc_stats().load_seconds, before.load_seconds);

  // Another name hint, same content: still the same entry.
  EXPECT_EQ(nvrtc_compile(kSaxpy, "another name", opt), first);
  EXPECT_EQ(since(before).compiled, 1);
  EXPECT_EQ(since(before).hits, 2);
}

TEST(NvrtcCompile, CorruptCacheEntryIsRebuilt) {
  TempDir cache;
  const NvrtcOptions opt = nvrtc_options_for(cache);
  const std::vector<char> good = nvrtc_compile(kSaxpy, "saxpy", opt);
  const std::string cubin_path = cache / ("cuda/" + nvrtc_key(kSaxpy, opt) + ".cubin");
  for (const std::string& garbage : {std::string(), std::string("\x7f" "ELF truncated")}) {
    write_text(cubin_path, garbage);
    const NvrtcStats before = nvrtc_stats();
    EXPECT_EQ(nvrtc_compile(kSaxpy, "saxpy", opt), good);
    EXPECT_EQ(since(before).compiled, 1);
    EXPECT_EQ(since(before).rebuilt, 1);
    EXPECT_TRUE(artifact_is_valid(cubin_path));
  }
}

TEST(NvrtcCompile, ConcurrentCallsCompileOnce) {
  TempDir cache;
  const NvrtcOptions opt = nvrtc_options_for(cache);
  const NvrtcStats before = nvrtc_stats();
  std::vector<std::vector<char>> results(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] { results[i] = nvrtc_compile(kSaxpy, "saxpy", opt); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, results[0]);
  EXPECT_TRUE(is_elf(results[0]));
  EXPECT_EQ(since(before).compiled, 1);
  EXPECT_EQ(since(before).hits, 3);
}

TEST(NvrtcCompile, BrokenKernelReportsLogAndNumberedLines) {
  TempDir cache;
  const NvrtcOptions opt = nvrtc_options_for(cache);
  const std::string broken =
      "// generated: a kernel with a mistake on line 5\n"
      "extern \"C\" __global__ void broken(int n, double* y) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    y[i] = undefined_coefficient * y[i];\n"
      "}\n";
  const std::string key = nvrtc_key(broken, opt);
  const std::string dir = cache / "cuda";
  try {
    nvrtc_compile(broken, "dgmax_broken", opt);
    FAIL() << "a broken kernel compiled";
  } catch (const InternalError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("please report"), std::string::npos) << msg;
    EXPECT_NE(msg.find("generated CUDA source 'dgmax_broken' does not compile with NVRTC"), std::string::npos) << msg;
    EXPECT_NE(msg.find("-arch=sm_90 -std=c++17 -default-device"), std::string::npos) << msg;
    // NVRTC's log, naming the line...
    EXPECT_NE(msg.find(key + ".cu(5): error"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undefined_coefficient"), std::string::npos) << msg;
    // ...and the numbered source around it, the named line marked.
    EXPECT_NE(msg.find(">    5 |     y[i] = undefined_coefficient * y[i];"), std::string::npos) << msg;
    EXPECT_NE(msg.find("     4 |   if (i < n)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("     1 | // generated: a kernel with a mistake on line 5"), std::string::npos) << msg;
    // ...and where the kept files are.
    EXPECT_NE(msg.find(dir + "/" + key + ".cu"), std::string::npos) << msg;
    EXPECT_NE(msg.find(dir + "/" + key + ".log"), std::string::npos) << msg;
  }
  EXPECT_EQ(read_text(dir + "/" + key + ".cu"), broken);  // left for reading
  EXPECT_NE(read_text(dir + "/" + key + ".log").find("undefined_coefficient"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/" + key + ".cubin"));
}

TEST(NvrtcCompile, OptionsChangeTheKey) {
  TempDir cache;
  const NvrtcOptions base = nvrtc_options_for(cache);
  const std::string k0 = nvrtc_key(kSaxpy, base);
  EXPECT_EQ(nvrtc_key(kSaxpy, base), k0);
  NvrtcOptions elsewhere = base;
  elsewhere.cache_dir = cache / "elsewhere";
  EXPECT_EQ(nvrtc_key(kSaxpy, elsewhere), k0);  // the cache directory is not part of the content

  std::vector<std::pair<std::string, NvrtcOptions>> variants;
  auto variant = [&](const std::string& what, auto change) {
    NvrtcOptions o = base;
    change(o);
    variants.emplace_back(what, o);
  };
  variant("arch", [](NvrtcOptions& o) { o.arch = "sm_80"; });
  variant("fast_math", [](NvrtcOptions& o) { o.fast_math = true; });
  variant("fmad", [](NvrtcOptions& o) { o.fmad = false; });
  variant("line_info", [](NvrtcOptions& o) { o.line_info = true; });
  variant("extra", [](NvrtcOptions& o) { o.extra = {"-DNP=20"}; });
  variant("extra order", [](NvrtcOptions& o) { o.extra = {"-DNP=2", "0"}; });
  variant("headers", [](NvrtcOptions& o) { o.headers = {{"a.h", "#define A 1\n"}}; });
  variant("extra_key", [](NvrtcOptions& o) { o.extra_key = "header v2"; });
  std::vector<std::string> keys{k0};
  for (const auto& [what, o] : variants) {
    const std::string k = nvrtc_key(kSaxpy, o);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), k), 0) << what << " does not change the key";
    keys.push_back(k);
  }
  EXPECT_NE(nvrtc_key(kSaxpy + "\n", base), k0);

  // The options given to NVRTC, in order.
  NvrtcOptions all = base;
  all.fast_math = true;
  all.fmad = false;
  all.line_info = true;
  all.extra = {"-maxrregcount=64"};
  EXPECT_EQ(all.options(), (std::vector<std::string>{"-arch=sm_90", "-std=c++17", "-default-device",
                                                     "--use_fast_math", "--fmad=false", "-lineinfo",
                                                     "-maxrregcount=64"}));

  // A changed option compiles a new entry; fast math really changes the code of a division.
  const std::string div =
      "extern \"C\" __global__ void div(float* y) { y[threadIdx.x] = 1.0f / y[threadIdx.x]; }\n";
  NvrtcOptions fast = base;
  fast.fast_math = true;
  const NvrtcStats before = nvrtc_stats();
  const auto precise_cubin = nvrtc_compile(div, "div", base);
  const auto fast_cubin = nvrtc_compile(div, "div", fast);
  EXPECT_EQ(since(before).compiled, 2);
  EXPECT_NE(precise_cubin, fast_cubin);
}

TEST(NvrtcCompile, InMemoryHeadersAreIncluded) {
  TempDir cache;
  NvrtcOptions opt = nvrtc_options_for(cache);
  opt.headers = {{"dgmax_twice.h", "#pragma once\ninline double twice(double x) { return 2 * x; }\n"}};
  const std::string src =
      "#include \"dgmax_twice.h\"\n"
      "extern \"C\" __global__ void k(double* y) { y[threadIdx.x] = twice(y[threadIdx.x]); }\n";
  EXPECT_TRUE(is_elf(nvrtc_compile(src, "with_header", opt)));
}

TEST(NvrtcCompile, BadArchitectureIsAUserError) {
  TempDir cache;
  const UserError malformed =
      test::expect_user_error([&] { nvrtc_compile(kSaxpy, "saxpy", nvrtc_options_for(cache, "compute_90")); });
  EXPECT_NE(std::string(malformed.what()).find("invalid CUDA architecture 'compute_90'"), std::string::npos)
      << malformed.what();
  const UserError empty = test::expect_user_error([&] { nvrtc_compile(kSaxpy, "saxpy", nvrtc_options_for(cache, "")); });
  EXPECT_NE(std::string(empty.what()).find("invalid CUDA architecture ''"), std::string::npos) << empty.what();

  // Well formed, but no GPU has it: NVRTC rejects the option; the message lists what it supports.
  const UserError unknown =
      test::expect_user_error([&] { nvrtc_compile(kSaxpy, "saxpy", nvrtc_options_for(cache, "sm_12")); });
  const std::string msg = unknown.what();
  EXPECT_NE(msg.find("rejects the options for 'saxpy'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-arch=sm_12"), std::string::npos) << msg;
  EXPECT_NE(msg.find("architectures this NVRTC supports:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm_90"), std::string::npos) << msg;
}

}  // namespace
}  // namespace dgmax::codegen
