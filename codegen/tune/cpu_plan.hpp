// How the cpu backend's generated code slices an LSERK stage: plain data, written into the
// generated source as compile-time constants, named by a short string ("f1.w8.c32.v512.fma") in
// reports and in DGMAX_CPU_PLAN (an override for debugging), and parsed back.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dgmax::codegen {

struct CpuPlan {
  // One pass over the elements per LSERK stage (dgmax_stage: volume terms, face fluxes, lift, the
  // layer's terms and the update res = a·res + dt·rhs, q_out = q_in + b·res, batch by batch; the
  // state ping-pongs between two buffers because neighbours read q_in while q_out is written).
  // Else the four passes dgmax_volume, dgmax_surface, dgmax_lift, dgmax_update (with dgmax_pml
  // before them), which take the state through memory about four times per stage.
  bool fused = true;
  // Elements per batch of the fused stage: their state is copied element-interleaved ([6][Np][W])
  // so that the innermost loops run over the batch's elements (#pragma omp simd), each operator
  // entry loaded once for W elements x 6 fields. One SIMD register of reals is the natural choice
  // (8 doubles / 16 floats with AVX-512); 1 = no interleaving.
  int batch = 8;
  // Elements per OpenMP schedule(static, chunk) chunk (rounded up to whole batches); 0: one
  // contiguous range per thread, schedule(static).
  int elements_per_chunk = 0;
  // -mprefer-vector-width for the generated code, in bits (0: the compiler's choice). GCC tunes
  // many AVX-512 CPUs for 256-bit vectors, which splits a 512-bit batch in two and runs the
  // volume loop's 18 accumulators out of registers.
  int vector_bits = 0;
  // The operator products (Dr, Ds, Dt, LIFT times the state) as std::fma: one rounding instead of
  // two and one instruction instead of two. The sums then differ from the ref backend's in the
  // last bits only (the agreement tests' tolerances hold). The flux and the rest keep separate
  // multiplies and adds (-ffp-contract=off, host_jit.hpp).
  bool fma = true;
  // The fused stage's exterior-trace offsets (tracew) as 64-bit products k'·6·Np + i' computed from
  // the node k'·Np + i'. Else the offset itself is stored as an int, and the gather of a face
  // node's exterior trace is one vector gather with 32-bit indices (8 or 16 lanes) instead of pairs
  // of 4-lane ones with 64-bit indices: 1.05x at N = 1, 1.01-1.03x at N = 2..4 on one core
  // (bench/NOTES.md, "cpu: the face traces read in place"). Needed when the state (ghosts included)
  // has 2^31 entries or more (cpu_plan_fitting_state sets it then).
  bool wide_trace_offsets = false;
  // Fields per pass of the fused stage's volume loop and of its lift (6, 3, 2 or 1): each volume
  // pass holds 3 x this many accumulators of one batch, each lift pass 3 rows x this many. 6 needs
  // 18 of them plus the state's 6 and the operators' 3 in registers, more than AVX2's 16: in passes
  // of 3 the stage ran 1.03-1.14x faster at N = 3..6 on the AVX2 dev VM (the volume loop, bench/
  // NOTES.md, "cpu: 256-bit vectors by default on AVX2 hosts"), and the lift's passes gave
  // 1.02-1.07x more ("the H200 again: ... the cpu's h3").
  int fields_per_pass = 6;
  // The fused stage's update (res = a·res + dt·rhs, q_out = q + b·res, element by element) reads the
  // batch's right-hand side transposed first, in W x W tiles in registers (W a power of two), as
  // whole vectors; else it reads it at a stride of W, one lane at a time. Measured 1.12x at fp32
  // N = 1..4 on the AVX2 dev VM (W = 8), level in fp64 there (W = 4), and 0.92x in both precisions
  // on the 16-core AVX-512 host (four alternated rounds, bench/NOTES.md, "the cpu stage on the
  // 16-core host: `tu` measured"): the
  // default for fp32 at 256 bits only.
  bool transposed_update = false;
  // The fused stage gathers each field's exterior trace of a face node with one gather instruction
  // (AVX-512 `vgatherdpd`/`vgatherdps` where the batch is one 512-bit register, AVX2's where it is
  // one 256-bit register; 32-bit offsets, so not with o64), else lane by lane into a register (W
  // loads and W - 1 inserts, which at 512 bits share the second FMA port). Where neither
  // instruction fits the batch the lane-by-lane code is used. Mostly a loss on the AVX2 dev VM
  // (AMD: microcoded gathers; medians 0.77-0.97x over four rounds, 0.77-1.18x in a shorter run). On
  // the 16-core AVX-512 host (Intel), medians of 4-6 rounds alternated with the default: fp32 (16
  // lanes, about 15 shuffles per field saved) 1.14 / 1.00 / 1.00 / 1.07 / 1.05 / 1.02x at N = 1..6,
  // fp64 (8 lanes, 7 saved) 0.89-0.97x at N = 2..5 (bench/NOTES.md, "`gv` on the 16-core host"):
  // the default for fp32 at 512 bits only.
  bool gather_instructions = false;

