// Defaults a config leaves implicit, which a change would otherwise alter silently: without a
// `boundaries` section every boundary face is a PEC wall (and the check can tell: another default
// gives other values).
#include <gtest/gtest.h>

#include <memory>

#include "solver/io/mesh_spec.hpp"
#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"

using namespace dgmax;

namespace {

// The boundary conditions of every boundary face of the config's problem, and how many there are.
std::pair<std::vector<BcKind>, int> boundary_kinds(const std::string& text) {
  const RunConfig cfg = parse_run_config(YamlDoc::load_string(text, "c.yaml"));
  auto md = std::make_shared<const MeshData>(load_mesh(cfg.mesh));
  Problem p = make_problem(md, cfg.order);
  apply_physics(cfg, p);
  std::vector<BcKind> kinds;
  for (int k = 0; k < p.K(); ++k)
    for (int f = 0; f < 4; ++f)
      if (md->conn.is_boundary(k, f)) kinds.push_back(p.bc[k][f]);
  return {kinds, static_cast<int>(kinds.size())};
}

const char* kBase = "mesh: {box: {cells: [2, 1, 1]}}\ndiscretization: {order: 1}\ntime: {final: 0.1}\n";

}  // namespace

TEST(ConfigDefaults, BoundariesDefaultToPec) {
  const auto [kinds, n] = boundary_kinds(kBase);
  EXPECT_EQ(n, 2 * 2 * (2 * 1 + 2 * 1 + 1 * 1));  // 6 tets per cell: 2 triangles per boundary square
  for (const BcKind k : kinds) EXPECT_EQ(k, BcKind::Pec);
  // the control: a stated default reaches every face, so the check above is not vacuous
  const auto [pmc, m] = boundary_kinds(std::string(kBase) + "boundaries: {default: pmc}\n");
  EXPECT_EQ(m, n);
  for (const BcKind k : pmc) EXPECT_EQ(k, BcKind::Pmc);
}
