// Checkpoint/restart files: the full state of a run between two time steps (fields, the LSERK4
// residual, time, step) with what identifies the run it belongs to, so that a restart continues
// bit-for-bit like a run that was never interrupted (same backend and precision) and a checkpoint
// of another mesh/order/config is refused with what differs.
//
// A one-rank run writes one HDF5 file per checkpoint, "<dir>/checkpoint_<step, 12 digits>.h5", to
// a temporary file with a unique name in <dir>, fsynced and renamed (solver/io/atomic_write), then
// all but the newest two checkpoints are deleted. Layout (C order, native little-endian types):
//
//   /q, /res   float64 [K][6][Np]  state and LSERK4 residual, element-major, components
//                                  Ex Ey Ez Hx Hy Hz (float32 when precision is "single" and every
//                                  value is exactly a float; bitwise the backend's own values)
//                                  chunked, Fletcher-32 checksummed (corruption fails the read)
//   /progress  uint8 [n]       the caller's `progress` text (outputs written so far)
//   /aux       float64 [n]     optional: the PML's auxiliary state (Backend::get_aux), checksummed
// Root attributes: format = "dgmax-checkpoint", format_version = 3, dgmax_version, config_hash,
// mesh_fingerprint, backend, precision (strings); K, N, Np, step (int64); time, dt, t_final
// (float64, bitwise); and, written last, digests (string): the SHA-256 of every attribute and
// dataset above, the datasets' long_name attributes included (checkpoint_digest.hpp). Reading
// checks each value against its digest before using it, so that a damaged file is refused (and the
// previous checkpoint taken) instead of continuing from altered numbers, and checks that `time` is
// the sum of `step` steps of `dt` (what the run computes). Versions 1 and 2 (before 2026-12-06) had
// no digests and are refused, naming the version.
//
// A run on several ranks writes a *set*: each rank its piece "checkpoint_<step>_p<rank, 4
// digits>.h5" (checkpoint_piece.hpp: its owned elements' state keyed by global element number),
// and then, once every piece is durable, rank 0 the *record* "checkpoint_<step>.h5" that makes the
// set valid (solver/parallel/rank_checkpoint.hpp). The record is the file above with
// format_version = 4, no /q, /res, /aux, and besides: attributes pieces (int64), set_id,
// partition_method, partition_hash, piece_digests (strings; the last one line per piece: the
// piece file's digest); /piece_elements, /piece_layer_elements int64 [pieces] (owned elements and
// layer elements of each piece). A piece belongs to the set when its set_id and step are the
// record's, so a crash between pieces, or pieces left by another run, never make a set that reads.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "dgmax/config.hpp"
#include "solver/physics/fields.hpp"

namespace dgmax {

// What a checkpoint must agree with to be resumed.
struct CheckpointIdentity {
  std::string dgmax_version = DGMAX_VERSION;  // of the writing build (dgmax/config.hpp)
  std::string config_hash;       // content hash of the canonical config text (the caller's)
  std::string mesh_fingerprint;  // hash of the mesh (the caller's)
  std::string backend;           // Backend::name(): "ref", "cpu", "cuda"
  std::string precision;         // "double" or "single"
  long long K = 0;               // elements
  int N = 0;                     // polynomial order
  int Np = 0;                    // nodes per element, (N+1)(N+2)(N+3)/6
  double dt = 0;                 // nominal time step
  double t_final = 0;
};

// What the record of a several-rank checkpoint adds (pieces = 0: a one-rank checkpoint).
struct CheckpointSet {
  long long pieces = 0;             // ranks that wrote a piece
  std::string set_id;               // every piece of the set carries it (a token of the writing run)
  std::string partition_method;     // "metis" or "sfc"
  std::string partition_hash;       // hash of the element -> rank map of the writing run
  std::vector<long long> piece_elements;        // [pieces] owned elements of each piece
  std::vector<long long> piece_layer_elements;  // [pieces] PML layer elements of each piece
  std::vector<std::string> piece_digests;       // [pieces] each piece file's digest (checkpoint_digest.hpp)
};

struct Checkpoint {
  CheckpointIdentity id;
  CheckpointSet set;   // a set's record: the state is in the pieces, q, res and aux are empty
  long long step = 0;  // steps taken
  double time = 0;     // simulated time after `step` steps
  Fields q, res;       // state and LSERK4 residual, [K][6][Np] (Backend::get_state / get_residual)
  std::string progress;  // the run's outputs so far (the caller's text, e.g. JSON); opaque here
  std::vector<double> aux;  // the PML's auxiliary state (Backend::get_aux); empty without a layer
};

// "<dir>/checkpoint_<step zero-padded to 12 digits>.h5".
std::string checkpoint_path(const std::string& dir, long long step);
// "<dir>/checkpoint_<step, 12 digits>_p<piece zero-padded to 4 digits>.h5": a rank's piece of a set.
std::string checkpoint_piece_path(const std::string& dir, long long step, long long piece);

// Writes `c` atomically to checkpoint_path(dir, c.step) (creating `dir` when missing), then keeps
// only that checkpoint and the newest older one: every other checkpoint_*.h5 in `dir` is deleted,
// including ones with a larger step (left by an earlier run that went further; they must not be
// mistaken for the newest), and so are the pieces of every step not kept. With c.set.pieces > 0
// it writes a set's record (its pieces must be durable before). Returns the path written.
// UserError naming the file on failure (an earlier checkpoint is then left untouched).
// InternalError when q/res do not match K and Np (or a record carries state).
std::string write_checkpoint(const std::string& dir, const Checkpoint& c);

// Reads and validates one checkpoint file: format, digests, every size against the datasets
// (K*6*Np values in /q and /res, Np = (N+1)(N+2)(N+3)/6), the state's type against the precision,
// the time against step and dt, Fletcher-32 checksums. A set's record comes back with c.set filled
// and no state. UserError naming the file and what is wrong otherwise (printable text only).
Checkpoint read_checkpoint(const std::string& path);

// The checkpoint_*.h5 files of `dir`, oldest (smallest step) first. Empty when none or no dir.
std::vector<std::string> list_checkpoints(const std::string& dir);

// Tries the checkpoints of `dir` newest first: `load(path, step)` returns "" when it has taken that
// checkpoint, else why not ("cannot read checkpoint '<path>': <why>"); then "warning: <why>; trying
// the previous checkpoint" goes to `warnings` and the next older one is tried. Returns the path
// taken. UserError naming `dir` when it has no checkpoint, or none that loads (with every why).
// Several ranks call it together with a collective `load` (the same files on every rank).
std::string load_latest_checkpoint(const std::string& dir, std::ostream& warnings,
                                   const std::function<std::string(const std::string&, long long)>& load);

// The newest checkpoint of `dir` that reads and validates (load_latest_checkpoint with
// read_checkpoint; a file that holds another step than its name says is refused too).
// `path_out`, when given, receives the file read.
Checkpoint read_latest_checkpoint(const std::string& dir, std::ostream& warnings,
                                  std::string* path_out = nullptr);
Checkpoint read_latest_checkpoint(const std::string& dir);  // warnings to std::cerr

// Every way `saved` does not fit the run `now`, one human-readable line each, e.g.
// "order N: checkpoint 3, config 4"; empty when the checkpoint can be resumed. Compares every
// identity field (dt and t_final bitwise, shown with 17 significant digits) and the sizes of
// saved.q / saved.res against K and Np (not for a set's record: its state is in the pieces).
std::vector<std::string> describe_mismatch(const Checkpoint& saved, const CheckpointIdentity& now);

}  // namespace dgmax
