#include "solver/io/csv_rows.hpp"

#include <charconv>
#include <stdexcept>

#include "solver/util/printable.hpp"

namespace dgmax {

std::vector<std::vector<double>> parse_csv_numbers(const std::string& text, const std::string& header,
                                                   const std::string& what) {
  const auto fail = [&](size_t line, const std::string& why) {
    throw std::runtime_error(what + " line " + std::to_string(line) + ": " + why);
  };
  size_t fields = 1;
  for (const char c : header) fields += c == ',';
  if (text.compare(0, header.size() + 1, header + "\n") != 0) fail(1, "the header is not '" + header + "'");
  std::vector<std::vector<double>> rows;
  size_t at = header.size() + 1, line = 1;
  while (at < text.size()) {
    ++line;
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) fail(line, "the last row does not end in a newline");
    std::vector<double> row;
    const char* p = text.data() + at;
    const char* const stop = text.data() + end;
    while (true) {
      double v = 0;
      const auto r = std::from_chars(p, stop, v);
      if (r.ec != std::errc() || (r.ptr != stop && *r.ptr != ','))
        fail(line, "'" + printable_text(std::string(p, std::min<size_t>(40, static_cast<size_t>(stop - p)))) +
                       "' is not a number");
      row.push_back(v);
      if (r.ptr == stop) break;
      p = r.ptr + 1;
    }
    if (row.size() != fields)
      fail(line, std::to_string(row.size()) + " fields where the header has " + std::to_string(fields));
    rows.push_back(std::move(row));
    at = end + 1;
  }
  return rows;
}

}  // namespace dgmax
