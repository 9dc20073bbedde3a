// Every plan of the cuda plan space that is not refused compiles with NVRTC for sm_90 (with a
// current source and incident fields: the stage kernel's largest form), so CI catches a plan whose
// generated source is broken without a GPU. The plan's text does not depend on the order beyond
// its sizes, nor on its number of elements per block beyond a size (outside the tensor-core
// plans): every plan's source at N = 2 and N = 5 in fp64 and fp32 is generated, and each form is
// compiled once per precision, at one of the two orders, alternating (2-4 s of NVRTC per compile
// on 2 cores; every plan compiled was 6 minutes of CI). The default plans of N = 1..8 are compiled
// by NvrtcKernels.
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "codegen/emit/cuda_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "codegen/tune/cuda_plan.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/kernel_spec_builder.hpp"

using namespace dgmax;

namespace {

// Section `name` of a 64-bit ELF image (a cubin), if it has one.
std::optional<Elf64_Shdr> elf_section(const std::vector<char>& elf, const std::string& name) {
  Elf64_Ehdr eh;
  if (elf.size() < sizeof eh) return std::nullopt;
  std::memcpy(&eh, elf.data(), sizeof eh);
  auto section = [&](int i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, elf.data() + eh.e_shoff + static_cast<size_t>(i) * eh.e_shentsize, sizeof sh);
    return sh;
  };
  if (eh.e_shoff + static_cast<size_t>(eh.e_shnum) * eh.e_shentsize > elf.size()) return std::nullopt;
  const Elf64_Shdr names = section(eh.e_shstrndx);
  for (int i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (names.sh_offset + sh.sh_name < elf.size() && name == elf.data() + names.sh_offset + sh.sh_name) return sh;
  }
  return std::nullopt;
}

// The size of section `name`, or -1 when there is none. A kernel's static shared memory is its
// section ".nv.shared.<kernel>" (no bits in the file, just a size).
long elf_section_size(const std::vector<char>& elf, const std::string& name) {
  const std::optional<Elf64_Shdr> sh = elf_section(elf, name);
  return sh ? static_cast<long>(sh->sh_size) : -1;
}

// The registers per thread of `kernel` in a cubin, what the driver reports as NUM_REGS, or -1:
// the EIATTR_REGCOUNT attribute (0x2f: the kernel's symbol index, then the count) of the cubin's
// .nv.info section, whose entries are a format byte, an attribute byte and, for format 4, a 16-bit
// size and that many bytes (formats 2, 3: 2 bytes of value; 1: none). The kernel's symbol index is
// the sh_info of its code section .text.<kernel>.
int cubin_registers(const std::vector<char>& cubin, const std::string& kernel) {
  const std::optional<Elf64_Shdr> text = elf_section(cubin, ".text." + kernel), info = elf_section(cubin, ".nv.info");
  if (!text || !info || info->sh_offset + info->sh_size > cubin.size()) return -1;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(cubin.data()) + info->sh_offset;
  for (size_t at = 0; at + 4 <= info->sh_size;) {
    const int format = b[at], attribute = b[at + 1];
    if (format != 4) {
      at += format == 1 ? 2 : 4;
      continue;
    }
    const size_t size = b[at + 2] | (b[at + 3] << 8);
    uint32_t payload[2] = {0, 0};
    if (attribute == 0x2f && size == 8 && at + 12 <= info->sh_size) {
      std::memcpy(payload, b + at + 4, 8);
      if (payload[0] == text->sh_info) return static_cast<int>(payload[1]);
    }
    at += 4 + size;
  }
  return -1;
}

}  // namespace

