// monitors.h5: the DFT monitors of a run (solver/physics/dft_monitor.hpp), written atomically.
//   attributes: format = "dgmax-monitors", format_version = 1, time (of the last step summed),
//               steps (how many steps were summed), convention
//   /<monitor name>/   attribute kind = "surface" | "volume"
//     frequencies [F]                 cycles per unit time
//     x           [M][3]              node positions
//     normal      [M][3]              outward unit normal of the box (surfaces only)
//     weight      [M]                 quadrature weight: sum w g = ∫ g dS (surfaces) or dV (volumes)
//     E_re, E_im, H_re, H_im [F][M][3]   X(f) = sum_n x(t_n) exp(-i 2 pi f t_n) dt_n
#pragma once

#include <string>
#include <vector>

#include "solver/physics/dft_monitor.hpp"

namespace dgmax {

struct MonitorResult {
  const DftMonitor* monitor = nullptr;
  std::vector<double> re, im;  // [F][M][6]
};

void write_monitors_h5(const std::string& path, const std::vector<MonitorResult>& results, double time, long long steps);

}  // namespace dgmax
