#include "solver/app/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "solver/io/atomic_write.hpp"
#include "solver/io/run_config.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace fs = std::filesystem;
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string("unknown");
}

std::string os_reason(int err) { return std::strerror(err); }

bool is_regular(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(p, ec));  // the entry itself, not a link's target
}

// A manifest is at most this large (a run.json is a few hundred bytes plus its far-field names).
constexpr std::uintmax_t kMaxManifestBytes = 1 << 20;

// The dgmax run manifest in `file`, or null when there is none: missing, not a regular file (a
// FIFO would block the read), too large, not JSON, or JSON that is not a dgmax manifest.
nlohmann::json read_manifest(const fs::path& file) {
  std::error_code ec;
  if (!is_regular(file) || fs::file_size(file, ec) > kMaxManifestBytes || ec) return nullptr;
  std::ifstream in(file);
  if (!in) return nullptr;
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    if (j.is_object() && j.contains("dgmax") && j.contains("state")) return j;
  } catch (const nlohmann::json::exception&) {
  }
  return nullptr;
}

// What the earlier run of a manifest wrote: its record, or what dgmax could write before the record.
RunOutputs outputs_of_manifest(const nlohmann::json& manifest, const std::string& stem) {
  if (manifest.contains("outputs"))
    if (auto o = RunOutputs::from_json(manifest["outputs"])) return *o;
  return RunOutputs::unrecorded(stem);
}

// "a, b, c and 4 more" (at most five names shown).
std::string name_list(const std::vector<std::string>& names) {
  std::ostringstream os;
  const size_t shown = std::min<size_t>(names.size(), 5);
  for (size_t i = 0; i < shown; ++i) os << (i ? ", " : "") << names[i];
  if (names.size() > shown) os << " and " << names.size() - shown << " more";
  return os.str();
}

// The names in `dir` (sorted) that are regular files owned by `outputs`.
std::vector<std::string> owned_files(const fs::path& dir, const RunOutputs& outputs) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (outputs.owns(name) && is_regular(e.path())) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The folder of previous/ for the run of `manifest` (whose run.json is `file`): its start time and
// pid, "YYYYmmdd-HHMMSS-<pid>"; the manifest file's time when the start is not recorded.
std::string run_folder_name(const nlohmann::json& manifest, const fs::path& file) {
  static const std::regex started(R"((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z)");
  std::smatch m;
  const std::string s = manifest.value("started", std::string());
  std::string when;
  if (std::regex_match(s, m, started)) {
    when = m[1].str() + m[2].str() + m[3].str() + "-" + m[4].str() + m[5].str() + m[6].str();
  } else {
    struct stat st {};
    const std::time_t t = ::stat(file.c_str(), &st) == 0 ? st.st_mtime : std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    when = buf;
  }
  const auto pid = manifest.contains("pid") && manifest["pid"].is_number_integer() ? manifest["pid"].get<long long>() : 0;
  return when + "-" + std::to_string(std::max(0LL, pid));
}

// A folder of previous/ that holds one earlier run (run_folder_name, "-2"... when one was taken).
bool is_run_folder_name(const std::string& name) {
  static const std::regex re(R"(\d{8}-\d{6}-\d{1,19}(-\d{1,4})?)");
  return std::regex_match(name, re);
}

// The hint when the earlier run's files cannot be moved aside or removed.
constexpr const char* kClearHint = "check the permissions of the output directory, or choose another with --output";

