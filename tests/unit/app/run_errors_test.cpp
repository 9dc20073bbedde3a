// `dgmax run` end to end with bad input: every class of user error must give exit code 1 (never a
// signal, never the internal-error code 2), exactly one message in the UserError::render format
// (`file:line:col: error: message`, the source line, a caret under the right column, `hint: ...`),
// and leave the output directory intact (no *.tmp, no summary.json from the failed run, every .vtu
// and .pvd complete). Plus one successful run that checks the summary.json contract.
//
// Every case runs the real binary on a tiny problem (box 1x1x1, order 1, short final time): about
// 0.1 s of CPU per invocation, some 12 s of CPU for the whole file.
#include <gtest/gtest.h>

#include "solver/backends/cuda/cuda_driver.hpp"
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "dgmax/config.hpp"
#include "previous_runs.hpp"
#include "run_cli.hpp"

using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A tiny mesh and a short run: 6 tets of order 1, a couple of steps.
const char* const kTiny =
    "mesh: {box: {cells: [1, 1, 1]}}\n"
    "discretization: {order: 1}\n"
    "time: {final: 0.05}\n";

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string sh_quote(const std::string& s) { return "'" + s + "'"; }

class RunErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) /
            ("dgmax_run_errors_" + std::to_string(::getpid()) + "_" + info->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    out_ = dir_ + "/out";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Writes `text` to <dir>/<name>; returns the path (which the messages must quote verbatim).
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // `dgmax run <config> --output <out> <extra>` on a config written from `text`.
  CliResult run_config(const std::string& name, const std::string& text, const std::string& extra = "") {
    path_ = write(name, text);
    return run_dgmax("run " + sh_quote(path_) + " --output " + sh_quote(out_) + (extra.empty() ? "" : " " + extra));
  }

  // `dgmax run <args>` (built-in default unless args name a config).
  static CliResult run_args(const std::string& args) { return run_dgmax("run " + args); }

  // Exit code 1, exactly one error message, nothing on stdout, and each of `parts` in stderr.
  static void expect_user_error(const CliResult& r, std::initializer_list<std::string> parts) {
    EXPECT_EQ(r.code, 1) << "stderr:\n" << r.err << "stdout:\n" << r.out;
    EXPECT_EQ(count_of(r.err, "error: "), 1u) << "expected exactly one message:\n" << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("please report"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "stdout of a failed run:\n" << r.out;
    for (const std::string& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "missing: " << p << "\nstderr:\n" << r.err;
  }

  // The message starts a line of stderr with exactly `prefix` ("file:line:col: error: ..."): the
  // location is the first thing on the line, not some text that merely contains it.
  static void expect_line_starts_with(const CliResult& r, const std::string& prefix) {
    EXPECT_TRUE(r.err.rfind(prefix, 0) == 0 || r.err.find("\n" + prefix) != std::string::npos)
        << "no line starts with:\n" << prefix << "\nstderr:\n" << r.err;
  }

  // The caret line of a rendered error: "  " + (column - 1) spaces + "^".
  static std::string caret(int column) { return "\n  " + std::string(column - 1, ' ') + "^\n"; }

  // Output-directory integrity after a failed run: no *.tmp files, every .vtu and .pvd complete,
  // and every file a .pvd lists exists.
  static void expect_intact_output(const std::string& dir) {
    if (!fs::exists(dir)) return;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      EXPECT_FALSE(ends_with(name, ".tmp")) << "left-over temp file " << entry.path();
      if (ends_with(name, ".vtu") || ends_with(name, ".pvd")) {
        const std::string text = read_all(entry.path().string());
        std::string trimmed = text;
        while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.pop_back();
        EXPECT_TRUE(ends_with(trimmed, "</VTKFile>")) << "incomplete " << entry.path();
        EXPECT_NE(text.find("<VTKFile"), std::string::npos) << "not a VTK XML file: " << entry.path();
      }
      if (ends_with(name, ".pvd")) {
        const std::string text = read_all(entry.path().string());
        EXPECT_NE(text.find("<Collection>"), std::string::npos) << entry.path();
        const std::regex file_attr("file=\"([^\"]+)\"");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), file_attr); it != std::sregex_iterator(); ++it)
          EXPECT_TRUE(fs::exists(fs::path(dir) / (*it)[1].str())) << entry.path() << " lists missing " << (*it)[1];
      }
    }
  }

  std::string dir_, out_, path_;
};

// ---- malformed YAML, not a mapping, empty ------------------------------------------------------

TEST_F(RunErrors, MalformedYamlUnclosedBracket) {
  auto r = run_config("unclosed.yaml", "mesh:\n  box: {cells: [1, 1, 1]\ntime: {final: 0.1}\n");
  expect_user_error(r, {path_ + ":3:1: error: invalid YAML: ", "  time: {final: 0.1}\n", caret(1),
                        "hint: check indentation, colons and brackets"});
}

TEST_F(RunErrors, MalformedYamlUnclosedSequenceAtEndOfFile) {
  auto r = run_config("unclosed_seq.yaml", "mesh:\n  box:\n    cells: [1, 1, 1\n");
  expect_user_error(r, {path_ + ":", ": error: invalid YAML: ", "hint: check indentation, colons and brackets"});
}

TEST_F(RunErrors, MalformedYamlTabIndentation) {
  auto r = run_config("tab.yaml", "mesh:\n\tbox: {cells: [1, 1, 1]}\n");
  expect_user_error(r, {path_ + ":2:", ": error: invalid YAML: ", "hint: check indentation, colons and brackets"});
}

// yaml-cpp accepts duplicate keys silently (and lookups return the FIRST one), so a config with
// `time:` twice runs with the first block and ignores the second: a silently wrong run. YAML
// requires unique keys; dgmax must reject them.
TEST_F(RunErrors, DuplicateKeyIsRejected) {
  auto r = run_config("dup.yaml", std::string(kTiny) + "time: {final: 0.1}\n");
  expect_user_error(r, {path_ + ":4:1: error: ", "duplicate key 'time'"});
  r = run_config("dup_inner.yaml",
                 "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 1, order: 2}\ntime: {final: 0.05}\n");
  expect_user_error(r, {path_ + ":2:28: error: ", "duplicate key 'order'"});
}

TEST_F(RunErrors, ConfigThatIsNotAMapping) {
  auto r = run_config("list.yaml", "- mesh\n- time\n");
  expect_user_error(r, {path_ + ":1:1: error: the config must be a YAML mapping (key: value lines)",
                        "hint: write one 'key: value' per top-level setting"});
  r = run_config("scalar.yaml", "hello\n");
  expect_user_error(r, {path_ + ":1:1: error: the config must be a YAML mapping (key: value lines)",
                        "hint: write one 'key: value' per top-level setting"});
}

