// A CSV table of numbers that a checkpoint carries (energy.csv, probes.csv so far), checked before
// a restart goes on appending to it: the header as this run writes it, then rows of exactly as many
// fields, each a whole number (a field with anything after the number is refused).
#pragma once

#include <string>
#include <vector>

namespace dgmax {

// The rows of `text` ([rows][fields of the header]); std::runtime_error saying what (`what`: the
// table's name, e.g. "energy.csv") and where when `text` is not `header` "\n" then such rows, each
// ending in "\n".
std::vector<std::vector<double>> parse_csv_numbers(const std::string& text, const std::string& header,
                                                   const std::string& what);

}  // namespace dgmax
