// Reading line numbers out of compiler logs (gcc, clang, nvrtc) and showing the generated source
// around them with numbered lines.
#include <gtest/gtest.h>

#include "codegen/jit/compile_log.hpp"

namespace dgmax::codegen {
namespace {

std::string numbered_source(int n) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

TEST(CompileLog, LinesNamedInGccAndClangLogs) {
  const std::string log =
      "/home/me/.cache/dgmax/cpu/abc.cpp: In function 'double f(double)':\n"
      "/home/me/.cache/dgmax/cpu/abc.cpp:26:14: error: 'u' was not declared in this scope\n"
      "   26 |   double y = u * x;\n"
      "/home/me/.cache/dgmax/cpu/abc.cpp:30:3: note: here\n"
      "/home/me/.cache/dgmax/cpu/abc.cpp:26:20: error: again on 26\n"
      "/usr/include/c++/12/cmath:99:1: note: in a header\n"
      "/tmp/xabc.cpp:7:1: error: another file whose name ends the same\n"
      "abc.cpp:4: error: no column\n"
      "/usr/bin/ld: /tmp/cc.o: in function `f': abc.cpp:(.text+0x9): undefined reference to `g'\n";
  EXPECT_EQ(lines_named_in_log(log, "abc.cpp"), (std::vector<int>{26, 30, 4}));
  EXPECT_EQ(lines_named_in_log(log, "other.cpp"), std::vector<int>{});
  EXPECT_EQ(lines_named_in_log(log, ""), std::vector<int>{});
}

TEST(CompileLog, LinesNamedInNvrtcLogs) {
  const std::string log =
      "dgmax_kernel.cu(12): error: identifier \"u\" is undefined\n"
      "dgmax_kernel.cu(3): warning: variable declared but never referenced\n"
      "dgmax_kernel.cu(x): garbage\n";
  EXPECT_EQ(lines_named_in_log(log, "dgmax_kernel.cu"), (std::vector<int>{12, 3}));
}

TEST(CompileLog, ExcerptAroundNamedLines) {
  const std::string src = numbered_source(40);
  EXPECT_EQ(numbered_source_excerpt(src, {20}, 2),
            "  ...\n"
            "    18 | line 18\n"
            "    19 | line 19\n"
            ">   20 | line 20\n"
            "    21 | line 21\n"
            "    22 | line 22\n"
            "  ...\n");
  // Overlapping windows merge; a window at the start has no leading gap; lines beyond the end
  // are ignored.
  EXPECT_EQ(numbered_source_excerpt(src, {2, 5, 99}, 1),
            "     1 | line 1\n"
            ">    2 | line 2\n"
            "     3 | line 3\n"
            "     4 | line 4\n"
            ">    5 | line 5\n"
            "     6 | line 6\n"
            "  ...\n");
  EXPECT_EQ(numbered_source_excerpt(src, {40}, 1),
            "  ...\n"
            "    39 | line 39\n"
            ">   40 | line 40\n");
}

TEST(CompileLog, ExcerptShowsAtMostTenNamedLines) {
  const std::string src = numbered_source(200);
  std::vector<int> lines;
  for (int i = 1; i <= 15; ++i) lines.push_back(12 * i);
  const std::string ex = numbered_source_excerpt(src, lines, 0);
  EXPECT_NE(ex.find(">  120 | line 120\n"), std::string::npos) << ex;
  EXPECT_EQ(ex.find("line 132"), std::string::npos) << ex;
}

TEST(CompileLog, FirstLinesWhenTheLogNamesNone) {
  const std::string src = numbered_source(250);
  const std::string ex = numbered_source_excerpt(src, {}, 5, 200);
  EXPECT_EQ(ex.rfind("     1 | line 1\n", 0), 0u);
  EXPECT_NE(ex.find("  200 | line 200\n"), std::string::npos);
  EXPECT_EQ(ex.find("line 201"), std::string::npos);
  EXPECT_NE(ex.find("  ... (50 more lines)\n"), std::string::npos);
  EXPECT_EQ(numbered_source_excerpt("only\n", {}), "     1 | only\n");
  EXPECT_EQ(numbered_source_excerpt("", {}), "");
}

TEST(CompileLog, Truncate) {
  EXPECT_EQ(truncate_lines("a\nb\n", 5, 100), "a\nb\n");
  EXPECT_EQ(truncate_lines("a\nb\nc\n", 2, 100), "a\nb\n[... 2 more bytes cut]\n");
  EXPECT_EQ(truncate_lines("aaaa\nbbbb\n", 10, 7), "aaaa\n[... 5 more bytes cut]\n");
  EXPECT_EQ(truncate_lines(std::string(10, 'x'), 10, 4), "xxxx\n[... 6 more bytes cut]\n");
}

}  // namespace
}  // namespace dgmax::codegen
