// `dgmax info` end to end: statistics of box meshes and configs, JSON output, and bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <regex>
#include <vector>
#include <nlohmann/json.hpp>

#include "temp_path.hpp"
#include "run_cli.hpp"

using dgmax::test::run_dgmax;
using nlohmann::json;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = dgmax::test::unique_temp_dir("info") + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

// `dgmax --help` lists the user guide's commands under "Subcommands:", and each command's help
// lists the options the user guide gives it, as option lines ("  -b,--backend TEXT..."), not as
// words that happen to occur somewhere in the text.
TEST(InfoCli, HelpListsEveryCommandAndItsOptions) {
  auto r = run_dgmax("--help");
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t sub = r.out.find("\nSubcommands:\n");
  ASSERT_NE(sub, std::string::npos) << r.out;
  const std::string commands = r.out.substr(sub);
  for (const char* c : {"run", "info", "bench", "tune"})
    EXPECT_TRUE(std::regex_search(commands, std::regex(std::string("\n  ") + c + " +[A-Z][a-z]+ ")))
        << "no subcommand line for '" << c << "':\n" << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n  --version "))) << r.out;
  struct Command {
    const char* name;
    std::vector<const char*> options;  // as in the usage lines of docs/user-guide.md, "Commands"
  };
  for (const Command& c : {Command{"run", {"backend", "set", "output", "overwrite", "restart", "quiet"}},
                           Command{"info", {"order", "refine", "size", "json"}},
                           Command{"bench",
                                   {"order", "elements", "backends", "precision", "steps", "json", "numbering", "curved"}},
                           Command{"tune", {"backend", "order", "precision", "elements", "json", "no-store"}}}) {
    r = run_dgmax(std::string(c.name) + " --help");
    ASSERT_EQ(r.code, 0) << c.name << ": " << r.err;
    EXPECT_NE(r.out.find(std::string("Usage: ") + DGMAX_BINARY + " " + c.name + " [OPTIONS]"), std::string::npos)
        << r.out;
    for (const char* o : c.options)
      EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("\n  (-[A-Za-z],)?--") + o + "[ =]")))
          << c.name << " --help has no option line for --" << o << ":\n" << r.out;
  }
  // the choices the user guide gives for --backend
  EXPECT_NE(run_dgmax("run --help").out.find("--backend TEXT:{auto,ref,cpu,cuda}"), std::string::npos);
  // the positionals: run [CONFIG], info MESH|CONFIG
  EXPECT_TRUE(std::regex_search(run_dgmax("run --help").out, std::regex("\n  config TEXT +YAML config file")));
  EXPECT_TRUE(std::regex_search(run_dgmax("info --help").out, std::regex("\n  input TEXT REQUIRED +box:NX,NY,NZ")));
}

