#include "solver/parallel/comm.hpp"

#include <cstdlib>
#include <limits>

#include "dgmax/config.hpp"
#include "solver/util/error.hpp"

#if DGMAX_HAS_MPI
#include <mpi.h>
#endif

namespace dgmax {
namespace {

Comm g_world;
bool g_joined = false;  // MPI_Init was called by us

// The launcher's rank count when this process is part of an MPI job, else 0.
int launcher_size() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  if (std::getenv("PMIX_RANK")) return 1;
  return 0;
}

}  // namespace

const Comm& world() { return g_world; }

bool mpi_available() { return DGMAX_HAS_MPI != 0; }

void init_world(int* argc, char*** argv) {
  if (g_joined) return;
  const int n = launcher_size();
  if (n <= 0) return;  // not started by mpirun: one rank, no MPI_Init (it would be slow and noisy)
#if DGMAX_HAS_MPI
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_joined = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size_);
#else
  (void)argc;
  (void)argv;
  if (n > 1)
    throw UserError("this dgmax was built without MPI, but was started as one of " + std::to_string(n) +
                        " MPI ranks",
                    {}, "rebuild with MPI (libopenmpi-dev; cmake -DDGMAX_USE_MPI=ON), or run without mpirun");
#endif
}

void finalize_world() {
#if DGMAX_HAS_MPI
  if (g_joined) {
    MPI_Finalize();
    g_joined = false;
  }
#endif
}

#if DGMAX_HAS_MPI
void Comm::sum(double* v, int n) const {
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
void Comm::max(double* v, int n) const {
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}
double Comm::min(double v) const {
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return v;
}
long long Comm::sum(long long v) const {
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return v;
}
bool Comm::any(bool local) const {
  int x = local ? 1 : 0;
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return x != 0;
}
void Comm::barrier() const {
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
}
std::string Comm::broadcast(const std::string& s) const {
  if (size_ == 1) return s;
  long long n = static_cast<long long>(s.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string out = rank_ == 0 ? s : std::string(static_cast<size_t>(n), '\0');
  MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}
std::vector<long long> Comm::gather_all(long long v) const {
  std::vector<long long> out(static_cast<size_t>(size_), v);
  if (size_ > 1) MPI_Allgather(&v, 1, MPI_LONG_LONG, out.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  return out;
}
std::string Comm::first_text(const std::string& local) const {
  if (size_ == 1) return local;
  const std::vector<long long> n = gather_all(static_cast<long long>(local.size()));
  for (int r = 0; r < size_; ++r) {
    const auto len = n[static_cast<size_t>(r)];
    if (len == 0) continue;
    DGMAX_ASSERT(len <= std::numeric_limits<int>::max(), "first_text: text too long");
    std::string out = rank_ == r ? local : std::string(static_cast<size_t>(len), '\0');
    MPI_Bcast(out.data(), static_cast<int>(len), MPI_CHAR, r, MPI_COMM_WORLD);
    return out;
  }
  return {};
}
void Comm::abort(int code) const {
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

namespace {

// Every rank's count of values and where they start in the joined vector (MPI's int counts).
struct Layout {
  std::vector<int> counts, offsets;
  long long total = 0;
};
Layout layout_of(const Comm& c, size_t local, const char* what) {
  DGMAX_ASSERT(local <= static_cast<size_t>(std::numeric_limits<int>::max()), std::string(what) + ": too many values");
  const std::vector<long long> n = c.gather_all(static_cast<long long>(local));
  Layout l;
  l.counts.resize(n.size());
  l.offsets.resize(n.size());
  for (size_t r = 0; r < n.size(); ++r) {
    DGMAX_ASSERT(l.total <= std::numeric_limits<int>::max(), std::string(what) + ": too many values");
    l.counts[r] = static_cast<int>(n[r]);
    l.offsets[r] = static_cast<int>(l.total);
    l.total += n[r];
  }
  return l;
}

template <class T>
std::vector<T> gatherv_to_root(const Comm& c, const std::vector<T>& v, MPI_Datatype type) {
  if (c.size() == 1) return v;
  const Layout l = layout_of(c, v.size(), "gather_to_root");
  std::vector<T> out(c.root() ? static_cast<size_t>(l.total) : 0);
  MPI_Gatherv(v.data(), static_cast<int>(v.size()), type, out.data(), l.counts.data(), l.offsets.data(), type, 0,
              MPI_COMM_WORLD);
  return out;
}

}  // namespace

std::vector<double> Comm::gather_to_root(const std::vector<double>& v) const {
  return gatherv_to_root(*this, v, MPI_DOUBLE);
}
std::vector<long long> Comm::gather_to_root(const std::vector<long long>& v) const {
  return gatherv_to_root(*this, v, MPI_LONG_LONG);
}
std::vector<long long> Comm::gather_all(const std::vector<long long>& v) const {
  if (size_ == 1) return v;
  const Layout l = layout_of(*this, v.size(), "gather_all");
  std::vector<long long> out(static_cast<size_t>(l.total));
  MPI_Allgatherv(v.data(), static_cast<int>(v.size()), MPI_LONG_LONG, out.data(), l.counts.data(), l.offsets.data(),
                 MPI_LONG_LONG, MPI_COMM_WORLD);
  return out;
}
#else
void Comm::sum(double*, int) const {}
void Comm::max(double*, int) const {}
double Comm::min(double v) const { return v; }
long long Comm::sum(long long v) const { return v; }
bool Comm::any(bool local) const { return local; }
void Comm::barrier() const {}
std::string Comm::broadcast(const std::string& s) const { return s; }
std::vector<long long> Comm::gather_all(long long v) const { return {v}; }
std::vector<long long> Comm::gather_all(const std::vector<long long>& v) const { return v; }
std::string Comm::first_text(const std::string& local) const { return local; }
std::vector<double> Comm::gather_to_root(const std::vector<double>& v) const { return v; }
std::vector<long long> Comm::gather_to_root(const std::vector<long long>& v) const { return v; }
void Comm::abort(int) const {}
#endif

double Comm::sum(double v) const {
  sum(&v, 1);
  return v;
}
double Comm::max(double v) const {
  max(&v, 1);
  return v;
}

}  // namespace dgmax