// Moves `names` (run.json last) from `from` into a new or matching folder of `previous` for the run
// of `manifest`; returns the folder.
fs::path move_run(const fs::path& from, std::vector<std::string> names, const nlohmann::json& manifest,
                  const fs::path& previous) {
  const std::string base = run_folder_name(manifest, from / "run.json");
  fs::path folder;
  for (int n = 1; n < 1000 && folder.empty(); ++n) {
    const fs::path f = previous / (n == 1 ? base : base + "-" + std::to_string(n));
    // a folder of this run that a move cut short is finished; a name in it is never replaced
    const bool free = std::none_of(names.begin(), names.end(), [&](const std::string& x) {
      std::error_code ec;
      return fs::exists(fs::symlink_status(f / x, ec));
    });
    std::error_code ec;
    const auto st = fs::symlink_status(f, ec);
    if (!fs::exists(st) || (fs::is_directory(st) && free)) folder = f;
  }
  if (folder.empty()) throw UserError("cannot find a free folder for the earlier run in " + previous.string(), {}, kClearHint);
  std::error_code ec;
  fs::create_directory(folder, ec);
  if (ec) throw UserError("cannot create " + folder.string() + ": " + ec.message(), {}, kClearHint);
  // run.json last: until it moves, the directory still says whose the remaining files are
  std::stable_partition(names.begin(), names.end(), [](const std::string& x) { return x != "run.json"; });
  for (const std::string& name : names) {
    fs::rename(from / name, folder / name, ec);
    if (ec)
      throw UserError("cannot move " + (from / name).string() + " into " + folder.string() + ": " + ec.message(), {},
                      kClearHint);
  }
  return folder;
}

// Deletes the earlier runs in `previous` beyond the newest kKeptEarlierRuns: only the files each
// one's run.json names, then its folder when that leaves it empty (a user's file keeps it).
void prune_previous(const fs::path& previous, const std::string& stem) {
  // oldest first: by the time its run.json was last written (runs into one directory take turns
  // under the lock, so this is their order also within one second), then by name
  std::vector<std::pair<fs::file_time_type, std::string>> runs;
  for (const auto& e : fs::directory_iterator(previous)) {
    std::error_code ec;
    const std::string name = e.path().filename().string();
    if (is_run_folder_name(name) && fs::is_directory(e.symlink_status(ec)) && !read_manifest(e.path() / "run.json").is_null())
      runs.emplace_back(fs::last_write_time(e.path() / "run.json", ec), name);
  }
  std::sort(runs.begin(), runs.end());
  for (size_t i = 0; i + kKeptEarlierRuns < runs.size(); ++i) {
    const fs::path folder = previous / runs[i].second;
    const RunOutputs outputs = outputs_of_manifest(read_manifest(folder / "run.json"), stem);
    std::vector<std::string> names = owned_files(folder, outputs);
    // run.json last: a deletion cut short leaves the folder still recognised as the run's
    std::stable_partition(names.begin(), names.end(), [](const std::string& x) { return x != "run.json"; });
    for (const std::string& name : names) {
      std::error_code ec;
      fs::remove(folder / name, ec);
      if (ec)
        throw UserError("cannot remove " + (folder / name).string() + " (an earlier run beyond the " +
                            std::to_string(kKeptEarlierRuns) + " kept): " + ec.message(),
                        {}, kClearHint);
    }
    ::rmdir(folder.c_str());  // fails, leaving it, when something that is not the run's is in it
  }
}

}  // namespace

// ---- RunOutputs ----------------------------------------------------------------------------------

RunOutputs RunOutputs::of(const RunConfig& cfg, const std::string& stem) {
  RunOutputs o;
  o.stem = stem;
  o.files = {"run.json", "summary.json", "energy.csv"};
  if (!cfg.probes.empty()) o.files.push_back("probes.csv");
  if (!cfg.monitors.empty()) o.files.push_back("monitors.h5");
  for (const MonitorSpec& m : cfg.monitors)
    if (m.kind == MonitorSpec::SurfaceBox) o.files.push_back("far_field_" + m.name + ".csv");
  return o;
}

RunOutputs RunOutputs::unrecorded(const std::string& stem) {
  RunOutputs o;
  o.stem = stem;
  o.files = {"run.json", "summary.json", "energy.csv", "probes.csv", "monitors.h5"};
  o.any_far_field = true;
  return o;
}

nlohmann::json RunOutputs::to_json() const {
  nlohmann::json j = {{"files", files}, {"snapshots", stem}, {"checkpoints", "checkpoint_<step>[_p<rank>].h5"}};
  if (any_far_field) j["any_far_field"] = true;  // a restart of a run that recorded no names
  return j;
}