TEST(InfoCli, BoxJsonHasTheContractKeys) {
  auto r = run_dgmax("info box:4,4,4 --order 3 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["elements"], 384);
  EXPECT_EQ(j["vertices"], 125);
  EXPECT_NEAR(j["volume"].get<double>(), 1.0, 1e-13);
  EXPECT_NEAR(j["h_min"].get<double>(), std::sqrt(3.0) / 4, 1e-14);
  EXPECT_NEAR(j["h_max"].get<double>(), std::sqrt(3.0) / 4, 1e-14);
  EXPECT_EQ(j["boundary_tags"]["xmin"], 32);
  EXPECT_EQ(j["boundary_tags"]["boundary"], 6 * 32);
  EXPECT_EQ(j["volume_tags"]["domain"], 384);
  EXPECT_EQ(j["nodes"], 384 * 20);
  EXPECT_EQ(j["dofs"], 6 * 384 * 20);  // 6 field components, Np = 20 at N = 3
}

TEST(InfoCli, TableMentionsEverything) {
  auto r = run_dgmax("info box:2,2,2 --refine 1");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"elements          384", "total volume      1\n", "xmin", "boundary", "domain",
                        "quality", "Np = 35"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(InfoCli, ConfigWithPeriodicBoxAndOrder) {
  const std::string cfg = write_temp("periodic.yaml", R"(
mesh:
  box: {lower: [0, 0, 0], upper: [2, 1, 1], cells: [4, 2, 2], periodic: [x]}
discretization: {order: 2}
boundaries: {default: pec, ymin: pmc}
)");
  auto r = run_dgmax("info " + cfg + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["elements"], 96);
  EXPECT_NEAR(j["volume"].get<double>(), 2.0, 1e-13);
  EXPECT_EQ(j["order"], 2);
  EXPECT_EQ(j["dofs"], 6 * 96 * 10);
  EXPECT_FALSE(j["boundary_tags"].contains("xmin"));
  EXPECT_EQ(j["periodic_tags"], json::array({"xmin", "xmax"}));
  EXPECT_EQ(j["periodic_face_pairs"], 8);
}

TEST(InfoCli, UnknownKeySuggestsTheClosest) {
  const std::string cfg = write_temp("typo.yaml", "mesh:\n  box: {cells: [2, 2, 2]}\n  refin: 1\n");
  auto r = run_dgmax("info " + cfg);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("typo.yaml:3:3: error: unknown key 'refin' in 'mesh'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'refine'?"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  ^"), std::string::npos) << r.err;
}

TEST(InfoCli, MalformedYamlNamesLineAndColumn) {
  const std::string cfg = write_temp("broken.yaml", "mesh:\n  box: {cells: [2, 2, 2]\n");
  auto r = run_dgmax("info " + cfg);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("broken.yaml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid YAML"), std::string::npos) << r.err;
}

TEST(InfoCli, MissingTagReferencedByConfig) {
  const std::string cfg = write_temp("tags.yaml",
                                     "mesh: {box: {cells: [1, 1, 1]}}\nboundaries:\n  default: pec\n  xmn: pmc\n");
  auto r = run_dgmax("info " + cfg);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("tags.yaml:4:3: error: boundary tag 'xmn' does not exist"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'xmin'?"), std::string::npos) << r.err;
}

TEST(InfoCli, BadArgumentsFailCleanly) {
  auto r = run_dgmax("info box:4,4");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("malformed box mesh 'box:4,4'"), std::string::npos) << r.err;
  r = run_dgmax("info /nonexistent/mesh.msh");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("/nonexistent/mesh.msh"), std::string::npos) << r.err;
  r = run_dgmax("info /nonexistent/config.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot open config file"), std::string::npos) << r.err;
  // exit 1 with the reason: a crash (or exit 2, an internal error) must not pass
  r = run_dgmax("info box:2 --order 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--order: Value 0 not in range 1 to 15"), std::string::npos) << r.err;
  r = run_dgmax("frobnicate");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: unknown command 'frobnicate'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("commands: run, info, bench, tune"), std::string::npos) << r.err;
}

// A 10-node .msh: the geometry order, the curved elements left after setup and their scaled
// Jacobians. second_order_tets.msh has straight edges (both tets affine); with the midpoint node
// of tet 0's edge 0-1 moved off the edge, tet 0 alone is curved and its Jacobian varies.
TEST(InfoCli, ReportsCurvedElements) {
  const std::string data = std::string(DGMAX_TEST_DATA_DIR) + "/second_order_tets.msh";
  auto straight = run_dgmax("info " + data + " --json");
  ASSERT_EQ(straight.code, 0) << straight.err;
  const json s = json::parse(straight.out);
  EXPECT_EQ(s["geometry_order"], 2);
  EXPECT_EQ(s["curved_elements"], 0);
  std::ifstream in(data);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\n6 0.5 0 0\n"), 11, "\n6 0.5 0.05 0.05\n");
  const std::string bent = write_temp("bent.msh", text);
  auto r = run_dgmax("info " + bent + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["geometry_order"], 2);
  EXPECT_EQ(j["curved_elements"], 1);
  const double lo = j["scaled_jacobian_min"].get<double>(), hi = j["scaled_jacobian_max"].get<double>();
  EXPECT_GT(lo, 0.0);
  EXPECT_LT(lo, 1.0);
  EXPECT_EQ(lo, hi);  // one curved element: its own min det / max det
  EXPECT_GE(j["scaled_jacobian_min_element"].get<int>(), 0);
  EXPECT_LT(j["scaled_jacobian_min_element"].get<int>(), 2);
  auto table = run_dgmax("info " + bent);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("geometry order    2   (1 curved elements)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("scaled Jacobian   min "), std::string::npos) << table.out;
}
