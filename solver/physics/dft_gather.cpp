#include "solver/physics/dft_gather.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "solver/parallel/comm.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

// On rank 0: the whole-monitor index of every rank's points, rank after rank.
std::vector<long long> gathered_index(const DftMonitor& local) {
  DGMAX_ASSERT(local.index.size() == local.points.size(), "DFT monitor '" + local.name + "' has no point index");
  const std::vector<long long> idx = world().gather_to_root(std::vector<long long>(local.index.begin(), local.index.end()));
  DGMAX_ASSERT(!world().root() || static_cast<long>(idx.size()) == local.whole_points,
               "DFT monitor '" + local.name + "': the ranks hold " + std::to_string(idx.size()) + " of its " +
                   std::to_string(local.whole_points) + " points");
  return idx;
}

}  // namespace

DftMonitor gather_monitor_points(const DftMonitor& local) {
  if (!world().parallel()) return local;
  DftMonitor whole;
  whole.name = local.name;
  whole.surface = local.surface;
  whole.frequencies = local.frequencies;
  whole.whole_points = local.whole_points;
  const std::vector<long long> idx = gathered_index(local);
  std::vector<double> mine;  // [M][7]: x, n, w
  mine.reserve(local.points.size() * 7);
  for (const SurfacePoint& p : local.points) {
    mine.insert(mine.end(), p.x.begin(), p.x.end());
    mine.insert(mine.end(), p.n.begin(), p.n.end());
    mine.push_back(p.w);
  }
  const std::vector<double> all = world().gather_to_root(mine);
  if (!world().root()) return whole;
  whole.points.resize(static_cast<size_t>(whole.whole_points));
  std::vector<char> seen(whole.points.size(), 0);
  for (size_t j = 0; j < idx.size(); ++j) {
    const auto at = static_cast<size_t>(idx[j]);
    DGMAX_ASSERT(at < seen.size() && !seen[at], "DFT monitor '" + local.name + "': point " + std::to_string(at) +
                                                    " held by no rank or by two");
    seen[at] = 1;
    SurfacePoint& p = whole.points[at];
    const double* v = &all[j * 7];
    p.x = {v[0], v[1], v[2]};
    p.n = {v[3], v[4], v[5]};
    p.w = v[6];
  }
  whole.index.resize(whole.points.size());
  std::iota(whole.index.begin(), whole.index.end(), 0L);  // the points are in the whole order now
  return whole;
}

void gather_dft_sums(const DftMonitor& local, std::vector<double>& re, std::vector<double>& im) {
  const Comm& comm = world();
  if (!comm.parallel()) return;
  const size_t F = local.frequencies.size(), W = static_cast<size_t>(local.whole_points);
  const std::vector<long long> M = comm.gather_all(static_cast<long long>(local.points.size()));
  const std::vector<long long> idx = gathered_index(local);
  for (std::vector<double>* v : {&re, &im}) {
    DGMAX_ASSERT(v->size() == F * local.points.size() * 6, "DFT accumulators are not [F][M][6]");
    const std::vector<double> all = comm.gather_to_root(*v);
    v->clear();
    if (!comm.root()) continue;
    v->assign(F * W * 6, 0.0);
    size_t block = 0, first = 0;  // rank r's sums start at `block`, its indices at `first`
    for (long long Mr : M) {
      const auto n = static_cast<size_t>(Mr);
      for (size_t f = 0; f < F; ++f)
        for (size_t m = 0; m < n; ++m) {
          const double* src = &all[block + (f * n + m) * 6];
          std::copy(src, src + 6, v->begin() + static_cast<long>((f * W + static_cast<size_t>(idx[first + m])) * 6));
        }
      block += F * n * 6;
      first += n;
    }
  }
}

}  // namespace dgmax
