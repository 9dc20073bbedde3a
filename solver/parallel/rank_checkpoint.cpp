#include "solver/parallel/rank_checkpoint.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>
#include <sstream>
#include <unordered_map>

#include "solver/io/checkpoint_piece.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/physics/pml.hpp"
#include "solver/util/error.hpp"
#include "solver/util/printable.hpp"

namespace dgmax {
namespace {

constexpr const char* kWriteHint = "check that the checkpoint directory is writable and the disk is not full";

// A token that no other checkpoint set shares (pieces of another run or step must not join a set).
std::string new_set_id() {
  std::random_device rd;
  const auto now = std::chrono::system_clock::now().time_since_epoch().count();
  return fmt::format("{:08x}{:08x}-{:x}-{:x}", rd(), rd(), static_cast<unsigned long long>(now),
                     static_cast<long long>(::getpid()));
}

// The first `K` elements' rows of `q` (ghosts dropped).
Fields first_rows(Fields q, size_t K) {
  DGMAX_ASSERT(static_cast<size_t>(q.K) >= K, "checkpoint: the state has fewer elements than the rank owns");
  q.q.resize(K * kNumComponents * static_cast<size_t>(q.Np));
  q.K = static_cast<int>(K);
  return q;
}

// Row `from_k` of `from` into row `to_k` of `to` (both [.][6][Np]).
void copy_row(const Fields& from, size_t from_k, Fields& to, size_t to_k) {
  const size_t n = static_cast<size_t>(kNumComponents) * static_cast<size_t>(to.Np);
  std::copy_n(from.q.begin() + static_cast<long>(from_k * n), n, to.q.begin() + static_cast<long>(to_k * n));
}

// Layer row `from_s` of `from` ([2][from_L][A]) into row `to_s` of `to` ([2][to_L][A]): psi and its residual.
void copy_aux_row(const std::vector<double>& from, size_t from_L, size_t from_s, std::vector<double>& to, size_t to_L,
                  size_t to_s, size_t A) {
  for (size_t half = 0; half < 2; ++half)
    std::copy_n(from.begin() + static_cast<long>((half * from_L + from_s) * A), A,
                to.begin() + static_cast<long>((half * to_L + to_s) * A));
}

// Every rank's `text`, in rank order, on every rank (one broadcast per rank: a few per checkpoint).
std::vector<std::string> gather_texts(const Comm& comm, const std::string& text) {
  std::vector<std::string> out;
  for (int r = 0; r < comm.size(); ++r)  // only rank r offers a text: first_text gives rank r's
    out.push_back(comm.first_text(comm.rank() == r ? text : std::string()));
  return out;
}

[[noreturn]] void unreadable(const std::string& file, const std::string& why) {
  throw UserError("cannot read checkpoint '" + file + "': " + why);
}

// This rank's rows out of a one-rank checkpoint (the whole state in global order; its /aux rows are
// the layer's elements in global order, `whole_layer`).
void take_from_whole(const std::string& file, Checkpoint& c, const RankElements& e,
                     const std::vector<long long>& whole_layer, RestartPoint& rp) {
  const size_t A = static_cast<size_t>(e.aux_per_element), Lw = whole_layer.size();
  if (c.aux.size() != 2 * Lw * A)
    unreadable(file, fmt::format("it holds {} values of PML auxiliary state; this run's layer has {}", c.aux.size(),
                                 2 * Lw * A));
  for (size_t k = 0; k < e.owned.size(); ++k) {
    copy_row(c.q, static_cast<size_t>(e.owned[k]), rp.q, k);  // the identity checked K
    copy_row(c.res, static_cast<size_t>(e.owned[k]), rp.res, k);
  }
  for (size_t s = 0; s < e.layer.size(); ++s) {
    const auto at = std::lower_bound(whole_layer.begin(), whole_layer.end(), e.layer[s]) - whole_layer.begin();
    copy_aux_row(c.aux, Lw, static_cast<size_t>(at), rp.aux, e.layer.size(), s, A);
  }
}

// Checks that `piece` (read from piece number j's file) belongs to the set of `rec`.
void check_piece(const std::string& file, const std::string& piece_file, const CheckpointPiece& piece,
                 const Checkpoint& rec, long long j, const RankElements& e, bool with_state) {
  const auto n = static_cast<size_t>(j);
  if (piece.set_id != rec.set.set_id || piece.step != rec.step || piece.piece != j || piece.pieces != rec.set.pieces)
    unreadable(file, "its piece '" + piece_file +
                         "' belongs to another checkpoint (another run's, or one cut short): the set is incomplete");
  if (piece.digest != rec.set.piece_digests[n])
    unreadable(file, "its piece '" + piece_file + "' is not the one the record lists (its digest differs)");
  if (static_cast<long long>(piece.element.size()) != rec.set.piece_elements[n] ||
      static_cast<long long>(piece.aux_element.size()) != rec.set.piece_layer_elements[n])
    unreadable(file, "its piece '" + piece_file + "' holds other element counts than the record says");
  if (with_state && (piece.q.Np != rec.id.Np || (!piece.aux_element.empty() && piece.aux_per_element != e.aux_per_element)))
    unreadable(file, "its piece '" + piece_file + "' holds another number of values per element than this run");
}

// This rank's rows out of the pieces of a set (`file`: its record).
void take_from_pieces(const std::string& dir, const std::string& file, const Checkpoint& rec, const RankElements& e,
                      const std::vector<long long>& whole_layer, RestartPoint& rp) {
  const Comm& comm = world();
  long long layer_total = 0;
  for (const long long l : rec.set.piece_layer_elements) layer_total += l;
  if (layer_total != static_cast<long long>(whole_layer.size()))
    unreadable(file, fmt::format("it holds the PML auxiliary state of {} layer elements; this run's layer has {}",
                                 layer_total, whole_layer.size()));
  std::unordered_map<long long, size_t> owned_at, layer_at;  // global number -> row here
  for (size_t k = 0; k < e.owned.size(); ++k) owned_at.emplace(e.owned[k], k);
  for (size_t s = 0; s < e.layer.size(); ++s) layer_at.emplace(e.layer[s], s);
  size_t found = 0, found_layer = 0;
  // the partition that wrote it: piece r holds exactly rank r's elements
  const bool own_piece_only =
      rec.set.pieces == comm.size() && !e.partition_hash.empty() && rec.set.partition_hash == e.partition_hash;
  const size_t A = static_cast<size_t>(e.aux_per_element);
  const bool single = rec.id.precision == "single";  // a double run's state is never float32
  for (long long j = 0; j < rec.set.pieces; ++j) {
    if (own_piece_only && j != comm.rank()) continue;
    const std::string piece_file = checkpoint_piece_path(dir, rec.step, j);
    if (!own_piece_only) {  // its element list first: most pieces hold none of this rank's elements
      const CheckpointPiece head = read_checkpoint_piece(piece_file, false, single);
      check_piece(file, piece_file, head, rec, j, e, false);
      const auto mine = [](const std::unordered_map<long long, size_t>& at, const std::vector<long long>& ids) {
        return std::any_of(ids.begin(), ids.end(), [&](long long g) { return at.count(g) > 0; });
      };
      if (!mine(owned_at, head.element) && !mine(layer_at, head.aux_element)) continue;
    }
    const CheckpointPiece piece = read_checkpoint_piece(piece_file, true, single);
    check_piece(file, piece_file, piece, rec, j, e, true);
    for (size_t i = 0; i < piece.element.size(); ++i)
      if (const auto it = owned_at.find(piece.element[i]); it != owned_at.end()) {
        copy_row(piece.q, i, rp.q, it->second);
        copy_row(piece.res, i, rp.res, it->second);
        ++found;
      }
    for (size_t i = 0; i < piece.aux_element.size(); ++i)
      if (const auto it = layer_at.find(piece.aux_element[i]); it != layer_at.end()) {
        copy_aux_row(piece.aux, piece.aux_element.size(), i, rp.aux, e.layer.size(), it->second, A);
        ++found_layer;
      }
  }
  if (found != e.owned.size() || found_layer != e.layer.size())
    unreadable(file, fmt::format("its pieces hold {} of this rank's {} elements and {} of its {} layer elements "
                                 "(a piece holds elements twice, or not those of this mesh)",
                                 found, e.owned.size(), found_layer, e.layer.size()));
}

}  // namespace

RankElements rank_elements(const Problem& p, size_t aux_values, const nlohmann::json& partition) {
  RankElements e;
  const Halo& halo = p.md->halo;
  for (int k = 0; k < p.K_owned(); ++k) e.owned.push_back(halo.global_index(k));
  if (p.pml)
    for (const int k : p.pml->elements) e.layer.push_back(halo.global_index(k));
  e.K_local = p.K();
  DGMAX_ASSERT(e.layer.empty() ? aux_values == 0 : aux_values % (2 * e.layer.size()) == 0,
               "PML auxiliary state is not [2][slots][A]");
  const long long A = e.layer.empty() ? 0 : static_cast<long long>(aux_values / (2 * e.layer.size()));
  e.aux_per_element = static_cast<long long>(world().max(static_cast<double>(A)));  // a rank without layer: 0
  if (partition.is_object()) {
    e.partition_method = partition.value("method", std::string());
    e.partition_hash = partition.value("hash", std::string());
  }
  return e;
}

std::string write_rank_checkpoint(const std::string& dir, Checkpoint c, RankState state, const RankElements& e) {
  const Comm& comm = world();
  // the owned elements: a prefix (ghosts follow), all of them on one rank
  state.q = first_rows(std::move(state.q), e.owned.size());
  state.res = first_rows(std::move(state.res), e.owned.size());
  if (!comm.parallel()) {  // the one-rank file
    c.q = std::move(state.q);
    c.res = std::move(state.res);
    c.aux = std::move(state.aux);
    return write_checkpoint(dir, c);
  }
  CheckpointPiece piece;
  piece.set_id = comm.broadcast(comm.root() ? new_set_id() : std::string());
  piece.step = c.step;
  piece.piece = comm.rank();
  piece.pieces = comm.size();
  piece.element = e.owned;
  piece.q = std::move(state.q);
  piece.res = std::move(state.res);
  piece.aux_element = e.layer;
  piece.aux_per_element = e.aux_per_element;
  piece.aux = std::move(state.aux);
  std::string why, digest;
  try {
    write_checkpoint_piece(dir, piece, c.id.precision == "single", &digest);
  } catch (const UserError& ex) {
    why = ex.message();
  }
  // every piece is durable (fsynced and renamed) before the record makes the set valid
  why = comm.first_text(why);
  if (!why.empty()) throw UserError(why, {}, kWriteHint);
  c.set.pieces = comm.size();
  c.set.set_id = piece.set_id;
  c.set.partition_method = e.partition_method;
  c.set.partition_hash = e.partition_hash;
  c.set.piece_elements = comm.gather_all(static_cast<long long>(e.owned.size()));
  c.set.piece_layer_elements = comm.gather_all(static_cast<long long>(e.layer.size()));
  c.set.piece_digests = gather_texts(comm, digest);
  std::string path = checkpoint_path(dir, c.step);
  if (comm.root()) try {
      path = write_checkpoint(dir, c);  // and the older sets go, records first
    } catch (const UserError& ex) {
      why = ex.message();
    }
  why = comm.first_text(why);
  if (!why.empty()) throw UserError(why, {}, kWriteHint);
  return path;
}

RestartPoint read_rank_checkpoint(const std::string& dir, const CheckpointIdentity& now, const RankElements& e,
                                  const std::function<std::string(const Checkpoint&)>& accept) {
  const Comm& comm = world();
  std::ostringstream elsewhere;  // the other ranks' warnings: rank 0 says them
  // the whole layer in global order: the rows of a one-rank checkpoint's /aux (collective: before
  // the loop, whose collectives every rank reaches for every file)
  std::vector<long long> whole_layer = comm.gather_all(e.layer);
  std::sort(whole_layer.begin(), whole_layer.end());
  RestartPoint rp;
  rp.path = load_latest_checkpoint(dir, comm.root() ? std::cerr : elsewhere, [&](const std::string& file, long long step) {
    Checkpoint c;
    std::string why;
    try {
      c = read_checkpoint(file);
      if (c.step != step)
        why = "cannot read checkpoint '" + file + "': it holds step " + std::to_string(c.step) + ", its name says " +
              std::to_string(step);
    } catch (const UserError& ex) {
      why = ex.message();
    }
    if (!(why = comm.first_text(why)).empty()) return why;
    rp.mismatch = describe_mismatch(c, now);
    rp.q = rp.res = Fields();
    rp.aux.clear();
    if (rp.mismatch.empty() && accept) {  // the progress record: a damaged one falls back too
      try {
        why = accept(c);
      } catch (const std::exception& ex) {
        why = printable_text(ex.what());
      }
      if (!why.empty()) why = "cannot use checkpoint '" + file + "': " + why;
      if (!(why = comm.first_text(why)).empty()) return why;
    }
    if (rp.mismatch.empty()) {
      try {
        if (c.set.pieces == 0 && !comm.parallel()) {  // the one-rank file on one rank: its state as it is
          rp.q = std::move(c.q);
          rp.res = std::move(c.res);
          rp.aux = std::move(c.aux);
        } else {
          rp.q = Fields(e.K_local, now.Np);
          rp.res = Fields(e.K_local, now.Np);
          rp.aux.assign(2 * e.layer.size() * static_cast<size_t>(e.aux_per_element), 0.0);
          if (c.set.pieces == 0)
            take_from_whole(file, c, e, whole_layer, rp);
          else
            take_from_pieces(dir, file, c, e, whole_layer, rp);
        }
      } catch (const UserError& ex) {
        why = ex.message();
      }
      if (!(why = comm.first_text(why)).empty()) return why;
    }
    c.q = c.res = Fields();
    c.aux.clear();
    rp.record = std::move(c);
    return std::string();
  });
  return rp;
}

}  // namespace dgmax
