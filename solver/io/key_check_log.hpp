// A record of the maps YamlDoc::check_keys checked while a log is alive: the key path, the keys
// its loader allows there and the call site. Tests read it to prove that every key a loader
// accepts is documented in the config schema (config_schema.hpp); a run keeps no log and pays
// one atomic load per check.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace dgmax {

struct KeyCheck {
  std::string context;               // the map's key path as the loader names it: "monitors[0].surface"
  std::vector<std::string> allowed;  // the keys the loader accepts there
  std::string file;                  // the check_keys call: source file (as compiled) and line
  int line = 0;
};

class KeyCheckLog {
 public:
  KeyCheckLog();  // starts recording; one log at a time
  ~KeyCheckLog();
  KeyCheckLog(const KeyCheckLog&) = delete;
  KeyCheckLog& operator=(const KeyCheckLog&) = delete;

  std::vector<KeyCheck> checks() const;

  // Adds to the live log, if there is one.
  static void record(KeyCheck check);

 private:
  mutable std::mutex mutex_;
  std::vector<KeyCheck> checks_;
};

}  // namespace dgmax
