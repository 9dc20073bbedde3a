#include "solver/io/yaml_doc.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "solver/io/key_check_log.hpp"
#include "solver/util/stop_request.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
    lines.push_back(line);
  }
  return lines;
}

// A source line fit for the two-line "snippet / caret" rendering: one byte per byte (so columns
// stay valid) with control characters shown as '?', and left out when absurdly long (deep
// nesting on one line would otherwise echo the whole file).
std::string snippet_of(const std::string& line) {
  constexpr size_t kMaxSnippet = 300;
  if (line.size() > kMaxSnippet) return {};
  std::string out = line;
  for (char& c : out)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) c = '?';
  return out;
}

std::string quoted(const std::string& text) { return "'" + dsl::quote_for_message(text, 60) + "'"; }

// keys[0].keys[1]...keys[n-1]
std::string join_keys(const std::vector<std::string>& keys, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (i ? "." : "") + keys[i];
  return s;
}

std::string mib(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

[[noreturn]] void too_large(const std::string& name) {
  throw UserError("the config is larger than " + mib(kMaxConfigBytes) + ", the limit for a config file",
                  {name}, "a config is a few kB of YAML; is this the right file?");
}

// Reads at most kMaxConfigBytes + 1 bytes: /dev/zero, a FIFO or a huge file cannot grow memory.
// A FIFO, a pipe or a terminal is read as its data comes (`dgmax run <(make-config)` works), but
// never waited for blindly: the file is opened without blocking and polled, and a stop request
// (Ctrl-C, SIGTERM, SIGHUP; stop_request.hpp) ends the wait within kStopPollMs.
std::string read_config_file(const std::string& path) {
  const std::string what = "reading the config file '" + path + "'";
  throw_if_stop_requested(what);
  // O_NONBLOCK: opening a FIFO that no one writes to returns at once instead of blocking
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    throw UserError("cannot open config file '" + path + "': " + std::strerror(err), {},
                    err == ENOENT ? "check the path (it is relative to the current directory)"
                    : err == EACCES ? "check the file's permissions"
                                    : "");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
    throw UserError("cannot read config file '" + path + "': it is a directory", {},
                    "give the path of a .yaml file");
  std::string text;
  char buf[1 << 16];
  while (text.size() <= kMaxConfigBytes) {
    // a FIFO without a writer yet reads as empty: wait for data or for its writer to close it
    // (Linux reports neither before a writer came)
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, kStopPollMs);
    if (ready < 0 && errno != EINTR)
      throw UserError("cannot read config file '" + path + "': " + std::strerror(errno), {},
                      "check that the file is a readable regular file");
    if (ready <= 0) {  // nothing yet, or a signal came
      throw_if_stop_requested(what);
      continue;
    }
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) {
        throw_if_stop_requested(what);
        continue;
      }
      throw UserError("cannot read config file '" + path + "': " + std::strerror(errno), {},
                      "check that the file is a readable regular file");
    }
    text.append(buf, static_cast<size_t>(n));
  }
  if (text.size() > kMaxConfigBytes) too_large(path);
  return text;
}

// Source bytes after the backslash of a double-quoted escape: the letter, plus its hex digits.
int escape_length(char letter) { return letter == 'x' ? 3 : letter == 'u' ? 5 : letter == 'U' ? 9 : 1; }

