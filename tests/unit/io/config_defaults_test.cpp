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

// ---- --set on a YAML alias -------------------------------------------------------------------------
// `--set a.b=v` changes the value at the path it names and nothing else: a key that is a YAML
// alias (*m) of an anchored node (&m), or the anchor itself, is changed alone, the other uses of
// the anchor keep the file's value (yaml-cpp shares an aliased node, so writing into it in place
// would change every use).

namespace {

const char* kAliased =
    "mesh: {box: {cells: [2, 2, 2], regions: [{tag: slab, lower: [0, 0, 0], upper: [1, 1, 0.5]}]}}\n"
    "time: {final: 0.1}\n"
    "materials:\n"
    "  default: &m {eps: 2, mu: 3}\n"
    "  slab: *m\n";

// eps of materials.default and materials.slab after the `--set` assignments.
std::pair<double, double> default_and_slab_eps(const std::vector<std::string>& sets) {
  YamlDoc doc = YamlDoc::load_string(kAliased, "c.yaml");
  for (const std::string& s : sets) doc.apply_override(s);
  const RunConfig cfg = parse_run_config(doc);
  return {cfg.materials.at("default").value.eps, cfg.materials.at("slab").value.eps};
}

}  // namespace

TEST(ConfigOverrides, SetOnAYamlAliasChangesOnlyTheNamedKey) {
  using P = std::pair<double, double>;
  EXPECT_EQ(default_and_slab_eps({}), P(2, 2));  // the control: the alias does alias
  EXPECT_EQ(default_and_slab_eps({"materials.slab.eps=4"}), P(2, 4));     // inside the alias
  EXPECT_EQ(default_and_slab_eps({"materials.default.eps=4"}), P(4, 2));  // inside the anchor
  EXPECT_EQ(default_and_slab_eps({"materials.slab={eps: 4}"}), P(2, 4));  // the alias itself
  EXPECT_EQ(default_and_slab_eps({"materials.default={eps: 4}"}), P(4, 2));
  EXPECT_EQ(default_and_slab_eps({"materials.slab.eps=4", "materials.default.eps=5"}), P(5, 4));
  // what the set leaves alone still comes from the anchor (mu), and the problem the run builds
  // gets the values: the slab's elements have eps 4, the others 2
  YamlDoc doc = YamlDoc::load_string(kAliased, "c.yaml");
  doc.apply_override("materials.slab.eps=4");
  const RunConfig cfg = parse_run_config(doc);
  EXPECT_EQ(cfg.materials.at("slab").value.mu, 3);
  EXPECT_EQ(cfg.materials.at("default").value.mu, 3);
  auto md = std::make_shared<const MeshData>(load_mesh(cfg.mesh));
  Problem p = make_problem(md, 1);
  apply_physics(cfg, p);
  int slab = 0;
  for (const Material& m : p.material) {
    EXPECT_TRUE(m.eps == 2 || m.eps == 4) << m.eps;
    slab += m.eps == 4;
  }
  EXPECT_EQ(slab, p.K() / 2);  // the lower layer of cells
}

// An error in a value set inside an alias names the --set option, not the anchor's line.
TEST(ConfigOverrides, ErrorInAValueSetInsideAnAliasNamesTheOption) {
  YamlDoc doc = YamlDoc::load_string(kAliased, "c.yaml");
  doc.apply_override("materials.slab.eps=-1");
  try {
    parse_run_config(doc);
    ADD_FAILURE() << "eps = -1 accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().file, "--set materials.slab.eps=-1") << e.render();
    EXPECT_NE(e.message().find("'materials.slab.eps' must be positive"), std::string::npos) << e.render();
  }
}
