#include "codegen/tune/tuning_db.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "codegen/jit/jit_cache.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace {

constexpr const char* kFormat = "dgmax-tuning 1";

// A database of a few hundred entries is tens of kB; a file this large is not one.
constexpr size_t kMaxTuningDbBytes = size_t{16} << 20;

// The file's entries, or an empty object (with a note when the file exists but is not ours).
// UserError when the file is not a regular file or is larger than kMaxTuningDbBytes: a FIFO would
// block the run and a device (/dev/zero) would fill memory, and neither may be replaced by ours.
nlohmann::json load_entries(const std::string& path) {
  std::string problem;
  const std::optional<std::string> text = read_side_file(path, kMaxTuningDbBytes, &problem);
  if (!problem.empty())
    throw UserError("cannot read the tuning database '" + path + "': " + problem, {},
                    "it is dgmax's own file (a JSON file of at most " + std::to_string(kMaxTuningDbBytes >> 20) +
                        " MiB): remove it, or set DGMAX_CACHE_DIR to another folder");
  if (!text) return nlohmann::json::object();
  try {
    nlohmann::json j = nlohmann::json::parse(*text);
    if (!j.is_object() || j.value("format", "") != kFormat || !j.contains("entries") || !j["entries"].is_object())
      throw std::runtime_error("not a '" + std::string(kFormat) + "' file");
    return j["entries"];
  } catch (const std::exception& e) {
    cache_note("tuning database '" + path + "' cannot be read (" + e.what() + "): it is ignored and rewritten");
    return nlohmann::json::object();
  }
}

}  // namespace

std::string TuningKey::size_class() const {
  int p = 0;
  for (long long k = elements; k >= 4; k /= 4) ++p;
  return fmt::format("K4^{}", p);
}

std::string TuningKey::str() const {
  return fmt::format("{}|N{}|{}|{}|{}", device, order, single ? "fp32" : "fp64", physics, size_class());
}

TuningDb::TuningDb(const std::string& root, const std::string& backend)
    : root_(root), backend_(backend), path_(JitCacheDir(root, "tuning").file(backend, ".json")) {}

std::optional<TunedPlan> TuningDb::find(const TuningKey& key) const {
  const nlohmann::json entries = load_entries(path_);
  const auto it = entries.find(key.str());
  if (it == entries.end()) return std::nullopt;
  try {
    TunedPlan t;
    t.plan = it->at("plan").get<std::string>();
    t.gdof_per_s = it->value("gdof_per_s", 0.0);
    t.default_gdof_per_s = it->value("default_gdof_per_s", 0.0);
    t.percent_of_floor = it->value("percent_of_floor", 0.0);
    t.elements = it->value("elements", 0LL);
    t.when = it->value("when", "");
    return t;
  } catch (const std::exception& e) {
    cache_note("tuning database '" + path_ + "': the entry for '" + key.str() + "' is malformed (" + e.what() +
               "): it is ignored");
    return std::nullopt;
  }
}

void TuningDb::store(const TuningKey& key, const TunedPlan& plan) const {
  const JitCacheDir dir(root_, "tuning");
  dir.create();
  const KeyLock lock(dir, backend_ + ".json");
  nlohmann::json entries = load_entries(path_);
  entries[key.str()] = {{"plan", plan.plan},
                        {"gdof_per_s", plan.gdof_per_s},
                        {"default_gdof_per_s", plan.default_gdof_per_s},
                        {"percent_of_floor", plan.percent_of_floor},
                        {"elements", plan.elements},
                        {"when", plan.when}};
  const nlohmann::json file = {{"format", kFormat}, {"entries", entries}};
  write_file_atomic(dir, path_, file.dump(2) + "\n");
}

}  // namespace dgmax::codegen