std::string utf8(unsigned long cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// The bytes a YAML double-quoted escape stands for (`at` indexes the letter after '\\'); "" when
// it is not one yaml-cpp would have accepted.
std::string decode_escape(const std::string& line, size_t at) {
  const char letter = line[at];
  switch (letter) {
    case '0': return std::string(1, '\0');
    case 'a': return "\a";
    case 'b': return "\b";
    case 't': case '\t': return "\t";
    case 'n': return "\n";
    case 'v': return "\v";
    case 'f': return "\f";
    case 'r': return "\r";
    case 'e': return "\x1b";
    case ' ': case '"': case '/': case '\\': return std::string(1, letter);
    case 'N': return utf8(0x85);
    case '_': return utf8(0xA0);
    case 'L': return utf8(0x2028);
    case 'P': return utf8(0x2029);
    case 'x': case 'u': case 'U': {
      const size_t digits = static_cast<size_t>(escape_length(letter) - 1);
      if (at + digits >= line.size()) return {};
      const std::string hex = line.substr(at + 1, digits);
      if (hex.size() != digits || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return {};
      return utf8(std::stoul(hex, nullptr, 16));
    }
    default: return {};
  }
}

// "!!foo" for the YAML core tag prefix, else the tag as written.
std::string tag_as_written(const std::string& tag) {
  const std::string core = "tag:yaml.org,2002:";
  return tag.compare(0, core.size(), core) == 0 ? "!!" + tag.substr(core.size()) : tag;
}

// Walks the parser's events (aliases are never expanded, so an alias bomb costs nothing) and
// refuses what the node tree would hide or misread. `where` turns a yaml-cpp mark into a location.
class StructureCheck : public YAML::EventHandler {
 public:
  // `anchored`, when given, receives the file offset of every anchored node (&name).
  StructureCheck(std::function<SourceLocation(const YAML::Mark&)> where, std::set<int>* anchored)
      : where_(std::move(where)), anchored_(anchored) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      fail(UserError("the config has a second YAML document; dgmax reads one", where_(mark),
                     "remove the '---' line (and what follows it) or merge the documents"));
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, Kind::Null, "", nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    node(mark, Kind::Alias, "", nullptr);
    if (++aliases_ > kMaxYamlAliases)
      fail(UserError("the config uses more than " + std::to_string(kMaxYamlAliases) + " YAML aliases (*name)",
                     where_(mark), "a config needs a handful; write the values out"));
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    node(mark, Kind::Scalar, tag, &value);
    note_anchor(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    node(mark, Kind::Sequence, tag, nullptr);
    note_anchor(mark, anchor);
    open(mark, false);
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    node(mark, Kind::Map, tag, nullptr);
    note_anchor(mark, anchor);
    open(mark, true);
  }
  void OnMapEnd() override { frames_.pop_back(); }

  // The first problem found, raised once the whole text parsed: a syntax error later on explains
  // odd events before it (an unclosed '[' reads as a key), so it must win.
  const std::optional<UserError>& first_problem() const { return first_; }

 private:
  void fail(UserError e) {
    if (!first_) first_ = std::move(e);
  }
  void note_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchored_ && anchor != YAML::NullAnchor) anchored_->insert(mark.pos);
  }
  enum class Kind { Null, Alias, Scalar, Sequence, Map };
  struct Frame {
    bool is_map;
    size_t children = 0;
    std::map<std::string, YAML::Mark> keys;  // of a map: each key and where it first appeared
  };

  void open(const YAML::Mark& mark, bool is_map) {
    frames_.push_back({is_map});
    if (static_cast<int>(frames_.size()) > kMaxYamlDepth)
      throw UserError("the config nests mappings and lists deeper than " + std::to_string(kMaxYamlDepth) + " levels",
                      where_(mark), "a config nests 4 or 5 levels; check the brackets");
  }

  void node(const YAML::Mark& mark, Kind kind, const std::string& tag, const std::string* value) {
    // "?" is an untagged plain node, "!" an untagged quoted one; anything else was written out.
    if (!tag.empty() && tag != "?" && tag != "!")
      return fail(UserError("YAML tags such as '" + dsl::quote_for_message(tag_as_written(tag), 40) +
                                "' are not supported in a config",
                            where_(mark), "remove the tag; dgmax reads numbers, strings, lists and mappings"));
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    const bool is_key = f.is_map && f.children % 2 == 0;
    ++f.children;
    if (!is_key) return;
    switch (kind) {
      case Kind::Map:
      case Kind::Sequence:
        return fail(UserError(std::string("a key must be a name, not a ") + (kind == Kind::Map ? "mapping" : "list"),
                              where_(mark), "write key: value with a plain name as the key"));
      case Kind::Alias:
        return fail(UserError("a key must be a name, not an alias (*name)", where_(mark), "write the key out"));
      case Kind::Null:
        return fail(UserError("a key must be a name, not empty (null)", where_(mark),
                              "write key: value with a plain name as the key"));
      case Kind::Scalar:
        break;
    }
    for (const unsigned char c : *value)
      if (c < 0x20 || c == 0x7f)
        return fail(UserError("the key " + quoted(*value) + " contains a control character", where_(mark),
                              "keys are plain names"));
    // yaml-cpp keeps both entries of a repeated key and lookups return the first: the second
    // value would be silently ignored.
    if (const auto [it, fresh] = f.keys.emplace(*value, mark); !fresh)
      fail(UserError("duplicate key " + quoted(*value), where_(mark),
                     "first defined at line " + std::to_string(it->second.line + 1) + "; merge the two entries"));
  }

  std::function<SourceLocation(const YAML::Mark&)> where_;
  std::vector<Frame> frames_;
  int documents_ = 0;
  int aliases_ = 0;
  std::optional<UserError> first_;
  std::set<int>* anchored_;
};

