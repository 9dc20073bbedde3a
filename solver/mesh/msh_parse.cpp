// MSH 2.x and 4.1 reading, ASCII and binary, after Gmsh 4.8's readers (GModelIO_MSH2.cpp,
// GModelIO_MSH4.cpp) as far as what ends up in its model:
//  - sections are found as check_msh_structure finds them (a section Gmsh reads ends at its
//    "$End..." line, another one at the next line starting with '$'); stray lines are skipped;
//  - MSH 2 count lines hold one number; binary data starts on the next line;
//  - MSH 2 element tags: the first is the physical tag (0: none), the second the elementary one
//    (0 when missing); the physical tags of all elements of one (dimension, elementary tag) become
//    that entity's physical groups;
//  - $PhysicalNames: "dim tag" then the text between the first '"' and the next '"' or end of
//    line, as Gmsh reads it from a 256-byte line buffer; empty names are no names, and the first
//    name given to a group wins;
//  - MSH 4.1 element blocks need an existing entity (declared in $Entities or by a $Nodes block):
//    Gmsh fails with "Unknown entity" otherwise.
// Numbers are read as Gmsh's fscanf reads them in the C locale (strtod: correctly rounded), so
// coordinates come out bit for bit the same.
#include "solver/mesh/msh_parse.hpp"

#include <locale.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "solver/mesh/msh_element_types.hpp"

namespace dgmax {
namespace {

constexpr const char* kCorruptHint =
    "the file is damaged or was not written by Gmsh: write it again from Gmsh (`gmsh -3 "
    "model.geo -o model.msh`), or open it with `gmsh file.msh` to see what Gmsh makes of it";
constexpr const char* kFormatHint =
    "convert it with Gmsh: `gmsh file.msh -save -format msh41 -o converted.msh`";

constexpr long long kIntMax = std::numeric_limits<std::int32_t>::max();
constexpr long long kIntMin = std::numeric_limits<std::int32_t>::min();

// The complete Lagrange tetrahedra and triangles are what read_msh builds a Mesh from; looked up
// per element, so the table is computed once.
struct KeptTypes {
  std::array<bool, 141> nodes{}, triangle{};
  KeptTypes() {
    for (int t = 1; t <= 140; ++t) {
      const MshElementType e = msh_element_type(t);
      nodes[t] = msh_complete_simplex(e);
      triangle[t] = std::string(e.family) == "triangle";
    }
  }
};
const KeptTypes& kept_types() {
  static const KeptTypes k;
  return k;
}
bool keeps_nodes(int type) { return type >= 1 && type <= 140 && kept_types().nodes[type]; }
bool is_triangle(int type) { return type >= 1 && type <= 140 && kept_types().triangle[type]; }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool ieq_prefix(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

std::string printable(std::string_view text) {
  std::string out(text.substr(0, 40));
  for (char& ch : out)
    if (!std::isprint(static_cast<unsigned char>(ch))) ch = '?';
  return out;
}

// strtod in the C locale, whatever the process's locale is.
double c_strtod(const char* text, char** end) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  return c_locale ? strtod_l(text, end, c_locale) : std::strtod(text, end);
}

const char* dim_name(int dim) {
  static const char* names[4] = {"point", "curve", "surface", "volume"};
  return dim >= 0 && dim <= 3 ? names[dim] : "?";
}

enum class Width { Int = 4, Size = 8 };  // binary widths: int and size_t (MSH 4 counts and tags)

// Node tag -> index into MshContent::node_*. Tags in increasing order (what Gmsh writes) need no
// map while reading; a tag that is not larger than all before it switches to a hash map, which
// also finds tags defined twice.
class NodeIndex {
 public:
  // Registers node `index` with `tag`; false when the tag is already defined.
  bool add(std::uint64_t tag, std::int32_t index, const std::vector<std::uint64_t>& tags) {
    if (!map_ && tag > max_tag_) {
      max_tag_ = std::max(max_tag_, tag);
      return true;
    }
    if (!map_) {
      map_ = std::make_unique<std::unordered_map<std::uint64_t, std::int32_t>>();
      map_->reserve(2 * static_cast<size_t>(index) + 16);
      for (std::int32_t i = 0; i < index; ++i) map_->emplace(tags[i], i);
    }
    max_tag_ = std::max(max_tag_, tag);
    return map_->emplace(tag, index).second;
  }
  // After the last add: dense lookup for increasing tags that are not too sparse.
  void finish(const std::vector<std::uint64_t>& tags) {
    tags_ = &tags;
    if (!map_ && max_tag_ <= 4 * static_cast<std::uint64_t>(tags.size()) + 1024) {
      dense_.assign(tags.empty() ? 0 : static_cast<size_t>(max_tag_) + 1, -1);
      for (size_t i = 0; i < tags.size(); ++i) dense_[tags[i]] = static_cast<std::int32_t>(i);
    }
    finished_ = true;
  }
  bool finished() const { return finished_; }
  // The index of `tag`, or -1.
  std::int32_t find(std::uint64_t tag) const {
    if (!finished_) return -1;
    if (map_) {
      auto it = map_->find(tag);
      return it == map_->end() ? -1 : it->second;
    }
    if (!dense_.empty() || tags_->empty()) return tag < dense_.size() ? dense_[tag] : -1;
    auto it = std::lower_bound(tags_->begin(), tags_->end(), tag);  // increasing tags
    return it != tags_->end() && *it == tag ? static_cast<std::int32_t>(it - tags_->begin()) : -1;
  }
  bool increasing() const { return !map_; }

