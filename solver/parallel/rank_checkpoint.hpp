// Checkpoints of a run on one rank or several, and the restart from a checkpoint written on any
// number of ranks (the files: solver/io/checkpoint.hpp, checkpoint_piece.hpp; the run:
// solver/app/simulation.cpp).
//
// One rank writes the one-rank file, as it always did. Several ranks write a set: every rank its
// piece (the state of the elements it owns and of its layer elements, keyed by global element
// number), then, once every piece is fsynced and renamed (the collective that says so is the
// barrier), rank 0 the record that makes the set valid.
// Why pieces rather than the state gathered into one file on rank 0: a checkpoint then costs each
// rank the time and memory of its own part, all ranks write at once, and nothing of the size of
// the whole run passes through one process, however large the run.
// Why keyed by global element number: a restart reads the elements it owns from whichever pieces
// hold them, so a run checkpointed on 3 ranks continues on 2 or on 1, and a one-rank checkpoint on
// several; the fields are the same numbers on any number of ranks (README: Several ranks), so the
// continuation is too. On the partition that wrote the set (its hash in the record), each rank
// opens its own piece only; on another, each rank opens every piece's element list and reads the
// pieces that hold some of its elements.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solver/io/checkpoint.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// This rank's part of the run in the whole mesh's numbering.
struct RankElements {
  std::vector<long long> owned;  // [K_owned] global number of each owned element (the local prefix)
  std::vector<long long> layer;  // [slots] global number of each PML slot's element (Backend::get_aux order)
  int K_local = 0;               // owned elements and ghosts
  long long aux_per_element = 0;  // A: the layer's auxiliary values per element, [2][slots][A] (every rank's)
  std::string partition_method, partition_hash;  // of this run's partition (rank_mesh.hpp); empty on one rank
};

// `aux_values`: the size of this rank's Backend::get_aux; `partition`: rank_mesh's report (null on
// one rank). Collective.
RankElements rank_elements(const Problem& p, size_t aux_values, const nlohmann::json& partition);

// A rank's state as its backend has it (get_state, get_residual, get_aux).
struct RankState {
  Fields q, res;            // [K_local][6][Np]: owned elements, then ghosts
  std::vector<double> aux;  // [2][slots][A]
};

// Writes checkpoint `c` (identity, step, time and progress, rank 0's being the one written) with
// the state of the elements this rank owns, into `dir`; the newest two are kept. Collective.
// Returns the file that makes the checkpoint valid (one rank: the checkpoint; several: the set's
// record). UserError, on every rank, when a rank cannot write its part (the earlier checkpoints
// stay valid).
std::string write_rank_checkpoint(const std::string& dir, Checkpoint c, RankState state, const RankElements& e);

// Where a restart continues from.
struct RestartPoint {
  std::string path;                   // the checkpoint (or record) taken
  Checkpoint record;                  // identity, step, time, progress; no state
  std::vector<std::string> mismatch;  // describe_mismatch against this run; not empty: no state read
  Fields q, res;                      // [K_local][6][Np] the owned rows; ghost rows 0 (the exchange fills them)
  std::vector<double> aux;            // [2][slots][A] this rank's layer
};

// The newest checkpoint of `dir` whose files are complete and read on every rank (a one-rank file,
// or a set written on any number of ranks); an older one is tried, with a warning from rank 0,
// when one is not (a piece missing, damaged or of another set). `now`: this run's identity.
// `accept`, when given, is asked about each checkpoint that reads and fits this run: "" takes it,
// else why not (its progress record does not hold together), and the previous one is tried. A
// checkpoint that reads but does not fit (`mismatch`) is returned as it is: another run's.
// Collective. UserError (on every rank) when `dir` has no checkpoint that reads.
RestartPoint read_rank_checkpoint(const std::string& dir, const CheckpointIdentity& now, const RankElements& e,
                                  const std::function<std::string(const Checkpoint&)>& accept = {});

}  // namespace dgmax