// Runs StructureCheck over `text`; YAML syntax errors propagate as YAML::Exception.
void check_structure(const std::string& text, std::function<SourceLocation(const YAML::Mark&)> where,
                     std::set<int>* anchored = nullptr) {
  std::stringstream in(text);
  YAML::Parser parser(in);
  StructureCheck check(std::move(where), anchored);
  // at most 3 documents: a second one is refused anyway, and yaml-cpp 0.7 reports "one more
  // document" forever on some malformed input (tests/fuzz/regressions/config/yaml-endless-documents.yaml)
  for (int docs = 0; docs < 3 && !check.first_problem() && parser.HandleNextDocument(check); ++docs) {
  }
  if (check.first_problem()) throw *check.first_problem();
}

}  // namespace

SourceLocation YamlDoc::location(int line0, int column0) const {
  SourceLocation where{path_, line0 + 1, column0 + 1, {}};
  if (line0 >= 0 && line0 < static_cast<int>(lines_.size())) where.snippet = snippet_of(lines_[line0]);
  return where;
}

YamlDoc YamlDoc::load_string(const std::string& text, const std::string& name) {
  if (text.size() > kMaxConfigBytes) too_large(name);
  YamlDoc doc;
  doc.path_ = name;
  doc.lines_ = split_lines(text);
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    const size_t line_start = text.rfind('\n', nul) == std::string::npos ? 0 : text.rfind('\n', nul) + 1;
    const int line0 = static_cast<int>(std::count(text.begin(), text.begin() + nul, '\n'));
    throw UserError("the config contains a NUL byte; it is not a text file", doc.location(line0, nul - line_start),
                    "a config is a YAML text file");
  }
  try {
    check_structure(text, [&doc](const YAML::Mark& m) { return doc.location(m.line, m.column); }, &doc.anchored_);
    doc.root_ = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SourceLocation where = doc.location(e.mark.line, e.mark.column);
    if (e.mark.line < 0) where = {name};
    throw UserError("invalid YAML: " + e.msg, where, "check indentation, colons and brackets");
  }
  if (doc.root_.IsNull()) doc.root_ = YAML::Node(YAML::NodeType::Map);
  if (!doc.root_.IsMap())
    throw UserError("the config must be a YAML mapping (key: value lines)", doc.location(0, 0),
                    "write one 'key: value' per top-level setting, e.g. 'mesh: {box: {cells: [4, 4, 4]}}' "
                    "(configs/ has complete examples)");
  return doc;
}

YamlDoc YamlDoc::load_file(const std::string& path) { return load_string(read_config_file(path), path); }

SourceLocation YamlDoc::at(const YAML::Node& node) const {
  SourceLocation where{path_, 0, 0, {}};
  if (!node.IsDefined()) return where;
  for (const auto& o : overrides_)
    if (o.node.is(node)) return {"--set " + o.assignment, 0, 0, {}};
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return where;
  return location(m.line, m.column);
}