 private:
  std::uint64_t max_tag_ = 0;
  std::unique_ptr<std::unordered_map<std::uint64_t, std::int32_t>> map_;
  std::vector<std::int32_t> dense_;
  const std::vector<std::uint64_t>* tags_ = nullptr;
  bool finished_ = false;
};

// Which element tags a file used, to find one used twice (Gmsh's MSH 2 reader silently drops the
// earlier element; MSH 4.1 files never repeat one). A bit per tag while the tags stay dense, a
// hash set otherwise.
class TagSet {
 public:
  // False when `tag` was inserted before; `seen` is the number of tags inserted so far.
  bool insert(long long tag, std::uint64_t seen) {
    const auto t = static_cast<std::uint64_t>(tag);
    if (tag >= 1 && !sparse_) {
      const size_t word = static_cast<size_t>(t >> 6);
      if (word >= bits_.size()) {
        if (t <= 64 * seen + (std::uint64_t{1} << 24))
          bits_.resize(std::max(word + 1, 2 * bits_.size()), 0);
        else
          go_sparse();
      }
      if (!sparse_) {
        const std::uint64_t bit = std::uint64_t{1} << (t & 63);
        if (bits_[word] & bit) return false;
        bits_[word] |= bit;
        return true;
      }
    }
    if (!sparse_) go_sparse();
    return sparse_->insert(tag).second;
  }

 private:
  void go_sparse() {
    if (!sparse_) sparse_ = std::make_unique<std::unordered_set<long long>>();
    for (size_t w = 0; w < bits_.size(); ++w)
      for (int b = 0; b < 64; ++b)
        if (bits_[w] >> b & 1) sparse_->insert(static_cast<long long>(64 * w + static_cast<size_t>(b)));
    bits_.clear();
    bits_.shrink_to_fit();
  }
  std::vector<std::uint64_t> bits_;
  std::unique_ptr<std::unordered_set<long long>> sparse_;
};

class Parser {
 public:
  Parser(const std::string& path, std::string_view d) : path_(path), d_(d) {}

  MshContent run() {
    size_t pos = 0;
    while (true) {
      while (pos < d_.size() && is_space(d_[pos])) ++pos;
      if (pos >= d_.size()) break;
      const size_t eol = line_end(pos);
      if (d_[pos] != '$') {  // Gmsh skips stray lines between sections
        pos = eol;
        continue;
      }
      Section s;
      s.header = pos;
      size_t name_end = pos;
      while (name_end < d_.size() && !is_space(d_[name_end])) ++name_end;
      s.name = std::string(d_.substr(pos, name_end - pos));
      s.begin = eol;
      if (ieq_prefix(s.name, "$End")) {  // a stray end marker
        pos = eol;
        continue;
      }
      const bool own_end = has_own_end_marker(s.name);
      s.end = find_end_marker(s, own_end);
      section_ = s;
      if (s.end == std::string_view::npos)
        fail(s.header, true,
             "mesh file '" + path_ + "' is truncated: section " + printable(s.name) + " (line " +
                 std::to_string(line_of(s.header)) + ") has no $End" + printable(s.name.substr(1)),
             "the file is incomplete (an interrupted copy or export, a full disk?): write it again");
      // Gmsh's MSH 4.1 reader skips a section it does not know up to its "$End..." line: without
      // one, it reads nothing more (a misspelt "$Entities" gave an empty mesh, not an error)
      if (!own_end && seen_.count("$MeshFormat") && !c_.v2 && !has_end_marker_after(s))
        fail(s.header, true,
             "mesh file '" + path_ + "' has a section " + printable(s.name) + " (line " + std::to_string(line_of(s.header)) +
                 ") that dgmax does not know and that has no $End" + printable(s.name.substr(1)) +
                 " line: Gmsh would skip the rest of the file",
             kCorruptHint);
      read_section();
      pos = own_end ? line_end(s.end) : s.end;
    }
    if (!seen_.count("$MeshFormat"))
      fail(0, true, "mesh file '" + path_ + "' has no $MeshFormat section", kFormatHint);
    if (!seen_.count("$Elements"))
      fail(d_.size(), true, "mesh file '" + path_ + "' has no $Elements section: is the file truncated?",
           "write the file again with Gmsh");
    if (!nodes_.finished()) nodes_.finish(c_.node_tags);
    c_.node_tags_increasing = nodes_.increasing();
    // Gmsh's MSH 2 reader keeps only the nodes of elements; MSH 4.1 keeps every node.
    c_.model_nodes = c_.v2 && c_.blocks.empty() ? 0 : c_.node_tags.size();
    return std::move(c_);
  }

 private:
  struct Section {
    std::string name;   // "$Nodes"
    size_t header = 0;  // offset of its '$'
    size_t begin = 0;   // first byte after the header line
    size_t end = 0;     // offset of the '$' of its end marker (or of the next section)
  };

