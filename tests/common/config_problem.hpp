// A problem built from config text the way `dgmax run` builds it (parse, mesh, physics), for tests
// of features that live in the config (PML, sources): the generated backends get lowered fields.
#pragma once

#include <memory>
#include <string>

#include "solver/io/run_config.hpp"
#include "solver/mesh/mesh_setup.hpp"

namespace dgmax::test {

struct ConfigProblem {
  RunConfig cfg;
  std::shared_ptr<const MeshData> md;
  Problem p;
};

inline std::unique_ptr<ConfigProblem> config_problem(const std::string& yaml) {
  auto out = std::make_unique<ConfigProblem>();
  out->cfg = parse_run_config(YamlDoc::load_string(yaml, "test.yaml"));
  out->md = std::make_shared<const MeshData>(load_mesh(out->cfg.mesh));
  out->p = make_problem(out->md, out->cfg.order);
  apply_physics(out->cfg, out->p);
  return out;
}

}  // namespace dgmax::test