// What the host counts as a one-node-per-thread plan's static shared memory (its refusals at 48 KB
// go by it) is what the compiled kernels declare: the .nv.shared section of the plan's largest
// kernel in the cubin, less the 1 KB that sm_80 and newer reserve per block (in the section, not in
// the kernel's attribute), up to the alignment of its arrays (16 bytes each at most). Plans at
// N = 2 and 4 (Np = 10, 35: state rows padded in fp32) in both precisions, with J (staged by the
// stage kernel).
TEST(NvrtcPlans, StaticSharedMemoryIsWhatThePlanCounts) {
  const long reserved = 1024;
  int checked = 0;
  for (int N : {2, 4}) {
    const Problem p = test::mixed_problem(N, N);
    for (bool single : {false, true}) {
      codegen::KernelSpec spec = make_kernel_spec(p, single);
      for (const char* name : {"f2.b6.t2.T", "f2.b4.t1.T.S", "f2.b4.t1.T.V", "f1.b4.t2.T.S", "f0.b4.t1.T"}) {
        spec.plan.cuda = *codegen::CudaPlan::parse(name);
        if (!codegen::cuda_plan_rejection(spec.plan.cuda, N, single).empty()) continue;  // fp64 N = 4 with S
        ++checked;
        codegen::NvrtcOptions opt;
        opt.arch = "sm_90";
        const std::vector<char> cubin = codegen::nvrtc_compile(
            codegen::generate_cuda_source(spec), "shared_N" + std::to_string(N) + (single ? "_fp32_" : "_fp64_") + name,
            opt);
        long declared = 0;
        for (const char* kernel : {"dgmax_stage", "dgmax_volume", "dgmax_lift", "dgmax_surface_lift"})
          declared = std::max(declared, elf_section_size(cubin, std::string(".nv.shared.") + kernel) - reserved);
        const long counted = spec.plan.cuda.shared_bytes(p.Np(), p.Nfp(), single, /*with_current=*/true);
        EXPECT_GE(declared, counted) << "N = " << N << (single ? " fp32 " : " fp64 ") << name;
        EXPECT_LT(declared, counted + 16 * 5) << "N = " << N << (single ? " fp32 " : " fp64 ") << name;
      }
    }
  }
  EXPECT_GE(checked, 18);
}

// A register cap (R) holds in the compiled stage kernel, where the uncapped plan uses more: fp32
// N = 3, `f2.b6.t2.T` (74 registers on the H200 without J) against R64 and R48.
TEST(NvrtcPlans, RegisterCapHoldsInTheCompiledKernel) {
  const Problem p = test::mixed_problem(3, 3);
  codegen::KernelSpec spec = make_kernel_spec(p, true);
  codegen::NvrtcOptions opt;
  opt.arch = "sm_90";
  std::map<int, int> registers;  // cap (0: none) -> the stage kernel's registers
  for (int cap : {0, 64, 48}) {
    spec.plan.cuda = *codegen::CudaPlan::parse("f2.b6.t2.T");
    spec.plan.cuda.max_registers = cap;
    ASSERT_EQ(codegen::cuda_plan_rejection(spec.plan.cuda, 3, true), "");
    const std::string source = codegen::generate_cuda_source(spec);
    EXPECT_NE(source.find(cap ? fmt::format("#define NODE_KERNEL_BOUNDS __launch_bounds__(NT, {})",
                                            spec.plan.cuda.min_blocks_per_sm(p.Np(), true))
                              : std::string("#define NODE_KERNEL_BOUNDS __launch_bounds__(NT)\n")),
              std::string::npos)
        << cap;
    registers[cap] = cubin_registers(codegen::nvrtc_compile(source, "regcap_R" + std::to_string(cap), opt), "dgmax_stage");
  }
  std::printf("fp32 N = 3 f2.b6.t2.T, dgmax_stage: %d registers, %d with R64, %d with R48\n", registers[0],
              registers[64], registers[48]);
  EXPECT_GT(registers[0], 64) << "the uncapped stage: the cap would change nothing";
  EXPECT_LE(registers[64], 64);
  EXPECT_LE(registers[48], 48);
  EXPECT_GT(registers[48], 0);
}

TEST(NvrtcPlans, EveryAcceptedPlanCompiles) {
  const int orders[] = {2, 5};
  // A plan's form: all but its number of elements per block, which is a size in the source (the
  // block's thread count and array extents) except in tensor-core plans (the MMA tile's columns).
  auto form = [](codegen::CudaPlan q) {
    if (!q.mma) q.elements_per_block = 0;
    return q;
  };
  for (bool single : {false, true}) {
    codegen::KernelSpec specs[2] = {make_kernel_spec(test::mixed_problem(2, 2), single),
                                    make_kernel_spec(test::mixed_problem(5, 5), single)};
    // each form -> the (order index, plan) pairs where the space has it, in enumeration order
    std::vector<std::pair<codegen::CudaPlan, std::vector<std::pair<int, codegen::CudaPlan>>>> forms;
    int accepted = 0;
    for (int o : {0, 1})
      for (const codegen::PlanCandidate& c : codegen::enumerate_cuda_plans(orders[o], single)) {
        if (!c.rejected.empty()) continue;
        ++accepted;
        codegen::KernelSpec& spec = specs[o];
        spec.plan.cuda = c.plan;  // every plan's source is generated and names its plan
        EXPECT_NE(codegen::generate_cuda_source(spec).find("// Plan " + c.plan.name() + ":"), std::string::npos)
            << "N = " << orders[o] << " plan " << c.plan.name();
        auto it = std::find_if(forms.begin(), forms.end(), [&](const auto& f) { return f.first == form(c.plan); });
        if (it == forms.end()) forms.push_back({form(c.plan), {{o, c.plan}}});
        else it->second.push_back({o, c.plan});
      }
    int compiled[2] = {0, 0};
    for (size_t i = 0; i < forms.size(); ++i) {
      const auto& at = forms[i].second;
      const auto& [o, plan] = at[i % at.size()];  // a form at both orders: alternate
      codegen::KernelSpec& spec = specs[o];
      spec.plan.cuda = plan;
      codegen::NvrtcOptions opt;
      opt.arch = codegen::cuda_plan_arch(plan, "sm_90");  // X plans: sm_90a
      const std::string N = std::to_string(orders[o]);
      const std::vector<char> cubin = codegen::nvrtc_compile(codegen::generate_cuda_source(spec),
                                                             "plan_N" + N + (single ? "_fp32_" : "_fp64_") + plan.name(), opt);
      ASSERT_GE(cubin.size(), 4u);
      EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << "N = " << N << " plan " << plan.name();
      ++compiled[o];
    }
    std::printf("%s: %d plans accepted at N = 2 and 5, %zu forms, compiled %d at N = 2 and %d at N = 5\n",
                single ? "fp32" : "fp64", accepted, forms.size(), compiled[0], compiled[1]);
    // the space is not empty at either order (a refusal of everything would pass vacuously)
    EXPECT_GE(compiled[0], 10) << (single ? "fp32" : "fp64") << " N = 2";
    EXPECT_GE(compiled[1], 10) << (single ? "fp32" : "fp64") << " N = 5";
  }
}