  // ---- sections ------------------------------------------------------------------------------
  static bool has_own_end_marker(const std::string& name) {
    for (const char* n : {"$MeshFormat", "$PhysicalNames", "$Nodes", "$Elements", "$Entities", "$Periodic",
                          "$NOD", "$ELM", "$PartitionedEntities"})
      if (name == n) return true;
    return false;
  }
  size_t find_end_marker(const Section& s, bool own_end) const {
    const std::string marker = own_end ? "$End" + s.name.substr(1) : "$";
    for (size_t pos = s.begin;; ++pos) {
      pos = d_.find('$', pos);
      if (pos == std::string_view::npos) return pos;
      const bool line_start = pos == s.begin || d_[pos - 1] == '\n';
      const size_t after = pos + marker.size();
      if (line_start && after <= d_.size() && ieq_prefix(d_.substr(pos), marker) &&
          (!own_end || after == d_.size() || is_space(d_[after])))
        return pos;
    }
  }

  // Whether a "$End<name>" line follows the header of `s` somewhere in the file. The end
  // markers are indexed once (a file of many unknown sections costs one pass, not one per section).
  bool has_end_marker_after(const Section& s) {
    if (!end_markers_indexed_) {
      for (size_t pos = d_.find('$'); pos != std::string_view::npos; pos = d_.find('$', pos + 1)) {
        if (!(pos == 0 || d_[pos - 1] == '\n') || !ieq_prefix(d_.substr(pos), "$End")) continue;
        size_t e = pos;
        while (e < d_.size() && !is_space(d_[e])) ++e;
        std::string name(d_.substr(pos + 4, e - pos - 4));
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        end_markers_[name] = pos;  // the last one
      }
      end_markers_indexed_ = true;
    }
    std::string name = s.name.substr(1);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto it = end_markers_.find(name);
    return it != end_markers_.end() && it->second > s.header;
  }

  void read_section() {
    pos_ = section_.begin;
    binary_data_ = false;
    const std::string& name = section_.name;
    const bool once = name == "$MeshFormat" || name == "$PhysicalNames" || name == "$Entities" ||
                      name == "$Nodes" || name == "$Elements";
    if (!once) return;  // $Comments, $Periodic, $NodeData, ...: nothing dgmax reads
    if (!seen_.insert(name).second)
      fail(section_.header, true,
           "mesh file '" + path_ + "' has a second " + name + " section (line " +
               std::to_string(line_of(section_.header)) + "): it is two files in one, or damaged",
           kCorruptHint);
    if (name == "$MeshFormat") return mesh_format();
    if (!seen_.count("$MeshFormat"))
      fail(section_.header, true, "mesh file '" + path_ + "' has a " + name + " section before its $MeshFormat",
           kFormatHint);
    if (name == "$PhysicalNames") return physical_names();
    if (c_.v2) {
      if (name == "$Nodes") return v2_nodes();
      if (name == "$Elements") return v2_elements();
      return;  // $Entities is no MSH 2 section: Gmsh 4.8 skips it
    }
    if (name == "$Entities") return v41_entities();
    if (name == "$Nodes") return v41_nodes();
    if (name == "$Elements") return v41_elements();
  }

