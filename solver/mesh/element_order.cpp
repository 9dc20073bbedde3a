#include "solver/mesh/element_order.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "solver/mesh/hilbert.hpp"
#include "solver/mesh/parallel_fill.hpp"
#include "solver/util/error.hpp"

#if defined(__GLIBCXX__) && defined(_OPENMP)
#include <parallel/algorithm>  // libstdc++'s multiway-merge sort over the OpenMP threads
#endif

namespace dgmax {
namespace {

constexpr int kHilbertBits = 21;

// out[i] = v[order[i]]
template <class T>
void permute(std::vector<T>& v, const std::vector<int>& order) {
  std::vector<T> out;
  resize_parallel(out, v.size());
  const long long n = static_cast<long long>(order.size());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) out[i] = v[order[i]];
  v = std::move(out);
}

// An element's place on the curve; ties by element index.
struct CurveKey {
  std::uint64_t index;
  int element;
  bool operator<(const CurveKey& o) const { return index != o.index ? index < o.index : element < o.element; }
};

template <class It>
void sort_parallel(It first, It last) {
#if defined(__GLIBCXX__) && defined(_OPENMP)
  __gnu_parallel::sort(first, last);
#else
  std::sort(first, last);
#endif
}

}  // namespace

bool parse_element_order(const std::string& text, ElementOrder& out) {
  if (text == "input") out = ElementOrder::Input;
  else if (text == "hilbert") out = ElementOrder::Hilbert;
  else return false;
  return true;
}

const char* element_order_name(ElementOrder order) { return order == ElementOrder::Hilbert ? "hilbert" : "input"; }

std::vector<int> hilbert_element_order(const Mesh& mesh) {
  const int K = mesh.num_elements();
  std::vector<Vec3> c;
  resize_parallel(c, K);
  // the bounding box of the centroids (+-inf before the reductions; nothing to sort when K = 0)
  constexpr double inf = std::numeric_limits<double>::infinity();
  double lo0 = inf, lo1 = inf, lo2 = inf, hi0 = -inf, hi1 = -inf, hi2 = -inf;
#pragma omp parallel for schedule(static) reduction(min : lo0, lo1, lo2) reduction(max : hi0, hi1, hi2)
  for (int k = 0; k < K; ++k) {
    c[k] = element_centroid(mesh, k);
    lo0 = std::min(lo0, c[k][0]), lo1 = std::min(lo1, c[k][1]), lo2 = std::min(lo2, c[k][2]);
    hi0 = std::max(hi0, c[k][0]), hi1 = std::max(hi1, c[k][1]), hi2 = std::max(hi2, c[k][2]);
  }
  const double low[3] = {lo0, lo1, lo2}, ext[3] = {hi0 - lo0, hi1 - lo1, hi2 - lo2};
  const double cells = static_cast<double>((1u << kHilbertBits) - 1);
  std::vector<CurveKey> key;
  resize_parallel(key, K);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < K; ++k) {
    std::uint32_t q[3];
    for (int d = 0; d < 3; ++d) {
      const double x = ext[d] > 0 ? (c[k][d] - low[d]) / ext[d] * cells : 0.0;
      q[d] = static_cast<std::uint32_t>(std::clamp(x, 0.0, cells));
    }
    key[k] = {hilbert_index(q[0], q[1], q[2], kHilbertBits), k};
  }
  sort_parallel(key.begin(), key.end());
  std::vector<int> order;
  resize_parallel(order, K);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < K; ++i) order[i] = key[i].element;
  return order;
}

void renumber_elements(Mesh& mesh, Connectivity& conn, const std::vector<int>& order) {
  const int K = mesh.num_elements();
  DGMAX_ASSERT(static_cast<int>(order.size()) == K && static_cast<int>(conn.EToE.size()) == K &&
                   conn.EToF.size() == conn.EToE.size() && conn.face_tag.size() == conn.EToE.size() &&
                   conn.face_periodic.size() == conn.EToE.size() && static_cast<int>(mesh.element_tag.size()) == K,
               "renumber_elements: the order and the connectivity must have one entry per element");
  std::vector<int> new_index(K, -1);  // old -> new
  for (int i = 0; i < K; ++i) {
    const int k = order[i];
    DGMAX_ASSERT(k >= 0 && k < K && new_index[k] < 0, "renumber_elements: the order is not a permutation");
    new_index[k] = i;
  }
  const long long n = K;
  permute(mesh.elements, order);
  permute(mesh.element_tag, order);
  if (!mesh.curved_index.empty()) permute(mesh.curved_index, order);
  permute(conn.EToE, order);
  permute(conn.EToF, order);
  permute(conn.face_tag, order);
  permute(conn.face_periodic, order);
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i)
    for (int& k : conn.EToE[i])
      if (k >= 0) k = new_index[k];
}

}  // namespace dgmax
