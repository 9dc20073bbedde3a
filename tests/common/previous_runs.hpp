// The earlier runs a run directory keeps in previous/: one folder each, named by the run's start
// time and pid ("YYYYmmdd-HHMMSS-<pid>", solver/app/run_directory.hpp), oldest first (by the time
// their run.json was last written: runs into one directory take turns).
#pragma once

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace dgmax::test {

inline std::vector<std::string> previous_runs(const std::string& out) {
  namespace fs = std::filesystem;
  std::vector<std::pair<fs::file_time_type, std::string>> found;
  std::error_code ec;
  if (!fs::is_directory(out + "/previous", ec)) return {};
  static const std::regex folder(R"(\d{8}-\d{6}-\d+(-\d+)?)");
  for (const auto& e : fs::directory_iterator(out + "/previous"))
    if (e.is_directory() && std::regex_match(e.path().filename().string(), folder))
      found.emplace_back(fs::last_write_time(e.path() / "run.json", ec), e.path().string());
  std::sort(found.begin(), found.end());
  std::vector<std::string> runs;
  for (const auto& f : found) runs.push_back(f.second);
  return runs;
}

// The folder of the newest earlier run; "" when there is none.
inline std::string newest_previous_run(const std::string& out) {
  const std::vector<std::string> runs = previous_runs(out);
  return runs.empty() ? std::string() : runs.back();
}

}  // namespace dgmax::test
