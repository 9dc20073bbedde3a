// Errors every rank meets alike, said once. The config and the whole mesh are read and checked by
// every rank the same way, so a mistake in them is found by all ranks at about the same time; which
// rank says it must not depend on that timing (a loaded machine can hold rank 0 back by seconds).
// agree_on_errors runs such a phase and lets the ranks agree afterwards on who speaks.
#pragma once

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "solver/parallel/comm.hpp"

namespace dgmax {

// Thrown on the ranks that stay silent: rank `rank` met an error in the same phase and says it,
// then ends the job (main.cpp waits for that instead of ending it first).
class PeerReportsError : public std::exception {
 public:
  explicit PeerReportsError(int rank) : rank_(rank) {}
  int rank() const { return rank_; }
  const char* what() const noexcept override { return "another rank reports the error"; }

 private:
  int rank_;
};

// Runs fn() on every rank of world() at the same point of the program. fn may throw, but it must
// not call a collective operation (a rank that threw would never reach it). Afterwards the ranks
// agree, in one collective: when fn threw on any rank, the lowest such rank rethrows its own
// exception and every other rank throws PeerReportsError; otherwise fn's result is returned. With
// one rank: fn() itself.
template <class F>
auto agree_on_errors(F&& fn) -> decltype(fn()) {
  using R = decltype(fn());
  const Comm& comm = world();
  if (!comm.parallel()) return fn();
  std::exception_ptr error;
  std::conditional_t<std::is_void_v<R>, bool, std::optional<R>> result{};
  try {
    if constexpr (std::is_void_v<R>)
      fn();
    else
      result.emplace(fn());
  } catch (...) {
    error = std::current_exception();
  }
  const std::vector<long long> failed = comm.gather_all(error ? 1LL : 0LL);
  for (int r = 0; r < static_cast<int>(failed.size()); ++r) {
    if (!failed[static_cast<size_t>(r)]) continue;
    if (r == comm.rank()) std::rethrow_exception(error);
    throw PeerReportsError(r);
  }
  if constexpr (!std::is_void_v<R>) return std::move(*result);
}

}  // namespace dgmax
