// A problem built from config text the way `dgmax run` builds it (config_problem.hpp), on the
// config's mesh warped by `warp` (solver/mesh/curved_warp.hpp): curved elements of geometry order q
// where the warp moves the lattice off the straight-sided map, affine ones elsewhere.
#pragma once

#include <memory>
#include <string>

#include "config_problem.hpp"
#include "solver/mesh/curved_warp.hpp"

namespace dgmax::test {

inline std::unique_ptr<ConfigProblem> warped_config_problem(const std::string& yaml, int q, const Warp& warp) {
  auto out = std::make_unique<ConfigProblem>();
  out->cfg = parse_run_config(YamlDoc::load_string(yaml, "test.yaml"));
  Mesh mesh = load_mesh(out->cfg.mesh).mesh;
  warp_mesh(mesh, q, warp);
  out->md = std::make_shared<const MeshData>(setup_mesh(std::move(mesh)));
  out->p = make_problem(out->md, out->cfg.order);
  apply_physics(out->cfg, out->p);
  return out;
}

}  // namespace dgmax::test
