#include "solver/mesh/partition.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "codegen/dsl/expr_source.hpp"
#include "dgmax/config.hpp"
#include "solver/mesh/element_order.hpp"
#include "solver/mesh/partition_metis.hpp"
#include "solver/mesh/partition_rcb.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

// The weights to use: 1 each when empty; checked otherwise.
std::vector<double> checked_weights(const MeshData& md, const std::vector<double>& weights) {
  const int K = md.mesh.num_elements();
  if (weights.empty()) return std::vector<double>(K, 1.0);
  DGMAX_ASSERT(static_cast<int>(weights.size()) == K, "partition: weights must have one entry per element");
  for (int k = 0; k < K; ++k)
    if (!(weights[k] > 0) || !std::isfinite(weights[k]))
      throw UserError("partition weight of element " + std::to_string(k) + " is " +
                          std::to_string(weights[k]) + "; weights must be positive and finite",
                      {md.mesh.source}, "an element's weight is its relative cost (1 for a plain element)");
  return weights;
}

// Cuts `order` into `parts` non-empty contiguous chunks: cut p at the prefix weight nearest to
// p·W/parts, then pushed apart so that every chunk holds an element.
std::vector<int> split_curve(const std::vector<int>& order, const std::vector<double>& w, int parts) {
  const int K = static_cast<int>(order.size());
  std::vector<double> S(static_cast<size_t>(K) + 1, 0.0);  // S[i]: weight of the first i elements
  for (int i = 0; i < K; ++i) S[i + 1] = S[i] + w[order[i]];
  const double W = S[K];
  std::vector<int> cut(static_cast<size_t>(parts) + 1);
  cut[0] = 0;
  cut[parts] = K;
  for (int p = 1; p < parts; ++p) {
    const double target = W * p / parts;
    int i = static_cast<int>(std::lower_bound(S.begin(), S.end(), target) - S.begin());
    if (i > 0 && (i > K || target - S[i - 1] <= S[i] - target)) --i;
    cut[p] = i;
  }
  for (int p = 1; p < parts; ++p) cut[p] = std::max(cut[p], cut[p - 1] + 1);
  for (int p = parts - 1; p >= 1; --p) cut[p] = std::min(cut[p], cut[p + 1] - 1);
  std::vector<int> part(K);
  for (int p = 0; p < parts; ++p)
    for (int i = cut[p]; i < cut[p + 1]; ++i) part[order[i]] = p;
  return part;
}

// Gives every empty part one element of the largest part (most elements, then lowest index):
// its highest-numbered element with a face to another part (else its highest-numbered one).
void fill_empty_parts(const MeshData& md, int parts, std::vector<int>& part) {
  const int K = md.mesh.num_elements();
  std::vector<long long> count(parts, 0);
  for (int q : part) ++count[q];
  for (int e = 0; e < parts; ++e) {
    if (count[e] > 0) continue;
    const int L = static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
    int pick = -1, last = -1;
    for (int k = K - 1; k >= 0 && pick < 0; --k) {
      if (part[k] != L) continue;
      if (last < 0) last = k;
      for (int f = 0; f < 4; ++f) {
        const int nb = md.conn.EToE[k][f];
        if (nb >= 0 && part[nb] != L) pick = k;
      }
    }
    if (pick < 0) pick = last;
    part[pick] = e;
    --count[L];
    ++count[e];
  }
}

}  // namespace

bool metis_available() { return DGMAX_HAS_METIS != 0; }

const std::vector<std::string>& partition_method_names() {
  static const std::vector<std::string> methods = {"auto", "metis", "rcb", "sfc"};
  return methods;
}

std::optional<PartitionMethodError> partition_method_error(const std::string& method, bool with_metis) {
  const std::vector<std::string>& all = partition_method_names();
  if (std::find(all.begin(), all.end(), method) == all.end())
    return PartitionMethodError{"unknown partition method '" + dsl::quote_for_message(method, 40) + "'",
                                "use auto (metis when built with it, else the better of rcb and sfc), sfc (Hilbert "
                                "curve), rcb (coordinate bisection) or metis"};
  if (method == "metis" && !with_metis)
    return PartitionMethodError{"partition method 'metis' asked for, but this build of dgmax has no METIS",
                                "use auto, rcb (coordinate bisection) or sfc (Hilbert curve), or install METIS "
                                "(libmetis-dev) and reconfigure with -DDGMAX_USE_METIS=ON"};
  return std::nullopt;
}

