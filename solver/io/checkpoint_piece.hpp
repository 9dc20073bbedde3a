// A rank's piece of a several-rank checkpoint set (checkpoint.hpp): the state of the elements the
// rank owns and the PML auxiliary fields of its layer elements, every row keyed by the element's
// global number, so that a restart on any number of ranks finds its elements in whichever pieces
// hold them (solver/app/rank_checkpoint.hpp).
//
// "checkpoint_<step>_p<piece>.h5" (checkpoint_piece_path), written atomically (temporary name,
// fsync, rename). Layout (C order):
//   /element      int64 [K]           global element number of each row
//   /q, /res      float64 [K][6][Np]  state and LSERK4 residual of those elements (float32 when
//                                     precision is single and every value is exactly a float)
//   /aux_element  int64 [L]           only with L > 0: global element number of each layer row
//   /aux          float64 [2][L][A]   only with L > 0: the layer's psi, then its LSERK4 residual
// Every dataset chunked and Fletcher-32 checksummed. Root attributes: format =
// "dgmax-checkpoint-piece", format_version = 2, set_id (string); step, piece, pieces, K, Np, L, A
// (int64); digests (string, written last): every attribute's and dataset's SHA-256
// (checkpoint_digest.hpp), whose own SHA-256 (the piece's digest) the set's record lists.
#pragma once

#include <string>
#include <vector>

#include "solver/physics/fields.hpp"

namespace dgmax {

struct CheckpointPiece {
  std::string set_id;                  // the record's (checkpoint.hpp: CheckpointSet)
  long long step = 0, piece = 0, pieces = 0;
  std::vector<long long> element;      // [K] global element numbers
  Fields q, res;                       // [K][6][Np]
  std::vector<long long> aux_element;  // [L] global element numbers of the layer rows
  long long aux_per_element = 0;       // A: auxiliary values per layer element (0 without a layer)
  std::vector<double> aux;             // [2][L][A]
  std::string digest;                  // read: the file's digest (its digest list's SHA-256)
};

// Writes `p` atomically to checkpoint_piece_path(dir, p.step, p.piece); `single`: store float32
// when every value is exactly a float. Returns the path; `digest`, when given, receives the file's
// digest (for the set's record). UserError naming the file on failure; InternalError when the
// sizes do not agree.
std::string write_checkpoint_piece(const std::string& dir, const CheckpointPiece& p, bool single,
                                   std::string* digest = nullptr);

// Reads and validates a piece: format, every size, digests and checksums; a float32 state only
// when `allow_float32` (a single-precision run's). Without `with_state` only the attributes and
// /element (to see which elements it holds). UserError naming the file otherwise.
CheckpointPiece read_checkpoint_piece(const std::string& path, bool with_state = true, bool allow_float32 = true);

}  // namespace dgmax
