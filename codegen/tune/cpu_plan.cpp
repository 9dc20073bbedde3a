#include "codegen/tune/cpu_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "solver/util/env.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {

std::string CpuPlan::name() const {
  return fmt::format("f{}.w{}.c{}.v{}{}{}{}{}{}", fused ? 1 : 0, batch, elements_per_chunk, vector_bits, fma ? ".fma" : "",
                     fields_per_pass != 6 ? ".h" + std::to_string(fields_per_pass) : "", transposed_update ? ".tu" : "",
                     gather_instructions ? ".gv" : "", wide_trace_offsets ? ".o64" : "");
}

std::optional<CpuPlan> CpuPlan::parse(const std::string& text) {
  if (text.empty() || text.back() == '.') return std::nullopt;
  CpuPlan p;
  p.fma = false;
  std::istringstream in(text);
  std::string part;
  int field = 0, fused = 0;
  while (std::getline(in, part, '.')) {
    auto number = [&](char tag, int& out) {
      if (part.size() < 2 || part[0] != tag || part.size() > 5) return false;
      if (!std::all_of(part.begin() + 1, part.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
      out = std::atoi(part.c_str() + 1);
      return true;
    };
    if (field == 0 && number('f', fused)) ++field;
    else if (field == 1 && number('w', p.batch)) ++field;
    else if (field == 2 && number('c', p.elements_per_chunk)) ++field;
    else if (field == 3 && number('v', p.vector_bits)) ++field;
    else if (field == 4 && part == "fma") p.fma = true, ++field;
    // h1..h3 (6, the default, is written without a suffix)
    else if ((field == 4 || field == 5) && part.size() == 2 && part[0] == 'h' && part[1] >= '1' && part[1] <= '3')
      p.fields_per_pass = part[1] - '0', field = 6;
    else if (field >= 4 && field <= 6 && part == "tu") p.transposed_update = true, field = 7;
    else if (field >= 4 && field <= 7 && part == "gv") p.gather_instructions = true, field = 8;
    else if (field >= 4 && field <= 8 && part == "o64") p.wide_trace_offsets = true, field = 9;
    else return std::nullopt;
  }
  if (field < 4 || fused > 1 || p.batch < 1 || p.batch > 64 || p.elements_per_chunk < 0) return std::nullopt;
  if (p.vector_bits != 0 && p.vector_bits != 128 && p.vector_bits != 256 && p.vector_bits != 512) return std::nullopt;
  p.fused = fused == 1;
  return p;
}

int host_simd_bits() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 512;
  if (__builtin_cpu_supports("avx")) return 256;
#endif
  return 128;
}

CpuPlan default_cpu_plan(int N, bool single) { return default_cpu_plan_for_simd(N, single, host_simd_bits()); }

CpuPlan default_cpu_plan_for_simd(int N, bool single, int bits) {
  (void)N;
  CpuPlan p;
  p.batch = bits / (single ? 32 : 64);
  p.vector_bits = bits >= 256 ? bits : 0;  // 128: every x86-64 compiler's choice anyway
  p.fields_per_pass = bits >= 512 ? 6 : 3;    // 16 registers: see fields_per_pass
  p.transposed_update = single && bits == 256;  // where it measured faster: see transposed_update
  p.gather_instructions = single && bits >= 512;  // likewise: see gather_instructions
  // one range per thread: 1.3-1.6x at N = 1, 2 on 16 cores (bench/NOTES.md, "cpu: one range of
  // batches per thread")
  p.elements_per_chunk = 0;
  return p;
}

std::vector<CpuPlan> enumerate_cpu_plans(int N, bool single, int simd_bits) {
  const CpuPlan d = default_cpu_plan_for_simd(N, single, simd_bits);
  const int batch_bits = d.batch * (single ? 32 : 64);
  std::vector<CpuPlan> out{d};
  for (int fields : {6, 3})
    for (bool transposed : {false, true})
      for (bool gather : {false, true}) {
        // the gather instructions exist for one 256- or 512-bit register of lanes only
        if (gather && batch_bits != 256 && batch_bits != 512) continue;
        CpuPlan p = d;
        p.fields_per_pass = fields;
        p.transposed_update = transposed;
        p.gather_instructions = gather;
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
  return out;
}

bool needs_wide_trace_offsets(size_t state_entries) {
  return state_entries > static_cast<size_t>(std::numeric_limits<int>::max());
}

CpuPlan cpu_plan_fitting_state(CpuPlan plan, size_t state_entries) {
  if (needs_wide_trace_offsets(state_entries)) plan.wide_trace_offsets = true;
  return plan;
}

CpuPlan cpu_plan_for(int N, bool single, size_t state_entries) {
  const std::string forced = env("DGMAX_CPU_PLAN");  // debugging
  if (forced.empty()) return cpu_plan_fitting_state(default_cpu_plan(N, single), state_entries);
  const std::optional<CpuPlan> plan = CpuPlan::parse(forced);
  if (!plan)
    throw UserError("DGMAX_CPU_PLAN='" + forced + "' is no plan name", {},
                    "write fF.wW.cC.vV[.fma][.hH][.tu][.gv][.o64], e.g. f1.w8.c32.v512.fma (F: 1 fused, 0 four passes; W: elements "
                    "per batch; C: elements per OpenMP chunk, 0: one range per thread; V: vector bits, 0 = the compiler's "
                    "choice; H: fields per pass of the volume loop and the lift, 1..3, default 6; tu: the update from the transposed "
                    "right-hand side; gv: gather instructions for the exterior traces; o64: 64-bit exterior-trace offsets)");
  return cpu_plan_fitting_state(*plan, state_entries);
}

}  // namespace dgmax::codegen
