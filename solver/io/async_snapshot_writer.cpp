#include "solver/io/async_snapshot_writer.hpp"

#include <algorithm>
#include <iostream>
#include <utility>

#include "solver/util/clock.hpp"
#include "solver/util/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace dgmax {

AsyncSnapshotWriter::AsyncSnapshotWriter(std::string dir, std::string stem, SnapshotContext ctx, Format f)
    : writer_(std::make_unique<SnapshotWriter>(std::move(dir), std::move(stem), ctx, f)),
      K_(ctx.mesh->num_elements()),
      Np_(ctx.ref->Np) {
  committer_ = std::thread([this] { commit_loop(); });
  thread_ = std::thread([this] { run(); });
}

AsyncSnapshotWriter::~AsyncSnapshotWriter() {
  try {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    {
      std::lock_guard<std::mutex> lock(m_);
      writer_done_ = true;
    }
    cv_.notify_all();
    if (committer_.joinable()) committer_.join();  // drains: every written snapshot is committed
    if (error_ && !error_reported_) {
      try {
        std::rethrow_exception(error_);
      } catch (const UserError& e) {
        std::cerr << "warning: snapshot output stopped: " << e.message() << "\n";
      } catch (const std::exception& e) {
        std::cerr << "warning: snapshot output stopped: " << e.what() << "\n";
      } catch (...) {
        std::cerr << "warning: snapshot output stopped by an unknown error\n";
      }
    }
  } catch (...) {
    // nothing may leave a destructor
  }
}

int AsyncSnapshotWriter::alive() const {
  return outstanding_ + (queued_ ? 1 : 0) + (busy_ ? 1 : 0) + static_cast<int>(free_.size());
}

void AsyncSnapshotWriter::note_alive() { stats_.max_buffers_alive = std::max(stats_.max_buffers_alive, alive()); }

void AsyncSnapshotWriter::rethrow_if_failed() {
  if (error_) {
    error_reported_ = true;
    std::rethrow_exception(error_);
  }
}

void AsyncSnapshotWriter::wait(std::unique_lock<std::mutex>& lock, bool (AsyncSnapshotWriter::*ready)() const) {
  if ((this->*ready)()) return;
  const auto t0 = Clock::now();
  cv_.wait(lock, [&] { return (this->*ready)(); });
  ++stats_.waits;
  stats_.wait_seconds += seconds_since(t0);
}

template <class Real>
FieldsT<Real> AsyncSnapshotWriter::acquire() {
  std::unique_lock<std::mutex> lock(m_);
  rethrow_if_failed();
  wait(lock, &AsyncSnapshotWriter::buffer_free);
  rethrow_if_failed();
  FieldsT<Real> out;
  // a free buffer of the right type; else drop one of the other type to make room
  const auto it = std::find_if(free_.begin(), free_.end(),
                               [](const Buffer& b) { return std::holds_alternative<FieldsT<Real>>(b); });
  bool reused = false;
  if (it != free_.end()) {
    out = std::move(std::get<FieldsT<Real>>(*it));
    free_.erase(it);
    reused = true;
  } else if (!free_.empty()) {
    free_.pop_back();
  }
  ++outstanding_;
  if (!reused) ++stats_.buffers_allocated;
  note_alive();
  lock.unlock();
  if (!reused) out = FieldsT<Real>(K_, Np_);  // allocated outside the lock
  return out;
}

Fields AsyncSnapshotWriter::acquire_buffer() { return acquire<double>(); }
FieldsT<float> AsyncSnapshotWriter::acquire_float_buffer() { return acquire<float>(); }

template <class Real>
void AsyncSnapshotWriter::submit(FieldsT<Real>&& q, double time) {
  DGMAX_ASSERT(q.K == K_ && q.Np == Np_ && q.q.size() == static_cast<size_t>(K_) * kNumComponents * Np_,
               "snapshot state of shape (" + std::to_string(q.K) + ", " + std::to_string(q.Np) +
                   ") for a mesh of " + std::to_string(K_) + " elements of " + std::to_string(Np_) + " nodes");
  std::unique_lock<std::mutex> lock(m_);
  // An acquired buffer comes back (it counts as queued from now on). Counted per call, not by
  // identity: a caller may have replaced the acquired vector (a backend's get_state that assigns
  // a new Fields) and still hands over one buffer for the one it took.
  if (outstanding_ > 0) --outstanding_;
  Buffer buf(std::move(q));
  rethrow_if_failed();
  wait(lock, &AsyncSnapshotWriter::queue_free);
  rethrow_if_failed();
  queued_ = Job{std::move(buf), time, units_};
  ++count_;
  // a caller that brings its own buffers: keep no more than kMaxBuffers in all
  while (alive() > kMaxBuffers && !free_.empty()) free_.pop_back();
  note_alive();
  lock.unlock();
  cv_.notify_all();
}

