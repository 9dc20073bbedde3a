// A partitioned run's DFT monitors as one rank has them. Each rank accumulates the points of its
// owned elements (DftMonitor::index: where each sits in the whole monitor); these bring the points
// and the sums to rank 0 in the whole monitor's order, so that monitors.h5 and the far field are
// the one-rank ones (the sums are the same numbers: every point is summed by one rank). Collective:
// every rank calls them, in the same order. With one rank they return what they are given.
#pragma once

#include <vector>

#include "solver/physics/dft_monitor.hpp"

namespace dgmax {

// On rank 0: the whole monitor (name, kind, frequencies and all its points; no nodes, they are the
// ranks' own); on the other ranks: the same without points.
DftMonitor gather_monitor_points(const DftMonitor& local);

// re, im: [F][M][6] sums of this rank's M points. On return, on rank 0: [F][whole_points][6] in the
// whole monitor's order; on the other ranks: empty.
void gather_dft_sums(const DftMonitor& local, std::vector<double>& re, std::vector<double>& im);

}  // namespace dgmax