// The tensor-core stage's shape (m tiles, k steps, padding rows) depends on the order: its
// smallest plans (B at once and chunked) and the default form (chunked, staged: its face data
// staged with the state), also with wide tiles (fp64 DMMA) and with the neighbours' traces gathered
// asynchronously (G) and fp32 as warpgroup MMAs (X, sm_90a), with sources and incident fields.
// Every form's source is generated and checked at every order N = 1..8; it is compiled at the
// smallest and largest shapes (N = 1, 8) and at one order between, a different one for each form,
// so that every order is compiled in both precisions (NVRTC is 2-3 s per compile on 2 cores).
TEST(NvrtcPlans, TensorCorePlanCompilesAtEveryOrder) {
  int compiled[8][2] = {};  // [N - 1][fp32]
  for (int N = 1; N <= 8; ++N) {
    const Problem p = test::mixed_problem(N, N);
    for (bool single : {false, true}) {
      codegen::KernelSpec spec = make_kernel_spec(p, single);
      std::vector<const char*> names = {"f2.b4.t1.M",         "f2.b4.t1.M.C",      "f2.b4.t1.M.C.A",
                                        "f2.b4.t1.M.W.C.A",   "f2.b4.t1.M.W.C.A.G", "f2.b4.t1.M.C.A.G"};
      if (single)  // warpgroup MMAs (sm_90a), 24 and 48 columns, also unchunked
        names.insert(names.end(), {"f2.b4.t1.M.X.C.A", "f2.b8.t1.M.X.C.A.G", "f2.b8.t1.M.X.C"});
      for (size_t form = 0; form < names.size(); ++form) {
        const char* name = names[form];
        spec.plan.cuda = *codegen::CudaPlan::parse(name);
        ASSERT_EQ(codegen::cuda_plan_rejection(spec.plan.cuda, N, single), "") << "N = " << N << " " << name;
        const std::string src = codegen::generate_cuda_source(spec);
        const bool x = spec.plan.cuda.mma_warpgroup;
        const std::string wg = std::string("wgmma.mma_async.sync.aligned.m64n") +
                               (spec.plan.cuda.elements_per_block == 4 ? "24" : "48") + "k8.f32.tf32.tf32";
        const char* op = spec.plan.cuda.mma_wide ? "mma.sync.aligned.m16n8k4.row.col.f64"  // fp64 DMMA in both
                         : x                     ? wg.c_str()
                         : single                ? "mma.sync.aligned.m16n8k8.row.col.f32.tf32"
                                                 : "mma.sync.aligned.m8n8k4.row.col.f64";
        EXPECT_NE(src.find(op), std::string::npos) << name;
        // G: the traces copied with cp.async into B's flux rows, the fluxes staged from there
        const bool g = spec.plan.cuda.mma_neighbours;
        EXPECT_NE(src.find(g ? "#define MMA_NB 1" : "#define MMA_NB 0"), std::string::npos) << name;
        const int between = 2 + static_cast<int>(form + (single ? 3 : 0)) % 6;  // N = 2..7
        if (N != 1 && N != 8 && N != between) continue;
        ++compiled[N - 1][single];
        codegen::NvrtcOptions opt;
        opt.arch = codegen::cuda_plan_arch(spec.plan.cuda, "sm_90");
        EXPECT_EQ(opt.arch, x ? "sm_90a" : "sm_90") << name;
        const std::vector<char> cubin = codegen::nvrtc_compile(
            src, "plan_N" + std::to_string(N) + (single ? "_fp32_" : "_fp64_") + name, opt);
        ASSERT_GE(cubin.size(), 4u);
        EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << "N = " << N << " " << name;
      }
    }
  }
  for (int N = 1; N <= 8; ++N)
    for (int single : {0, 1}) EXPECT_GE(compiled[N - 1][single], 1) << "N = " << N << (single ? " fp32" : " fp64");
}

