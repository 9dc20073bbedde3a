// Hostile and mistaken configs (issue 9): each is refused quickly, with a located UserError whose
// message states the problem (and the limit, where one applies), never a hang, unbounded memory,
// an internal error or a silently ignored part. In-process: YamlDoc, parse_run_config, load_mesh.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "codegen/dsl/constants.hpp"
#include "expect_user_error.hpp"
#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"

namespace dgmax {
namespace {

using test::expect_user_error;
using namespace std::string_literals;

constexpr const char* kMesh = "mesh: {box: {cells: [1, 1, 1]}}\n";

YamlDoc load(const std::string& text) { return YamlDoc::load_string(text, "c.yaml"); }
RunConfig parse(const std::string& text) { return parse_run_config(load(text)); }

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void expect_at(const UserError& e, int line, int column) {
  EXPECT_EQ(e.where().file, "c.yaml") << e.render();
  EXPECT_EQ(e.where().line, line) << e.render();
  EXPECT_EQ(e.where().column, column) << e.render();
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "dgmax_config_limits_" + std::to_string(::getpid()) + "_" + name;
}

// ---- unbounded work --------------------------------------------------------------------------

// 10 levels of 10 aliases each name 10^10 scalars: a walk that expands aliases never ends.
TEST(ConfigLimits, AliasBombLoadsInstantly) {
  std::string text = std::string(kMesh) + "constants:\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 10; ++i) {
    text += "  a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  EXPECT_LT(seconds_of([&] { load(text); }), 2.0);
  // and the value is then refused where a constant is read
  const UserError e = expect_user_error([&] { parse(text); }, {"'constants.a0' must be an expression"});
  expect_at(e, 3, 7);  // the anchor
}

TEST(ConfigLimits, TooManyAliases) {
  std::string text = std::string(kMesh) + "x: &v 1\ny: [";
  for (int i = 0; i <= kMaxYamlAliases; ++i) text += i ? ", *v" : "*v";
  text += "]\n";
  const UserError e = expect_user_error([&] { load(text); }, {"more than 1000 YAML aliases"});
  expect_at(e, 3, 5 + 4 * kMaxYamlAliases);
}

TEST(ConfigLimits, NestingDeeperThanTheLimit) {
  const std::string text = std::string(kMesh) + "x: " + std::string(100, '[') + std::string(100, ']') + "\n";
  const UserError e = expect_user_error([&] { load(text); }, {"deeper than 64 levels"});
  expect_at(e, 2, 4 + 63);  // the root mapping is level 1, the 64th '[' is level 65
  EXPECT_NE(e.where().snippet.find("[[["), std::string::npos);
}

// 200,000 levels on one line: refused at level 65, and the 400 kB line is not echoed.
TEST(ConfigLimits, DeepNestingDoesNotEchoTheLine) {
  const std::string text = std::string(kMesh) + "x: " + std::string(200000, '[') + std::string(200000, ']') + "\n";
  const UserError e = expect_user_error([&] { load(text); }, {"deeper than 64 levels"});
  expect_at(e, 2, 4 + 63);
  EXPECT_TRUE(e.where().snippet.empty());
  EXPECT_LT(e.render().size(), 1000u) << e.render().substr(0, 2000);
}

TEST(ConfigLimits, TextLargerThanTheLimit) {
  const std::string text = std::string(kMesh) + "# " + std::string(kMaxConfigBytes, 'x') + "\n";
  expect_user_error([&] { load(text); }, {"larger than 1 MiB"});
}

TEST(ConfigLimits, DevZeroIsReadUpToTheLimitOnly) {
  const UserError e = expect_user_error([] { YamlDoc::load_file("/dev/zero"); }, {"larger than 1 MiB"});
  EXPECT_EQ(e.where().file, "/dev/zero");
}

// A FIFO whose writer never stops: the reader stops after the limit.
TEST(ConfigLimits, EndlessFifoIsReadUpToTheLimitOnly) {
  const std::string path = temp_path("fifo.yaml");
  std::remove(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  ::signal(SIGPIPE, SIG_IGN);  // the writer sees EPIPE once the reader gives up
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary);
    const std::string chunk(1 << 16, '#');
    for (int i = 0; i < 1000 && out; ++i) out << chunk << std::flush;
  });
  expect_user_error([&] { YamlDoc::load_file(path); }, {"larger than 1 MiB"});
  writer.join();
  std::remove(path.c_str());
}

