#include "solver/io/checkpoint.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <limits>
#include <regex>
#include <sstream>
#include <utility>

#include "solver/io/atomic_write.hpp"
#include "solver/io/checkpoint_h5.hpp"
#include "solver/util/error.hpp"
#include "solver/util/printable.hpp"

namespace dgmax {

namespace {

namespace fs = std::filesystem;

constexpr const char* kFormat = "dgmax-checkpoint";
// 1 and 2: the same without digests (before 2026-12-06); refused, since nothing proves them intact
constexpr long long kFormatVersion = 3;     // a one-rank checkpoint: the state in the file
constexpr long long kRecordVersion = 4;     // a set's record: the state in the pieces

// checkpoint_<digits>.h5 → step; -1 for any other name.
long long step_of(const std::string& filename) {
  static const std::regex re("checkpoint_([0-9]{1,18})\\.h5");
  std::smatch m;
  if (!std::regex_match(filename, m, re)) return -1;
  return std::stoll(m[1].str());
}

// checkpoint_<digits>_p<digits>.h5 (a rank's piece of a set) → step; -1 for any other name.
long long piece_step_of(const std::string& filename) {
  static const std::regex re("checkpoint_([0-9]{1,18})_p[0-9]{4,9}\\.h5");
  std::smatch m;
  if (!std::regex_match(filename, m, re)) return -1;
  return std::stoll(m[1].str());
}

// (step, path) of the files of `dir` whose name `step_of_name` gives a step, by step.
std::vector<std::pair<long long, std::string>> files_in(const std::string& dir, long long (*step_of_name)(const std::string&)) {
  std::vector<std::pair<long long, std::string>> out;
  std::error_code ec;
  const fs::path d = dir.empty() ? fs::path(".") : fs::path(dir);
  fs::directory_iterator it(d, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const long long s = step_of_name(it->path().filename().string());
    std::error_code ec2;
    if (s >= 0 && it->is_regular_file(ec2)) out.emplace_back(s, it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<long long, std::string>> checkpoints_in(const std::string& dir) { return files_in(dir, step_of); }

// After checkpoint `step` was written: keeps it and the newest older one, deletes every other
// checkpoint (newer ones too: an earlier run's), then the pieces of the steps not kept (records
// first, so that no record outlives its pieces) and, after a one-rank checkpoint (`record`
// false), the pieces of its own step (an earlier run's). Best effort: a left-over only costs disk space.
void prune_checkpoints(const std::string& dir, long long step, bool record) {
  const auto all = checkpoints_in(dir);
  long long older = -1;
  for (const auto& [s, path] : all)
    if (s < step) older = s;
  std::error_code ec;
  for (const auto& [s, path] : all)
    if (s != step && s != older) fs::remove(path, ec);
  for (const auto& [s, path] : files_in(dir, piece_step_of))
    if ((s != step || !record) && s != older) fs::remove(path, ec);
}

std::string shortest(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

long long expected_np(long long N) { return (N + 1) * (N + 2) * (N + 3) / 6; }

void write_identity(const CheckpointH5& w, hid_t f, const Checkpoint& c, long long version) {
  const CheckpointIdentity& id = c.id;
  w.string_attr(f, "format", kFormat);
  w.int_attr(f, "format_version", version);
  w.string_attr(f, "dgmax_version", id.dgmax_version);
  w.string_attr(f, "config_hash", id.config_hash);
  w.string_attr(f, "mesh_fingerprint", id.mesh_fingerprint);
  w.string_attr(f, "backend", id.backend);
  w.string_attr(f, "precision", id.precision);
  w.int_attr(f, "K", id.K);
  w.int_attr(f, "N", id.N);
  w.int_attr(f, "Np", id.Np);
  w.double_attr(f, "dt", id.dt);
  w.double_attr(f, "t_final", id.t_final);
  w.int_attr(f, "step", c.step);
  w.double_attr(f, "time", c.time);
}

// A set's record: what the pieces are (checkpoint.hpp).
void write_set(const CheckpointH5& w, hid_t f, const CheckpointSet& set) {
  w.int_attr(f, "pieces", set.pieces);
  w.string_attr(f, "set_id", set.set_id);
  w.string_attr(f, "partition_method", set.partition_method);
  w.string_attr(f, "partition_hash", set.partition_hash);
  std::string digests;
  for (const std::string& d : set.piece_digests) digests += d + "\n";
  w.string_attr(f, "piece_digests", digests);
  write_checkpoint_ints(w, f, "piece_elements", set.piece_elements, "owned elements of each piece [pieces]");
  write_checkpoint_ints(w, f, "piece_layer_elements", set.piece_layer_elements,
                        "PML layer elements of each piece [pieces]");
}

CheckpointSet read_set(const CheckpointH5& r, hid_t f, long long K) {
  CheckpointSet set;
  set.pieces = r.read_int_attr(f, "pieces");
  if (set.pieces <= 0 || set.pieces > K) r.fail("piece count " + std::to_string(set.pieces) + " is out of range");
  set.set_id = r.read_string_attr(f, "set_id");
  set.partition_method = r.read_string_attr(f, "partition_method");
  set.partition_hash = r.read_string_attr(f, "partition_hash");
  {
    std::istringstream in(r.read_string_attr(f, "piece_digests"));
    for (std::string line; std::getline(in, line);) set.piece_digests.push_back(line);
  }
  set.piece_elements = read_checkpoint_ints(r, f, "piece_elements");
  set.piece_layer_elements = read_checkpoint_ints(r, f, "piece_layer_elements");
  const auto n = static_cast<size_t>(set.pieces);
  if (set.piece_elements.size() != n || set.piece_layer_elements.size() != n || set.piece_digests.size() != n)
    r.fail("the piece counts or digests are not [pieces] = [" + std::to_string(n) + "]");
  long long total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (set.piece_elements[i] <= 0 || set.piece_layer_elements[i] < 0 || set.piece_layer_elements[i] > set.piece_elements[i])
      r.fail("piece " + std::to_string(i) + " has an impossible element count");
    total += set.piece_elements[i];
  }
  if (total != K) r.fail("the pieces hold " + std::to_string(total) + " elements, not K = " + std::to_string(K));
  return set;
}

// The time a checkpoint holds is the run's own sum: t = 0, then t += dt once per step (the last
// step, which ends at t_final, is never checkpointed). Up to 2^24 steps (about 20 ms) it is
// recomputed bit for bit; beyond, it must be step * dt within the rounding of so many additions
// (each adds at most half an ulp of t: step * t * 2^-53 in all).
void check_time(const CheckpointH5& r, const CheckpointIdentity& id, long long step, double time) {
  if (!(std::isfinite(id.dt) && id.dt > 0 && std::isfinite(id.t_final) && id.t_final > 0))
    r.fail("time step dt = " + shortest(id.dt) + " or final time t_final = " + shortest(id.t_final) + " is out of range");
  // a checkpoint is written after a step that ends before t_final: step * dt < t_final
  if (step < 0 || static_cast<double>(step) > id.t_final / id.dt + 1)
    r.fail("step " + std::to_string(step) + " is out of range (0 to t_final / dt = " + shortest(id.t_final / id.dt) + ")");
  const double exact = static_cast<double>(step) * id.dt;
  bool same = false;
  if (step <= (1LL << 24)) {
    double t = 0;
    for (long long s = 0; s < step; ++s) t += id.dt;
    same = same_bits(t, time);
  } else {
    same = std::abs(time - exact) <= static_cast<double>(step) * exact * 0x1p-53;
  }
  if (!same || !(time < id.t_final))
    r.fail("time " + shortest(time) + " is not the time of step " + std::to_string(step) + " (about " + shortest(exact) +
           ": the sum of its steps of dt = " + shortest(id.dt) + ", before t_final = " + shortest(id.t_final) + ")");
}

}  // namespace

std::string checkpoint_path(const std::string& dir, long long step) {
  char name[64];
  std::snprintf(name, sizeof(name), "checkpoint_%012lld.h5", step);
  return (fs::path(dir.empty() ? "." : dir) / name).string();
}

std::string checkpoint_piece_path(const std::string& dir, long long step, long long piece) {
  char name[80];
  std::snprintf(name, sizeof(name), "checkpoint_%012lld_p%04lld.h5", step, piece);
  return (fs::path(dir.empty() ? "." : dir) / name).string();
}

std::string write_checkpoint(const std::string& dir, const Checkpoint& c) {
  const CheckpointIdentity& id = c.id;
  const bool record = c.set.pieces > 0;
  DGMAX_ASSERT(c.step >= 0, "negative checkpoint step");
  DGMAX_ASSERT(id.K > 0 && id.K <= std::numeric_limits<int>::max() && id.Np > 0, "checkpoint K / Np out of range");
  const size_t n = record ? 0 : static_cast<size_t>(id.K) * kNumComponents * id.Np;
  DGMAX_ASSERT(record ? c.q.q.empty() && c.res.q.empty() && c.aux.empty()
                      : c.q.K == id.K && c.q.Np == id.Np && c.q.q.size() == n,
               "checkpoint state does not match K and Np");
  DGMAX_ASSERT(record || (c.res.K == id.K && c.res.Np == id.Np && c.res.q.size() == n),
               "checkpoint residual does not match K and Np");
  DGMAX_ASSERT(!record || (c.set.piece_elements.size() == static_cast<size_t>(c.set.pieces) &&
                           c.set.piece_layer_elements.size() == static_cast<size_t>(c.set.pieces)),
               "checkpoint record: piece counts do not match the pieces");
  ensure_writable_directory(dir);
  const std::string path = checkpoint_path(dir, c.step);
  const bool as_float = id.precision == "single" && all_exact_floats(c.q.q) && all_exact_floats(c.res.q);

  // committed now, not deferred: older checkpoints are deleted next
  write_checkpoint_file(path, [&](const CheckpointH5& w, hid_t f) {
    write_identity(w, f, c, record ? kRecordVersion : kFormatVersion);
    if (record) {
      write_set(w, f, c.set);
    } else {
      write_checkpoint_fields(w, f, "q", c.q, as_float, "state [K][6][Np] (Ex Ey Ez Hx Hy Hz)");
      write_checkpoint_fields(w, f, "res", c.res, as_float, "LSERK4 residual [K][6][Np]");
    }
    write_checkpoint_bytes(w, f, "progress", c.progress);
    if (!c.aux.empty()) write_checkpoint_doubles(w, f, "aux", c.aux, "PML auxiliary fields and their LSERK4 residual");
  });
  prune_checkpoints(dir, c.step, record);
  return path;
}

Checkpoint read_checkpoint(const std::string& path) {
  QuietHdf5Errors quiet;
  const CheckpointH5 r(path, false);
  H5Id file = open_checkpoint_file(r);
  const hid_t f = file.get();
  // the digest list first: from then on every value is checked before it is used
  const bool digested = r.begin_read(f);
  if (r.read_string_attr(f, "format") != kFormat) r.fail("not a dgmax checkpoint (format is not '" + std::string(kFormat) + "')");
  const long long version = r.read_int_attr(f, "format_version");
  if (version != kFormatVersion && version != kRecordVersion)
    r.fail("checkpoint format version " + std::to_string(version) + " is not supported (this build reads versions " +
           std::to_string(kFormatVersion) + " and " + std::to_string(kRecordVersion) +
           (version == 1 || version == 2 ? "; versions 1 and 2 were written by an earlier dgmax, without digests" : "") +
           ")");
  if (!digested) r.fail("its digest list (attribute 'digests') is missing");
  Checkpoint c;
  CheckpointIdentity& id = c.id;
  id.dgmax_version = r.read_string_attr(f, "dgmax_version");
  id.config_hash = r.read_string_attr(f, "config_hash");
  id.mesh_fingerprint = r.read_string_attr(f, "mesh_fingerprint");
  id.backend = r.read_string_attr(f, "backend");
  id.precision = r.read_string_attr(f, "precision");
  const long long K = r.read_int_attr(f, "K"), N = r.read_int_attr(f, "N"), Np = r.read_int_attr(f, "Np");
  if (K <= 0 || K > std::numeric_limits<int>::max()) r.fail("element count K = " + std::to_string(K) + " is out of range");
  if (N < 0 || N > 64) r.fail("order N = " + std::to_string(N) + " is out of range");
  if (Np != expected_np(N))
    r.fail("Np = " + std::to_string(Np) + " does not match order N = " + std::to_string(N) + " (expected " +
           std::to_string(expected_np(N)) + ")");
  id.K = K;
  id.N = static_cast<int>(N);
  id.Np = static_cast<int>(Np);
  if (id.precision != "double" && id.precision != "single")
    r.fail("precision '" + printable_text(id.precision) + "' is neither double nor single");
  id.dt = r.read_double_attr(f, "dt");
  id.t_final = r.read_double_attr(f, "t_final");
  c.step = r.read_int_attr(f, "step");
  c.time = r.read_double_attr(f, "time");
  check_time(r, id, c.step, c.time);
  if (version == kRecordVersion) {
    c.set = read_set(r, f, K);
  } else {
    const bool single = id.precision == "single";
    c.q = read_checkpoint_fields(r, f, "q", static_cast<int>(K), id.Np, single);
    c.res = read_checkpoint_fields(r, f, "res", static_cast<int>(K), id.Np, single);
    c.aux = read_checkpoint_doubles(r, f, "aux");
  }
  c.progress = read_checkpoint_bytes(r, f, "progress");
  r.finish_read();
  r.check(H5Fclose(file.release()), "H5Fclose");
  return c;
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& [step, path] : checkpoints_in(dir)) out.push_back(path);
  return out;
}

std::string load_latest_checkpoint(const std::string& dir, std::ostream& warnings,
                                   const std::function<std::string(const std::string&, long long)>& load) {
  const std::string shown = dir.empty() ? std::string(".") : dir;
  std::error_code ec;
  if (!fs::is_directory(shown, ec))
    throw UserError("cannot restart: checkpoint directory '" + shown + "' does not exist", {},
                    "give the directory a run with output.checkpoint_every wrote its checkpoints to");
  const auto all = checkpoints_in(dir);
  if (all.empty())
    throw UserError("cannot restart: no checkpoint (checkpoint_*.h5) in '" + shown + "'", {},
                    "give the directory a run with output.checkpoint_every wrote its checkpoints to");
  std::string reasons;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const std::string why = load(it->second, it->first);
    if (why.empty()) return it->second;
    warnings << "warning: " << why << (std::next(it) != all.rend() ? "; trying the previous checkpoint" : "") << "\n";
    reasons += "\n  " + why;
  }
  throw UserError("cannot restart: no valid checkpoint in '" + shown + "':" + reasons, {},
                  "run again without --restart to start from t = 0");
}

Checkpoint read_latest_checkpoint(const std::string& dir, std::ostream& warnings, std::string* path_out) {
  Checkpoint c;
  const std::string path = load_latest_checkpoint(dir, warnings, [&](const std::string& file, long long step) {
    try {
      c = read_checkpoint(file);
      if (c.step != step)
        return "cannot read checkpoint '" + file + "': it holds step " + std::to_string(c.step) + ", its name says " +
               std::to_string(step);
      return std::string();
    } catch (const UserError& e) {
      return e.message();
    }
  });
  if (path_out) *path_out = path;
  return c;
}

Checkpoint read_latest_checkpoint(const std::string& dir) { return read_latest_checkpoint(dir, std::cerr); }

std::vector<std::string> describe_mismatch(const Checkpoint& saved, const CheckpointIdentity& now) {
  std::vector<std::string> out;
  const CheckpointIdentity& s = saved.id;
  auto diff = [&](bool differs, const std::string& what, const std::string& a, const std::string& b) {
    if (differs) out.push_back(what + ": checkpoint " + a + ", config " + b);
  };
  auto text = [](const std::string& v) { return v.empty() ? std::string("(none)") : printable_text(v); };
  diff(s.dgmax_version != now.dgmax_version, "dgmax version", text(s.dgmax_version), text(now.dgmax_version));
  diff(s.config_hash != now.config_hash, "config (content hash)", text(s.config_hash), text(now.config_hash));
  diff(s.mesh_fingerprint != now.mesh_fingerprint, "mesh (fingerprint)", text(s.mesh_fingerprint),
       text(now.mesh_fingerprint));
  diff(s.K != now.K, "elements K", std::to_string(s.K), std::to_string(now.K));
  diff(s.N != now.N, "order N", std::to_string(s.N), std::to_string(now.N));
  diff(s.Np != now.Np, "nodes per element Np", std::to_string(s.Np), std::to_string(now.Np));
  diff(s.backend != now.backend, "backend", text(s.backend), text(now.backend));
  diff(s.precision != now.precision, "precision", text(s.precision), text(now.precision));
  diff(!same_bits(s.dt, now.dt), "time step dt", shortest(s.dt), shortest(now.dt));
  diff(!same_bits(s.t_final, now.t_final), "final time t_final", shortest(s.t_final), shortest(now.t_final));
  if (s.K != now.K || s.Np != now.Np || now.K <= 0 || now.Np <= 0) return out;  // said above
  if (saved.set.pieces > 0) return out;  // a set's record: the pieces' sizes are checked as they are read
  const size_t n = static_cast<size_t>(now.K) * kNumComponents * now.Np;
  auto size_diff = [&](const Fields& q, const char* what) {
    if (q.K != now.K || q.Np != now.Np || q.q.size() != n)
      out.push_back(std::string(what) + ": checkpoint holds " + std::to_string(q.q.size()) + " values, config needs " +
                    std::to_string(n) + " (K*6*Np)");
  };
  size_diff(saved.q, "state size");
  size_diff(saved.res, "residual size");
  return out;
}

}  // namespace dgmax
