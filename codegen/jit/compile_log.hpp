// Turning a compiler's complaint about generated source into something a developer can act on:
// which lines of the generated file the log names, and those lines of the source, numbered.
// Shared by the host-compiler JIT and NVRTC.
#pragma once

#include <string>
#include <vector>

namespace dgmax::codegen {

// 1-based line numbers of `file_name` that `log` names, in order of first mention, without
// repeats. Recognises "…file_name:LINE:COL: …" and "…file_name:LINE: …" (gcc, clang) and
// "…file_name(LINE): …" (nvrtc, nvcc). `file_name` matches at the end of a path in the log.
std::vector<int> lines_named_in_log(const std::string& log, const std::string& file_name);

// The source with numbered lines ("   42 | text"): `context` lines either side of each of the
// first 10 lines in `lines` that exist in the source (marked with '>'; gaps shown as "  ..."),
// or the first `max_lines` lines when `lines` names no line of the source.
std::string numbered_source_excerpt(const std::string& source, const std::vector<int>& lines,
                                    int context = 5, int max_lines = 200);

// `text` cut to at most `max_lines` lines and `max_bytes` bytes, with a note saying what was cut.
std::string truncate_lines(const std::string& text, int max_lines, size_t max_bytes);

}  // namespace dgmax::codegen