TEST(ConfigLimits, NulByteIsNotText) {
  const UserError e = expect_user_error([] { load(std::string(kMesh) + "time: {final: 1}\0\n"s); },
                                        {"NUL byte"});
  expect_at(e, 2, 17);
}

// 32,000 constants took 29 s (each one copied all earlier values): now refused at the limit, and
// the limit itself evaluates in well under a second.
TEST(ConfigLimits, ConstantsBeyondTheLimit) {
  auto constants = [](int n) {
    std::string text = std::string(kMesh) + "constants:\n  c0: 1\n";
    for (int i = 1; i < n; ++i) text += "  c" + std::to_string(i) + ": c" + std::to_string(i - 1) + " + 1\n";
    return text;
  };
  const std::string over = constants(32000);
  const UserError e = expect_user_error([&] { parse(over); }, {"more than 10000 constants"});
  expect_at(e, 3 + static_cast<int>(dsl::kMaxConstants), 3);
  const std::string at_limit = constants(static_cast<int>(dsl::kMaxConstants));
  RunConfig cfg;
  EXPECT_LT(seconds_of([&] { cfg = parse(at_limit); }), 2.0);
  EXPECT_EQ(cfg.constants.at("c9999"), 10000.0);
}

// ---- structure the node tree would hide or misread ----------------------------------------------

TEST(ConfigLimits, ComplexKeyIsRefusedNotAnInternalError) {
  UserError e = expect_user_error([] { load(std::string(kMesh) + "? {a: 1}\n: 2\n"); },
                                  {"a key must be a name, not a mapping"});
  expect_at(e, 2, 3);
  e = expect_user_error([] { load(std::string(kMesh) + "time: {[1, 2]: 3}\n"); }, {"a key must be a name, not a list"});
  expect_at(e, 2, 8);
  e = expect_user_error([] { load(std::string(kMesh) + "~: 3\n"); }, {"a key must be a name, not empty (null)"});
  expect_at(e, 2, 1);
  e = expect_user_error([] { load(std::string(kMesh) + "k: &k time\n*k : 3\n"); }, {"not an alias"});
  expect_at(e, 3, 1);
}

// An unclosed '[' parses as the start of a key before the syntax error: the syntax error wins.
TEST(ConfigLimits, SyntaxErrorWinsOverWhatItConfuses) {
  const UserError e = expect_user_error([] { load(std::string(kMesh) + "time: [1, 2\n"); }, {"invalid YAML"});
  EXPECT_EQ(e.where().file, "c.yaml");
  EXPECT_GT(e.where().line, 0);
}

TEST(ConfigLimits, SecondDocumentIsRefused) {
  const UserError e = expect_user_error([] { load(std::string(kMesh) + "---\ntime: {final: 2}\n"); },
                                        {"second YAML document"});
  expect_at(e, 2, 1);
}

TEST(ConfigLimits, TagsAreRefused) {
  UserError e = expect_user_error([] { load(std::string(kMesh) + "time: {final: !!foo 2}\n"); },
                                  {"YAML tags such as '!!foo' are not supported"});
  expect_at(e, 2, 15);
  e = expect_user_error([] { load(std::string(kMesh) + "materials: !custom {default: {eps: 2}}\n"); },
                        {"'!custom'"});
  expect_at(e, 2, 12);
  e = expect_user_error([] { load(std::string(kMesh) + "backend: !!str cpu\n"); }, {"'!!str'"});
  expect_at(e, 2, 10);
}

TEST(ConfigLimits, DuplicateKeysInsideAnchorsAndSequences) {
  UserError e = expect_user_error([] { load(std::string(kMesh) + "materials: &m {default: {eps: 1, eps: 2}}\n"); },
                                  {"duplicate key 'eps'"});
  expect_at(e, 2, 34);
  EXPECT_NE(e.hint().find("first defined at line 2"), std::string::npos);
  e = expect_user_error([] { load(std::string(kMesh) + "x: [{a: 1}, {b: 1, \"b\": 2}]\n"); }, {"duplicate key 'b'"});
  expect_at(e, 2, 20);
}