// Element-field rows (E, sm_90a): one, two and three warpgroups compile at every order where their
// shared memory fits (the operators stay in it); elsewhere they are refused for it. The wgmma's
// columns are the nodes, padded to 8.
TEST(NvrtcPlans, ElementFieldRowPlansCompileWhereTheyFit) {
  int compiled = 0;
  for (int N = 1; N <= 8; ++N) {
    const Problem p = test::mixed_problem(N, N);
    codegen::KernelSpec spec = make_kernel_spec(p, true);
    // (plan, the highest order up to which it must fit): one to three warpgroups on one group, and
    // two to four groups per block sharing the operators (E2..E4, named barriers)
    const std::pair<const char*, int> plans[] = {{"f2.b10.t1.M.X.E.A", 5},  {"f2.b20.t1.M.X.E.A", 4},
                                                 {"f2.b30.t1.M.X.E.A", 4},  {"f2.b10.t1.M.X.E2.A", 4},
                                                 {"f2.b10.t1.M.X.E3.A", 4}, {"f2.b10.t1.M.X.E4.A", 4}};
    for (const auto& [name, fits_to] : plans) {
      spec.plan.cuda = *codegen::CudaPlan::parse(name);
      const std::string why = codegen::cuda_plan_rejection(spec.plan.cuda, N, true);
      if (!why.empty()) {
        EXPECT_NE(why.find("shared memory"), std::string::npos) << "N = " << N << " " << name << ": " << why;
        EXPECT_GT(N, fits_to) << name << " fits up to N = " << fits_to << " at least";
        continue;
      }
      const std::string src = codegen::generate_cuda_source(spec);
      const int npk = (p.Np() + 7) / 8 * 8;
      EXPECT_NE(src.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(npk) + "k8.f32.tf32.tf32"),
                std::string::npos) << name;
      EXPECT_NE(src.find("#define MMA_E 1"), std::string::npos) << name;
      const int groups = spec.plan.cuda.state_row_groups;
      EXPECT_NE(src.find("GPB = " + std::to_string(groups) + ","), std::string::npos) << name;
      codegen::NvrtcOptions opt;
      opt.arch = codegen::cuda_plan_arch(spec.plan.cuda, "sm_90");
      EXPECT_EQ(opt.arch, "sm_90a") << name;
      const std::vector<char> cubin =
          codegen::nvrtc_compile(src, "plan_N" + std::to_string(N) + "_fp32_" + name, opt);
      ASSERT_GE(cubin.size(), 4u);
      EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF") << "N = " << N << " " << name;
      ++compiled;
    }
  }
  EXPECT_GE(compiled, 24) << "N = 1..4 with 1, 2 and 3 warpgroups and 1 to 4 groups, N = 5 with one";
  // two groups at N = 5 fit without J's staging (the fp32 default there on sm_90)
  Problem p = test::mixed_problem(5, 5);
  p.current = SpaceTimeField{};
  codegen::KernelSpec spec = make_kernel_spec(p, true);
  spec.plan.cuda = *codegen::CudaPlan::parse("f2.b10.t1.M.X.E2.A");
  EXPECT_TRUE(spec.plan.cuda == codegen::default_cuda_plan(5, true, 90, false));
  ASSERT_EQ(codegen::cuda_plan_rejection(spec.plan.cuda, 5, true, {}, false), "");
  EXPECT_NE(codegen::cuda_plan_rejection(spec.plan.cuda, 5, true, {}, true), "");
  const std::string src = codegen::generate_cuda_source(spec);
  EXPECT_NE(src.find("GPB = 2,"), std::string::npos);
  EXPECT_EQ(src.find("#define HAS_CURRENT 1"), std::string::npos);
  codegen::NvrtcOptions opt;
  opt.arch = "sm_90a";
  const std::vector<char> cubin = codegen::nvrtc_compile(src, "plan_N5_fp32_E2_noJ", opt);
  ASSERT_GE(cubin.size(), 4u);
  EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF");
}
