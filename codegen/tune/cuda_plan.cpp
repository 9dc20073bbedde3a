#include "codegen/tune/cuda_plan.hpp"

#include "codegen/emit/kernel_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace dgmax::codegen {
namespace {

int nodes(int N) { return (N + 1) * (N + 2) * (N + 3) / 6; }
int face_nodes(int N) { return (N + 1) * (N + 2) / 2; }

// The B fragment slot (8-byte entries, before padding) of row r, column col of a staged chunk,
// as the generated bslot() computes it: DMMA (fp64, and fp32 W plans) tiles of 4 rows, split-TF32
// m16n8k8 tiles of 8 rows in two fragment registers.
int b_slot(int r, int col, int n_tiles, bool tf32) {
  if (tf32) return ((r >> 3) * n_tiles + (col >> 3)) * 64 + ((r >> 2) & 1) * 32 + (col & 7) * 4 + (r & 3);
  return ((r >> 2) * n_tiles + (col >> 3)) * 32 + (col & 7) * 4 + (r & 3);
}

// The fp32 stage with element-field rows (E), 10 elements per group (60 of a warpgroup's 64 rows),
// `groups` groups per block.
CudaPlan element_field_row_plan(int groups) {
  CudaPlan p;
  p.fusion = 2;
  p.elements_per_block = 10;
  p.mma = p.mma_warpgroup = p.mma_state_rows = p.mma_staged = true;
  p.state_row_groups = groups;
  return p;
}

}  // namespace

// Shared-memory wavefronts of the B staging stores with `pad` entries after every 32: thread n of
// the loop over rows x elements (rows per element: NPK for the curl rows, NFK for the fluxes)
// stores its row's six columns, one store instruction per column (the block's threads are a
// multiple of 32, so half warps start at multiples of 16). An 8-byte store is served in
// half warps of 16 lanes, each taking as many wavefronts as the most distinct words in one of the
// 16 bank pairs.
long mma_b_store_wavefronts(const MmaShape& m, int epb, bool tf32, int pad) {
  long total = 0;
  for (int rows : {m.np_padded, m.nf_padded})
    for (int base = 0; base < epb * rows; base += 16)
      for (int c = 0; c < 6; ++c) {
        int words[16][16], count[16] = {0};
        for (int n = base; n < std::min(base + 16, epb * rows); ++n) {
          const int e = n / rows, r = n % rows, slot = b_slot(r, 6 * e + c, m.n_tiles, tf32);
          const int word = slot + (slot >> 5) * pad, pair = word % 16;
          if (std::find(words[pair], words[pair] + count[pair], word) == words[pair] + count[pair])
            words[pair][count[pair]++] = word;
        }
        total += *std::max_element(count, count + 16);
      }
  return total;
}

MmaShape mma_shape(int Np, int Nfp, int elements_per_block, bool single, bool wide, bool warpgroup, bool state_rows) {
  MmaShape m;
  const bool tf32 = single && !wide;  // else fp64 DMMA (fp32 data converted with W)
  m.rows = single || wide ? 16 : 8;
  m.k_step = tf32 ? 8 : 4;
  m.np_padded = (Np + m.k_step - 1) / m.k_step * m.k_step;
  m.nf_padded = (4 * Nfp + m.k_step - 1) / m.k_step * m.k_step;
  m.k_rows = 3 * m.np_padded + m.nf_padded;
  m.chunk_rows = std::max(m.np_padded, m.nf_padded);
  m.m_tiles = (Np + m.rows - 1) / m.rows;
  m.k_steps = m.k_rows / m.k_step;
  m.n_tiles = (6 * elements_per_block + 7) / 8;
  m.b_pad = 0;
  if (warpgroup && state_rows) {  // E: rows the element-fields (whole warpgroups), columns the nodes
    m.m_tiles = 4 * ((6 * elements_per_block + 63) / 64);
    m.n_tiles = m.np_padded / 8;
    return m;
  }
  if (warpgroup) {  // wgmma: whole warpgroups of 4 row tiles; B in its core-matrix layout, unpadded
    m.m_tiles = (m.m_tiles + 3) / 4 * 4;
    return m;
  }
  // the smallest pad with the fewest store wavefronts (unpadded, consecutive nodes land 4 rows
  // apart in the fragment order, a multiple of 32 entries: up to 4-way conflicts per half warp)
  m.b_pad = 0;
  long best = -1;
  for (int pad = 0; pad < 32; ++pad) {
    const long w = mma_b_store_wavefronts(m, elements_per_block, tf32, pad);
    if (best < 0 || w < best) best = w, m.b_pad = pad;
  }
  return m;
}