void AsyncSnapshotWriter::write(Fields&& q, double time) { submit(std::move(q), time); }
void AsyncSnapshotWriter::write(FieldsT<float>&& q, double time) { submit(std::move(q), time); }

void AsyncSnapshotWriter::write(const Fields& q, double time) {
  DGMAX_ASSERT(q.K == K_ && q.Np == Np_ && q.q.size() == static_cast<size_t>(K_) * kNumComponents * Np_,
               "snapshot state of the wrong shape");
  Fields buf = acquire_buffer();
  std::copy(q.q.begin(), q.q.end(), buf.q.begin());
  submit(std::move(buf), time);
}

void AsyncSnapshotWriter::finish() {
  std::unique_lock<std::mutex> lock(m_);
  wait(lock, &AsyncSnapshotWriter::idle);
  rethrow_if_failed();
}

void AsyncSnapshotWriter::set_hdf5_units(const Hdf5Units& u) {
  std::lock_guard<std::mutex> lock(m_);
  units_ = u;
}

std::vector<std::string> AsyncSnapshotWriter::files() const {
  std::lock_guard<std::mutex> lock(m_);
  return files_;
}

void AsyncSnapshotWriter::resume(const std::vector<double>& times) {
  std::lock_guard<std::mutex> lock(m_);
  DGMAX_ASSERT(count_ == 0 && !queued_ && !busy_, "AsyncSnapshotWriter::resume after a write");
  writer_->resume(times);  // the background thread is idle: it touches the writer only for a job
  files_ = writer_->files();
  count_ = written_ = static_cast<int>(times.size());
}

int AsyncSnapshotWriter::count() const {
  std::lock_guard<std::mutex> lock(m_);
  return count_;
}

int AsyncSnapshotWriter::written() const {
  std::lock_guard<std::mutex> lock(m_);
  return written_;
}

int AsyncSnapshotWriter::pending() const {
  std::lock_guard<std::mutex> lock(m_);
  return (queued_ ? 1 : 0) + (busy_ ? 1 : 0);
}

AsyncSnapshotWriter::Stats AsyncSnapshotWriter::stats() const {
  std::lock_guard<std::mutex> lock(m_);
  return stats_;
}

void AsyncSnapshotWriter::run() {
#ifdef _OPENMP
  // OpenMP regions inside the writers (Eigen) use this thread only: the stepping keeps its cores.
  omp_set_num_threads(1);
#endif
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return queued_.has_value() || stop_; });
    if (!queued_) return;  // asked to stop and nothing left
    std::optional<Job> job = std::move(queued_);
    queued_.reset();
    busy_ = true;
    const bool skip = failed();  // after a failure later snapshots are dropped
    cv_.notify_all();            // the queue slot is free
    lock.unlock();

    std::exception_ptr err;
    Batch batch;
    const auto t0 = Clock::now();
    {
      CommitDeferral deferral;  // files stay under their temporary names; the committer renames them
      try {
        if (!skip) {
          writer_->set_hdf5_units(job->units);
          std::visit([&](const auto& q) { writer_->write(q, job->time); }, job->q);
        }
      } catch (...) {
        err = std::current_exception();
      }
      try {
        batch.files = writer_->files();
      } catch (...) {
        if (!err) err = std::current_exception();
      }
      batch.commits = deferral.take();  // what was complete before an error is committed too
    }
    batch.complete = !skip && !err;
    const double secs = seconds_since(t0);

    lock.lock();
    // back-pressure from the disk: the snapshots before this one are committed but for a few
    if (!skip) cv_.wait(lock, [&] { return uncommitted() < kMaxUncommitted; });
    busy_ = false;
    stats_.write_seconds += secs;
    if (err && !error_) error_ = err;
    if (!skip) {
      batches_.push_back(std::move(batch));
      stats_.max_uncommitted = std::max(stats_.max_uncommitted, uncommitted());
    }
    if (alive() < kMaxBuffers) free_.push_back(std::move(job->q));  // else freed with `job`
    job.reset();
    note_alive();
    cv_.notify_all();
  }
}

void AsyncSnapshotWriter::commit_loop() {
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return !batches_.empty() || writer_done_; });
    if (batches_.empty()) return;  // the writer has ended and everything is committed
    Batch batch = std::move(batches_.front());
    batches_.pop_front();
    committing_ = true;
    lock.unlock();

    std::exception_ptr err;
    const auto t0 = Clock::now();
    try {
      commit_pending(batch.commits);
    } catch (...) {
      err = std::current_exception();
    }
    const double secs = seconds_since(t0);

    lock.lock();
    committing_ = false;
    stats_.commit_seconds += secs;
    if (err && !error_) error_ = err;
    if (!err && batch.complete) ++written_;
    if (!err && batch.files.size() >= files_.size()) files_ = std::move(batch.files);
    cv_.notify_all();
  }
}

}  // namespace dgmax
