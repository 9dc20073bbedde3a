#include "solver/mesh/partition_rcb.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "solver/util/error.hpp"

namespace dgmax {
namespace {

struct Bisection {
  const std::vector<Vec3>& c;  // [K] centroids
  const std::vector<double>& w;
  std::vector<int>& part;

  // elems: the elements of one part-to-be, split into `parts` parts numbered from `first`
  void split(std::vector<int>::iterator begin, std::vector<int>::iterator end, int parts, int first) {
    if (parts == 1) {
      for (auto it = begin; it != end; ++it) part[*it] = first;
      return;
    }
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::array<double, 3> lo{inf, inf, inf}, hi{-inf, -inf, -inf};
    for (auto it = begin; it != end; ++it)
      for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], c[*it][d]), hi[d] = std::max(hi[d], c[*it][d]);
    int axis = 0;
    for (int d = 1; d < 3; ++d)
      if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
    std::sort(begin, end, [&](int a, int b) { return c[a][axis] < c[b][axis] || (c[a][axis] == c[b][axis] && a < b); });
    const int n = static_cast<int>(end - begin), left = parts / 2;
    double total = 0;
    for (auto it = begin; it != end; ++it) total += w[*it];
    // the cut i (elements [0, i) go left) whose prefix weight is nearest the left parts' share,
    // leaving each side at least one element per part
    const double target = total * left / parts;
    int cut = 0;
    double before = 0;  // weight of the first `cut` elements
    while (cut < n && before + w[begin[cut]] <= target) before += w[begin[cut++]];
    if (cut < n && (before + w[begin[cut]]) - target < target - before) ++cut;
    cut = std::clamp(cut, left, n - (parts - left));
    split(begin, begin + cut, left, first);
    split(begin + cut, end, parts - left, first + left);
  }
};

}  // namespace

std::vector<int> rcb_partition(const Mesh& mesh, const std::vector<double>& weights, int parts) {
  const int K = mesh.num_elements();
  DGMAX_ASSERT(parts >= 1 && parts <= K && static_cast<int>(weights.size()) == K,
               "rcb_partition: 1 <= parts <= K and one weight per element");
  std::vector<Vec3> c(K);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < K; ++k) c[k] = element_centroid(mesh, k);
  std::vector<int> elems(K), part(K, 0);
  for (int k = 0; k < K; ++k) elems[k] = k;
  Bisection{c, weights, part}.split(elems.begin(), elems.end(), parts, 0);
  return part;
}

}  // namespace dgmax