TEST_F(RunErrors, EmptyFile) {
  auto r = run_config("empty.yaml", "");
  expect_user_error(r, {path_ + ": error: the config has no 'mesh' section",
                        "hint: add e.g. mesh: {box: {cells: [4, 4, 4]}}"});
  r = run_config("only_comment.yaml", "# nothing here\n");
  expect_user_error(r, {path_ + ": error: the config has no 'mesh' section"});
}

TEST_F(RunErrors, MissingConfigFile) {
  auto r = run_args(sh_quote(dir_ + "/nope.yaml") + " --output " + sh_quote(out_));
  expect_user_error(r, {"error: cannot open config file '" + dir_ + "/nope.yaml'", "hint: check the path"});
}

// ---- unknown keys at every level, with the closest valid key ----------------------------------

TEST_F(RunErrors, UnknownTopLevelKey) {
  auto r = run_config("top.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ntme: {final: 0.1}\n");
  expect_user_error(r, {path_ + ":2:1: error: unknown key 'tme' in 'config'", "\n  tme: {final: 0.1}\n", caret(1),
                        "hint: did you mean 'time'? valid keys: mesh, discretization, constants, materials, "
                        "boundaries, initial, exact, incident, sources, time, output, backend"});
}

TEST_F(RunErrors, UnknownKeyInMesh) {
  auto r = run_config("mesh.yaml", "mesh:\n  box: {cells: [1, 1, 1]}\n  refin: 1\n");
  expect_user_error(r, {path_ + ":3:3: error: unknown key 'refin' in 'mesh'", caret(3),
                        "hint: did you mean 'refine'? valid keys: box, file, size, refine"});
}

TEST_F(RunErrors, UnknownKeyInMeshBox) {
  auto r = run_config("box.yaml", "mesh:\n  box: {cells: [1, 1, 1], perodic: [x]}\n");
  expect_user_error(r, {path_ + ":2:27: error: unknown key 'perodic' in 'mesh.box'", caret(27),
                        "hint: did you mean 'periodic'? valid keys: lower, upper, cells, periodic, regions"});
}

TEST_F(RunErrors, UnknownKeyInDiscretization) {
  auto r = run_config("disc.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {ordr: 2}\n");
  expect_user_error(r, {path_ + ":2:18: error: unknown key 'ordr' in 'discretization'", caret(18),
                        "hint: did you mean 'order'? valid keys: order, precision, flux"});
}

TEST_F(RunErrors, UnknownKeyInFluxMapping) {
  auto r = run_config("flux.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {flux: {alpah: 0.5}}\n");
  expect_user_error(r, {path_ + ":2:25: error: unknown key 'alpah' in 'discretization.flux'",
                        "hint: did you mean 'alpha'?"});
}

TEST_F(RunErrors, UnknownKeyInMaterials) {
  auto r = run_config("mat.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nmaterials:\n  default: {eps: 1, muu: 1}\n");
  expect_user_error(r, {path_ + ":3:21: error: unknown key 'muu' in 'materials.default'", caret(21),
                        "hint: did you mean 'mu'? valid keys: eps, mu, sigma"});
  // a tagged material (the tag exists: a box region)
  r = run_config("mat_tag.yaml",
                 "mesh:\n  box: {cells: [1, 1, 1], regions: [{tag: slab, lower: [0, 0, 0], upper: [1, 1, 0.5]}]}\n"
                 "materials:\n  slab:\n    epss: 2\n");
  expect_user_error(r, {path_ + ":5:5: error: unknown key 'epss' in 'materials.slab'",
                        "hint: did you mean 'eps'? valid keys: eps, mu, sigma"});
}

TEST_F(RunErrors, UnknownKeyInTime) {
  auto r = run_config("time.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ntime:\n  final: 0.1\n  cfll: 0.5\n");
  expect_user_error(r, {path_ + ":4:3: error: unknown key 'cfll' in 'time'", "\n    cfll: 0.5\n", caret(3),
                        "hint: did you mean 'cfl'? valid keys: final, cfl"});
}

TEST_F(RunErrors, UnknownKeyInOutput) {
  auto r = run_config("output.yaml", "mesh: {box: {cells: [1, 1, 1]}}\noutput: {dir: x, vtk_evry: 0.1}\n");
  expect_user_error(r, {path_ + ":2:18: error: unknown key 'vtk_evry' in 'output'", caret(18),
                        "hint: did you mean 'vtk_every'? valid keys: dir, vtk_every, format, energy_every"});
}

TEST_F(RunErrors, UnknownKeyInFieldSections) {
  auto r = run_config("src.yaml", std::string(kTiny) + "sources: {j: [\"0\", \"0\", \"0\"]}\n");
  expect_user_error(r, {path_ + ":4:11: error: unknown key 'j' in 'sources'", "hint: did you mean 'J'?"});
  r = run_config("init.yaml", std::string(kTiny) + "initial: {E: [\"0\", \"0\", \"0\"], Hx: [\"0\", \"0\", \"0\"]}\n");
  expect_user_error(r, {path_ + ":4:31: error: unknown key 'Hx' in 'initial'", "did you mean 'H'? valid keys: E, H"});
}

// ---- wrong types and out-of-range values --------------------------------------------------------

TEST_F(RunErrors, OrderNotAnInteger) {
  auto r = run_config("order.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: four}\n");
  expect_user_error(r, {path_ + ":2:25: error: 'discretization.order' must be an integer, got 'four'",
                        "\n  discretization: {order: four}\n", caret(25)});
  r = run_config("order_frac.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 2.5}\n");
  expect_user_error(r, {path_ + ":2:25: error: 'discretization.order' must be an integer, got '2.5'"});
  r = run_config("order0.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 0}\n");
  expect_user_error(r, {path_ + ":2:25: error: 'discretization.order' must be between 1 and 15, got 0"});
}

TEST_F(RunErrors, CellsWithTwoEntries) {
  auto r = run_config("cells.yaml", "mesh: {box: {cells: [2, 2]}}\n");
  expect_user_error(r, {path_ + ":1:21: error: 'mesh.box.cells' must be a list of 3 integers", caret(21),
                        "hint: e.g. [4, 4, 4]"});
  r = run_config("cells0.yaml", "mesh: {box: {cells: [2, 0, 2]}}\n");
  expect_user_error(r, {path_ + ":1:21: error: 'mesh.box.cells' must be ≥ 1 in every direction"});
}

