// The rules of the plan search's sustained finals (solver/backends/cuda/cuda_tuner.cpp), as plain
// functions of times: the ~4 ms bursts every plan is timed by run near full clock, but a run of the
// tensor-core plans holds the board at its power limit, where a plan that draws less keeps a higher
// clock (bench/NOTES.md, "the H100's power limit" and "two warps per row tile (H)"). So the plans
// within kFinalistMargin of the burst winner (at most kFinalists, each checked against ref) are
// timed again: a warm-up, then a measured second each.
#pragma once

#include <string>
#include <vector>

namespace dgmax::codegen {

// Finalists: plans within this factor of the burst winner's time, at most this many (the burst
// winner among them). 4 since "Plan option X" (bench/NOTES.md): fp32 N = 5's X plan was the fourth
// within 8% in the burst (0.93x) and the fastest sustained (1.08x the burst winner,
// bench/NOTES.md).
inline constexpr double kFinalistMargin = 1.08;
inline constexpr int kFinalists = 4;
// A finalist's timing: the board's power settles within about 0.3 s of a change of load; under the
// cap the clock hunts between about 1380 and 1800 MHz over 100-200 ms, which 0.3 s windows did not
// average out (one plan up to 7% apart between jobs) and one-second windows do (within 0.5%).
inline constexpr double kFinalWarmupSeconds = 0.4, kFinalMeasuredSeconds = 1.0;
// Before the first plan's burst the GPU runs the first plan this long: coming out of idle (or out
// of the compile phase) its clock is not yet up, and the first plan timed (the default, by the
// enumeration's order) read 0.93x its working speed at fp64 N = 1 on the H200 (40.5 against
// bench's 43.5 GDOF/s, bench/NOTES.md, "the H200 as it stands"), which ranks the default too
// low. With it the burst reads 41.8-42.0 ("the H200 again"): part of the gap, at 0.2 s a search.
inline constexpr double kFirstWarmupSeconds = 0.2;
// A finalist displaces the burst winner when it is faster sustained by more than this factor.
inline constexpr double kDisplaceMargin = 1.015;
// The finals are skipped when they could take the search past this (it stays within a minute).
inline constexpr double kSearchBudgetSeconds = 55;

// Whether the finals fit the search's budget after `elapsed` seconds: kFinalists finalists, each
// a warm-up, a measured second and possibly one check of `seconds_per_check`.
bool finals_fit_budget(double elapsed, double seconds_per_check);

// The winner among finalists by their sustained stage times (sustained[0]: the burst winner): a
// finalist displaces the one standing when it is faster by more than kDisplaceMargin. Returns its
// position in `sustained`.
int sustained_winner(const std::vector<double>& sustained);

// The search's report of that rule, one line: whether the burst winner (sustained time
// `burst_sustained`) was kept, or displaced by `best` and by how much. The finals are listed in
// trial order, so a kept winner may be listed with a lower sustained rate than another finalist.
std::string finals_verdict(const std::string& burst_name, double burst_sustained, const std::string& best_name,
                           double best_sustained);

}  // namespace dgmax::codegen
