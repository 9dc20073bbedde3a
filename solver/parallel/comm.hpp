// The process group of a run. With MPI in the build and the process started by mpirun (or any
// launcher that sets the MPI job's environment), it is MPI_COMM_WORLD; otherwise one rank, and
// every reduction is the identity. Reductions are collective: every rank calls them in the same
// order, so they sit where every rank passes (norm samples, set-up), never behind a rank-local
// branch.
#pragma once

#include <string>
#include <vector>

namespace dgmax {

class Comm {
 public:
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  bool parallel() const { return size_ > 1; }

  // In place over all ranks: v[i] = sum (max, min) over ranks of v[i].
  void sum(double* v, int n) const;
  void max(double* v, int n) const;
  double sum(double v) const;
  double max(double v) const;
  double min(double v) const;
  long long sum(long long v) const;
  // true on every rank when `local` is true on any
  bool any(bool local) const;
  void barrier() const;
  // root's string on every rank
  std::string broadcast(const std::string& s) const;
  // every rank's value, in rank order (on every rank)
  std::vector<long long> gather_all(long long v) const;
  // every rank's `v`, one after the other in rank order, on every rank (lengths may differ)
  std::vector<long long> gather_all(const std::vector<long long>& v) const;
  // The text of the lowest rank whose `local` is not empty, on every rank ("" when every rank's is
  // empty): one verdict on what some ranks found (a file they could not read or write) that all
  // act on together.
  std::string first_text(const std::string& local) const;
  // every rank's `v`, one after the other in rank order, on rank 0 (the other ranks get an empty
  // vector); the lengths may differ between ranks
  std::vector<double> gather_to_root(const std::vector<double>& v) const;
  std::vector<long long> gather_to_root(const std::vector<long long>& v) const;
  // Ends every rank of the job with `code` (after this rank reported its error). With one rank:
  // returns (the caller exits normally).
  void abort(int code) const;

 private:
  friend void init_world(int*, char***);
  int rank_ = 0, size_ = 1;
};

// The run's process group (one rank until init_world joins an MPI job).
const Comm& world();

// Joins the MPI job when this process was started by an MPI launcher (OMPI_COMM_WORLD_SIZE,
// PMIX_RANK or PMI_SIZE in the environment) and the build has MPI; a build without MPI started
// by mpirun with several ranks refuses (UserError) instead of running P copies of one run.
// Safe to call once; finalize_world() ends it.
void init_world(int* argc, char*** argv);
void finalize_world();

// True when the build can run on several ranks.
bool mpi_available();

}  // namespace dgmax
