// Hostile and mistaken configs (the reliability checks): each is refused quickly, with a located
// UserError whose message states the problem (and the limit, where one applies), never a hang,
// unbounded memory, an internal error or a silently ignored part. In-process: YamlDoc,
// parse_run_config, load_mesh.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <thread>

#include "codegen/dsl/constants.hpp"
#include "expect_user_error.hpp"
#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"

// Every operator new in this test program is counted: the number of allocations a piece of work
// makes is a deterministic, machine-independent measure of how much work it is (a wall-clock bound
// belongs in a benchmark, not a test). The replacements keep new/delete on malloc/free.
namespace {
std::atomic<long long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
// the nothrow forms too: a library's new(nothrow) freed through the replaced delete must come from
// malloc as well (ASan: alloc-dealloc-mismatch in libfreeimage's exit handler otherwise)
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return ::operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace dgmax {
namespace {

using test::expect_hinted_user_error;
using test::expect_user_error;
using namespace std::string_literals;

constexpr const char* kMesh = "mesh: {box: {cells: [1, 1, 1]}}\n";

YamlDoc load(const std::string& text) { return YamlDoc::load_string(text, "c.yaml"); }
RunConfig parse(const std::string& text) { return parse_run_config(load(text)); }

// How many allocations `f` makes.
long long allocations_of(const std::function<void()>& f) {
  const long long before = g_allocations.load();
  f();
  return g_allocations.load() - before;
}

// An alias bomb: `levels` + 1 lists of 10, list i holding 10 aliases of list i - 1, so that list
// `levels` names 10^levels scalars. Block style (one constant per line, under `constants:`) or flow
// style (one list of the lists, for a --set value).
std::string alias_bomb(int levels, bool flow) {
  std::string text = flow ? "[&a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]" : "constants:\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= levels; ++i) {
    text += (flow ? ", &a" : "  a" + std::to_string(i) + ": &a") + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += flow ? "]" : "]\n";
  }
  return flow ? text + "]" : text;
}

// Whether every entry of constants.a1 ... a<levels> is the list before it itself (one node), not
// a copy: then the loaded tree holds 10 * (levels + 1) scalars and lists, not 10^levels.
bool aliases_are_shared(const YamlDoc& doc, int levels) {
  const YAML::Node c = doc.root()["constants"];
  for (int i = 1; i <= levels; ++i)
    for (int j = 0; j < 10; ++j)
      if (!c["a" + std::to_string(i)][j].is(c["a" + std::to_string(i - 1)])) return false;
  return true;
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

// 10 levels of 10 aliases each name 10^10 scalars: a walk that expands aliases never ends. Loading
// never expands them: each alias is the node it names (3 levels first, which a copying load would
// still finish, so that a copy fails here rather than hangs below).
TEST(ConfigLimits, AliasBombLoadsWithoutExpandingAliases) {
  ASSERT_TRUE(aliases_are_shared(load(std::string(kMesh) + alias_bomb(3, false)), 3));
  const std::string text = std::string(kMesh) + alias_bomb(10, false);
  EXPECT_TRUE(aliases_are_shared(load(text), 10));
  // and the value is then refused where a constant is read
  const UserError e = expect_user_error([&] { parse(text); }, {"'constants.a0' must be an expression"});
  expect_at(e, 3, 7);  // the anchor
}

// The same bomb as a --set value: the nodes the assignment replaces are tracked (their errors name
// the option), each once. The value has 1 + 1 + 10 + levels distinct nodes, and the key 'x' is one
// more; a walk through the aliases would visit 10^levels.
TEST(ConfigLimits, AliasBombInASetValueIsWalkedOnce) {
  for (int levels : {3, 10}) {
    YamlDoc doc = load(kMesh);
    doc.apply_override("x=" + alias_bomb(levels, true));
    ASSERT_EQ(doc.override_node_count(), static_cast<size_t>(13 + levels)) << levels << " levels";
  }
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

// 32,000 constants took 29 s (each one copied all earlier values): now refused at the limit, before
// any is evaluated, and the work is linear in the number of constants: twice the constants make
// about twice the allocations (a copy of all earlier values per constant would make 4 times).
TEST(ConfigLimits, ConstantsBeyondTheLimit) {
  auto constants = [](int n) {
    std::string text = std::string(kMesh) + "constants:\n  c0: 1\n";
    for (int i = 1; i < n; ++i) text += "  c" + std::to_string(i) + ": c" + std::to_string(i - 1) + " + 1\n";
    return text;
  };
  const std::string over = constants(32000);
  const UserError e = expect_user_error([&] { parse(over); }, {"more than 10000 constants"});
  expect_at(e, 3 + static_cast<int>(dsl::kMaxConstants), 3);
  const std::string half = constants(static_cast<int>(dsl::kMaxConstants) / 2);
  const std::string at_limit = constants(static_cast<int>(dsl::kMaxConstants));
  RunConfig cfg = parse(kMesh);  // one-time set-up, not counted below
  const long long a_half = allocations_of([&] { cfg = parse(half); });
  const long long a_full = allocations_of([&] { cfg = parse(at_limit); });
  EXPECT_EQ(cfg.constants.at("c9999"), 10000.0);
  EXPECT_LT(a_full, 2.5 * a_half) << a_half << " allocations for 5000 constants, " << a_full << " for 10000";
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

// Refusals of the config's shape and of --set carry a hint saying what to write instead.
TEST(ConfigLimits, ShapeAndSetRefusalsCarryAHint) {
  for (const char* text : {"- mesh\n- time\n", "hello\n"}) {
    const UserError e = expect_hinted_user_error([&] { load(text); },
                                                 {"the config must be a YAML mapping (key: value lines)"});
    EXPECT_NE(e.hint().find("'mesh: {box: {cells: [4, 4, 4]}}'"), std::string::npos) << e.render();
  }
  YamlDoc doc = load(std::string(kMesh) + "time: {final: 1}\n");
  UserError e = expect_hinted_user_error([&] { doc.apply_override("time.final.x=1"); },
                                         {"--set time.final.x: 'final' is not a mapping in the config"});
  EXPECT_EQ(e.hint(), "'final' holds a value, not settings below it: set it as a whole with --set time.final=VALUE");
  e = expect_hinted_user_error([&] { doc.apply_override("time.final=[1, 2"); },
                               {"--set time.final: the value '[1, 2' is not valid YAML"});
  EXPECT_NE(e.hint().find("close its brackets and quotes"), std::string::npos) << e.render();
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

// A mesh file name the file system refuses (a component longer than 255 bytes: ENAMETOOLONG) is
// a file that does not exist, located at its path; std::filesystem::exists used to throw it out of
// the config parser (found by fuzz_config).
TEST(ConfigLimits, MeshFileNameTooLongForTheFileSystem) {
  const std::string name = "../" + std::string(300, 'x') + "/m.msh";
  const RunConfig cfg = parse("mesh:\n  file: " + name + "\n");
  EXPECT_EQ(cfg.mesh.file, name);
  expect_user_error([&] { load_mesh(cfg.mesh); }, {"does not exist"});
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
  // what bounds the work is how many documents the structure check asks the parser for (3): the
  // refusal makes about as many allocations as loading a one-line config, not ever more
  load(kMesh);  // yaml-cpp's one-time set-up, not counted below
  const long long one_line = allocations_of([&] { load(kMesh); });
  const long long endless =
      allocations_of([&] { test::expect_hinted_user_error([&] { load(text); }, {"second YAML document"}); });
  EXPECT_LT(endless, 10 * one_line) << endless << " allocations, " << one_line << " for a one-line config";
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

namespace dgmax {
namespace {

// ---- box sizes: refused at the key, with the real cause ----------------------------------------

// mesh.box.pml = 1e9 on cells of 0.5 is 2e9 cells on each side: counted as an int it overflowed
// ("got cells[0] = -294967294"); now counted in double and refused at the key.
TEST(ConfigLimits, BoxPmlLayerOfTooManyCells) {
  const UserError e = test::expect_hinted_user_error(
      [] { parse("mesh: {box: {cells: [2, 2, 2], pml: 1e9}}\n"); },
      {"'mesh.box.pml' = 1e+09 is 2e+09 cells of the box (cell size 0.5 along x) on each side: the box would have "
       "3.84e+29 elements; the limit is 2e+09"});
  expect_at(e, 1, 37);
  // the layer counts towards the element limit at mesh.box.cells too: 2 cells a side on 600^3
  // is 604^3 cells, 1.32e9 elements, within it; on 700^3 it is 704^3 = 2.093e9, over it
  EXPECT_NO_THROW(parse("mesh: {box: {cells: [600, 600, 600], upper: [600, 600, 600], pml: 2}}\n"));
  test::expect_user_error([] { parse("mesh: {box: {cells: [700, 700, 700], upper: [700, 700, 700], pml: 2}}\n"); },
                          {"'mesh.box.pml' = 2 is 2 cells", "2.09348e+09 elements; the limit is 2e+09"});
}

// upper [1, 1, 1e-9]: cells of 0.5 x 0.5 x 5e-10 have faces closer than the mesh checks can tell
// apart (it failed as a mesh that is "not conforming": "merge duplicate vertices (Gmsh)").
TEST(ConfigLimits, BoxTooThinForItsCells) {
  const UserError e = test::expect_hinted_user_error(
      [] { parse("mesh: {box: {cells: [2, 2, 2], upper: [1, 1, 1e-9]}}\n"); },
      {"'mesh.box' is too thin for its cells: they are 0.5 x 0.5 x 5e-10, the side along z is 1e-09 of the longest "
       "(the limit is 1e-05)"});
  expect_at(e, 1, 39);
  EXPECT_NE(e.hint().find("along z"), std::string::npos) << e.render();
  // at the limit the mesh is built and passes its checks (a cell 2e-5 thin relative to its sides)
  const RunConfig ok = parse("mesh: {box: {cells: [2, 2, 1], upper: [1, 1, 1e-5]}}\n");
  EXPECT_EQ(load_mesh(ok.mesh).mesh.num_elements(), 24);
}

// A [1e300]^3 box: element volumes (products of three lengths) overflow ("degenerate, re-mesh this
// region"). Coordinates are bounded by 1e100, cells by 1e-100 from below.
TEST(ConfigLimits, BoxCoordinatesTooLargeOrCellsTooSmall) {
  UserError e = test::expect_hinted_user_error(
      [] { parse("mesh: {box: {cells: [2, 2, 2], upper: [1e300, 1e300, 1e300]}}\n"); },
      {"'mesh.box.upper' has the coordinate 1e+300 along x: coordinates are too large (at most 1e+100 in size)"});
  expect_at(e, 1, 39);
  e = test::expect_hinted_user_error([] { parse("mesh:\n  box:\n    cells: [2, 2, 2]\n    lower: [0, -1e101, 0]\n"); },
                                     {"'mesh.box.lower' has the coordinate -1e+101 along y"});
  expect_at(e, 4, 12);
  e = test::expect_hinted_user_error([] { parse("mesh: {box: {cells: [2, 2, 2], upper: [1e-200, 1e-200, 1e-200]}}\n"); },
                                     {"'mesh.box' gives cells of 5e-201 x 5e-201 x 5e-201: too small"});
  expect_at(e, 1, 39);
  // cells of 0.5 at x = 1e12: 12 of the coordinates' 16 digits are spent on where the box lies
  e = test::expect_hinted_user_error(
      [] { parse("mesh: {box: {cells: [2, 2, 2], lower: [1e12, 0, 0], upper: [1000000000001, 1, 1]}}\n"); },
      {"'mesh.box' gives cells of 0.5 x 0.5 x 0.5 on a box whose coordinates reach 1e+12: too small for where the "
       "box lies"});
  expect_at(e, 1, 21);
  // the same cells near the origin, and a large box of large cells, are fine
  EXPECT_EQ(load_mesh(parse("mesh: {box: {cells: [2, 2, 2], lower: [1e4, 0, 0], upper: [10001, 1, 1]}}\n").mesh)
                .mesh.num_elements(), 48);
  EXPECT_EQ(load_mesh(parse("mesh: {box: {cells: [2, 2, 2], upper: [1e99, 1e99, 1e99]}}\n").mesh).mesh.num_elements(),
            48);
}

}  // namespace
}  // namespace dgmax