TEST_F(RunErrors, NegativeFinalTime) {
  auto r = run_config("final.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ntime: {final: -1}\n");
  expect_user_error(r, {path_ + ":2:15: error: 'time.final' must be positive", caret(15)});
  r = run_config("final_nan.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ntime: {final: .nan}\n");
  expect_user_error(r, {path_ + ":2:15: error: 'time.final' must be a finite number, got '.nan'", caret(15)});
}

TEST_F(RunErrors, CflOutOfRange) {
  auto r = run_config("cfl.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ntime: {cfl: 5}\n");
  expect_user_error(r, {path_ + ":2:13: error: 'time.cfl' must be in (0, 2]", caret(13),
                        "hint: about 1 is the stability limit; 0.5 is safe"});
  r = run_config("cfl0.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ntime: {cfl: 0}\n");
  expect_user_error(r, {path_ + ":2:13: error: 'time.cfl' must be in (0, 2]"});
}

TEST_F(RunErrors, MaterialValuesOutOfRange) {
  auto r = run_config("eps.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nmaterials: {default: {eps: 0}}\n");
  expect_user_error(r, {path_ + ":2:28: error: 'materials.default.eps' must be positive", caret(28)});
  r = run_config("mu.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nmaterials: {default: {mu: -1}}\n");
  expect_user_error(r, {path_ + ":2:27: error: 'materials.default.mu' must be positive", caret(27)});
  r = run_config("sigma.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nmaterials: {default: {sigma: -1}}\n");
  expect_user_error(r, {path_ + ":2:30: error: 'materials.default.sigma' must be ≥ 0", caret(30)});
  r = run_config("eps_nan.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nmaterials: {default: {eps: \"sqrt(-1)\"}}\n");
  expect_user_error(r, {path_ + ":2:28: error: 'materials.default.eps' is not a finite number"});
}

TEST_F(RunErrors, FluxAlphaOutOfRange) {
  auto r = run_config("alpha.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {flux: {alpha: 2}}\n");
  expect_user_error(r, {path_ + ":2:32: error: 'discretization.flux.alpha' must be in [0, 1] (0 central, 1 upwind)",
                        caret(32)});
}

TEST_F(RunErrors, UnknownFluxName) {
  auto r = run_config("flux.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {flux: upwinf}\n");
  expect_user_error(r, {path_ + ":2:24: error: unknown flux 'upwinf'", caret(24),
                        "hint: did you mean 'upwind'? use upwind, central or {alpha: 0.5}"});
}

TEST_F(RunErrors, UnknownPrecision) {
  auto r = run_config("prec.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {precision: quad}\n");
  expect_user_error(r, {path_ + ":2:29: error: unknown precision 'quad'", caret(29), "hint: use double or single"});
}

TEST_F(RunErrors, UnknownBackend) {
  auto r = run_config("backend.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nbackend: gpu\n");
  expect_user_error(r, {path_ + ":2:10: error: unknown backend 'gpu'", caret(10), "hint: use auto, ref, cpu or cuda"});
}

TEST_F(RunErrors, UnknownBoundaryKind) {
  auto r = run_config("bc.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nboundaries: {default: pecc}\n");
  expect_user_error(r, {path_ + ":2:23: error: unknown boundary condition 'pecc' for 'boundaries.default'", caret(23),
                        "hint: did you mean 'pec'? valid: pec, pmc, absorbing, incident"});
}

TEST_F(RunErrors, UnknownPeriodicDirection) {
  auto r = run_config("per.yaml", "mesh: {box: {cells: [1, 1, 1], periodic: [w]}}\n");
  expect_user_error(r, {path_ + ":1:43: error: unknown periodic direction 'w'", caret(43), "hint: use x, y or z"});
  r = run_config("per_scalar.yaml", "mesh: {box: {cells: [1, 1, 1], periodic: x}}\n");
  expect_user_error(r, {path_ + ":1:42: error: 'mesh.box.periodic' must be a list of directions",
                        "hint: e.g. periodic: [x, y]"});
}

TEST_F(RunErrors, SectionsOfTheWrongShape) {
  auto r = run_config("mesh_scalar.yaml", "mesh: cube.msh\n");
  expect_user_error(r, {path_ + ":1:7: error: 'mesh' must be a mapping (key: value)"});
  r = run_config("mat_list.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nmaterials: [glass]\n");
  expect_user_error(r, {path_ + ":2:12: error: 'materials' must map volume tags (or 'default') to {eps, mu, sigma}"});
  r = run_config("bc_list.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nboundaries: [pec]\n");
  expect_user_error(r, {path_ + ":2:13: error: 'boundaries' must map boundary tags"});
  r = run_config("const_list.yaml", "mesh: {box: {cells: [1, 1, 1]}}\nconstants: [a, b]\n");
  expect_user_error(r, {path_ + ":2:12: error: 'constants' must be a mapping (name: expression)"});
}

// ---- expressions: caret columns in quoted and plain scalars, names, arity, constants -----------

TEST_F(RunErrors, ExpressionSyntaxErrorInDoubleQuotedScalar) {
  // line 5 is `  E: ["0", "0", "sin(pi*x))"]`: the extra ')' is at column 27
  auto r = run_config("dq.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"sin(pi*x))\"]\n");
  expect_user_error(r, {path_ + ":5:27: error: unexpected ')' without a matching '('",
                        "\n    E: [\"0\", \"0\", \"sin(pi*x))\"]\n", caret(27)});
}

TEST_F(RunErrors, ExpressionSyntaxErrorInSingleQuotedScalar) {
  // `  E: ['0', '0', 'cos(x']`: '(' at column 21, the end of the expression at column 23
  auto r = run_config("sq.yaml", std::string(kTiny) + "initial:\n  E: ['0', '0', 'cos(x']\n");
  expect_user_error(r, {path_ + ":5:23: error: expected ')' to close '(' at column 21", caret(23)});
}

TEST_F(RunErrors, ExpressionSyntaxErrorInPlainScalar) {
  // `  E: [0, 0, sin(pi*x)*]`: the expression starts at column 13; its end (after '*') is column 23
  auto r = run_config("plain.yaml", std::string(kTiny) + "initial:\n  E: [0, 0, sin(pi*x)*]\n");
  expect_user_error(r, {path_ + ":5:23: error: expected an expression after '*'", caret(23)});
  // block sequence, plain scalar: `    - 2*x +* y` has the second operator at column 12
  r = run_config("block.yaml", std::string(kTiny) + "initial:\n  E:\n    - 0\n    - 0\n    - 2*x +* y\n");
  expect_user_error(r, {path_ + ":8:12: error: expected an expression after '+'", "\n      - 2*x +* y\n", caret(12)});
  // extra spaces inside a flow sequence: `  E: [  "0",   0 ,   "1 +" ]` ends at column 26
  r = run_config("spaces.yaml", std::string(kTiny) + "initial:\n  E: [  \"0\",   0 ,   \"1 +\" ]\n");
  expect_user_error(r, {path_ + ":5:26: error: expected an expression after '+'", caret(26)});
  // a plain scalar in a block mapping (a material value): `    eps: 2*(1`
  r = run_config("mat_expr.yaml", std::string(kTiny) + "materials:\n  default:\n    eps: 2*(1\n");
  expect_user_error(r, {path_ + ":6:14: error: expected ')' to close '(' at column 12", caret(14)});
}