  // ---- positions and errors ------------------------------------------------------------------
  size_t line_end(size_t pos) const {
    const size_t nl = d_.find('\n', pos);
    return nl == std::string_view::npos ? d_.size() : nl + 1;
  }
  int line_of(size_t offset) const {
    offset = std::min(offset, d_.size());
    return 1 + static_cast<int>(std::count(d_.begin(), d_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  }
  MshSpot spot(size_t offset, bool text) const { return msh_spot(path_, d_, {offset, text, section_.header}); }
  MshPlace here(size_t offset) const { return {offset, !binary_data_, section_.header}; }
  [[noreturn]] void fail(size_t offset, bool text, const std::string& message, const char* hint) const {
    const MshSpot s = spot(offset, text);
    throw UserError(message + s.at_byte, s.where, hint);
  }
  [[noreturn]] void corrupt(size_t offset, const std::string& what) const {
    fail(offset, !binary_data_,
         "mesh file '" + path_ + "' is corrupt: section " + section_.name + " (line " +
             std::to_string(line_of(section_.header)) + ") " + what,
         kCorruptHint);
  }

  // ---- values --------------------------------------------------------------------------------
  size_t room() const { return section_.end > pos_ ? section_.end - pos_ : 0; }
  void skip_space() {
    while (pos_ < section_.end && is_space(d_[pos_])) ++pos_;
  }
  // The next text token (after white space); empty at the end of the section.
  std::string_view token() {
    skip_space();
    const size_t start = pos_;
    while (pos_ < section_.end && !is_space(d_[pos_])) ++pos_;
    return d_.substr(start, pos_ - start);
  }
  size_t token_start(std::string_view t) const { return static_cast<size_t>(t.data() - d_.data()); }

  // An integer token in [lo, hi].
  long long text_integer(const char* what, long long lo, long long hi) {
    const std::string_view t = token();
    const size_t at = token_start(t);
    if (t.empty()) corrupt(at, std::string("ends where ") + what + " should follow");
    std::string_view digits = t;
    if (digits[0] == '+') digits.remove_prefix(1);
    long long v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || digits[0] == '+' || end != digits.data() + digits.size())
      corrupt(at, "has '" + printable(t) + "' where " + what + " should be (an integer)");
    if (ec == std::errc::result_out_of_range || v < lo || v > hi)
      corrupt(at, "has " + std::string(t) + " for " + what + ", which is out of range (" +
                      std::to_string(lo) + " to " + std::to_string(hi) + ")");
    return v;
  }
  template <typename T>
  T binary_value(const char* what) {
    if (room() < sizeof(T)) corrupt(pos_, std::string("ends where ") + what + " should follow");
    unsigned char b[sizeof(T)];
    std::memcpy(b, d_.data() + pos_, sizeof(T));
    if (swap_) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  // An int (dimension, entity tag, element type, physical tag, MSH 2 node tag) in [lo, hi].
  long long int_value(const char* what, long long lo = kIntMin, long long hi = kIntMax) {
    if (!binary_data_) return text_integer(what, lo, hi);
    const size_t at = pos_;
    const long long v = binary_value<std::int32_t>(what);
    if (v < lo || v > hi)
      corrupt(at, "has " + std::to_string(v) + " for " + what + ", which is out of range (" +
                      std::to_string(lo) + " to " + std::to_string(hi) + ")");
    return v;
  }
  // A size_t (MSH 4.1 counts and tags), at most 2^63 - 1.
  long long size_value(const char* what, long long lo = 0) {
    constexpr long long hi = std::numeric_limits<long long>::max();
    if (!binary_data_) return text_integer(what, lo, hi);
    const size_t at = pos_;
    const std::uint64_t v = binary_value<std::uint64_t>(what);
    if (v > static_cast<std::uint64_t>(hi) || static_cast<long long>(v) < lo)
      corrupt(at, "has " + std::to_string(v) + " for " + what + ", which is out of range (" +
                      std::to_string(lo) + " to " + std::to_string(hi) + ")");
    return static_cast<long long>(v);
  }
  double double_value(const char* what, bool finite) {
    double v = 0;
    size_t at = pos_;
    if (binary_data_) {
      v = binary_value<double>(what);
    } else {
      const std::string_view t = token();
      at = token_start(t);
      if (t.empty()) corrupt(at, std::string("ends where ") + what + " should follow");
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (end != t.data() + t.size() || ec != std::errc()) {
        // what from_chars does not take and fscanf's %lf does: '+', hex, out-of-range values
        const std::string copy(t.substr(0, 80));
        char* e = nullptr;
        v = c_strtod(copy.c_str(), &e);
        if (t.size() > 80 || e != copy.c_str() + copy.size())
          corrupt(at, "has '" + printable(t) + "' where " + what + " should be (a number)");
      }
    }
    if (finite && !std::isfinite(v)) corrupt(at, std::string("has a ") + what + " that is not a finite number");
    return v;
  }
  // A count of items taking at least `bytes_each` bytes in binary, `tokens_each` tokens in text:
  // refused when the rest of the section cannot hold them.
  long long checked_count(long long n, size_t at, const std::string& items, size_t bytes_each,
                          size_t tokens_each) const {
    const size_t each = binary_data_ ? std::max<size_t>(bytes_each, 1) : 2 * std::max<size_t>(tokens_each, 1);
    if (n < 0 || static_cast<unsigned long long>(n) > room() / each)
      corrupt(at, "declares " + std::to_string(n) + " " + items + ", but the " + std::to_string(room()) +
                      " bytes left in it have room for at most " + std::to_string(room() / each));
    return n;
  }
  long long count(Width w, const std::string& items, size_t bytes_each, size_t tokens_each) {
    if (!binary_data_) skip_space();
    const size_t at = pos_;
    const long long n = w == Width::Int ? int_value(("the number of " + items).c_str(), 0)
                                        : size_value(("the number of " + items).c_str());
    return checked_count(n, at, items, bytes_each, tokens_each);
  }
  // MSH 2 sections start with a line holding only their count (Gmsh reads it with fgets + sscanf);
  // binary data starts on the next line.
  long long count_line(const std::string& items, size_t bytes_each, size_t tokens_each, bool binary_follows) {
    while (pos_ < section_.end && (d_[pos_] == ' ' || d_[pos_] == '\t')) ++pos_;
    const size_t at = pos_;
    const size_t eol = std::min(line_end(pos_), section_.end);
    const std::string_view line = d_.substr(pos_, eol - pos_);
    size_t len = 0;
    while (len < line.size() && !is_space(line[len])) ++len;
    if (len == 0) corrupt(at, "has no number of " + items + " on the line after its header");
    for (size_t i = len; i < line.size(); ++i)
      if (!is_space(line[i])) corrupt(at + i, "has more than the number of " + items + " on its line");
    const long long n = text_integer(("the number of " + items).c_str(), 0, kIntMax);
    pos_ = eol;
    if (binary_ && binary_follows) binary_data_ = true;
    return checked_count(n, at, items, bytes_each, tokens_each);
  }
  // A section's data must end where its counts say (then white space and the end marker): more
  // is a count or a line that went wrong.
  void expect_end() {
    skip_space();
    if (pos_ != section_.end)
      corrupt(pos_, binary_data_ ? "holds more data than its counts say (it goes on to byte " + std::to_string(section_.end) + ")"
                                 : "holds more data than its counts say ('" + printable(token()) + "' and on)");
  }

  // ---- $MeshFormat ---------------------------------------------------------------------------
  void mesh_format() {
    const std::string_view version = token();
    const size_t at = token_start(version);
    const std::string copy(version.substr(0, 40));
    char* end = nullptr;
    const double v = c_strtod(copy.c_str(), &end);
    const bool v2 = v >= 2 && v < 3, v41 = v >= 4.1 && v < 5;
    if (version.empty() || (!v2 && !v41))
      fail(at, true,
           "mesh file '" + path_ + "' is in MSH format version '" + printable(version) +
               "', which dgmax does not read (it reads MSH 2.2 and 4.1)",
           kFormatHint);
    c_.v2 = v2;
    const long long file_type = text_integer("the file type", 0, 1);
    binary_ = file_type == 1;
    text_integer("the data size (8)", 8, 8);
    if (!binary_) return;
    pos_ = std::min(line_end(pos_), section_.end);
    binary_data_ = true;
    const size_t at_one = pos_;
    const std::int32_t one = binary_value<std::int32_t>("the endianness marker");
    if (one == 0x01000000) {
      swap_ = true;
    } else if (one != 1) {
      corrupt(at_one, "has the endianness marker " + std::to_string(one) + " instead of 1");
    }
  }

  // ---- $PhysicalNames (text in every format) ---------------------------------------------------
  void physical_names() {
    const long long n = c_.v2 ? count_line("physical names", 0, 3, false) : count(Width::Int, "physical names", 0, 3);
    for (long long i = 0; i < n; ++i) {
      const int dim = static_cast<int>(text_integer("a physical group's dimension", 0, 3));
      long long tag = text_integer("a physical group's tag", kIntMin, kIntMax);
      if (tag == 0) tag = c_.v2 ? 1 : largest_physical(dim) + 1LL;  // Gmsh's "next available" tag
      // Gmsh reads the rest of the line with fgets into 256 bytes and takes the text between the
      // first '"' and the next '"' (or the end of the line)
      const size_t eol = std::min(line_end(pos_), section_.end);
      const std::string_view rest = d_.substr(pos_, eol - pos_);
      if (rest.size() > 255)
        corrupt(pos_, "has a physical name line longer than Gmsh reads (255 characters after the tag)");
      const size_t quote = rest.find('"');
      if (quote == std::string_view::npos)
        corrupt(pos_, "has a line that is not a physical name (dimension 0-3, tag, \"name\")");
      std::string name;
      for (size_t k = quote + 1; k < rest.size(); ++k) {
        const char ch = rest[k];
        if (ch == '"' || ch == '\n' || ch == '\r' || static_cast<unsigned char>(ch) == 0xff) break;
        name.push_back(ch);
      }
      // Gmsh's MSH 2 reader skips a name already given to another group of the dimension
      if (!name.empty() && tag <= kIntMax && !(c_.v2 && name_used(dim, name)) &&
          c_.physical_names.emplace(std::make_pair(dim, static_cast<int>(tag)), name).second) {
        const auto [it, added] = names_used_.emplace(std::make_pair(dim, name), static_cast<int>(tag));
        if (!added) it->second = std::min(it->second, static_cast<int>(tag));
      }
      pos_ = eol;
    }
    expect_end();
  }

  // Gmsh's MSH 2 test for a name in use: the smallest tag with that name, -1 meaning "none".
  bool name_used(int dim, const std::string& name) const {
    auto it = names_used_.find({dim, name});
    return it != names_used_.end() && it->second != -1;
  }
  int largest_physical(int dim) const {
    int largest = 0;
    for (const auto& [entity, physicals] : c_.entities[dim])
      for (int p : physicals) largest = std::max(largest, p);
    return largest;
  }

  // ---- nodes ---------------------------------------------------------------------------------
  void add_node(long long tag, size_t at) {
    if (c_.node_tags.size() >= static_cast<size_t>(kIntMax)) corrupt(at, "has more nodes than dgmax can number");
    const auto index = static_cast<std::int32_t>(c_.node_tags.size());
    if (!nodes_.add(static_cast<std::uint64_t>(tag), index, c_.node_tags))
      corrupt(at, "defines the node tag " + std::to_string(tag) + " twice");
    c_.node_tags.push_back(static_cast<std::uint64_t>(tag));
  }
  void coordinates() {
    for (int k = 0; k < 3; ++k) c_.node_xyz.push_back(double_value("node coordinate", true));
  }
  // The index of node `tag`, which an element at `at` uses.
  std::int32_t node(long long tag, size_t at) const {
    const std::int32_t i = tag > 0 ? nodes_.find(static_cast<std::uint64_t>(tag)) : -1;
    if (i < 0) corrupt(at, "has an element on node " + std::to_string(tag) + ", which $Nodes does not define");
    return i;
  }

  // MSH 2: "<n>" line, then n x (tag x y z); binary: int + 3 doubles.
  void v2_nodes() {
    const long long n = count_line("nodes", 4 + 24, 4, true);
    reserve_nodes(n);
    for (long long i = 0; i < n; ++i) {
      if (!binary_data_) skip_space();
      const size_t at = pos_;
      add_node(int_value("a node tag", 1), at);
      coordinates();
    }
    expect_end();
    nodes_.finish(c_.node_tags);
  }
  void reserve_nodes(long long n) {
    c_.node_tags.reserve(c_.node_tags.size() + static_cast<size_t>(n));
    c_.node_xyz.reserve(c_.node_xyz.size() + 3 * static_cast<size_t>(n));
  }

  // minTag maxTag of an MSH 4.1 $Nodes / $Elements header: every tag of the blocks lies in it.
  struct TagRange {
    long long min = 0, max = 0;
  };
  TagRange tag_range(const char* item) {
    TagRange r;
    r.min = size_value((std::string("the smallest ") + item + " tag").c_str());
    r.max = size_value((std::string("the largest ") + item + " tag").c_str());
    return r;
  }
  void in_range(long long tag, const TagRange& r, size_t at, const char* item) const {
    if (tag < r.min || tag > r.max)
      corrupt(at, std::string("has the ") + item + " tag " + std::to_string(tag) + " outside the range " +
                      std::to_string(r.min) + " to " + std::to_string(r.max) + " its header declares");
  }

  // MSH 4.1: numEntityBlocks numNodes minTag maxTag (size_t); per block: dim tag parametric (int)
  // count (size_t), count tags (size_t), count x (3 [+ dim]) doubles.
  void v41_nodes() {
    binary_data_ = binary_;
    const long long blocks = count(Width::Size, "entity blocks", 20, 4);
    if (!binary_data_) skip_space();
    const size_t at_total = pos_;
    const long long total = count(Width::Size, "nodes", 32, 4);
    const TagRange range = tag_range("node");
    reserve_nodes(total);
    long long seen = 0;
    for (long long b = 0; b < blocks; ++b) {
      const int dim = static_cast<int>(int_value("a node block's entity dimension", 0, 3));
      const int tag = static_cast<int>(int_value("a node block's entity tag", 0));
      const bool parametric = int_value("a node block's parametric flag") != 0;
      const long long per_node = 3 + (parametric ? dim : 0);
      if (!binary_data_) skip_space();
      const size_t at_count = pos_;
      const long long k = count(Width::Size, "nodes in a block", 8 + 8 * per_node, 1 + per_node);
      if (k > total - seen)
        corrupt(at_count, "has more nodes in its blocks than the " + std::to_string(total) + " its header declares");
      seen += k;
      c_.entities[dim].try_emplace(tag);  // Gmsh makes a (discrete) entity for nodes on an unknown one
      for (long long i = 0; i < k; ++i) {
        if (!binary_data_) skip_space();
        const size_t at = pos_;
        const long long node_tag = size_value("a node tag", 1);
        in_range(node_tag, range, at, "node");
        add_node(node_tag, at);
      }
      for (long long i = 0; i < k; ++i) {
        coordinates();
        for (long long p = 3; p < per_node; ++p) double_value("parametric coordinate", false);
      }
    }
    if (seen != total) corrupt(at_total, "declares " + std::to_string(total) + " nodes, but its blocks hold " + std::to_string(seen));
    expect_end();
    nodes_.finish(c_.node_tags);
  }

  // ---- elements ------------------------------------------------------------------------------
  MshElementBlock& block(int dim, int entity, int type, size_t at) {
    const auto key = std::make_tuple(dim, entity, type);
    if (last_ && last_key_ == key) return *last_;
    auto [it, added] = c_.blocks.try_emplace(key);
    if (added) {
      it->second.dim = dim;
      it->second.entity = entity;
      it->second.type = type;
      it->second.first = here(at);
    }
    last_key_ = key;
    last_ = &it->second;
    return it->second;
  }
  // One element (its tag, at `at`, read; its nodes read here) into its block.
  void element(MshElementBlock& b, int nodes, long long tag, size_t at, Width w) {
    if (!element_tags_.insert(tag, elements_))
      corrupt(at, "has the element tag " + std::to_string(tag) + " twice (Gmsh would drop one of the two elements)");
    ++elements_;
    const bool keep = keeps_nodes(b.type);
    for (int j = 0; j < nodes; ++j) {
      if (!binary_data_) skip_space();
      const size_t at_node = pos_;
      const long long t = w == Width::Int ? int_value("an element's node", 1) : size_value("an element's node", 1);
      const std::int32_t i = node(t, at_node);
      if (keep) b.nodes.push_back(i);
    }
    if (is_triangle(b.type) || (keep && c_.v2)) b.tags.push_back(tag);
    ++b.count;
  }
  MshElementType element_type(long long type, size_t at) const {
    const MshElementType t = msh_element_type(type);
    if (t.nodes == 0)
      corrupt(at, "has an element of type " + std::to_string(type) + ", which is no MSH element type of fixed size");
    return t;
  }

  // MSH 2: "<n>" line; text: n x (tag type ntags tags... nodes...); binary: blocks of
  // (type, count, ntags) then count x (tag, tags..., nodes...) ints.
  void v2_elements() {
    const long long n = count_line("elements", 8, 4, true);
    long long left = n;
    while (left > 0) {
      long long type = 0, k = 1, ntags = 0;
      size_t at_type = pos_;
      MshElementType t;
      if (binary_data_) {
        at_type = pos_;
        type = int_value("an element block's type");
        t = element_type(type, at_type);
        const size_t at_k = pos_;
        k = int_value("an element block's count", 0);
        ntags = checked_count(int_value("an element block's number of tags", 0), at_k + 4, "tags per element", 4, 1);
        checked_count(k, at_k, "elements in a block", 4 * (1 + static_cast<size_t>(ntags) + static_cast<size_t>(t.nodes)), 1);
        if (k > left)
          corrupt(at_k, "has a block of " + std::to_string(k) + " elements, more than the " + std::to_string(left) +
                            " of the declared total left");
      }
      for (long long e = 0; e < k; ++e) {
        if (!binary_data_) skip_space();
        const size_t at = pos_;
        const long long tag = int_value("an element tag");
        if (!binary_data_) {
          at_type = (skip_space(), pos_);
          type = int_value("an element type");
          t = element_type(type, at_type);
          if (!binary_data_) skip_space();
          const size_t at_ntags = pos_;
          ntags = checked_count(int_value("the number of an element's tags", 0), at_ntags, "tags of the element", 0, 1);
        }
        long long physical = 0, elementary = 0;
        for (long long j = 0; j < ntags; ++j) {
          if (!binary_data_) skip_space();
          const size_t at_tag = pos_;
          const long long v = int_value("an element's tag");
          if (j == 0) {
            if (v < 0) corrupt(at_tag, "has the negative physical tag " + std::to_string(v));
            physical = v;
          }
          if (j == 1) {
            // Gmsh 4.8 drops the elements of a negative elementary tag: refused, no Gmsh writes one
            if (v < 0) corrupt(at_tag, "has the negative elementary tag " + std::to_string(v));
            elementary = v;
          }
        }
        const int dim = t.dim, entity = static_cast<int>(elementary);
        std::vector<int>& physicals = c_.entities[dim][entity];
        if (physical != 0 && (physicals.empty() || physicals.back() != physical))
          physicals.push_back(static_cast<int>(physical));  // sorted, without repeats, below
        element(block(dim, entity, static_cast<int>(type), at), t.nodes, tag, at, Width::Int);
      }
      left -= k;
    }
    expect_end();
    for (auto& entities : c_.entities)
      for (auto& [entity, physicals] : entities) {
        std::sort(physicals.begin(), physicals.end());
        physicals.erase(std::unique(physicals.begin(), physicals.end()), physicals.end());
      }
    for (auto& [key, b] : c_.blocks) sort_by_tag(b);
  }
  // Gmsh's MSH 2 reader gives the elements of an entity in increasing element tag.
  static void sort_by_tag(MshElementBlock& b) {
    if (b.tags.empty() || std::is_sorted(b.tags.begin(), b.tags.end())) return;
    const size_t per = b.nodes.size() / b.tags.size();
    std::vector<size_t> order(b.tags.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return b.tags[x] < b.tags[y]; });
    std::vector<long long> tags(b.tags.size());
    std::vector<std::int32_t> nodes(b.nodes.size());
    for (size_t i = 0; i < order.size(); ++i) {
      tags[i] = b.tags[order[i]];
      std::copy_n(b.nodes.begin() + static_cast<std::ptrdiff_t>(order[i] * per), per,
                  nodes.begin() + static_cast<std::ptrdiff_t>(i * per));
    }
    b.tags = std::move(tags);
    b.nodes = std::move(nodes);
  }

  // MSH 4.1: numPoints numCurves numSurfaces numVolumes (size_t), then per entity: tag (int),
  // 3 (points) or 6 (bounding box) doubles, numPhysicalTags (size_t) + ints, and for curves and
  // up numBounding (size_t) + ints.
  void v41_entities() {
    binary_data_ = binary_;
    long long n[4];
    for (int dim = 0; dim < 4; ++dim)
      n[dim] = count(Width::Size, std::string(dim_name(dim)) + " entities", dim == 0 ? 36 : 68, dim == 0 ? 5 : 9);
    for (int dim = 0; dim < 4; ++dim)
      for (long long i = 0; i < n[dim]; ++i) {
        if (!binary_data_) skip_space();
        const size_t at = pos_;
        const int tag = static_cast<int>(int_value("an entity tag", 0));
        if (!declared_[dim].insert(tag).second)
          corrupt(at, "declares the " + std::string(dim_name(dim)) + " entity " + std::to_string(tag) + " twice");
        for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) double_value("entity coordinate", false);
        const long long np = count(Width::Size, "physical tags of an entity", 4, 1);
        std::vector<int>& physicals = c_.entities[dim][tag];
        std::unordered_set<int> listed(physicals.begin(), physicals.end());
        for (long long j = 0; j < np; ++j) {
          if (!binary_data_) skip_space();
          const size_t at_p = pos_;
          const long long p = int_value("a physical tag");
          // Gmsh takes |p| for the group and p for the entity's groups: refused, as no Gmsh writes it
          if (p < 0) corrupt(at_p, "has the negative physical tag " + std::to_string(p));
          if (listed.insert(static_cast<int>(p)).second) physicals.push_back(static_cast<int>(p));
        }
        if (dim > 0) {
          const long long nb = count(Width::Size, "bounding entities of an entity", 4, 1);
          for (long long j = 0; j < nb; ++j) {
            if (!binary_data_) skip_space();
            const size_t at_b = pos_;
            const long long bound = int_value("a bounding entity");  // the sign is an orientation
            // Gmsh gives up reading the entities on an unknown one (and reads an empty model)
            if (!declared_[dim - 1].count(static_cast<int>(std::min(std::llabs(bound), kIntMax))))
              corrupt(at_b, "has the " + std::string(dim_name(dim)) + " entity " + std::to_string(tag) +
                                " bounded by the " + dim_name(dim - 1) + " entity " + std::to_string(std::llabs(bound)) +
                                ", which it does not declare");
          }
        }
      }
    expect_end();
  }

