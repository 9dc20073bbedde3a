// `bench` and `tune` with a --json that is not a regular file (solver/io/atomic_write.hpp).
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "run_cli.hpp"

namespace dgmax::test {

// The --json targets that are not regular files: a symbolic link (to a file that must stay as it
// is), a FIFO and, as root, a device node of /dev/full's numbers (1, 7). Each is refused before
// the work starts, named, exit 1, and stays what it was.
inline void expect_json_targets_refused(const std::string& dir, const std::string& env, const std::string& command) {
  namespace fs = std::filesystem;
  std::ofstream(dir + "target.json") << "the link's target";
  fs::create_symlink(dir + "target.json", dir + "link.json");
  ASSERT_EQ(::mkfifo((dir + "fifo.json").c_str(), 0644), 0);
  std::vector<std::pair<std::string, std::string>> cases = {{"link.json", "a symbolic link"}, {"fifo.json", "a FIFO"}};
  if (::mknod((dir + "full.json").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0)
    cases.emplace_back("full.json", "a character device");
  else
    std::cerr << "note: not root, the device-node case is skipped\n";
  for (const auto& [name, kind] : cases) {
    const fs::file_type before = fs::symlink_status(dir + name).type();
    const auto r = run_dgmax_env(env, command + " --json '" + dir + name + "'");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("--json " + dir + name + " is " + kind + ", not a regular file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("hint: dgmax writes only regular files"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("ceilings"), std::string::npos) << "refused only after the work:\n" << r.out;
    EXPECT_EQ(fs::symlink_status(dir + name).type(), before) << name;
  }
  EXPECT_EQ(read_all(dir + "target.json"), "the link's target");
}

}  // namespace dgmax::test