TEST_F(RunErrors, ExpressionWithEscapesKeepsItsLocation) {
  // an escape sequence: the text no longer matches the line byte for byte, yet the caret finds
  // the source character (the first backslash of `\\t`, column 24)
  auto r = run_config("esc.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"sin(x)\\\\t+\"]\n");
  expect_user_error(r, {path_ + ":5:24: error: unexpected character '\\'", caret(24), "hint: backslashes"});
}

// The caret is drawn with one space per byte before the column, so a multi-byte UTF-8 character
// earlier on the line (here the tag `verré`) pushes it one place right of the offending character.
TEST_F(RunErrors, CaretAlignedAfterNonAsciiText) {
  const std::string line = "materials: {verré: {eps: \"2*\"}}";
  auto r = run_config("utf8.yaml", std::string(kTiny) + line + "\n");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("expected an expression after '*'"), std::string::npos) << r.err;
  // the error is at the end of "2*", i.e. under the closing quote: 25 characters before it
  const std::string before = "materials: {verré: {eps: \"2*";
  size_t chars = 0;
  for (unsigned char c : before) chars += (c & 0xC0) != 0x80;
  EXPECT_NE(r.err.find("\n  " + line + "\n  " + std::string(chars, ' ') + "^\n"), std::string::npos)
      << "caret not under the closing quote:\n" << r.err;
}

TEST_F(RunErrors, ExpressionUnknownNameSuggestsTheClosest) {
  auto r = run_config("name.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"sin(pi*xx)\"]\n");
  expect_user_error(r, {path_ + ":5:25: error: unknown name 'xx'", caret(25),
                        "hint: did you mean 'x'? (names available here: x, y, z, t, pi)"});
  r = run_config("const_name.yaml", std::string(kTiny) +
                                        "constants: {omega: \"2*pi\"}\ninitial:\n  E: [\"0\", \"0\", \"cos(omgea*x)\"]\n");
  expect_user_error(r, {path_ + ":6:22: error: unknown name 'omgea'",
                        "hint: did you mean 'omega'? (names available here: x, y, z, t, pi, omega)"});
  r = run_config("fn.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"sinn(x)\"]\n");
  expect_user_error(r, {path_ + ":5:18: error: unknown function 'sinn'", "hint: did you mean 'sin'? functions: sin,"});
  r = run_config("flux_name.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"E\"]\n");
  expect_user_error(r, {path_ + ":5:18: error: 'E' is the electric field vector, only available in flux expressions"});
}

TEST_F(RunErrors, ExpressionWrongArgumentCount) {
  auto r = run_config("atan2.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"atan2(x)\"]\n");
  expect_user_error(r, {path_ + ":5:18: error: atan2 takes 2 arguments, got 1", caret(18)});
  r = run_config("sin2.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"sin(x, y)\"]\n");
  expect_user_error(r, {path_ + ":5:18: error: sin takes 1 argument, got 2"});
}

TEST_F(RunErrors, ExpressionErrorsInExactSourcesAndIncident) {
  auto r = run_config("exact.yaml", std::string(kTiny) + "exact:\n  E: [\"0\", \"0\", \"cos(t\"]\n  H: [\"0\", \"0\", \"0\"]\n");
  expect_user_error(r, {path_ + ":5:23: error: expected ')' to close '(' at column 21"});
  r = run_config("sources.yaml", std::string(kTiny) + "sources:\n  J: [\"0\", \"0\", \"exp(-t^2)*\"]\n");
  expect_user_error(r, {path_ + ":5:28: error: expected an expression after '*'", caret(28)});
  r = run_config("incident.yaml", std::string(kTiny) + "boundaries: {default: incident}\nincident:\n"
                                                       "  E: [\"0\", \"0\", \"cos(t - x\"]\n  H: [\"0\", \"0\", \"0\"]\n");
  expect_user_error(r, {path_ + ":6:27: error: expected ')' to close '(' at column 21"});
  r = run_config("exact_half.yaml", std::string(kTiny) + "exact:\n  E: [\"0\", \"0\", \"cos(t)\"]\n");
  expect_user_error(r, {path_ + ":5:3: error: 'exact' needs both E and H"});
}

TEST_F(RunErrors, ConstantsCycleAndSelfReference) {
  auto r = run_config("cycle.yaml", std::string(kTiny) + "constants:\n  a: \"b + 1\"\n  b: \"2*a\"\n");
  expect_user_error(r, {path_ + ":5:7: error: constants depend on each other in a cycle: a -> b -> a", caret(7),
                        "hint: a constant cannot depend on itself, directly or through others"});
  r = run_config("self.yaml", std::string(kTiny) + "constants:\n  a: \"a + 1\"\n");
  expect_user_error(r, {path_ + ":5:7: error: constant 'a' refers to itself"});
  r = run_config("const_x.yaml", std::string(kTiny) + "constants:\n  a: \"2*x\"\n");
  expect_user_error(r, {path_ + ":5:9: error: constant 'a' cannot use 'x': constants are fixed numbers"});
  r = run_config("const_syntax.yaml", std::string(kTiny) + "constants:\n  omega: \"sqrt(2)*\"\n");
  expect_user_error(r, {path_ + ":5:19: error: expected an expression after '*'", caret(19)});
}

TEST_F(RunErrors, VectorWithTwoComponents) {
  auto r = run_config("vec2.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\"]\n");
  expect_user_error(r, {path_ + ":5:6: error: 'initial.E' must be a list of 3 expressions (x, y, z components)",
                        caret(6), "hint: e.g. E: [\"0\", \"0\", \"sin(pi*x)\"]"});
  r = run_config("src2.yaml", std::string(kTiny) + "sources: {J: [\"1\", \"0\"]}\n");
  expect_user_error(r, {path_ + ":4:14: error: 'sources.J' must be a list of 3 expressions"});
}

// ---- mesh section and tags -----------------------------------------------------------------------

