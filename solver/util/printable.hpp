// Text read from a file (a checkpoint's attributes, a parser's "last read" excerpt) made safe to
// show and to store in JSON: valid UTF-8 is kept, every other byte and every control character but
// the newline becomes \xNN, so that a damaged file never writes raw bytes to the terminal and never
// makes summary.json or run.json unwritable (nlohmann::json refuses invalid UTF-8).
#pragma once

#include <string>
#include <string_view>

namespace dgmax {

std::string printable_text(std::string_view text);

}  // namespace dgmax