// Control characters in user text are escaped in messages and never reach the terminal raw.
TEST(ConfigLimits, ControlCharactersAreNotEchoedRaw) {
  UserError e = expect_user_error([] { load(std::string(kMesh) + "ti\x1b[31mme: 1\n"); }, {"control character"});
  expect_at(e, 2, 1);
  EXPECT_EQ(e.render().find('\x1b'), std::string::npos) << e.render();
  EXPECT_NE(e.message().find("\\x1B"), std::string::npos) << e.message();
  e = expect_user_error([] { parse(std::string(kMesh) + "backend: \"gp\\eu\"\n"); }, {"unknown backend"});
  EXPECT_EQ(e.render().find('\x1b'), std::string::npos) << e.render();
}

TEST(ConfigLimits, SetValuesGetTheSameChecks) {
  YamlDoc doc = load(kMesh);
  expect_user_error([&] { doc.apply_override("time.final=!!float 2"); }, {"YAML tags"});
  expect_user_error([&] { doc.apply_override("time={final: 1, final: 2}"); }, {"duplicate key 'final'"});
}

// ---- values that read as something else --------------------------------------------------------

TEST(ConfigLimits, YamlNonFiniteSpellingsAreNamed) {
  for (const char* v : {".nan", ".inf", "-.inf", ".NaN"}) {
    const UserError e = expect_user_error([&] { parse(std::string(kMesh) + "time: {final: " + v + "}\n"); },
                                          {"'time.final' must be a finite number, got '" + std::string(v) + "'"});
    expect_at(e, 2, 15);
  }
  const UserError e = expect_user_error([] { parse(std::string(kMesh) + "materials: {default: {eps: .inf}}\n"); },
                                        {"'materials.default.eps' must be a finite number"});
  expect_at(e, 2, 28);
}

// ---- expression errors keep file:line:column through YAML quoting -----------------------------

TEST(ConfigLimits, ExpressionErrorAfterAnEscape) {
  // `  E: ["0", "0", "\u0073in(x) +"]`: the expression ends at the closing quote, column 31
  const UserError e = expect_user_error(
      [] { parse(std::string(kMesh) + "initial:\n  E: [\"0\", \"0\", \"\\u0073in(x) +\"]\n"); },
      {"expected an expression after '+'"});
  expect_at(e, 3, 31);
  EXPECT_EQ(e.where().snippet, "  E: [\"0\", \"0\", \"\\u0073in(x) +\"]");
}

TEST(ConfigLimits, ExpressionErrorInDoubledSingleQuote) {
  // `  E: ['0', '0', 'x + '' ']`: the quote is at column 22 (the first of '')
  const UserError e =
      expect_user_error([] { parse(std::string(kMesh) + "initial:\n  E: ['0', '0', 'x + '' ']\n"); },
                        {"unexpected character"});
  expect_at(e, 3, 22);
}

TEST(ConfigLimits, ExpressionErrorOnTheSecondLineOfAQuotedScalar) {
  // the scalar folds to "sin(x) + cos(y) *"; the error is past the '*' on line 4, column 14
  const UserError e = expect_user_error(
      [] { parse(std::string(kMesh) + "initial:\n  E: [\"0\", \"0\", \"sin(x) +\n     cos(y) *\"]\n"); },
      {"expected an expression after '*'"});
  expect_at(e, 4, 14);
  EXPECT_EQ(e.where().snippet, "     cos(y) *\"]");
}

TEST(ConfigLimits, ExpressionErrorOnTheSecondLineOfAPlainScalar) {
  const UserError e = expect_user_error(
      [] { parse(std::string(kMesh) + "initial:\n  E:\n    - 0\n    - 0\n    - sin(x) +\n      cos(y) ) \n"); },
      {"unexpected ')'"});
  expect_at(e, 7, 14);
}

// ---- nonsense that was accepted ----------------------------------------------------------------

TEST(ConfigLimits, PeriodicAxisListedTwice) {
  const UserError e = expect_user_error([] { parse("mesh: {box: {cells: [1, 1, 1], periodic: [x, y, x]}}\n"); },
                                        {"periodic direction 'x' is listed twice"});
  expect_at(e, 1, 49);
}