namespace {
// The single files dgmax writes into a run directory; a record naming another is not trusted.
bool is_run_file_form(const std::string& name) {
  static const std::set<std::string> fixed = {"run.json", "summary.json", "energy.csv", "probes.csv", "monitors.h5"};
  if (fixed.count(name)) return true;
  return name.size() > 14 && name.rfind("far_field_", 0) == 0 && name.compare(name.size() - 4, 4, ".csv") == 0 &&
         name.find('/') == std::string::npos;
}
bool is_stem_form(const std::string& stem) {
  static const std::regex re(R"([A-Za-z0-9_][A-Za-z0-9_.-]{0,200})");
  return std::regex_match(stem, re);
}
}  // namespace

std::optional<RunOutputs> RunOutputs::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("files") || !j["files"].is_array() || !j.contains("snapshots") ||
      !j["snapshots"].is_string())
    return std::nullopt;
  RunOutputs o;
  o.stem = j["snapshots"].get<std::string>();
  if (!is_stem_form(o.stem)) return std::nullopt;
  for (const auto& f : j["files"]) {
    if (!f.is_string() || !is_run_file_form(f.get<std::string>())) return std::nullopt;
    o.files.push_back(f.get<std::string>());
  }
  if (std::find(o.files.begin(), o.files.end(), "run.json") == o.files.end()) o.files.push_back("run.json");
  o.any_far_field = j.contains("any_far_field") && j["any_far_field"].is_boolean() && j["any_far_field"].get<bool>();
  return o;
}

void RunOutputs::merge(const RunOutputs& other) {
  for (const std::string& f : other.files)
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  any_far_field = any_far_field || other.any_far_field;
}

bool RunOutputs::owns(const std::string& name) const {
  if (std::string file; is_dgmax_temp_name(name, &file)) return file != name && owns(file);
  if (std::find(files.begin(), files.end(), name) != files.end()) return true;
  if (any_far_field && is_run_file_form(name) && name.rfind("far_field_", 0) == 0) return true;
  static const std::regex checkpoint(R"(checkpoint_\d{1,18}(_p\d{4,9})?\.h5)");  // a set's record and pieces too
  if (std::regex_match(name, checkpoint)) return true;
  if (stem.empty() || name.compare(0, stem.size(), stem) != 0) return false;
  const std::string rest = name.substr(stem.size());
  static const std::regex snapshot(R"(_\d{5,}(_p\d{4,})?\.(vtu|pvtu|h5))");  // a partitioned run's pieces and indexes too
  return rest == ".pvd" || std::regex_match(rest, snapshot);
}

// ---- RunDirectory --------------------------------------------------------------------------------

