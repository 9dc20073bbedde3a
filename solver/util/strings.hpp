// Small string helpers shared by error messages.
#pragma once

#include <string>
#include <vector>

namespace dgmax {

// Levenshtein edit distance.
int edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word` if it is plausibly a typo of it (distance ≤ max(2, |word|/3)),
// else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// "a, b, c", cut to "..., " after max_names entries (for lists of valid names in hints).
std::string join_names(const std::vector<std::string>& names, size_t max_names = 40);

// "a, b and c" (last_sep " and "): the parts in a sentence.
std::string join_words(const std::vector<std::string>& parts, const std::string& last_sep);

// "1 argument", "2 arguments".
std::string plural(size_t n, const char* word);

// A double printed with up to 6 significant digits ("%g").
std::string fmt_g(double x);

}  // namespace dgmax
