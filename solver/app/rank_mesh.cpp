#include "solver/app/rank_mesh.hpp"

#include "codegen/jit/content_hash.hpp"
#include "solver/mesh/local_mesh.hpp"
#include "solver/mesh/partition.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

std::shared_ptr<const MeshData> rank_mesh(std::shared_ptr<const MeshData> whole, const std::vector<double>& weights,
                                          nlohmann::json* report, const std::string& method) {
  const Comm& comm = world();
  if (!comm.parallel()) return whole;
  const MeshData& global = *whole;
  if (comm.size() > global.mesh.num_elements())
    throw UserError("the run has " + std::to_string(comm.size()) + " ranks but the mesh only " +
                        std::to_string(global.mesh.num_elements()) + " elements",
                    {global.mesh.source}, "start fewer ranks (mpirun -np) or refine the mesh");
  const Partition part = partition_mesh(global, comm.size(), weights, method);
  if (report) {
    const PartitionQuality q = partition_quality(global, part, weights);
    *report = {{"ranks", comm.size()},
               {"method", part.method},
               {"edge_cut", q.edge_cut},
               {"imbalance", q.imbalance},
               {"weighted", !weights.empty()},
               {"elements", q.elements},
               {"ghosts", q.ghosts},
               {"halo_faces", q.halo_faces},
               {"hash", partition_hash(part)}};
  }
  return std::make_shared<const MeshData>(extract_local_mesh(global, part, comm.rank()));
}

std::string partition_hash(const Partition& part) {
  codegen::Sha256 h;
  h.update(part.part.data(), part.part.size() * sizeof(int));
  return h.hex_digest();
}

}  // namespace dgmax