UserError YamlDoc::error(const YAML::Node& node, const std::string& message,
                         const std::string& hint) const {
  return UserError(message, at(node), hint);
}

void YamlDoc::check_keys(const YAML::Node& node, const std::vector<std::string>& allowed, const std::string& context,
                         std::source_location site) const {
  KeyCheckLog::record({context, allowed, site.file_name(), static_cast<int>(site.line())});
  if (!node.IsMap()) throw error(node, "'" + context + "' must be a mapping (key: value)");
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();  // load_string refused keys that are not names
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string valid;
    for (const auto& a : allowed) valid += (valid.empty() ? "" : ", ") + a;
    const std::string close = closest_match(key, allowed);
    std::string hint = close.empty() ? "valid keys: " + valid
                                     : "did you mean '" + close + "'? valid keys: " + valid;
    throw error(kv.first, "unknown key " + quoted(key) + " in '" + context + "'", hint);
  }
}

double YamlDoc::as_double(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) throw error(node, "'" + what + "' must be a number");
  const std::string text = node.Scalar();
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw error(node, "'" + what + "' must be a finite number, got " + quoted(text));
}

int YamlDoc::as_int(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) throw error(node, "'" + what + "' must be an integer");
  const std::string text = node.Scalar();
  try {
    size_t used = 0;
    const long v = std::stol(text, &used);
    if (used == text.size() && v >= -2147483647L && v <= 2147483647L) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  throw error(node, "'" + what + "' must be an integer, got " + quoted(text));
}

std::string YamlDoc::as_string(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) throw error(node, "'" + what + "' must be a single value (a string)");
  return node.Scalar();
}