TEST_F(RunErrors, MissingMeshSection) {
  auto r = run_config("nomesh.yaml", "time: {final: 0.1}\n");
  expect_user_error(r, {path_ + ": error: the config has no 'mesh' section",
                        "hint: add e.g. mesh: {box: {cells: [4, 4, 4]}} or mesh: {file: meshes/cube.geo}"});
}

TEST_F(RunErrors, MeshWithBothBoxAndFile) {
  auto r = run_config("both.yaml", "mesh:\n  box: {cells: [1, 1, 1]}\n  file: cube.msh\n");
  expect_user_error(r, {path_ + ":2:3: error: 'mesh' has both 'box' and 'file'; give one"});
  r = run_config("neither.yaml", "mesh: {refine: 1}\n");
  expect_user_error(r, {path_ + ":1:7: error: 'mesh' needs either 'box' or 'file'"});
}

TEST_F(RunErrors, NonexistentMeshFile) {
  auto r = run_config("nofile.yaml", "mesh: {file: nowhere/cube.msh}\ntime: {final: 0.05}\n");
  expect_user_error(r, {"error: mesh file 'nowhere/cube.msh' does not exist",
                        "hint: the directory 'nowhere' does not exist either"});
  const std::string abs = dir_ + "/missing.msh";
  r = run_config("nofile_abs.yaml", "mesh: {file: " + abs + "}\n");
  expect_user_error(r, {"error: mesh file '" + abs + "' does not exist"});
}

TEST_F(RunErrors, UnsupportedMeshExtension) {
  auto r = run_config("stl.yaml", "mesh: {file: cube.stl}\n");
  expect_user_error(r, {"error: mesh file 'cube.stl' has an unsupported extension '.stl'",
                        "supported mesh files: .msh", ".geo", "hint: other formats can be converted with Gmsh"});
}