  // MSH 4.1: numEntityBlocks numElements minTag maxTag (size_t); per block: dim tag type (int)
  // count (size_t), count x (tag + nodes) size_t.
  void v41_elements() {
    binary_data_ = binary_;
    const long long blocks = count(Width::Size, "entity blocks", 20, 4);
    if (!binary_data_) skip_space();
    const size_t at_total = pos_;
    const long long total = count(Width::Size, "elements", 16, 2);
    const TagRange range = tag_range("element");
    long long seen = 0;
    for (long long b = 0; b < blocks; ++b) {
      if (!binary_data_) skip_space();
      const size_t at_block = pos_;
      const int dim = static_cast<int>(int_value("an element block's entity dimension", 0, 3));
      const int entity = static_cast<int>(int_value("an element block's entity tag", 0));
      if (!binary_data_) skip_space();
      const size_t at_type = pos_;
      const long long type = int_value("an element block's element type");
      const MshElementType t = element_type(type, at_type);
      if (!binary_data_) skip_space();
      const size_t at_count = pos_;
      const long long k = count(Width::Size, "elements in a block", 8 * (1 + static_cast<size_t>(t.nodes)),
                                1 + static_cast<size_t>(t.nodes));
      if (k > total - seen)
        corrupt(at_count, "has more elements in its blocks than the " + std::to_string(total) + " its header declares");
      seen += k;
      if (!c_.entities[dim].count(entity))
        corrupt(at_block, "has an element block on the " + std::string(dim_name(dim)) + " entity " +
                              std::to_string(entity) + ", which neither $Entities nor $Nodes declares");
      const auto key = std::make_tuple(dim, entity, static_cast<int>(type));
      if (t.dim != dim) {
        // points and lines on a surface: what a physical surface holds beside triangles (read_msh
        // reports them); other combinations have no place in Gmsh's model
        if (dim == 2 && t.dim < 2) {
          c_.foreign.insert(key);
        } else {
          corrupt(at_type, "has a block of " + describe_msh_elements(type, static_cast<size_t>(k)) + " on the " +
                               dim_name(dim) + " entity " + std::to_string(entity) + ": elements of dimension " +
                               std::to_string(t.dim) + " cannot belong to an entity of dimension " +
                               std::to_string(dim));
        }
      }
      if (k == 0) continue;
      MshElementBlock& blk = block(dim, entity, static_cast<int>(type), pos_);
      if (keeps_nodes(blk.type))
        blk.nodes.reserve(blk.nodes.size() + static_cast<size_t>(k) * static_cast<size_t>(t.nodes));
      if (is_triangle(blk.type)) blk.tags.reserve(blk.tags.size() + static_cast<size_t>(k));
      for (long long e = 0; e < k; ++e) {
        if (!binary_data_) skip_space();
        const size_t at = pos_;
        const long long tag = size_value("an element tag", 1);
        in_range(tag, range, at, "element");
        element(blk, t.nodes, tag, at, Width::Size);
      }
    }
    if (seen != total)
      corrupt(at_total, "declares " + std::to_string(total) + " elements, but its blocks hold " + std::to_string(seen));
    expect_end();
  }