int mma_flux_row_stride(const MmaShape& m) { return m.nf_padded + 4; }  // NFK is a multiple of 8

MmaShape mma_shape(const CudaPlan& plan, int Np, int Nfp, bool single) {
  return mma_shape(Np, Nfp, plan.elements_per_block, single, plan.mma_wide, plan.mma_warpgroup, plan.mma_state_rows);
}

StagedRows staged_rows(int Np, int Nfp, bool single) {
  const int vw = single ? 4 : 1, flux = 4 * Nfp * 6;  // 4 Nfp is even: whole vectors
  return {vw, (Np + vw - 1) / vw * vw, flux / vw % 2 ? flux : flux + vw};
}

int CudaPlan::shared_bytes(int Np, int Nfp, bool single, bool with_current) const {
  const int w = single ? 4 : 8, epb = elements_per_block;
  // the group's face data (A plans): geometry records, neighbours, neighbour nodes (group_faces_t)
  const int faces = epb * (kGeoStride * w + 4 * 4 + 4 * Nfp * 4);
  const int current = with_current ? epb * 3 * Np * w : 0;
  if (mma && mma_state_rows) {  // E: the operators' high and low parts [2][3 NPK + NFK][NPK], the face
                                // fluxes [6 EPB][NFK + 4], res [EPB][6][NP], two groups' states
                                // [EPB][6][NP] and face data (each rounded up to 16 bytes; one
                                // group's with several teams, E2..E4), J
    // (per team of the block, E2..E4: all but the operators)
    const MmaShape m = mma_shape(*this, Np, Nfp, single);
    const int group = (epb * 6 * Np * w + faces + 15) / 16 * 16, buffers = state_row_groups > 1 ? 1 : 2;
    const int per_group =
        (6 * epb * mma_flux_row_stride(m) * 4 + epb * 6 * Np * w + buffers * group + current + 15) / 16 * 16;
    return 2 * m.k_rows * m.np_padded * 4 + state_row_groups * per_group;
  }
  if (mma) {  // B fragments: 8 bytes (a double, or a float's TF32 high and low parts) per entry
              // of [k_rows or chunk_rows][6 EPB], padded; then (A) q and res [2][EPB][6][NP] and the
              // group's face data; then J [EPB][3][NP]
    // (B rounded up to 16 bytes: the staged state is copied 16 bytes at a time)
    const MmaShape m = mma_shape(*this, Np, Nfp, single);
    const int b_bytes = static_cast<int>(m.b_entries(mma_chunked ? m.chunk_rows : m.k_rows)) * 8;
    return (b_bytes + 15) / 16 * 16 + (mma_staged ? 2 * epb * 6 * Np * w + faces : 0) + current;
  }
  const StagedRows rows = staged_rows(Np, Nfp, single);
  const int state = epb * (vector_loads ? Np * (single ? 8 : 6) : 6 * rows.state_row) * w,
            fluxes = epb * rows.flux_row * w;
  const int ops = shared_ops ? (vector_loads ? 4 : 3) * Np * Np * w : 0;
  const int res = epb * 6 * Np * w;                       // the stage's res entries (staged)
  // the faces' flux invariants (block_fluxes, wide faces only)
  const int hoisted = cuda_wide_faces(Nfp) ? epb * 4 * kCudaHoistedFluxValues * w : 0;
  if (fusion >= 2) return state + res + fluxes + hoisted + current + ops;  // dgmax_stage
  return std::max(state + ops, fluxes + (fusion == 1 ? hoisted : 0));  // dgmax_volume; surface+lift or lift
}

std::string CudaPlan::name() const {
  return fmt::format("f{}.b{}.t{}{}{}{}{}{}{}{}{}{}{}{}{}{}", fusion, elements_per_block, elements_per_thread,
                     transposed ? ".T" : "", shared_ops ? ".S" : "", vector_loads ? ".V" : "", mma ? ".M" : "",
                     mma_wide ? ".W" : "", mma_split_columns ? ".H" : "", mma_warpgroup ? ".X" : "",
                     mma_state_rows ? (state_row_groups > 1 ? fmt::format(".E{}", state_row_groups) : ".E") : "",
                     mma_chunked ? ".C" : "", mma_staged ? ".A" : "",
                     mma_neighbours ? ".G" : "", curved_batch > 0 ? fmt::format(".Q{}", curved_batch) : "",
                     max_registers > 0 ? fmt::format(".R{}", max_registers) : "");
}

