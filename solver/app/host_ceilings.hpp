// The host's own ceilings, measured with all OpenMP threads: memory bandwidth (read + write bytes
// per second, the best of a copy and an in-place update) and fused multiply-add rate (flops per
// second, an FMA counted as 2) of code compiled as the cpu kernels are (the host JIT: the host's
// own vector instructions).
#pragma once

#include <string>

namespace dgmax {

struct Ceilings {
  double bandwidth;  // bytes/s
  double flops;      // flop/s
};

Ceilings measure_host_ceilings(bool single);

// How far two readings of the ceilings lie apart: the larger of the two ratios (bandwidth, FMA
// rate) of the higher reading to the lower, minus 1 (0.3: one moved by 30%). On a shared host
// they move between runs minutes apart by up to a factor of two (bench/NOTES.md, "the
// in-block neighbours measured", item 4), and a % of the floor with them.
double ceilings_moved(const Ceilings& a, const Ceilings& b);
// Above this, `dgmax bench` and `dgmax tune --backend cpu` say that their % of the floor is uncertain.
inline constexpr double kCeilingsMovedNote = 0.15;
// The line those commands print after their runs with the ceilings measured again (`after`):
// "host ceilings <when>: memory bandwidth ... GB/s, FMA rate ... GFLOP/s", and by how much they
// moved from `before` when that is more than kCeilingsMovedNote.
std::string ceilings_again_line(const Ceilings& before, const Ceilings& after, const std::string& when);

}  // namespace dgmax