RunDirectory::RunDirectory(std::string dir, RunOutputs outputs, ClaimMode mode, nlohmann::json identity)
    : dir_(std::move(dir)), outputs_(std::move(outputs)) {
  if (dir_.empty())
    throw UserError("the output directory is empty", {}, "give a directory: output.dir or --output DIR");
  ensure_writable_directory(dir_);
  const fs::path root(dir_);
  const std::string lock_path = (root / ".dgmax.lock").string();
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (lock_fd_ < 0)
    throw UserError("cannot create " + lock_path + ": " + os_reason(errno), {},
                    "check that the output directory is writable and that .dgmax.lock in it is a regular file, "
                    "or choose another directory with --output");
  const nlohmann::json earlier = read_manifest(root / "run.json");
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    std::string who;
    if (earlier.is_object() && earlier.contains("pid"))
      who = " (pid " + earlier["pid"].dump() + " on " + earlier.value("host", std::string("?")) + ")";
    throw UserError("another dgmax run" + who + " is writing into " + dir_, {},
                    "wait for it to finish, or choose another directory with --output");
  }
  if (mode == ClaimMode::Continue) {
    if (!earlier.is_object())
      throw UserError(dir_ + " holds no dgmax run to continue (no readable run.json)", {},
                      "--restart takes the output directory of a run that wrote checkpoints");
    outputs_.merge(outputs_of_manifest(earlier, outputs_.stem));
  } else {
    // without a dgmax manifest there is no earlier run: nothing is its
    const std::vector<std::string> earlier_files =
        earlier.is_null() ? std::vector<std::string>{} : owned_files(root, outputs_of_manifest(earlier, outputs_.stem));
    // what this run would write over that is not the earlier run's: never a link, device or
    // directory; a regular file only when --overwrite asks for it
    std::vector<std::string> not_regular, unrecorded;
    for (const auto& e : fs::directory_iterator(root)) {
      const std::string name = e.path().filename().string();
      if (is_dgmax_temp_name(name) || !outputs_.owns(name)) continue;  // temporary names never collide
      if (std::binary_search(earlier_files.begin(), earlier_files.end(), name)) continue;
      if (!is_regular(e.path()))
        not_regular.push_back(name + " (" + non_regular_kind(e.path().string()) + ")");
      else
        unrecorded.push_back(name);
    }
    std::sort(not_regular.begin(), not_regular.end());
    std::sort(unrecorded.begin(), unrecorded.end());
    if (!not_regular.empty())
      throw UserError(dir_ + " holds " + name_list(not_regular) + " where this run writes a file of its own", {},
                      "dgmax writes only regular files it creates: move these away, or choose another directory "
                      "with --output");
    if (!unrecorded.empty() && mode != ClaimMode::Overwrite)
      throw UserError(dir_ + " holds " + name_list(unrecorded) + ", which this run would replace and no earlier "
                          "dgmax run there recorded as its own" +
                          (earlier.is_null() ? " (no dgmax run.json)" : ""),
                      {},
                      "move them away or choose another directory with --output; --overwrite replaces them");
    std::error_code ec;
    for (const std::string& name : unrecorded) {  // --overwrite: the user asked for these to be replaced
      fs::remove(root / name, ec);
      if (ec) throw UserError("cannot remove " + (root / name).string() + ": " + ec.message(), {}, kClearHint);
    }
    if (!earlier_files.empty()) {
      if (mode == ClaimMode::MoveAside) {
        const fs::path prev = root / "previous";
        const auto st = fs::symlink_status(prev, ec);
        if (fs::exists(st) && !fs::is_directory(st))
          throw UserError(prev.string() + " is " + (fs::is_regular_file(st) ? std::string("a file") : non_regular_kind(prev.string())) +
                              ", not a directory: dgmax keeps the earlier runs there", {},
                          "rename it, or run with --overwrite (which deletes the earlier run instead of keeping it)");
        fs::create_directory(prev, ec);
        if (ec) throw UserError("cannot create " + prev.string() + ": " + ec.message(), {}, kClearHint);
        // a previous/ of dgmax before the per-run folders holds one run's files, flat: into its folder
        if (const nlohmann::json flat = read_manifest(prev / "run.json"); !flat.is_null())
          move_run(prev, owned_files(prev, outputs_of_manifest(flat, outputs_.stem)), flat, prev);
        cleared_to_ = move_run(root, earlier_files, earlier, prev).string();
        prune_previous(prev, outputs_.stem);
      } else {
        for (const std::string& name : earlier_files) {
          fs::remove(root / name, ec);
          if (ec) throw UserError("cannot remove " + (root / name).string() + ": " + ec.message(), {}, kClearHint);
        }
      }
      cleared_ = static_cast<int>(earlier_files.size());
    }
    cleared_ += static_cast<int>(unrecorded.size());
  }
  manifest_ = std::move(identity);
  manifest_["started"] = utc_now();
  manifest_["pid"] = static_cast<long long>(::getpid());
  manifest_["host"] = host_name();
  manifest_["outputs"] = outputs_.to_json();
  if (mode == ClaimMode::Continue && earlier.is_object())
    manifest_["restarts"] = earlier.value("restarts", 0) + 1;
  set_state("running");
}

RunDirectory::~RunDirectory() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

void RunDirectory::set_state(const std::string& state, const nlohmann::json& extra) {
  manifest_["state"] = state;
  manifest_["updated"] = utc_now();
  for (const auto& [k, v] : extra.items()) manifest_[k] = v;
  write_text_atomically((fs::path(dir_) / "run.json").string(), manifest_.dump(2) + "\n");
}

std::vector<std::string> RunDirectory::files_present() const {
  std::vector<std::string> names;
  for (const std::string& name : owned_files(dir_, outputs_))
    if (!is_dgmax_temp_name(name)) names.push_back(name);
  return names;
}

}  // namespace dgmax