TEST(ConfigLimits, RegionUpperBelowLower) {
  const UserError e = expect_user_error(
      [] { parse("mesh: {box: {cells: [2, 2, 2], regions: [{tag: s, lower: [0, 0.5, 0], upper: [1, 0.2, 1]}]}}\n"); },
      {"'mesh.box.regions[0].upper' must exceed its 'lower' in every direction (y: 0.5 to 0.2)"});
  expect_at(e, 1, 78);
}

TEST(ConfigLimits, RegionOutsideTheBox) {
  const UserError e = expect_user_error(
      [] { parse("mesh: {box: {cells: [2, 2, 2], regions: [{tag: s, lower: [0, 0, 2], upper: [1, 1, 3]}]}}\n"); },
      {"'mesh.box.regions[0]' ('s') lies outside the box in z (2 to 3, the box spans 0 to 1)"});
  expect_at(e, 1, 42);
}

// Thinner than a cell: no element centroid inside, so its material would never be used.
TEST(ConfigLimits, RegionThatTagsNoElement) {
  const RunConfig cfg = parse(
      "mesh:\n  box:\n    cells: [2, 2, 2]\n    regions:\n      - {tag: sheet, lower: [0.01, 0, 0], upper: [0.02, 1, 1]}\n");
  const UserError e = expect_user_error([&] { load_mesh(cfg.mesh); },
                                        {"region 'sheet' (mesh.box.regions[0]) contains no element centroid"});
  expect_at(e, 5, 9);
  // a region covering cells is fine
  const RunConfig ok = parse("mesh: {box: {cells: [2, 2, 2], regions: [{tag: s, lower: [0, 0, 0], upper: [0.5, 1, 1]}]}}\n");
  EXPECT_EQ(load_mesh(ok.mesh).mesh.num_elements(), 48);
}

TEST(ConfigLimits, BoxWithTooManyElements) {
  UserError e = expect_user_error([] { parse("mesh: {box: {cells: [100000, 100000, 100000]}}\n"); },
                                  {"'mesh.box.cells' (with mesh.refine = 0) give 6e+15 elements; the limit is 2e+09"});
  expect_at(e, 1, 21);
  e = expect_user_error([] { parse("mesh:\n  box: {cells: [100, 100, 100]}\n  refine: 4\n"); },
                        {"(with mesh.refine = 4) give 2.4576e+10 elements"});
  expect_at(e, 2, 16);
}

TEST(ConfigLimits, SnapshotIntervalImplyingTooManySnapshots) {
  const UserError e = expect_user_error(
      [] { parse(std::string(kMesh) + "time: {final: 2}\noutput: {vtk_every: 1e-20}\n"); },
      {"'output.vtk_every' = 1e-20 asks for 2e+20 snapshots over time.final = 2; the limit is 1e+06"});
  expect_at(e, 3, 21);
  EXPECT_NO_THROW(parse(std::string(kMesh) + "time: {final: 2}\noutput: {vtk_every: 2e-6}\n"));  // 1e6 exactly
}

}  // namespace
}  // namespace dgmax

namespace dgmax {

// A fuzzer's 40 bytes on which yaml-cpp 0.7 reports "one more document" forever: refused at once.
TEST(ConfigLimits, EndlessDocumentsAreRefusedNotLoopedOn) {
  std::ifstream in(std::string(DGMAX_SOURCE_DIR) + "/tests/fuzz/regressions/config/yaml-endless-documents.yaml",
                   std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  EXPECT_LT(seconds_of([&] { test::expect_hinted_user_error([&] { load(text); }, {"second YAML document"}); }), 2.0);
}

}  // namespace dgmax

namespace dgmax {

// A fuzzer's config with an expression on a line too long to echo: the expression's location
// lookup compared past the (empty) snippet and threw std::out_of_range (an internal error).
TEST(ConfigLimits, ExpressionOnAVeryLongLineIsNoInternalError) {
  std::ifstream in(std::string(DGMAX_SOURCE_DIR) + "/tests/fuzz/regressions/config/expression-on-long-line.yaml",
                   std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  try {
    parse(text);
  } catch (const UserError&) {
    // a located refusal is fine; anything else (std::out_of_range) fails the test
  }
}

}  // namespace dgmax
