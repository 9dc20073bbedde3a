#include "solver/mesh/partition_metis.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dgmax/config.hpp"
#include "solver/util/error.hpp"

#if DGMAX_HAS_METIS
#include <metis.h>
#endif

namespace dgmax {

#if DGMAX_HAS_METIS

std::vector<int> metis_part_graph(const MeshData& md, int parts, const std::vector<double>& weights) {
  const auto& E = md.conn.EToE;
  const int K = md.mesh.num_elements();
  DGMAX_ASSERT(parts >= 2 && static_cast<int>(weights.size()) == K, "metis_part_graph: bad arguments");
  // dual graph in CSR form, each element's neighbours sorted and unique
  std::vector<idx_t> xadj(static_cast<size_t>(K) + 1, 0), adjncy;
  adjncy.reserve(4 * static_cast<size_t>(K));
  for (int k = 0; k < K; ++k) {
    idx_t nb[4];
    int n = 0;
    for (int f = 0; f < 4; ++f)
      if (E[k][f] >= 0 && E[k][f] != k) nb[n++] = E[k][f];
    std::sort(nb, nb + n);
    n = static_cast<int>(std::unique(nb, nb + n) - nb);
    adjncy.insert(adjncy.end(), nb, nb + n);
    xadj[k + 1] = static_cast<idx_t>(adjncy.size());
  }
  // integer weights: the smallest about 1000, the total within idx_t
  double wmin = weights[0], wsum = 0;
  for (double w : weights) {
    wmin = std::min(wmin, w);
    wsum += w;
  }
  const double scale = std::min(1000.0 / wmin, 1.0e9 / wsum);
  std::vector<idx_t> vwgt(K);
  for (int k = 0; k < K; ++k)
    vwgt[k] = static_cast<idx_t>(std::max(1.0, std::round(weights[k] * scale)));

  idx_t nvtxs = K, ncon = 1, nparts = parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 12345;  // deterministic
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> part(K, 0);
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                     nullptr, &nparts, nullptr, nullptr, options, &objval, part.data());
  if (rc != METIS_OK)
    throw UserError("METIS could not partition the mesh into " + std::to_string(parts) + " parts (" +
                        (rc == METIS_ERROR_MEMORY ? std::string("out of memory") : "error " + std::to_string(rc)) + ")",
                    {md.mesh.source}, "try the space-filling-curve partitioner (method sfc)");
  return std::vector<int>(part.begin(), part.end());
}

#else

std::vector<int> metis_part_graph(const MeshData&, int, const std::vector<double>&) {
  DGMAX_ASSERT(false, "metis_part_graph called in a build without METIS");
  return {};
}

#endif

}  // namespace dgmax
