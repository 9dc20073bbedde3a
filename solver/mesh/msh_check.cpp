// Section walk over a mapped .msh file. Every count is checked against the bytes left in its
// section before anything is skipped, so a corrupted count costs a comparison, not an allocation.
// In ASCII a token needs at least two bytes (a character and a separator: every section body
// ends with a newline before its $End marker), which bounds what a count can honestly promise.
#include "solver/mesh/msh_check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "solver/mesh/mapped_file.hpp"
#include "solver/mesh/msh_element_types.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

int nodes_per_type(long long type) { return msh_element_type(type).nodes; }

// First-order MSH element types: line, triangle, quadrangle, tetrahedron, hexahedron, prism,
// pyramid, point.
bool first_order_type(long long type) { return (type >= 1 && type <= 7) || type == 15; }

// Text from the file for a message: non-printable bytes as '?' (no raw bytes on the terminal).
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& ch : out)
    if (!std::isprint(static_cast<unsigned char>(ch))) ch = '?';
  return out;
}

bool ieq(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

enum class Width { Int = 4, Size = 8 };  // binary widths: int and size_t (MSH 4 counts)

struct Section {
  std::string name;     // "$Nodes"
  size_t header = 0;    // offset of the '$' of the name
  size_t begin = 0;     // first byte after the header line
  size_t end = 0;       // offset of the '$' of the end marker
};

class Walker {
 public:
  Walker(const std::string& path, std::string_view d) : path_(path), d_(d) {}

  void run() {
    // Gmsh recognizes an MSH file by "$MeshFormat" at its first byte; anything else it parses as
    // MSH 1 or as a .geo script, with other layouts than this walk ("$MEshFormat" gave a division
    // by zero in Gmsh's .geo parser, "$EndMeshFormat" or blank lines first a bad free and another
    // division by zero in it: fuzz findings)
    if (!(d_.substr(0, 11) == "$MeshFormat" && (d_.size() == 11 || is_space(d_[11])))) {
      size_t first = 0;
      while (first < d_.size() && is_space(d_[first])) ++first;
      size_t end = first;
      while (end < d_.size() && end - first < 40 && !is_space(d_[end])) ++end;
      fail_at(first, true,
              "mesh file '" + path_ + "' does not start with a $MeshFormat section (it starts with '" +
                  printable(d_.substr(first, end - first)) +
                  "', line " + std::to_string(line_of(first)) + (first > 0 ? ", after blank lines" : "") +
                  "): it is in MSH format 1 or no Gmsh mesh, and dgmax reads MSH 2.2 and 4.1",
              kFormatHint);
    }
    bool has_nodes = false, has_elements = false;
    std::string last;
    size_t pos = 0;
    while (true) {
      while (pos < d_.size() && is_space(d_[pos])) ++pos;
      if (pos >= d_.size()) break;
      size_t eol = line_end(pos);
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
      if (s.name.size() >= 4 && ieq(std::string_view(s.name).substr(1, 3), "End")) {
        pos = eol;  // a stray end marker: Gmsh ignores it too
        continue;
      }
      // a second $MeshFormat switches Gmsh's reader to another version or to binary mid-file (a
      // bad free in Gmsh: fuzz finding); a second $Nodes or $Elements is read on top of the first
      // (a 2 GB allocation for a 1 KB file: fuzz finding). Gmsh writes each of these once.
      for (const char* once : {"$MeshFormat", "$Nodes", "$Elements", "$Entities", "$PhysicalNames"})
        if (s.name == once && !seen_.insert(s.name).second)
          fail_at(s.header, true,
                  "mesh file '" + path_ + "' has a second " + s.name + " section (line " +
                      std::to_string(line_of(s.header)) + "): it is two files in one, or damaged",
                  kCorruptHint);
      s.end = find_end_marker(s);
      if (s.end == std::string_view::npos)
        fail_at(s.header, true,
                "mesh file '" + path_ + "' is truncated: section " + s.name + " (line " +
                    std::to_string(line_of(s.header)) + ") has no $End" + s.name.substr(1) +
                    (last.empty() ? std::string() : " (the last complete section is " + last + ")"),
                kTruncatedHint);
      if (gmsh_reads(s.name) && (!binary_ || s.name == "$PhysicalNames")) check_no_nested_section(s);
      check_section(s);
      has_nodes |= s.name == "$Nodes" || s.name == "$NOD";
      has_elements |= s.name == "$Elements" || s.name == "$ELM";
      last = s.name;
      pos = gmsh_reads(s.name) ? line_end(s.end) : s.end;  // the '$' line after an unread section is a section
    }
    if (!has_elements && !last.empty())
      fail_at(d_.size(), false,
              "mesh file '" + path_ + "' has no $Elements section (it ends after " + last +
                  (has_nodes ? "" : ", without $Nodes either") + "): is the file truncated?",
              kTruncatedHint);
  }

 private:
  static constexpr const char* kTruncatedHint =
      "the file is incomplete (an interrupted copy or export, a full disk?): write it again, "
      "e.g. `gmsh -3 model.geo -o model.msh`";
  static constexpr const char* kCorruptHint =
      "the file is damaged or was not written by Gmsh: write it again from Gmsh (`gmsh -3 "
      "model.geo -o model.msh`), or open it with `gmsh file.msh` to see what Gmsh makes of it";

  // ---- positions and errors ---------------------------------------------------------------
  size_t line_end(size_t pos) const {
    const size_t nl = d_.find('\n', pos);
    return nl == std::string_view::npos ? d_.size() : nl + 1;
  }
  int line_of(size_t offset) const {
    offset = std::min(offset, d_.size());
    return 1 + static_cast<int>(std::count(d_.begin(), d_.begin() + offset, '\n'));
  }
  // Throws for the item at `offset`; `text` tells whether that spot is text (then the location
  // has its line and the line as snippet) or binary data (the section header's line).
  [[noreturn]] void fail_at(size_t offset, bool text, const std::string& message,
                            const char* hint) const {
    SourceLocation where{path_};
    const size_t at = text ? offset : section_.header;
    where.line = line_of(at);
    if (text && at < d_.size()) {
      size_t b = at;
      while (b > 0 && d_[b - 1] != '\n') --b;
      std::string line(d_.substr(b, line_end(b) - b));
      while (!line.empty() && is_space(line.back())) line.pop_back();
      const bool printable = line.size() <= 200 && std::all_of(line.begin(), line.end(), [](char c) {
                               return std::isprint(static_cast<unsigned char>(c)) || c == '\t';
                             });
      if (printable) {
        where.snippet = line;
        where.column = static_cast<int>(at - b) + 1;
      }
    }
    throw UserError(message, where, hint);
  }
  [[noreturn]] void corrupt(size_t offset, const std::string& what, bool text_spot = false) const {
    const bool text = text_spot || !binary_data_;
    fail_at(offset, text,
            "mesh file '" + path_ + "' is corrupt: section " + section_.name + " (line " +
                std::to_string(line_of(section_.header)) + ") " + what +
                (text ? std::string() : " (at byte " + std::to_string(offset) + ")"),
            kCorruptHint);
  }

  [[noreturn]] void corrupt_format(size_t offset, const std::string& what) const {
    fail_at(offset, true, "mesh file '" + path_ + "' " + what, kFormatHint);
  }
  static constexpr const char* kFormatHint =
      "convert it with Gmsh: `gmsh file.msh -save -format msh41 -o converted.msh`";

  // The '$' of "$End<name>" at the start of a line after the section's header, or npos.
  // Whether Gmsh's reader reads the section (else it looks for the next section at the next line
  // that starts with '$': a "$Nodes" inside $Comments is read as nodes).
  static bool gmsh_reads(const std::string& name) {
    static const char* const kRead[] = {"$MeshFormat", "$PhysicalNames", "$Nodes", "$Elements", "$Entities",
                                        "$Periodic", "$NOD", "$ELM", "$PartitionedEntities"};
    return std::any_of(std::begin(kRead), std::end(kRead), [&](const char* n) { return name == n; });
  }

  // For a section Gmsh reads: the '$' of its "$End<name>" at the start of a line. For one it does
  // not read ($Comments, unknown names): the next line that starts with '$', which Gmsh takes for
  // the next section (a "$Nodes" inside a comment was read by Gmsh and not by this walk: a 2 GB
  // allocation, fuzz finding). npos when there is none.
  size_t find_end_marker(const Section& s) const {
    const bool read = gmsh_reads(s.name);
    const std::string marker = read ? "$End" + s.name.substr(1) : "$";
    size_t pos = s.begin;
    while (true) {
      pos = d_.find('$', pos);
      if (pos == std::string_view::npos) return pos;
      const bool line_start = pos == s.begin || d_[pos - 1] == '\n';
      const size_t after = pos + marker.size();
      if (line_start && after <= d_.size() && ieq(d_.substr(pos, marker.size()), marker) &&
          (!read || after == d_.size() || is_space(d_[after])))
        return pos;
      ++pos;
    }
  }

  // Gmsh reads a section's items by their counts and then takes the next line that starts with '$'
  // for the next section: a "$Nodes" line before "$EndElements" starts a second node section for it
  // (and a second element section crashed its MSH 2 reader), while this walk would have taken it for
  // data. So in text, no line of a section's body may start with '$'.
  void check_no_nested_section(const Section& s) {
    for (size_t pos = s.begin; pos < s.end; pos = line_end(pos)) {
      size_t c = pos;
      while (c < s.end && (d_[c] == ' ' || d_[c] == '\t' || d_[c] == '\r')) ++c;
      if (c < s.end && d_[c] == '$') {
        section_ = s;
        binary_data_ = false;
        size_t e = c;
        while (e < s.end && !is_space(d_[e])) ++e;
        corrupt(c, "has a line starting with '" + printable(d_.substr(c, std::min<size_t>(e - c, 40))) +
                       "' (line " + std::to_string(line_of(c)) + ") before its $End" + s.name.substr(1) +
                       ": Gmsh would read it as the start of another section", true);
      }
    }
  }

  // ---- reading inside the current section ---------------------------------------------------
  size_t room() const { return section_.end > pos_ ? section_.end - pos_ : 0; }

  void skip_space() {
    while (pos_ < section_.end && is_space(d_[pos_])) ++pos_;
  }
  // An ASCII integer token.
  long long ascii_int(const char* what) {
    skip_space();
    const size_t start = pos_;
    if (pos_ < section_.end && (d_[pos_] == '-' || d_[pos_] == '+')) ++pos_;
    const size_t digits = pos_;
    while (pos_ < section_.end && std::isdigit(static_cast<unsigned char>(d_[pos_]))) ++pos_;
    if (pos_ == digits || (pos_ < section_.end && !is_space(d_[pos_])))
      corrupt(start, start >= section_.end ? std::string("ends where ") + what + " should follow"
                                           : std::string("has no integer where ") + what + " should be",
              /*text=*/true);
    const std::string token(d_.substr(start, pos_ - start));
    errno = 0;
    const long long v = std::strtoll(token.c_str(), nullptr, 10);
    if (errno == ERANGE) corrupt(start, "has the out-of-range number " + token + " for " + what, true);
    return v;
  }
  long long binary_int(Width w, const char* what) {
    const size_t n = static_cast<size_t>(w);
    if (room() < n) corrupt(pos_, std::string("ends where ") + what + " should follow");
    uint64_t v = 0;
    unsigned char b[8];
    std::memcpy(b, d_.data() + pos_, n);
    if (swap_) std::reverse(b, b + n);
    if (w == Width::Int) {
      int32_t i;
      std::memcpy(&i, b, 4);
      v = static_cast<uint64_t>(static_cast<int64_t>(i));
    } else {
      std::memcpy(&v, b, 8);
    }
    pos_ += n;
    // size_t values above 2^63 are no honest count: keep them positive and huge
    return w == Width::Size && v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                                     : static_cast<long long>(v);
  }
  long long integer(Width w, const char* what) {
    return binary_data_ ? binary_int(w, what) : ascii_int(what);
  }
  // A count of items that take at least `bytes_each` bytes in binary, `tokens_each` tokens in
  // ASCII: refused when the rest of the section cannot hold that many.
  long long count_of(long long value, size_t at, const std::string& items, size_t bytes_each,
                     size_t tokens_each) const {
    if (value < 0)
      corrupt(at, "declares a negative number of " + items + " (" + std::to_string(value) + ")");
    const size_t each = binary_data_ ? bytes_each : 2 * tokens_each;
    const size_t most = room() / std::max<size_t>(each, 1);
    if (static_cast<unsigned long long>(value) > most)
      corrupt(at, "declares " + std::to_string(value) + " " + items + ", but the " +
                      std::to_string(room()) + " bytes left in it have room for at most " +
                      std::to_string(most));
    return value;
  }
  long long count(Width w, const std::string& items, size_t bytes_each, size_t tokens_each) {
    skip_if_ascii();
    const size_t at = pos_;
    return count_of(integer(w, items.c_str()), at, items, bytes_each, tokens_each);
  }
  void skip_if_ascii() {
    if (!binary_data_) skip_space();
  }
  // Skips `n` values (binary: of `bytes` each; ASCII: tokens).
  void skip(long long n, size_t bytes, const char* what) {
    if (n <= 0) return;
    if (binary_data_) {
      if (static_cast<unsigned long long>(n) > room() / bytes)
        corrupt(pos_, std::string("ends inside ") + what);
      pos_ += static_cast<size_t>(n) * bytes;
      return;
    }
    for (long long i = 0; i < n; ++i) {
      skip_space();
      if (pos_ >= section_.end) corrupt(pos_, std::string("ends inside ") + what);
      while (pos_ < section_.end && !is_space(d_[pos_])) ++pos_;
    }
  }
  void skip_line() { pos_ = std::min(line_end(pos_), section_.end); }

  // MSH 2 sections start with a count line that Gmsh reads with fgets + sscanf: the count is the
  // first word of the line after the header, and the rest of that line is dropped. Read token by
  // token, words after the count would be taken for data, and this walk would check a different
  // file than Gmsh reads (a fuzz finding crashed Gmsh's MSH 2 reader that way): refused. Binary
  // node and element data start on the next line ($PhysicalNames stays text).
  long long count_line(const std::string& items, size_t bytes_each, size_t tokens_each,
                       bool binary_data_follows = true) {
    while (pos_ < section_.end && (d_[pos_] == ' ' || d_[pos_] == '\t')) ++pos_;
    const size_t at = pos_;
    if (pos_ >= section_.end || d_[pos_] == '\n' || d_[pos_] == '\r')
      corrupt(at, "has no number of " + items + " on the line after its header", true);
    const long long v = ascii_int(("the number of " + items).c_str());
    size_t rest = pos_;
    while (rest < section_.end && (d_[rest] == ' ' || d_[rest] == '\t' || d_[rest] == '\r')) ++rest;
    if (rest < section_.end && d_[rest] != '\n')
      corrupt(rest, "has more than the number of " + items + " on its line " +
                        std::to_string(line_of(at)) + " (Gmsh would ignore the rest of the line)",
              true);
    if (binary_ && binary_data_follows) pos_ = line_end(pos_), binary_data_ = true;
    return count_of(v, at, items, bytes_each, tokens_each);
  }

  // ---- sections -----------------------------------------------------------------------------
  void check_section(const Section& s) {
    section_ = s;
    pos_ = s.begin;
    binary_data_ = false;
    const bool v2 = version_ >= 2 && version_ < 3, v41 = version_ >= 4.1 && version_ < 5;
    if (s.name == "$MeshFormat") return mesh_format();
    if (s.name == "$PartitionedEntities")  // as for partition tags in MSH 2 (v2_tags)
      fail_at(s.header, true,
              "mesh file '" + path_ + "' is a partitioned mesh (section $PartitionedEntities, line " +
                  std::to_string(line_of(s.header)) + "), which dgmax does not read",
              "save the mesh from Gmsh without partitioning it (Mesh.NbPartitions = 0)");
    if (s.name == "$PhysicalNames") {
      const long long n = v2 ? count_line("physical names", 0, 3, false) : count(Width::Int, "physical names", 0, 3);
      for (long long i = 0; i < n; ++i) physical_name();
      return;
    }
    if (!v2 && !v41 && !(version_ == 0 && (s.name == "$NOD" || s.name == "$ELM")))
      return;  // other versions: the end marker is all we check
    if (s.name == "$NOD") return msh1_lines("nodes", 4);
    if (s.name == "$ELM") return msh1_lines("elements", 5);
    if (v2 && s.name == "$Nodes") return v2_nodes();
    if (v2 && s.name == "$Elements") return v2_elements();
    if (v41 && s.name == "$Entities") return v41_entities();
    if (v41 && s.name == "$Nodes") return v41_nodes();
    if (v41 && s.name == "$Elements") return v41_elements();
    if (v41 && s.name == "$Periodic") return v41_periodic();
  }
  void skip_line_checked(const char* what) {
    skip_space();
    if (pos_ >= section_.end) corrupt(pos_, std::string("ends inside ") + what);
    skip_line();
  }
  // "dim tag "name"" on one line (Gmsh indexes by dim and reads on across lines otherwise).
  void physical_name() {
    skip_space();
    const size_t at = pos_;
    const long long dim = ascii_int("a physical group's dimension");
    ascii_int("a physical group's tag");
    const size_t end = std::min(line_end(pos_), section_.end);
    if (dim < 0 || dim > 3 || d_.substr(pos_, end - pos_).find('"') == std::string_view::npos)
      corrupt(at, "has a line that is not a physical name (dimension 0-3, tag, \"name\")");
    pos_ = end;
  }
  // Binary data must end where its counts say (a newline, then the end marker).
  void expect_binary_end() {
    skip_space();
    if (pos_ != section_.end)
      corrupt(pos_, "holds more data than its counts say (it goes on to byte " +
                        std::to_string(section_.end) + ")");
  }

  void mesh_format() {
    skip_space();
    const size_t start = pos_;
    while (pos_ < section_.end && !is_space(d_[pos_])) ++pos_;
    const std::string version(d_.substr(start, pos_ - start));
    version_ = std::atof(version.c_str());
    // Gmsh 4.8 also reads MSH 3 and 4.0, with readers that trust every count and tag (a
    // mismatch corrupts its heap); only the versions walked here are passed on to it.
    const bool v2 = version_ >= 2 && version_ < 3, v41 = version_ >= 4.1 && version_ < 5;
    if (!v2 && !v41)
      corrupt_format(start, "is in MSH format version '" + version +
                                "', which dgmax does not read (it reads MSH 2.2 and 4.1)");
    const size_t at_type = (skip_space(), pos_);
    const long long file_type = ascii_int("the file type");
    // Gmsh reads any file type but 0 as binary: -1 made it read text as binary counts (fuzz finding)
    if (file_type != 0 && file_type != 1)
      corrupt_format(at_type, "declares the file type " + std::to_string(file_type) +
                                  " (0 for ASCII, 1 for binary)");
    binary_ = file_type == 1;
    const size_t at_size = (skip_space(), pos_);
    const long long data_size = ascii_int("the data size");
    if (data_size != 8)
      corrupt_format(at_size, "declares a data size of " + std::to_string(data_size) +
                                  " bytes per real (MSH files use 8)");
    if (!binary_) return;
    pos_ = line_end(pos_);
    binary_data_ = true;
    const long long one = binary_int(Width::Int, "the endianness marker");
    if (one == 0x01000000) swap_ = true;
    else if (one != 1) corrupt(pos_ - 4, "has an endianness marker " + std::to_string(one) + " instead of 1");
  }

  void msh1_lines(const char* items, size_t tokens_each) {
    const long long n = count(Width::Int, items, 0, tokens_each);
    skip_line();
    for (long long i = 0; i < n; ++i) skip_line_checked(items);
  }

  // ---- values Gmsh trusts as well: it asserts or crashes on these instead of reporting them ----
  struct Tag {
    long long value;
    size_t at;
  };
  // A node tag; remembers the range of tags defined so far.
  Tag node_tag(Width w) {
    skip_if_ascii();
    const size_t at = pos_;
    const long long tag = integer(w, "a node tag");
    if (tag < 1) corrupt(at, "has the node tag " + std::to_string(tag) + " (tags start at 1)");
    min_node_ = std::min(min_node_, tag);
    max_node_ = std::max(max_node_, tag);
    return {tag, at};
  }
  void coordinates(long long n) {
    if (!binary_data_) {
      // Gmsh reads coordinates with fscanf("%lf"), which stops inside a token such as "0.54.1" and
      // reads the rest as the next number: every later node then shifts, and elements on nodes
      // Gmsh never saw crashed its reader (fuzz finding). Each token must be one finite number.
      for (long long i = 0; i < n; ++i) {
        skip_space();
        const size_t start = pos_;
        if (pos_ >= section_.end) corrupt(pos_, "ends inside node coordinates");
        while (pos_ < section_.end && !is_space(d_[pos_])) ++pos_;
        const std::string token(d_.substr(start, std::min<size_t>(pos_ - start, 64)));
        char* end = nullptr;
        const double x = std::strtod(token.c_str(), &end);
        if (pos_ - start > 64 || end != token.c_str() + token.size() || !std::isfinite(x))
          corrupt(start, "has the node coordinate '" + printable(token) + "', which is not a finite number", true);
      }
      return;
    }
    if (static_cast<unsigned long long>(n) > room() / 8) corrupt(pos_, "ends inside node coordinates");
    for (long long i = 0; i < n; ++i, pos_ += 8) {
      unsigned char b[8];
      std::memcpy(b, d_.data() + pos_, 8);
      if (swap_) std::reverse(b, b + 8);
      double x;
      std::memcpy(&x, b, 8);
      if (!std::isfinite(x)) corrupt(pos_, "has a coordinate that is not a finite number");
    }
  }
  // The node list of an element: every tag within the range $Nodes defined.
  void node_refs(long long n, Width w) {
    for (long long i = 0; i < n; ++i) {
      skip_if_ascii();
      const size_t at = pos_;
      const long long tag = integer(w, "an element's nodes");
      if (tag < min_node_ || tag > max_node_)
        corrupt(at, "has an element on node " + std::to_string(tag) + ", which is not in $Nodes" +
                        (max_node_ > 0 ? " (tags " + std::to_string(min_node_) + " to " +
                                             std::to_string(max_node_) + ")"
                                       : std::string()));
    }
  }
  int element_type(long long type, size_t at) const {
    const int nodes = nodes_per_type(type);
    if (nodes == 0)
      corrupt(at, "has an element of type " + std::to_string(type) +
                      ", which is no MSH element type of fixed size");
    return nodes;
  }

  // MSH 2: "<n>" line, then n × (tag x y z); binary: int + 3 doubles.
  void v2_nodes() {
    const long long n = count_line("nodes", 4 + 24, 4);
    for (long long i = 0; i < n; ++i) {
      node_tag(Width::Int);
      coordinates(3);
    }
    if (binary_data_) expect_binary_end();
  }

  // MSH 2 element tags: physical, elementary, then optionally the number of partitions and the
  // partitions. More tags would name a parent element, which Gmsh asserts to exist.
  long long v2_tags(long long tags, size_t at) {
    long long partitions = -1, elementary = 0;
    for (long long t = 0; t < tags; ++t) {
      const long long v = integer(Width::Int, "an element's tags");
      if (t == 1) elementary = v;
      if (t == 2) partitions = v;
    }
    if (tags > 2 && partitions != tags - 3)
      corrupt(at, "has an element with " + std::to_string(tags) + " tags and " +
                      std::to_string(partitions) + " partitions (a parent element, or a corrupt "
                      "tag count)");
    // Gmsh 4.8's MSH 2 reader crashes on partition tags (fuzz finding); dgmax partitions itself
    if (partitions > 0)
      fail_at(at, !binary_data_,
              "mesh file '" + path_ + "' is a partitioned mesh (section $Elements, line " +
                  std::to_string(line_of(section_.header)) + ", has an element in " + std::to_string(partitions) +
                  " partition" + (partitions == 1 ? "" : "s") + "), which dgmax does not read",
              "save the mesh from Gmsh without partitioning it (Mesh.NbPartitions = 0), or as MSH 4.1");
    return elementary;
  }

  // Gmsh 4.8 corrupts its heap on an entity that holds first-order and higher-order elements
  // (a 10-node triangle among 3-node ones: fuzz finding). dgmax needs one order for the whole
  // mesh, so such a file is refused either way; before Gmsh reads it here.
  void element_order(long long entity, long long type, size_t at, const std::string& entity_name) {
    const int order = first_order_type(type) ? 1 : 2;
    const auto [it, added] = entity_order_.emplace(entity, order);
    if (!added && it->second != order)
      fail_at(at, !binary_data_,
              "mesh file '" + path_ + "' mixes first-order and higher-order elements in " + entity_name +
                  " (section $Elements, line " + std::to_string(line_of(section_.header)) +
                  ": an element of type " + std::to_string(type) + "), which Gmsh 4.8 cannot read safely",
              "re-mesh with one order for the whole model: `Mesh.ElementOrder = q;` in the .geo (or `gmsh -3 "
              "-order q`), e.g. `Mesh.ElementOrder = 1;` for straight-sided elements");
  }

  // MSH 2: "<n>" line; ASCII: n × (tag type ntags tags... nodes...); binary: blocks of
  // (type, count, ntags) then count × (tag, tags..., nodes...) ints.
  void v2_elements() {
    const long long n = count_line("elements", 8, 4);
    if (!binary_data_) {
      for (long long i = 0; i < n; ++i) {
        ascii_int("an element tag");
        skip_space();
        const size_t at_type = pos_;
        const long long type = ascii_int("an element type");
        const int nodes = element_type(type, at_type);
        skip_space();
        const size_t at_tags = pos_;
        const long long entity = v2_tags(count(Width::Int, "tags of the element on this line", 0, 1), at_tags);
        element_order(entity, type, at_type, "elementary entity " + std::to_string(entity));
        node_refs(nodes, Width::Int);
      }
      return;
    }
    long long left = n;
    while (left > 0) {
      const size_t at_type = pos_;
      const long long type = binary_int(Width::Int, "an element block header");
      const int nodes = element_type(type, at_type);
      const size_t at_count = pos_;
      const long long k = binary_int(Width::Int, "an element block header");
      const size_t at_tags = pos_;
      const long long tags = count(Width::Int, "tags per element", 4, 1);
      count_of(k, at_count, "elements in a block", 4 * (1 + tags + nodes), 1);
      if (k > left)
        corrupt(at_count, "has a block of " + std::to_string(k) + " elements, more than the " +
                              std::to_string(left) + " of the declared total left");
      for (long long e = 0; e < k; ++e) {
        binary_int(Width::Int, "an element tag");
        const long long entity = v2_tags(tags, at_tags);
        element_order(entity, type, at_type, "elementary entity " + std::to_string(entity));
        node_refs(nodes, Width::Int);
      }
      left -= k;
    }
    expect_binary_end();
  }

  // MSH 4.1: numPoints numCurves numSurfaces numVolumes (size_t), then per entity: tag (int),
  // 3 (points) or 6 (bounding box) doubles, numPhysicalTags (size_t) + ints, and for curves and
  // up numBounding (size_t) + ints.
  void v41_entities() {
    binary_data_ = binary_;
    long long n[4];
    for (int dim = 0; dim < 4; ++dim) {
      static const char* names[4] = {"points", "curves", "surfaces", "volumes"};
      n[dim] = count(Width::Size, names[dim], dim == 0 ? 36 : 68, dim == 0 ? 5 : 9);
    }
    for (int dim = 0; dim < 4; ++dim)
      for (long long i = 0; i < n[dim]; ++i) {
        integer(Width::Int, "an entity tag");
        skip(dim == 0 ? 3 : 6, 8, "an entity's coordinates");
        skip(count(Width::Size, "physical tags of an entity", 4, 1), 4, "physical tags");
        if (dim > 0) skip(count(Width::Size, "bounding entities of an entity", 4, 1), 4, "bounding entities");
      }
    if (binary_data_) expect_binary_end();
  }

  // MSH 4.1: numEntityBlocks numNodes minTag maxTag (size_t); per block: dim tag parametric
  // (int) count (size_t), count tags (size_t), count × (3 [+ dim]) doubles. Gmsh sizes its tag
  // tables from the header and fills them from the blocks without checking one against the
  // other (a mismatch corrupts its heap), so the blocks must add up to the header.
  void v41_nodes() {
    binary_data_ = binary_;
    const long long blocks = count(Width::Size, "entity blocks", 20, 4);
    const TagRange range = v41_totals("nodes", 32, 4);
    long long seen = 0;
    for (long long b = 0; b < blocks; ++b) {
      skip_if_ascii();
      const size_t at = pos_;
      const long long dim = integer(Width::Int, "a node block header");
      integer(Width::Int, "a node block header");
      const long long parametric = integer(Width::Int, "a node block header");
      if (dim < 0 || dim > 3) corrupt(at, "has a node block of entity dimension " + std::to_string(dim));
      const long long per_node = 3 + (parametric ? dim : 0);
      skip_if_ascii();
      const size_t at_count = pos_;
      const long long k = count(Width::Size, "nodes in a block", 8 + 8 * per_node, 1 + per_node);
      seen = v41_block_total(seen, k, range, at_count, "nodes");
      for (long long i = 0; i < k; ++i) v41_tag(node_tag(Width::Size), range, "node");
      coordinates(k * per_node);
    }
    v41_check_total(seen, range, "nodes");
    if (binary_data_) expect_binary_end();
  }

  // MSH 4.1: numEntityBlocks numElements minTag maxTag (size_t); per block: dim tag type (int)
  // count (size_t), count × (tag + nodes) size_t. Same consistency as for nodes.
  void v41_elements() {
    binary_data_ = binary_;
    const long long blocks = count(Width::Size, "entity blocks", 20, 4);
    const TagRange range = v41_totals("elements", 16, 2);
    long long seen = 0;
    for (long long b = 0; b < blocks; ++b) {
      const long long dim = integer(Width::Int, "an element block header");
      const long long entity = integer(Width::Int, "an element block header");
      skip_if_ascii();
      const size_t at_type = pos_;
      const long long type = integer(Width::Int, "an element block header");
      const int nodes = element_type(type, at_type);
      if (dim >= 0 && dim <= 3)
        element_order(entity * 4 + dim, type, at_type,
                      "entity " + std::to_string(entity) + " of dimension " + std::to_string(dim));
      skip_if_ascii();
      const size_t at_count = pos_;
      const long long k = count(Width::Size, "elements in a block", 8 * (1 + nodes), 1 + nodes);
      seen = v41_block_total(seen, k, range, at_count, "elements");
      for (long long e = 0; e < k; ++e) {
        skip_if_ascii();
        const size_t at = pos_;
        const long long tag = integer(Width::Size, "an element tag");
        if (tag < 1) corrupt(at, "has the element tag " + std::to_string(tag) + " (tags start at 1)");
        v41_tag({tag, at}, range, "element");
        node_refs(nodes, Width::Size);
      }
    }
    v41_check_total(seen, range, "elements");
    if (binary_data_) expect_binary_end();
  }

  // ---- MSH 4.1 header totals against the blocks ---------------------------------------------
  struct TagRange {
    long long total = 0, min = 0, max = 0;
    size_t at = 0;  // where the header's total is
  };
  // numItems minTag maxTag of a $Nodes/$Elements header (after numEntityBlocks).
  TagRange v41_totals(const char* items, size_t bytes_each, size_t tokens_each) {
    TagRange r;
    skip_if_ascii();
    r.at = pos_;
    r.total = count(Width::Size, items, bytes_each, tokens_each);
    skip_if_ascii();
    const size_t at_min = pos_;
    r.min = integer(Width::Size, "the smallest tag");
    r.max = integer(Width::Size, "the largest tag");
    if (r.total > 0 && (r.min < 1 || r.min > r.max))
      corrupt(at_min, std::string("declares ") + items + " tags from " + std::to_string(r.min) +
                          " to " + std::to_string(r.max) + " (tags start at 1, the smallest first)");
    return r;
  }
  long long v41_block_total(long long seen, long long k, const TagRange& r, size_t at,
                            const char* items) const {
    if (k > r.total - seen)
      corrupt(at, "has more " + std::string(items) + " in its blocks than the " +
                      std::to_string(r.total) + " its header declares");
    return seen + k;
  }
  void v41_check_total(long long seen, const TagRange& r, const char* items) const {
    if (seen != r.total)
      corrupt(r.at, "declares " + std::to_string(r.total) + " " + items + ", but its blocks hold " +
                        std::to_string(seen));
  }
  void v41_tag(Tag tag, const TagRange& r, const char* item) const {
    if (tag.value < r.min || tag.value > r.max)
      corrupt(tag.at, std::string("has the ") + item + " tag " + std::to_string(tag.value) +
                          " outside the range " + std::to_string(r.min) + " to " +
                          std::to_string(r.max) + " its header declares");
  }

  // MSH 4.1: numLinks (size_t); per link: dim tag masterTag (int), numAffine (size_t) doubles,
  // numNodePairs (size_t) pairs of size_t.
  void v41_periodic() {
    binary_data_ = binary_;
    const long long links = count(Width::Size, "periodic links", 28, 5);
    for (long long i = 0; i < links; ++i) {
      for (int j = 0; j < 3; ++j) integer(Width::Int, "a periodic link header");
      skip(count(Width::Size, "affine transformation values", 8, 1), 8, "an affine transformation");
      skip(2 * count(Width::Size, "periodic node pairs", 16, 2), 8, "periodic node pairs");
    }
    if (binary_data_) expect_binary_end();
  }

  std::string path_;
  std::string_view d_;
  double version_ = 0;  // 0 until $MeshFormat (MSH 1 has none)
  bool binary_ = false, swap_ = false;
  Section section_;
  size_t pos_ = 0;
  bool binary_data_ = false;  // whether the current spot is binary data
  long long min_node_ = INT64_MAX, max_node_ = 0;  // node tags defined in $Nodes
  std::map<long long, int> entity_order_;           // element order (1 or 2 = higher) per entity
  std::set<std::string> seen_;                      // sections that may appear once
};

}  // namespace

void check_msh_structure(const std::string& path) {
  const MappedFile file(path);
  check_msh_structure(path, file.bytes());
}

void check_msh_structure(const std::string& path, std::string_view bytes) { Walker(path, bytes).run(); }

}  // namespace dgmax