std::vector<double> YamlDoc::as_doubles(const YAML::Node& node, size_t n,
                                        const std::string& what) const {
  if (!node.IsSequence() || node.size() != n)
    throw error(node, "'" + what + "' must be a list of " + std::to_string(n) + " numbers",
                "e.g. [0, 0, 0]");
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(as_double(node[i], what + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<int> YamlDoc::as_ints(const YAML::Node& node, size_t n, const std::string& what) const {
  if (!node.IsSequence() || node.size() != n)
    throw error(node, "'" + what + "' must be a list of " + std::to_string(n) + " integers",
                "e.g. [4, 4, 4]");
  std::vector<int> out;
  for (size_t i = 0; i < n; ++i) out.push_back(as_int(node[i], what + "[" + std::to_string(i) + "]"));
  return out;
}

dsl::ExprSource YamlDoc::expr_source(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar())
    throw error(node, "'" + what + "' must be an expression (a number or a quoted string)",
                "e.g. \"sin(pi*x)*cos(omega*t)\"");
  // YAML's own spellings of non-finite numbers would otherwise read as a bad expression.
  if (node.Tag() == "?") {
    static const std::vector<std::string> kNonFinite = {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
                                                        "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"};
    if (std::find(kNonFinite.begin(), kNonFinite.end(), node.Scalar()) != kNonFinite.end())
      throw error(node, "'" + what + "' must be a finite number, got " + quoted(node.Scalar()));
  }
  dsl::ExprSource src{node.Scalar(), at(node), {}};
  const auto& snip = src.origin.snippet;
  const int col = src.origin.column;  // 1-based
  if (col >= 1 && col <= static_cast<int>(snip.size()) && (snip[col - 1] == '"' || snip[col - 1] == '\''))
    ++src.origin.column;  // skip the opening quote
  // The plain caret mapping needs the text verbatim on the line; otherwise (escapes, doubled
  // quotes, folded lines) map each byte to its file position, or failing that (block scalars)
  // quote the expression itself in messages.
  // (the snippet is empty for lines too long to echo: compare only within it)
  const bool verbatim = src.origin.column >= 1 && static_cast<size_t>(src.origin.column - 1) <= snip.size() &&
                        snip.compare(src.origin.column - 1, src.text.size(), src.text) == 0;
  if (src.origin.line > 0 && !verbatim && !map_scalar_positions(node, src)) {
    src.origin.line = 0;
    src.origin.snippet.clear();
  }
  return src;
}

bool YamlDoc::map_scalar_positions(const YAML::Node& node, dsl::ExprSource& src) const {
  const std::string& text = src.text;
  int r = node.Mark().line, c = node.Mark().column;  // 0-based raw position
  if (r < 0 || r >= static_cast<int>(lines_.size()) || c >= static_cast<int>(lines_[r].size())) return false;
  const char style = lines_[r][c] == '"' || lines_[r][c] == '\'' ? lines_[r][c] : 0;  // 0: plain
  if (style) ++c;
  std::string out;
  std::vector<std::pair<int, int>> pos;  // raw position of each byte of `out`
  const auto emit = [&](const std::string& bytes, int line, int col) {
    out += bytes;
    pos.insert(pos.end(), bytes.size(), {line, col});
  };
  size_t raw_blanks = 0;  // trailing spaces of `out` copied from the line (dropped at a fold)
  while (out.size() < text.size()) {
    if (r >= static_cast<int>(lines_.size())) return false;
    const std::string& line = lines_[r];
    if (c >= static_cast<int>(line.size())) {
      // A line break inside the scalar folds: trailing and leading blanks go, one break is a
      // space, n + 1 breaks are n newlines.
      out.resize(out.size() - raw_blanks);
      pos.resize(out.size());
      const int end_r = r, end_c = c;
      int breaks = 0;
      do {
        if (++r >= static_cast<int>(lines_.size())) return false;
        c = static_cast<int>(lines_[r].find_first_not_of(" \t"));
        if (c < 0) c = static_cast<int>(lines_[r].size()), ++breaks;
      } while (c >= static_cast<int>(lines_[r].size()));
      emit(breaks == 0 ? std::string(" ") : std::string(breaks, '\n'), end_r, end_c);
      raw_blanks = 0;
      continue;
    }
    const char ch = line[c];
    if (style == '\'' && ch == '\'') {
      if (c + 1 < static_cast<int>(line.size()) && line[c + 1] == '\'') {
        emit("'", r, c);  // '' is a quote
        c += 2, raw_blanks = 0;
        continue;
      }
      return false;  // the closing quote before the text was complete
    }
    if (style == '"' && ch == '"') return false;
    if (style == '"' && ch == '\\') {
      if (c + 1 >= static_cast<int>(line.size())) {  // escaped line break: joins without a space
        if (++r >= static_cast<int>(lines_.size())) return false;
        c = static_cast<int>(lines_[r].find_first_not_of(" \t"));
        if (c < 0) c = static_cast<int>(lines_[r].size());
        raw_blanks = 0;
        continue;
      }
      const std::string decoded = decode_escape(line, c + 1);
      if (decoded.empty()) return false;
      emit(decoded, r, c);
      c += 1 + escape_length(line[c + 1]);
      raw_blanks = 0;
      continue;
    }
    emit(std::string(1, ch), r, c);
    raw_blanks = (ch == ' ' || ch == '\t') ? raw_blanks + 1 : 0;
    ++c;
  }
  if (out != text) return false;
  pos.push_back({r, c});  // just past the end: the closing quote, if any
  std::map<int, std::string> snippets;
  for (const auto& p : pos) snippets.emplace(p.first, snippet_of(lines_[p.first]));
  src.locate = [file = path_, pos = std::move(pos), snippets = std::move(snippets)](size_t offset) {
    const auto& [line0, col0] = pos[std::min(offset, pos.size() - 1)];
    return SourceLocation{file, line0 + 1, col0 + 1, snippets.at(line0)};
  };
  return true;
}

void YamlDoc::apply_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError("malformed --set '" + assignment + "'", {}, "write --set key.path=value, e.g. --set discretization.order=3");
  const std::string path = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  YAML::Node parsed;
  try {
    check_structure(value, [&](const YAML::Mark&) { return SourceLocation{"--set " + assignment}; });
    parsed = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw UserError("--set " + path + ": the value " + quoted(value) + " is not valid YAML: " + e.msg, {},
                    "the value after '=' is read as YAML: close its brackets and quotes, and quote the whole "
                    "option for the shell, e.g. --set 'mesh.box.cells=[4, 4, 4]'");
  }
  std::vector<std::string> keys;
  std::stringstream ss(path);
  std::string key;
  while (std::getline(ss, key, '.')) {
    if (key.empty()) throw UserError("malformed key path '" + path + "' in --set", {}, "e.g. --set time.final=2");
    keys.push_back(key);
  }
  // Walk down, creating maps as needed (yaml-cpp nodes are references into the tree). A map the
  // file anchors (&name) is one node shared by every alias of it (*name): from there down, the
  // walk copies each map before it enters it, so the assignment changes the path it names and
  // not the anchor's other uses.
  std::vector<YAML::Node> chain{root_};
  bool shared = false;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    YAML::Node next = chain.back()[keys[i]];
    if (next.IsDefined() && !next.IsNull() && !next.IsMap())
      throw UserError("--set " + path + ": '" + keys[i] + "' is not a mapping in the config", {},
                      "'" + keys[i] + "' holds a value, not settings below it: set it as a whole with --set " +
                          join_keys(keys, i + 1) + "=VALUE");
    if (!next.IsDefined() || next.IsNull()) {
      chain.back()[keys[i]] = YAML::Node(YAML::NodeType::Map);
      next = chain.back()[keys[i]];
    } else {
      shared = shared || (!next.Mark().is_null() && anchored_.count(next.Mark().pos) > 0);
    }
    // (never `next = ...`: assigning to a node rewrites that node, and so every alias of it)
    chain.push_back(shared ? unshare(chain.back(), keys[i]) : next);
  }
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    // maps created for this path (no file position) are attributed to the option
    if (chain[i + 1].Mark().line < 0 || chain[i + 1].Mark().is_null()) track_override(chain[i + 1], assignment);
  }
  // remove first: assigning to an existing node would rewrite every YAML alias of it too
  chain.back().remove(keys.back());
  chain.back()[keys.back()] = parsed;
  track_override(chain.back()[keys.back()], assignment);
  for (const auto& kv : chain.back())
    if (kv.first.IsScalar() && kv.first.Scalar() == keys.back()) track_override(kv.first, assignment);
  if (keys.size() == 1 || chain.size() > 1)
    for (size_t i = 0; i + 1 < chain.size(); ++i)
      for (const auto& kv : chain[i])
        if (kv.first.IsScalar() && kv.first.Scalar() == keys[i] && kv.first.Mark().is_null())
          track_override(kv.first, assignment);
}