// A curved mesh runs on every backend. The 10-node fixture with one edge's midpoint moved is
// curved. (The layer, the TF/SF box and surface monitors refuse curved elements of their own:
// tests/unit/physics/curved_refusals_test.cpp.)
TEST_F(RunErrors, CurvedMeshRunsOnEveryHostBackend) {
  std::ifstream in(std::string(DGMAX_TEST_DATA_DIR) + "/second_order_tets.msh", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\n6 0.5 0 0\n"), 11, "\n6 0.5 0.05 0.05\n");
  const std::string mesh = write("bent.msh", text);
  // the generated cpu backend runs curved elements (tests/unit/backends/curved_cpu_test.cpp)
  auto r = run_config("bent.yaml", "mesh: {file: " + mesh + "}\ntime: {final: 0.05}\nbackend: cpu\n");
  EXPECT_EQ(r.code, 0) << r.err;
  // the ref backend runs it, probes located on the curved map (tests/unit/physics/curved_probes_test.cpp)
  auto ref = run_config("bent_ref.yaml", "mesh: {file: " + mesh + "}\ntime: {final: 0.01}\nbackend: ref\n"
                                         "probes: {every: 0.005, points: [{name: p, at: [0.2, 0.2, 0.2]}]}\n");
  EXPECT_EQ(ref.code, 0) << ref.err;
  // the same file with straight edges runs
  auto ok = run_config("straight.yaml", "mesh: {file: " + std::string(DGMAX_TEST_DATA_DIR) +
                                            "/second_order_tets.msh}\ntime: {final: 0.01}\n");
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(RunErrors, MeshFileWithHexahedra) {
  const std::string mesh = std::string(DGMAX_TEST_DATA_DIR) + "/hexahedra.msh";
  auto r = run_config("hex.yaml", "mesh: {file: " + mesh + "}\ntime: {final: 0.05}\n");
  expect_user_error(r, {"error: mesh '" + mesh + "' contains 2 hexahedra (8-node); dgmax needs complete Lagrange "
                                                 "tetrahedra of order 1..10 only",
                        "hint: re-mesh with tetrahedra only", "Recombine"});
}

// "Every error ... prints one message with file:line:column": a corrupt mesh file is located in the
// .msh itself, at the line of the bad count (ASCII: line and column, the line with a caret; binary:
// the line of the section header, no column), by `run` and by `info` alike.
TEST_F(RunErrors, CorruptMeshFileIsLocatedAtItsLine) {
  const auto corrupt_copy = [&](const std::string& name, const std::string& to, bool binary) {
    std::ifstream in(std::string(DGMAX_TEST_DATA_DIR) + "/" + name, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = bytes.find("$Elements\n") + 10;  // the first byte after the header line
    if (binary)  // MSH 4.1 binary: the second size_t of the header is the element count
      for (int i = 0; i < 8; ++i) bytes[at + 8 + i] = i < 4 ? '\xff' : '\0';
    else
      bytes.replace(at, bytes.find('\n', at) - at, "4294967295");
    write(to, bytes);
    return static_cast<int>(std::count(bytes.begin(), bytes.begin() + at, '\n')) + 1;
  };
  // ASCII MSH 2
  const std::string ascii = dir_ + "/corrupt.msh";
  const int line = corrupt_copy("two_tets_v2.msh", "corrupt.msh", false);
  const std::string ascii_prefix = ascii + ":" + std::to_string(line) + ":1: error: mesh file '" + ascii +
                                   "' is corrupt: section $Elements (line " + std::to_string(line - 1) +
                                   ") declares 4294967295 elements";
  auto r = run_config("corrupt.yaml", "mesh: {file: " + ascii + "}\ntime: {final: 0.05}\n");
  expect_user_error(r, {ascii_prefix, "\n  4294967295\n  ^\n", "hint: the file is damaged"});
  expect_line_starts_with(r, ascii_prefix);
  r = run_dgmax("info " + sh_quote(ascii));
  expect_user_error(r, {ascii_prefix, "hint: the file is damaged"});
  expect_line_starts_with(r, ascii_prefix);
  // binary MSH 4.1: the section header's line, no column
  const std::string binary = dir_ + "/corrupt_binary.msh";
  const int header_line = corrupt_copy("cube_v4_binary.msh", "corrupt_binary.msh", true) - 1;
  const std::string binary_prefix = binary + ":" + std::to_string(header_line) + ": error: mesh file '" + binary +
                                    "' is corrupt: section $Elements (line " + std::to_string(header_line) +
                                    ") declares 4294967295 elements";
  r = run_config("corrupt_binary.yaml", "mesh: {file: " + binary + "}\ntime: {final: 0.05}\n");
  expect_user_error(r, {binary_prefix, "hint: the file is damaged"});
  expect_line_starts_with(r, binary_prefix);
  // truncated: located at the section that has no end
  const std::string truncated = std::string(DGMAX_TEST_DATA_DIR) + "/truncated.msh";
  r = run_config("truncated.yaml", "mesh: {file: " + truncated + "}\ntime: {final: 0.05}\n");
  const std::string truncated_prefix =
      truncated + ":12:1: error: mesh file '" + truncated + "' is truncated: section $Nodes (line 12) has no $EndNodes";
  expect_user_error(r, {truncated_prefix, "\n  $Nodes\n  ^\n", "hint: the file is incomplete"});
  expect_line_starts_with(r, truncated_prefix);
}

TEST_F(RunErrors, MaterialForMissingVolumeTag) {
  auto r = run_config("mat_tag.yaml", std::string(kTiny) + "materials:\n  default: {eps: 1}\n  glas: {eps: 2}\n");
  expect_user_error(r, {path_ + ":6:3: error: volume tag 'glas' does not exist in mesh 'box:1,1,1'", caret(3),
                        "hint: the mesh has volume tags: domain"});
  // close to an existing tag: suggested
  r = run_config("mat_tag2.yaml", "mesh:\n  box: {cells: [1, 1, 1], regions: [{tag: slab, lower: [0, 0, 0], upper: [1, 1, 0.5]}]}\n"
                                  "time: {final: 0.05}\nmaterials:\n  slap: {eps: 2}\n");
  expect_user_error(r, {path_ + ":5:3: error: volume tag 'slap' does not exist", "did you mean 'slab'?"});
}

TEST_F(RunErrors, BoundaryForMissingTag) {
  auto r = run_config("bc_tag.yaml", std::string(kTiny) + "boundaries:\n  default: pec\n  top: pmc\n");
  expect_user_error(r, {path_ + ":6:3: error: boundary tag 'top' does not exist in mesh 'box:1,1,1'",
                        "hint: the mesh has boundary tags: xmin, xmax, ymin, ymax, zmin, zmax"});
  r = run_config("bc_tag2.yaml", std::string(kTiny) + "boundaries:\n  xmn: pmc\n");
  expect_user_error(r, {path_ + ":5:3: error: boundary tag 'xmn' does not exist", "did you mean 'xmin'?"});
}

TEST_F(RunErrors, IncidentBoundaryWithoutIncidentSection) {
  auto r = run_config("inc.yaml", std::string(kTiny) + "boundaries:\n  default: pec\n  xmin: incident\n");
  expect_user_error(r, {path_ + ":6:3: error: boundary 'xmin' is 'incident', which needs the incident field, but the config has no 'incident' section",
                        caret(3), "hint: add incident: {E: [...], H: [...]}"});
  r = run_config("inc_default.yaml", std::string(kTiny) + "boundaries: {default: incident}\n");
  expect_user_error(r, {path_ + ":4:14: error: boundary 'default' is 'incident', which needs the incident field, but the config has no 'incident' section"});
}

// ---- --set -------------------------------------------------------------------------------------

TEST_F(RunErrors, SetWithoutEquals) {
  auto r = run_args("--set time.final --output " + sh_quote(out_));
  expect_user_error(r, {"error: malformed --set 'time.final'",
                        "hint: write --set key.path=value, e.g. --set discretization.order=3"});
}

TEST_F(RunErrors, SetWithEmptyKey) {
  auto r = run_args("--set =3 --output " + sh_quote(out_));
  expect_user_error(r, {"error: malformed --set '=3'", "hint: write --set key.path=value"});
  r = run_args("--set time..final=1 --output " + sh_quote(out_));
  expect_user_error(r, {"error: malformed key path 'time..final' in --set", "hint: e.g. --set time.final=2"});
  r = run_args("--set .time=1 --output " + sh_quote(out_));
  expect_user_error(r, {"error: malformed key path '.time' in --set"});
}

TEST_F(RunErrors, SetWithInvalidYamlValue) {
  auto r = run_args("--set 'time.final=[1, 2' --output " + sh_quote(out_));
  expect_user_error(r, {"error: --set time.final: the value '[1, 2' is not valid YAML",
                        "hint: the value after '=' is read as YAML"});
}

TEST_F(RunErrors, SetBelowAScalar) {
  auto r = run_args("--set time.final.x=1 --output " + sh_quote(out_));
  expect_user_error(r, {"error: --set time.final.x: 'final' is not a mapping in the config",
                        "hint: 'final' holds a value, not settings below it: set it as a whole with --set time.final=VALUE"});
}

TEST_F(RunErrors, SetValuesAreValidatedLikeFileValues) {
  auto r = run_args("--set time.final=0.05 --set time.cfl=5 --output " + sh_quote(out_));
  expect_user_error(r, {"error: 'time.cfl' must be in (0, 2]", "hint: about 1 is the stability limit"});
  r = run_args("--set discretization.order=four --output " + sh_quote(out_));
  expect_user_error(r, {"error: 'discretization.order' must be an integer, got 'four'"});
  r = run_args("--set 'mesh.box.cells=[2, 2]' --output " + sh_quote(out_));
  expect_user_error(r, {"error: 'mesh.box.cells' must be a list of 3 integers"});
  r = run_args("--set backend=gpu --output " + sh_quote(out_));
  expect_user_error(r, {"error: unknown backend 'gpu'", "hint: use auto, ref, cpu or cuda"});
  r = run_args("--set tme.final=1 --output " + sh_quote(out_));
  expect_user_error(r, {"error: unknown key 'tme' in 'config'", "did you mean 'time'?"});
  r = run_args("--set 'initial.E=[\"0\", \"0\", \"sin(x\"]' --output " + sh_quote(out_));
  expect_user_error(r, {"error: expected ')' to close '(' at column 4 in expression 'sin(x'"});
  // on top of a config file too
  r = run_config("base.yaml", kTiny, "--set materials.default.eps=0");
  expect_user_error(r, {"error: 'materials.default.eps' must be positive"});
}

// A value that came from --set has no place in the config file, but the error is rendered with
// the config's line 1 (and its text as snippet, caret at column 1), which points the user at an
// unrelated line. It should name the --set option instead.
TEST_F(RunErrors, SetErrorsDoNotPointIntoTheConfigFile) {
  auto r = run_config("base.yaml", kTiny, "--set time.final=-1");
  expect_user_error(r, {"'time.final' must be positive", "--set time.final"});
  EXPECT_EQ(r.err.find(path_ + ":1:1:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("mesh: {box: {cells: [1, 1, 1]}}"), std::string::npos) << r.err;
  r = run_args("--set time.cfl=5 --output " + sh_quote(out_));
  expect_user_error(r, {"'time.cfl' must be in (0, 2]", "--set time.cfl"});
  EXPECT_EQ(r.err.find("(built-in default):1:1:"), std::string::npos) << r.err;
}

// ---- command-line options ------------------------------------------------------------------------

// CLI11 usage errors exit with its own codes (105 for a value outside --backend's choices, 109 for
// an unknown option) instead of the 1 every user error must give.
TEST_F(RunErrors, BadCommandLineOptionExitsOne) {
  auto r = run_args("--backend gpu --output " + sh_quote(out_));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("gpu"), std::string::npos) << r.err;
  r = run_args("--outptu " + sh_quote(out_));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("--outptu"), std::string::npos) << r.err;
}

// ---- blow-up ---------------------------------------------------------------------------------------

TEST_F(RunErrors, NonFiniteInitialFieldIsABlowUpAtStepZero) {
  for (const char* e : {"sqrt(-1)", "1/0", "sqrt(x - 2)"}) {
    SCOPED_TRACE(e);
    auto r = run_config("nan.yaml", std::string(kTiny) + "initial:\n  E: [\"0\", \"0\", \"" + e + "\"]\n");
    // a bad expression, not a blow-up: located at the expression, with the point where it fails
    expect_user_error(r, {path_ + ":5:18: error: 'initial.E[2]' is ", " at (x, y, z) = (",
                          "hint: check for the square root"});
    // the run had claimed the directory: it records its failure (never a "finished" summary)
    EXPECT_EQ(json::parse(read_all(out_ + "/summary.json"))["status"], "failed");
    expect_intact_output(out_);
  }
}

TEST_F(RunErrors, HugeSourceBlowsUpMidRun) {
  auto r = run_config("huge.yaml",
                      "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 1}\ntime: {final: 1}\n"
                      "output: {vtk_every: 0.05}\nsources:\n  J: [\"0\", \"0\", \"1e300*heaviside(t - 0.2)\"]\n");
  expect_user_error(r, {path_ + ": error: the solution blew up at step ", ", initially 0)",
                        "hint: likely cause: a source or incident field is not finite or grows without bound",
                        "Snapshots written so far are in " + out_});
  // a blow-up has no source line: it is located at the config file, as the user guide promises
  // ("file:line:column (or the file)"), and the file is the first thing on the line
  expect_line_starts_with(r, path_ + ": error: the solution blew up at step ");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("blew up at step ([0-9]+), t = ([0-9.e+-]+):"))) << r.err;
  EXPECT_GE(std::stoll(m[1].str()), 1);
  EXPECT_GT(std::stod(m[2].str()), 0.2);  // the source switches on at t = 0.2
  EXPECT_LT(std::stod(m[2].str()), 1.0);
  // snapshots up to the blow-up are there and complete; nothing of a finished run is
  EXPECT_TRUE(fs::exists(out_ + "/fields_00000.vtu") || fs::exists(out_ + "/fields_00000.h5"));
  const json s = json::parse(read_all(out_ + "/summary.json"));
  EXPECT_EQ(s["status"], "failed");
  EXPECT_LT(s["steps_done"].get<long long>(), s["steps"].get<long long>());
  EXPECT_EQ(json::parse(read_all(out_ + "/run.json"))["state"], "failed");
  // energy.csv holds the samples that passed the check, none of the blown-up state
  EXPECT_EQ(read_all(out_ + "/energy.csv").find("nan"), std::string::npos);
  expect_intact_output(out_);
}

// A source that is NaN (the square root of a negative number at every point) blew up the run and
// was named only as a likely cause, located at the file: now the blow-up names the component, the
// point and the time, at the expression's line and column.
TEST_F(RunErrors, NonFiniteSourceIsNamedAtItsLine) {
  auto r = run_config("nan_source.yaml", std::string(kTiny) + "sources:\n  J: [\"0\", \"0\", \"sqrt(-1 - t)\"]\n");
  expect_user_error(r, {path_ + ":5:18: error: the solution blew up at step ",
                        ": 'sources.J[2]' is NaN at (x, y, z) = (", "  J: [\"0\", \"0\", \"sqrt(-1 - t)\"]\n",
                        "hint: check for the square root or logarithm of a negative number"});
  EXPECT_EQ(r.err.find("likely cause"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(read_all(out_ + "/summary.json"))["status"], "failed");
  // an incident field that is infinite only from t = 0.02 on (log of 0, then of a negative number)
  r = run_config("nan_incident.yaml", std::string(kTiny) + "boundaries: {default: incident}\n"
                                                          "incident: {E: [\"0\", \"0\", \"0\"], H: [\"0\", \"log(0.02 - t)\", \"0\"]}\n");
  expect_user_error(r, {path_ + ":5:42: error: the solution blew up at step ", "'incident.H[1]' is "});
}

// frequencies: [1e300] gave a far field of `inf` in every row (exit 0), and now an internal error:
// refused at the frequency's line. On a volume monitor (no far field) the time step's limit
// refuses it, before any step: the DFT of samples every dt cannot see above 1 / (2 dt).
TEST_F(RunErrors, FrequencyAboveWhatTheRunResolvesIsRefusedAtItsLine) {
  auto r = run_config("ff.yaml", std::string(kTiny) + "monitors:\n  - name: m\n"
                                                     "    surface: {box: {lower: [0, 0, 0], upper: [1, 1, 1]}}\n"
                                                     "    frequencies: [1, 1e300]\n");
  expect_user_error(r, {path_ + ":7:22: error: 'monitors[0].frequencies[1]' = 1e+300 is too high for the far field"});
  EXPECT_FALSE(fs::exists(out_)) << "refused before the run";
  r = run_config("vol.yaml", std::string(kTiny) + "monitors:\n  - {name: m, volume: domain, frequencies: [1, 1e300]}\n");
  expect_user_error(r, {path_ + ":5:48: error: 'monitors[0].frequencies[1]' = 1e+300 is above ",
                        "the highest frequency the time step dt = "});
  EXPECT_FALSE(fs::exists(out_ + "/monitors.h5"));
  EXPECT_EQ(json::parse(read_all(out_ + "/summary.json"))["steps_done"], 0);
}

// ---- output directory ------------------------------------------------------------------------------

TEST_F(RunErrors, UnwritableOutputDirectory) {
  auto r = run_config("base.yaml", kTiny);  // sanity: this config itself runs
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_args(sh_quote(path_) + " --output /proc/self/x");
  expect_user_error(r, {"error: cannot create output directory '/proc/self/x'",
                        "hint: choose another output directory or fix its permissions"});
  const std::string file = write("regular_file", "not a directory\n");
  r = run_args(sh_quote(path_) + " --output " + sh_quote(file + "/sub"));
  expect_user_error(r, {"error: cannot create output directory '" + file + "/sub': Not a directory"});
  r = run_args(sh_quote(path_) + " --output " + sh_quote(file));
  expect_user_error(r, {"'" + file + "'", "hint: choose another output directory"});
  EXPECT_EQ(read_all(file), "not a directory\n");
  // the same from output.dir in the config (no --output)
  const std::string cfg = write("outdir.yaml", std::string(kTiny) + "output: {dir: /proc/self/x}\n");
  r = run_args(sh_quote(cfg));
  expect_user_error(r, {"error: cannot create output directory '/proc/self/x'"});
}

// ---- backends and precision ----------------------------------------------------------------------

TEST_F(RunErrors, SinglePrecisionWithTheRefBackend) {
  auto r = run_config("single.yaml", "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 1, precision: single}\n"
                                "time: {final: 0.05}\nbackend: ref\n");
  expect_user_error(r, {path_, "error: the ref backend computes in double precision only",
                        "hint: set discretization.precision: double"});
  r = run_args("--backend ref --set discretization.precision=single --set time.final=0.05 --output " + sh_quote(out_));
  expect_user_error(r, {"error: the ref backend computes in double precision only"});
  // the generated cpu backend (auto's choice without a GPU) runs single precision
  r = run_args("--set discretization.precision=single --set time.final=0.05 --quiet --output " + sh_quote(out_));
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(RunErrors, CudaBackendWithoutAGpu) {
  std::string why;
  if (dgmax::cuda::driver_available(&why)) GTEST_SKIP() << "this machine has a GPU";
  auto r = run_config("backend.yaml", std::string(kTiny) + "backend: cuda\n");
  expect_user_error(r, {path_ + ": error: ", "cuda", "hint: use backend: cpu"});  // located at the config
  r = run_config("plain.yaml", kTiny, "--backend cuda");
  expect_user_error(r, {"error: ", "cuda"});
}

// ---- output integrity after failures -------------------------------------------------------------

TEST_F(RunErrors, FailedRunsLeaveAPreviousRunIntact) {
  // a successful run first
  const std::string good = "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 1}\ntime: {final: 0.3}\n"
                           "output: {vtk_every: 0.1}\n";
  auto r = run_config("good.yaml", good);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out_ + "/summary.json"));
  const std::string summary = read_all(out_ + "/summary.json");
  const std::string energy = read_all(out_ + "/energy.csv");
  expect_intact_output(out_);

  // a blow-up mid-run into the same directory
  r = run_config("blowup.yaml", std::string(good) + "sources:\n  J: [\"0\", \"0\", \"1e300*heaviside(t - 0.15)\"]\n");
  expect_user_error(r, {"the solution blew up at step "});
  // the earlier run moved to its folder of previous/, complete; the directory holds the failed run only
  const std::string earlier = dgmax::test::newest_previous_run(out_);
  EXPECT_EQ(read_all(earlier + "/summary.json"), summary) << "summary.json changed by a failed run";
  EXPECT_EQ(read_all(earlier + "/energy.csv"), energy) << "energy.csv changed by a failed run";
  expect_intact_output(earlier);
  const std::string failed = read_all(out_ + "/summary.json");
  EXPECT_EQ(json::parse(failed)["status"], "failed");
  expect_intact_output(out_);

  // a config error into the same directory changes nothing
  r = run_config("bad.yaml", std::string(good) + "materials: {default: {eps: -1}}\n");
  expect_user_error(r, {"'materials.default.eps' must be positive"});
  EXPECT_EQ(read_all(out_ + "/summary.json"), failed);
  EXPECT_EQ(read_all(earlier + "/summary.json"), summary);
  EXPECT_EQ(read_all(earlier + "/energy.csv"), energy);
  expect_intact_output(out_);
}

TEST_F(RunErrors, ConfigErrorCreatesNoOutput) {
  auto r = run_config("bad.yaml", std::string(kTiny) + "materials: {default: {mu: 0}}\n");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_FALSE(fs::exists(out_ + "/summary.json"));
  expect_intact_output(out_);
}

// ---- the one positive case: the built-in default, shortened ---------------------------------------

TEST_F(RunErrors, DefaultRunWritesTheSummaryContract) {
  auto r = run_args("--set time.final=0.05 --output " + sh_quote(out_));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("dgmax: K = 162, N = 4"), std::string::npos) << r.out;
  const json s = json::parse(read_all(out_ + "/summary.json"));
  for (const char* key : {"K", "N", "dofs", "precision", "backend", "steps", "dt", "final_time", "wall_s", "errors", "energy"})
    EXPECT_TRUE(s.contains(key)) << key << "\n" << s.dump(2);
  EXPECT_EQ(s["K"], 162);  // 3x3x3 cubes of 6 tets
  EXPECT_EQ(s["N"], 4);
  EXPECT_EQ(s["dofs"], 6 * 162 * 35);
  EXPECT_EQ(s["precision"], "double");
  EXPECT_EQ(s["backend"], dgmax::cuda::driver_available() ? "cuda" : "cpu");  // auto
  EXPECT_GE(s["steps"].get<long long>(), 1);
  EXPECT_GT(s["dt"].get<double>(), 0);
  EXPECT_NEAR(s["final_time"].get<double>(), 0.05, 1e-14);
  EXPECT_GE(s["wall_s"].get<double>(), 0);
  for (const char* norm : {"L2", "Linf"})
    for (const char* f : {"E", "H"}) {
      ASSERT_TRUE(s["errors"].contains(norm) && s["errors"][norm].contains(f)) << norm << "." << f;
      const double e = s["errors"][norm][f].get<double>();
      EXPECT_TRUE(std::isfinite(e) && e >= 0 && e < 1e-2) << norm << "." << f << " = " << e;
    }
  // TM110 mode: W = 1/2 ∫ |E|² = 1/8
  EXPECT_NEAR(s["energy"]["initial"].get<double>(), 0.125, 1e-3);
  EXPECT_NEAR(s["energy"]["final"].get<double>(), s["energy"]["initial"].get<double>(), 1e-5);

  const std::string csv = read_all(out_ + "/energy.csv");
  EXPECT_EQ(csv.rfind("step,t,energy,L2_E,L2_H\n", 0), 0u) << csv;
  EXPECT_GE(count_of(csv, "\n"), 3u) << csv;
  expect_intact_output(out_);

  // --quiet: nothing on stdout, same files (on the tiny mesh, to save time)
  const std::string quiet_out = dir_ + "/quiet";
  r = run_args(sh_quote(write("tiny.yaml", kTiny)) + " --quiet --output " + sh_quote(quiet_out));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(fs::exists(quiet_out + "/summary.json"));
  EXPECT_TRUE(fs::exists(quiet_out + "/energy.csv"));
}

}  // namespace
