#include "codegen/jit/compile_log.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace dgmax::codegen {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Reads a positive decimal number at text[pos]; 0 if there is none.
int read_number(const std::string& text, size_t& pos) {
  long value = 0;
  const size_t begin = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) && pos - begin < 9)
    value = value * 10 + (text[pos++] - '0');
  return pos > begin ? static_cast<int>(value) : 0;
}

}  // namespace

std::vector<int> lines_named_in_log(const std::string& log, const std::string& file_name) {
  std::vector<int> lines;
  if (file_name.empty()) return lines;
  std::set<int> seen;
  for (size_t at = log.find(file_name); at != std::string::npos; at = log.find(file_name, at + 1)) {
    // The name must be the whole last component of a path: preceded by '/', whitespace, a quote
    // or the start of a line.
    if (at > 0) {
      const char before = log[at - 1];
      if (before != '/' && before != '\n' && before != '"' && before != '\'' &&
          !std::isspace(static_cast<unsigned char>(before)))
        continue;
    }
    size_t pos = at + file_name.size();
    if (pos >= log.size()) break;
    int line = 0;
    if (log[pos] == ':') {
      ++pos;
      line = read_number(log, pos);
      if (line > 0 && (pos >= log.size() || log[pos] != ':')) line = 0;
    } else if (log[pos] == '(') {
      ++pos;
      line = read_number(log, pos);
      if (line > 0 && (pos >= log.size() || log[pos] != ')')) line = 0;
    }
    if (line > 0 && seen.insert(line).second) lines.push_back(line);
  }
  return lines;
}

std::string numbered_source_excerpt(const std::string& source, const std::vector<int>& lines, int context,
                                    int max_lines) {
  const std::vector<std::string> src = split_lines(source);
  const int n = static_cast<int>(src.size());
  std::set<int> marked;
  for (int l : lines)
    if (l >= 1 && l <= n && marked.size() < 10) marked.insert(l);
  const int width = std::max(5, static_cast<int>(std::to_string(std::max(n, 1)).size()));
  auto numbered = [&](int l) {
    std::string num = std::to_string(l);
    std::string out = marked.count(l) ? ">" : " ";
    out += std::string(static_cast<size_t>(width) - num.size(), ' ') + num + " | " + src[l - 1] + "\n";
    return out;
  };
  std::string out;
  if (marked.empty()) {
    const int shown = std::min(n, max_lines);
    for (int l = 1; l <= shown; ++l) out += numbered(l);
    if (shown < n) out += "  ... (" + std::to_string(n - shown) + " more lines)\n";
    return out;
  }
  // Union of the windows around the marked lines, in order.
  std::set<int> show;
  for (int l : marked)
    for (int k = std::max(1, l - context); k <= std::min(n, l + context); ++k) show.insert(k);
  int previous = 0;
  for (int l : show) {
    if (l != previous + 1) out += "  ...\n";
    out += numbered(l);
    previous = l;
  }
  if (previous < n) out += "  ...\n";
  return out;
}

std::string truncate_lines(const std::string& text, int max_lines, size_t max_bytes) {
  size_t end = 0;
  int count = 0;
  while (end < text.size() && count < max_lines) {
    const size_t nl = text.find('\n', end);
    const size_t next = nl == std::string::npos ? text.size() : nl + 1;
    if (next > max_bytes) break;
    end = next;
    ++count;
  }
  if (end >= text.size()) return text;
  if (end == 0) end = std::min(text.size(), max_bytes);
  std::string out = text.substr(0, end);
  if (out.back() != '\n') out += '\n';
  out += "[... " + std::to_string(text.size() - end) + " more bytes cut]\n";
  return out;
}

}  // namespace dgmax::codegen