YAML::Node YamlDoc::unshare(YAML::Node parent, const std::string& key) {
  const YAML::Node shared_map = parent[key];
  YAML::Node copy(YAML::NodeType::Map);
  for (const auto& kv : shared_map) copy[kv.first] = kv.second;  // the same key and value nodes
  // the key node is kept: its file position locates messages about the key
  for (const auto& kv : parent)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) {
      const YAML::Node key_node = kv.first;
      parent.remove(key);
      parent[key_node] = copy;  // a new entry: the assignment makes it refer to the copy
      break;
    }
  return parent[key];
}

void YamlDoc::track_override(const YAML::Node& node, const std::string& assignment) {
  // A YAML alias (*name) is the node it names, not a copy: each node is tracked once, so an alias
  // bomb in a --set value (10 levels of 10 aliases) costs its few distinct nodes, not 10^10 visits.
  std::map<int, std::vector<YAML::Node>> seen;  // by position in the text, then by identity
  std::function<void(const YAML::Node&)> walk = [&](const YAML::Node& n) {
    std::vector<YAML::Node>& here = seen[n.Mark().pos];
    for (const YAML::Node& s : here)
      if (s.is(n)) return;
    here.push_back(n);
    overrides_.push_back({n, assignment});
    if (n.IsMap())
      for (const auto& kv : n) {
        walk(kv.first);
        walk(kv.second);
      }
    else if (n.IsSequence())
      for (const auto& item : n) walk(item);
  };
  walk(node);
}

}  // namespace dgmax