Partition partition_mesh(const MeshData& md, int parts, const std::vector<double>& weights,
                         const std::string& method) {
  const int K = md.mesh.num_elements();
  Partition p;
  if (const auto bad = partition_method_error(method)) throw UserError(bad->message, {md.mesh.source}, bad->hint);
  p.method = method != "auto" ? method : metis_available() ? "metis" : "auto";  // auto without METIS: decided below
  if (parts < 1 || parts > K)
    throw UserError("cannot split a mesh of " + std::to_string(K) + " elements into " +
                        std::to_string(parts) + " parts; every part needs at least one element",
                    {md.mesh.source},
                    "use between 1 and " + std::to_string(K) + " parts (ranks), or a finer mesh");
  const std::vector<double> w = checked_weights(md, weights);
  p.parts = parts;
  if (parts == 1) {
    p.part.assign(K, 0);
    if (p.method == "auto") p.method = "rcb";
    return p;
  }
  if (p.method == "auto") return geometric_partition(md, parts, w);
  if (p.method == "sfc") {
    p.part = split_curve(hilbert_element_order(md.mesh), w, parts);
  } else if (p.method == "rcb") {
    p.part = rcb_partition(md.mesh, w, parts);
  } else {
    p.part = metis_part_graph(md, parts, w);
    fill_empty_parts(md, parts, p.part);
  }
  return p;
}

Partition geometric_partition(const MeshData& md, int parts, const std::vector<double>& weights) {
  // the one whose busiest part sends the fewest faces (the exchange each stage waits for), then
  // the fewer cut faces, then rcb
  Partition rcb = partition_mesh(md, parts, weights, "rcb");
  Partition sfc = partition_mesh(md, parts, weights, "sfc");
  const PartitionQuality qr = partition_quality(md, rcb), qs = partition_quality(md, sfc);
  const auto busiest = [](const PartitionQuality& q) { return *std::max_element(q.halo_faces.begin(), q.halo_faces.end()); };
  const bool sfc_better = busiest(qs) < busiest(qr) || (busiest(qs) == busiest(qr) && qs.edge_cut < qr.edge_cut);
  return sfc_better ? sfc : rcb;
}

PartitionQuality partition_quality(const MeshData& md, const Partition& p, const std::vector<double>& weights) {
  const int K = md.mesh.num_elements();
  const int P = p.parts;
  DGMAX_ASSERT(static_cast<int>(p.part.size()) == K, "partition_quality: the partition is of another mesh");
  const std::vector<double> w = checked_weights(md, weights);
  const auto& E = md.conn.EToE;
  PartitionQuality q;
  q.elements.assign(P, 0);
  q.ghosts.assign(P, 0);
  q.halo_faces.assign(P, 0);
  q.neighbours.assign(P, 0);
  std::vector<double> weight(P, 0.0);
  std::vector<std::pair<int, int>> links;  // (part, other part) of every cut face
  long long cut_sides = 0;
  for (int k = 0; k < K; ++k) {
    const int a = p.part[k];
    ++q.elements[a];
    weight[a] += w[k];
    int seen[4], n = 0;  // parts (other than k's) with a face to k: k is a ghost of each
    for (int f = 0; f < 4; ++f) {
      const int nb = E[k][f];
      if (nb < 0 || p.part[nb] == a) continue;
      ++cut_sides;
      ++q.halo_faces[a];
      links.push_back({a, p.part[nb]});
      seen[n++] = p.part[nb];
    }
    // n <= 4: insertion sort (std::sort's branches for long ranges made GCC 12 warn about int[4])
    for (int i = 1; i < n; ++i)
      for (int j = i; j > 0 && seen[j - 1] > seen[j]; --j) std::swap(seen[j - 1], seen[j]);
    n = static_cast<int>(std::unique(seen, seen + n) - seen);
    for (int i = 0; i < n; ++i) ++q.ghosts[seen[i]];
  }
  q.edge_cut = cut_sides / 2;
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  for (const auto& l : links) ++q.neighbours[l.first];
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  q.imbalance = *std::max_element(weight.begin(), weight.end()) / (total / P);
  return q;
}

}  // namespace dgmax