namespace {

// Blocks of `threads` threads with `registers` each that the register file of an SM (64K 32-bit
// registers) holds, the block's threads rounded up to whole warps. 0: not one.
int register_file_blocks(int registers, int threads) { return 65536 / (registers * 32 * ((threads + 31) / 32)); }

}  // namespace

int CudaPlan::min_blocks_per_sm(int Np, bool single) const {
  if (max_registers <= 0) return 1;
  // at most 32 resident blocks per SM (sm_80, sm_90)
  return std::clamp(register_file_blocks(max_registers, threads_per_block(Np, single)), 1, 32);
}

std::optional<CudaPlan> CudaPlan::parse(const std::string& text) {
  if (text.empty() || text.back() == '.') return std::nullopt;
  CudaPlan p;
  std::istringstream in(text);
  std::string part;
  int field = 0;
  bool seen_T = false, seen_S = false, seen_V = false, seen_M = false, seen_W = false, seen_C = false,
       seen_A = false, seen_G = false, seen_H = false, seen_X = false, seen_E = false, seen_Q = false,
       seen_R = false;
  while (std::getline(in, part, '.')) {
    if (part.empty()) return std::nullopt;
    auto number = [&](char tag, int& out) {
      if (part[0] != tag || part.size() < 2 || part.size() > 5) return false;
      if (!std::all_of(part.begin() + 1, part.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
      out = std::atoi(part.c_str() + 1);
      return true;
    };
    if (field == 0 && number('f', p.fusion)) ++field;
    else if (field == 1 && number('b', p.elements_per_block)) ++field;
    else if (field == 2 && number('t', p.elements_per_thread)) ++field;
    else if (field == 3 && part == "T" && !seen_T && !seen_S && !seen_V && !seen_M) p.transposed = seen_T = true;
    else if (field == 3 && part == "S" && !seen_S && !seen_V && !seen_M) p.shared_ops = seen_S = true;
    else if (field == 3 && part == "V" && !seen_V && !seen_M) p.vector_loads = seen_V = true;
    else if (field == 3 && part == "M" && !seen_M) p.mma = seen_M = true;
    else if (field == 3 && part == "W" && seen_M && !seen_W && !seen_H && !seen_X && !seen_C && !seen_A && !seen_G)
      p.mma_wide = seen_W = true;
    else if (field == 3 && part == "H" && seen_W && !seen_H && !seen_X && !seen_C && !seen_A && !seen_G)
      p.mma_split_columns = seen_H = true;
    else if (field == 3 && part == "X" && seen_M && !seen_X && !seen_C && !seen_A && !seen_G)
      p.mma_warpgroup = seen_X = true;
    else if (field == 3 && part[0] == 'E' && (part.size() == 1 || (part.size() == 2 && part[1] >= '2' && part[1] <= '4')) &&
             seen_X && !seen_E && !seen_C && !seen_A && !seen_G) {
      p.mma_state_rows = seen_E = true;
      p.state_row_groups = part.size() == 2 ? part[1] - '0' : 1;
    }
    else if (field == 3 && part == "C" && seen_M && !seen_C && !seen_A && !seen_G) p.mma_chunked = seen_C = true;
    else if (field == 3 && part == "A" && seen_M && !seen_A && !seen_G) p.mma_staged = seen_A = true;
    else if (field == 3 && part == "G" && seen_M && !seen_G) p.mma_neighbours = seen_G = true;
    else if (field == 3 && !seen_Q && !seen_R && number('Q', p.curved_batch)) seen_Q = true;
    else if (field == 3 && !seen_R && number('R', p.max_registers)) seen_R = true;
    else return std::nullopt;
    if (seen_R && part[0] != 'R') return std::nullopt;  // R comes last
  }
  if (field != 3 || p.fusion > 2 || p.elements_per_block < 1 || p.elements_per_thread < 1) return std::nullopt;
  if (seen_Q && p.curved_batch < 1) return std::nullopt;  // Q0 is written as no Q
  return p;
}

CudaPlan default_cuda_plan(int N, bool single, int arch, bool with_current) {
  // The best plan of `dgmax tune` on the H100 (K = 384,000, bench/NOTES.md; sustained load since
  // "two warps per row tile (H)", 2026-11-26), or one within 5% of it: tensor cores from N = 3
  // (fp64) and N = 4 (fp32), 4 elements per block, B staged by chunks with the state and face data
  // copied asynchronously (M.C.A); on sm_90 16-row fp64 tiles (W) for fp64 from N = 3 and fp32 at N
  // = 6, warpgroup MMAs (X, 8 elements) at fp32 N = 7 and N = 5 with J, with element-field rows in
  // groups of 10 elements at fp32 N = 4 (three per block, E3) and N = 5 without J (two, E2), 8
  // elements with two warps per tile (H) at fp64 N = 3, 4, 6 and fp32 N = 6, the neighbours' traces
  // with the state (G) at fp64 N = 6, no staged state at fp64 N = 7, 8 (it costs blocks), 8
  // elements at fp32 N = 7; below that, transposed operators, fp32 N = 3 with two elements per
  // thread. (Other sm_90 and newer devices: fp32 N = 4 as 16-row tiles with H.)
  CudaPlan p;
  p.fusion = 2;
  p.elements_per_thread = 1;
  // sm_90, fp32 N = 4: element-field rows, three groups of 10 elements per block sharing the
  // operators (E3): 1.11-1.12x the W.H plan on two boards (bench/NOTES.md, "plan option E3")
  if (arch == 90 && single && N == 4) return element_field_row_plan(3);
  // sm_90, fp32 N = 5: two groups (E2), each team with one group buffer: 1.12x the X plan
  // (bench/NOTES.md, "cuda: one group buffer per team"); with J's staging it does not fit shared
  // memory
  if (arch == 90 && single && N == 5 && !with_current) return element_field_row_plan(2);
  if (arch >= 80 && N >= (single ? 4 : 3)) {
    const bool sm90 = arch >= 90;
    p.mma = true;
    // sm_90 (H100, H200): fp32 at N = 5, 7 as warpgroup MMAs (X, sm_90a), 8 elements per block:
    // 1.08x and 1.03x the W plans under sustained load (bench/NOTES.md, "Plan option X")
    p.mma_warpgroup = arch == 90 && single && (N == 5 || N == 7);
    // sm_90: fp64 DMMA in 16-row tiles for fp64 from N = 3 and fp32 data at N = 4..7 (but X)
    p.mma_wide = sm90 && !p.mma_warpgroup && (single ? N <= 7 : N >= 3);
    // two warps per row tile (H) at fp64 N = 3, 4, 6 and fp32 N = 4, 6: 1.02-1.045x under sustained
    // load (bench/NOTES.md, "two warps per row tile (H)")
    p.mma_split_columns = sm90 && (single ? N == 4 || N == 6 : N == 3 || N == 4 || N == 6);
    // 8 elements per block with H, and at fp32 N = 7 (1.05x the split-TF32 plan sustained, the
    // search's pick in bench/NOTES.md, "Plan option G" and "two warps per row tile (H)"); else 4
    p.elements_per_block = p.mma_split_columns || p.mma_warpgroup || (sm90 && single && N == 7) ? 8 : 4;
    p.mma_chunked = true;
    // no staged state at fp64 N = 8 (it costs blocks); at fp64 N = 7 the staged W plan measured
    // 1.016x on an H200 in four alternated rounds, the search's pick there twice (bench/NOTES.md,
    // "the cpu stage on the 16-core host", item 4, and "fp64 N = 7 staged default landed")
    p.mma_staged = single || (p.mma_wide ? N <= 7 : N != 7);
    // the neighbours' traces with the state at fp64 N = 6 (1.014x with 4 elements, and with H the
    // search's pick); with 4 elements it also won at fp32 N = 4, 6, where H beats both
    p.mma_neighbours = sm90 && p.mma_staged && !single && N == 6;
    return p;
  }
  p.transposed = true;
  if (single && N == 3) {  // 6 elements per block, two per thread: 60 threads
    p.elements_per_thread = 2;
    p.elements_per_block = 6;
    // sm_90: at most 64 registers (74 uncapped), 13 blocks per SM instead of 12: 1.027x in three
    // `dgmax bench` runs on the H200 (bench/NOTES.md, "the H200 again")
    if (arch == 90) p.max_registers = 64;
    return p;
  }
  if (!single && N == 1 && arch == 90) {  // 32 elements (128 threads), operators in shared memory:
    p.elements_per_block = 32;            // 1.04x the 16-element plan in `dgmax bench` on the H200
    p.shared_ops = true;                  // (two rounds, the search's pick: "the H200 again")
    return p;
  }
  // about 64 threads per block, one element per thread (within 3% of the best at N = 1, 2; fp32
  // N = 2 since its 16-byte state and flux loads: 1.12x the 12-element, two-per-thread plan in the
  // H200's search, bench/NOTES.md, "the H200 as it stands")
  p.elements_per_block = std::max(1, (64 + nodes(N) / 2) / nodes(N));
  return p;
}

std::string cuda_plan_rejection(const CudaPlan& plan, int N, bool single, const CudaBlockLimits& limits,
                                bool with_current) {
  const int Np = nodes(N), Nfp = face_nodes(N);
  if (plan.fusion < 0 || plan.fusion > 2) return fmt::format("fusion level {} is not 0, 1 or 2", plan.fusion);
  if (plan.elements_per_thread < 1 || plan.elements_per_block < 1)
    return "elements per block and per thread must be at least 1";
  if (plan.vector_loads && !plan.transposed) return "vector loads need the transposed operator layout (T)";
  if (plan.mma_chunked && !plan.mma) return "chunked staging (C) is a tensor-core option (needs M)";
  if (plan.mma_staged && !plan.mma) return "asynchronous staging (A) is a tensor-core option (needs M)";
  if (plan.mma_wide && !plan.mma) return "wide tiles (W) are a tensor-core option (needs M)";
  if (plan.mma_neighbours && !(plan.mma_staged && plan.mma_chunked))
    return "neighbours' traces gathered asynchronously (G) go with chunked, asynchronous staging (needs M, C and A)";
  if (plan.mma_split_columns && !plan.mma_wide)
    return "two warps per tile (H) go with the 16-row fp64 tiles (needs M and W)";
  if (plan.mma_warpgroup && !plan.mma) return "warpgroup MMAs (X) are a tensor-core option (needs M)";
  if (plan.mma_warpgroup && (!single || plan.mma_wide))
    return "warpgroup MMAs (X) multiply split TF32: single precision without W";
  if (plan.mma_warpgroup && limits.arch != 90)
    return fmt::format("warpgroup MMAs (X, wgmma) are sm_90a instructions (the device is sm_{})", limits.arch);
  if (plan.mma_state_rows && !plan.mma_warpgroup)
    return "element-field rows (E) are a form of the warpgroup MMAs (needs M and X)";
  if (plan.state_row_groups != 1 && !plan.mma_state_rows)
    return "element groups per block (E2..E4) are a form of the element-field rows (needs E)";
  if (plan.state_row_groups < 1 || plan.state_row_groups > 4)
    return fmt::format("element-field rows (E) take 1 to 4 element groups per block, not {}", plan.state_row_groups);
  if (plan.mma_state_rows && (plan.mma_chunked || !plan.mma_staged || plan.mma_neighbours))
    return "element-field rows (E) keep all of B in shared memory and read the staged state: A, without C or G";
  if (plan.mma_wide && limits.arch < 90)
    return fmt::format("wide fp64 tiles (W, DMMA m16n8k4) need sm_90 or newer (the device is sm_{})", limits.arch);
  if (plan.mma) {
    if (limits.arch < 80) return fmt::format("tensor-core plans need sm_80 or newer (the device is sm_{})", limits.arch);
    if (plan.fusion != 2) return "tensor-core plans need fusion level 2 (one kernel per stage)";
    if (plan.elements_per_thread != 1 || plan.transposed || plan.shared_ops || plan.vector_loads)
      return "tensor-core plans have one element per thread and no T, S or V";
    if (plan.mma_state_rows && 6 * plan.elements_per_block > 256)
      return fmt::format("element-field rows (E) take at most 42 elements per block (4 warpgroups of 64 rows), "
                         "not {}", plan.elements_per_block);
    if (plan.mma_state_rows && plan.elements_per_block * Np % 2 != 0)
      return fmt::format("element-field rows (E) copy each group's states 16 bytes at a time: {} elements of {} "
                         "nodes are no whole 16 bytes (an even number of elements is)", plan.elements_per_block, Np);
    if (plan.elements_per_block % 4 != 0 && !plan.mma_state_rows)
      return fmt::format("tensor-core plans need a multiple of 4 elements per block (6 x {} columns are no "
                         "whole tiles of 8)", plan.elements_per_block);
    if (plan.mma_split_columns && plan.elements_per_block % 8 != 0)
      return fmt::format("two warps per tile (H) need an even number of column tiles: a multiple of 8 elements "
                         "per block, not {}", plan.elements_per_block);
  }
  if (plan.max_registers != 0) {
    if (plan.mma) return "a register cap (R) is an option of the one-node-per-thread kernels (not of M plans)";
    if (plan.max_registers < 32 || plan.max_registers > 248 || plan.max_registers % 8 != 0)
      return fmt::format("a register cap (R) is a multiple of 8 from 32 to 248 (registers are allocated 8 at a "
                         "time), not {}", plan.max_registers);
    if (register_file_blocks(plan.max_registers, plan.threads_per_block(Np, single)) < 1)
      return fmt::format("{} registers per thread for {} threads per block exceed the 64K registers of an SM",
                         plan.max_registers, plan.threads_per_block(Np, single));
  }
  if (plan.curved_batch < 0 || plan.curved_batch > 8)
    return fmt::format("the curved group (Q) computes 1 to 8 elements per block, not {}", plan.curved_batch);
  if (plan.elements_per_block % plan.elements_per_thread != 0)
    return fmt::format("{} elements per block is no multiple of {} elements per thread", plan.elements_per_block,
                       plan.elements_per_thread);
  if (plan.threads_per_block(Np, single) > limits.max_threads)
    return fmt::format("{} threads per block, more than the {} a block may have", plan.threads_per_block(Np, single),
                       limits.max_threads);
  const int shared = plan.shared_bytes(Np, Nfp, single, with_current);
  if (plan.mma && shared > limits.max_dynamic_shared) {
    // say so when the source current's staging is what does not fit
    const int without_j = with_current ? plan.shared_bytes(Np, Nfp, single, false) : shared;
    const std::string j = without_j <= limits.max_dynamic_shared
                              ? fmt::format(" ({:.1f} KB of them the source current J's staging: without J it fits)",
                                            (shared - without_j) / 1024.0)
                              : "";
    return fmt::format("{:.1f} KB of shared memory per block{}, more than the {} KB a block may have",
                       shared / 1024.0, j, limits.max_dynamic_shared / 1024);
  }
  if (!plan.mma && shared > limits.max_static_shared)
    return fmt::format("{:.1f} KB of shared memory per block, more than the {} KB of static shared memory",
                       shared / 1024.0, limits.max_static_shared / 1024);
  return "";
}

std::vector<PlanCandidate> enumerate_cuda_plans(int N, bool single, const CudaBlockLimits& limits,
                                                bool with_current) {
  const int Np = nodes(N);
  std::vector<CudaPlan> plans = {default_cuda_plan(N, single, limits.arch, with_current)};
  auto add = [&](const CudaPlan& p) {
    if (std::find(plans.begin(), plans.end(), p) == plans.end()) plans.push_back(p);
  };
  for (int fusion : {2, 1})
    for (int threads : {64, 128, 256})
      for (int ept : {1, 2, 4}) {
        CudaPlan p;
        p.fusion = fusion;
        p.elements_per_thread = ept;
        p.elements_per_block = ept * std::max(1, (threads + Np / 2) / Np);
        // row-major, T, T.S; and T.V at one element per thread (vector loads lost 8-14% on the H100,
        // bench/NOTES.md: kept in the search at little cost, for devices where they may pay)
        for (int layout = 0; layout < 4; ++layout) {
          p.transposed = layout >= 1;
          p.shared_ops = layout == 2;
          p.vector_loads = layout == 3;
          if (layout == 3 && ept != 1) continue;
          add(p);
        }
        // the fused stage with transposed operators and at most 64 registers, for more resident
        // warps: fp32 up to N = 3, where these plans lead. 48 registers spilled and lost (0.5-0.99x),
        // and fp64 spills at 64 from N = 2 (0.97x there, 0.16-0.76x at N = 3; bench/NOTES.md,
        // "the H200 again")
        if (fusion == 2 && ept <= 2 && single && N <= 3) {
          p.transposed = true;
          p.shared_ops = p.vector_loads = false;
          p.max_registers = 64;
          add(p);
          p.max_registers = 0;
        }
      }
  // tensor cores: 4 or 8 elements per block (3 or 6 column tiles per warp). 16 (12 tiles) never
  // won in six searches over N = 1..8 (at best 0.92x the winner) and took the longest to compile:
  // left out to keep the search short (bench/NOTES.md, 2026-11-25).
  for (int epb : {4, 8})
    for (bool chunked : {false, true})
      for (bool staged : {false, true})
        for (bool wide : {false, true}) {
          // fp64 on sm_90: 16-row tiles at every order; 8-row tiles up to N = 4 only, where padding
          // Np to 16 rows costs most (N = 3: 20 rows to 32). From N = 5 the best 8-row plan reached
          // 0.75-0.87x the best 16-row one (bench/NOTES.md, 2026-11-25): left out, to keep the
          // search under a minute.
          // fp32: chunked plans only, and wide ones chunked and staged: the others reached at most
          // 0.71x (unchunked) and 0.91x (wide) the best plan at N = 4..8 (bench/NOTES.md, 2026-11-25).
          if (wide && limits.arch < 90) continue;
          if (!wide && !single && limits.arch >= 90 && N >= 5) continue;
          if (single && (!chunked || (wide && !staged))) continue;
          CudaPlan p;
          p.fusion = 2;
          p.elements_per_block = epb;
          p.mma = true;
          p.mma_wide = wide;
          p.mma_chunked = chunked;
          p.mma_staged = staged;
          add(p);
          // the neighbours' traces gathered asynchronously: with 4 elements per block up to N = 6
          // (where it was measured to pay or lose by a few percent; more plans at N = 7, 8 would
          // push the longest searches over a minute)
          if (staged && chunked && epb == 4 && N <= 6) {
            p.mma_neighbours = true;
            add(p);
            p.mma_neighbours = false;
          }
          // 8 elements with two warps per row tile (H): the warps and shared memory per element of
          // 4 elements per block, each A fragment read from L2 once per 8 elements; with the
          // neighbours' traces too where staged. Up to N = 6: at N = 7 one block fits an SM and
          // lost 11% (bench/NOTES.md, "two warps per row tile (H)").
          if (wide && chunked && epb == 8 && N <= 6) {
            p.mma_split_columns = true;
            add(p);
            if (staged) {
              p.mma_neighbours = true;
              add(p);
            }
            p.mma_split_columns = p.mma_neighbours = false;
          }
          // fp32 split TF32 as warpgroup MMAs (sm_90a), chunked and staged
          if (single && !wide && chunked && staged && limits.arch == 90) {
            p.mma_warpgroup = true;
            add(p);
          }
        }
  // fp32 as warpgroup MMAs with element-field rows (E), 10 elements (one warpgroup, 60 of 64 rows):
  // one group per block 0.73-0.95x the best plan at N = 3..5 on the H100, ahead of 20 and 30 (two
  // and three warpgroups on one group, one block per SM: 0.62-0.83x; bench/NOTES.md, "plan option
  // E"); three groups per block sharing the operators (E3) 1.11x at N = 4, 0.88x at N = 3, where E2
  // and E4 lost to it ("plan option E3"); two groups (E2) with one group buffer per team 1.12x the
  // X plan at N = 5 ("cuda: one group buffer per team"). E fits shared memory up to N = 5, E3 up to
  // N = 4, E2 up to N = 5 without J.
  if (single && limits.arch == 90)
    for (int groups : {1, 2, 3}) add(element_field_row_plan(groups));
  CudaPlan four = default_cuda_plan(N, single, /*arch=*/0);  // the rule without tensor cores
  four.fusion = 0;
  four.transposed = true;
  add(four);
  std::vector<PlanCandidate> out;
  for (const CudaPlan& p : plans) out.push_back({p, cuda_plan_rejection(p, N, single, limits, with_current)});
  return out;
}

std::string cuda_plan_arch(const CudaPlan& plan, const std::string& device_arch) {
  return plan.mma && plan.mma_warpgroup && device_arch == "sm_90" ? "sm_90a" : device_arch;
}

}  // namespace dgmax::codegen