  const std::string& path_;
  std::string_view d_;
  Section section_;
  size_t pos_ = 0;
  bool binary_ = false, swap_ = false;
  bool binary_data_ = false;  // whether the current spot is binary data
  std::set<std::string> seen_;
  std::set<int> declared_[4];  // entities of $Entities
  std::map<std::pair<int, std::string>, int> names_used_;  // (dim, name) -> smallest tag with it
  std::map<std::string, size_t> end_markers_;  // "$End<name>" lines: lower-case name -> last offset
  bool end_markers_indexed_ = false;
  NodeIndex nodes_;
  TagSet element_tags_;
  std::uint64_t elements_ = 0;
  MshContent c_;
  std::tuple<int, int, int> last_key_;
  MshElementBlock* last_ = nullptr;
};

}  // namespace

MshSpot msh_spot(const std::string& path, std::string_view d, const MshPlace& place) {
  const auto line_end = [&](size_t pos) {
    const size_t nl = d.find('\n', pos);
    return nl == std::string_view::npos ? d.size() : nl + 1;
  };
  const auto line_of = [&](size_t offset) {
    offset = std::min(offset, d.size());
    return 1 + static_cast<int>(std::count(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  };
  MshSpot s;
  s.where.file = path;
  if (!place.text) {
    s.where.line = line_of(place.section);
    s.at_byte = " (at byte " + std::to_string(place.offset) + ")";
    return s;
  }
  s.where.line = line_of(place.offset);
  if (place.offset < d.size()) {
    size_t b = place.offset;
    while (b > 0 && d[b - 1] != '\n') --b;
    std::string line(d.substr(b, line_end(b) - b));
    while (!line.empty() && is_space(line.back())) line.pop_back();
    if (line.size() <= 200 && std::all_of(line.begin(), line.end(), [](char c) {
          return std::isprint(static_cast<unsigned char>(c)) || c == '\t';
        })) {
      s.where.snippet = line;
      s.where.column = static_cast<int>(place.offset - b) + 1;
    }
  }
  return s;
}

MshContent parse_msh(const std::string& path, std::string_view bytes) { return Parser(path, bytes).run(); }

}  // namespace dgmax