  // "f1.w8.c32.v512.fma.h3.tu.gv.o64": f1 fused / f0 four passes, w batch, c chunk, v vector bits (v0:
  // the compiler's choice), "fma" when set, "hF" with F fields per volume and lift pass (absent: 6),
  // "tu" with the transposed update, "gv" with gather instructions, "o64" with wide trace offsets.
  std::string name() const;
  static std::optional<CpuPlan> parse(const std::string& name);
  // Whether `o`'s kernels read and write the backend's data as this plan lays it out (the same
  // passes, batch width, chunks' first touch and trace offsets): then a backend can swap to them
  // without making its arrays again.
  bool same_data_layout(const CpuPlan& o) const {
    return fused == o.fused && batch == o.batch && elements_per_chunk == o.elements_per_chunk &&
           wide_trace_offsets == o.wide_trace_offsets;
  }
  bool operator==(const CpuPlan& o) const {
    return fused == o.fused && batch == o.batch && elements_per_chunk == o.elements_per_chunk &&
           vector_bits == o.vector_bits && fma == o.fma && wide_trace_offsets == o.wide_trace_offsets &&
           fields_per_pass == o.fields_per_pass && transposed_update == o.transposed_update &&
           gather_instructions == o.gather_instructions;
  }
};

// The widest SIMD registers of this host the compiler may use with -march=native: 512 (AVX-512F),
// 256 (AVX) or 128 bits.
int host_simd_bits();

// The plan dgmax uses on this host for order N (measured: bench/NOTES.md, 2026-11-25 and -26): fused,
// one SIMD register of elements per batch, 512-bit vectors where the host has them, one contiguous
// range of batches per thread (the neighbours' traces along the element curve stay in the
// thread's own caches; round-robin chunks of 4 batches put them in other cores').
// Vectors as wide as the host's registers, also at 256 bits: GCC tunes some AVX2 CPUs (-march=native
// giving znver1, e.g. the AMD EPYC dev VM) for 128-bit vectors, which halved the stage's width there
// (v256 ran 1.15-1.5x the compiler's choice at N = 1..6, bench/NOTES.md, "cpu: 256-bit vectors by
// default on AVX2 hosts"). With
// 16 vector registers (256 bits and less) the volume loop runs in passes of 3 fields (h3); fp32
// at 256 bits updates from the transposed right-hand side (tu).
CpuPlan default_cpu_plan(int N, bool single);
// The same for a host whose widest registers have `simd_bits` (512, 256 or 128).
CpuPlan default_cpu_plan_for_simd(int N, bool single, int simd_bits);

// The plans `dgmax tune --backend cpu` times for order N on a host whose widest registers have
// `simd_bits`: the default first, then its neighbours in the options whose worth measured
// differently from host to host (bench/NOTES.md): the volume loop and lift in passes of 6 or 3
// fields, the transposed update, and gather instructions where the batch is one 256- or 512-bit
// register. One register of elements per batch (two lost 10-15% on both hosts measured), one range
// of batches per thread. No duplicates.
std::vector<CpuPlan> enumerate_cpu_plans(int N, bool single, int simd_bits);

// Whether a state of `state_entries` reals (K·6·Np, ghosts included) needs wide trace offsets:
// the fused stage's int offsets reach state_entries - 1.
bool needs_wide_trace_offsets(size_t state_entries);
// `plan` with wide trace offsets when the state needs them (else as it is).
CpuPlan cpu_plan_fitting_state(CpuPlan plan, size_t state_entries);

// The default plan, or the one DGMAX_CPU_PLAN names (a UserError when it does not parse), fitted
// to a state of `state_entries` reals. (Runs take a tuned plan before the default:
// dgmax::cpu_plan_for_problem, solver/backends/cpu/cpu_tuner.hpp, which also says which it took.)
CpuPlan cpu_plan_for(int N, bool single, size_t state_entries);

}  // namespace dgmax::codegen
