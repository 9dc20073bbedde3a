// Snapshots written on a background thread while the time stepping goes on (double buffering).
//
//   AsyncSnapshotWriter out(dir, "fields", {&md.mesh, p.ref, &p.xyz}, SnapshotFormat::Auto);
//   ...
//   if (snapshot_due) {
//     Fields buf = out.acquire_buffer();  // a finished snapshot's memory; waits only when both
//     backend->get_state(buf);            //   buffers are busy (one written, one queued)
//     out.write(std::move(buf), t);       // returns at once: the file is written in the background
//   }
//   ...
//   out.finish();                         // waits for the writes; rethrows a background error
//
// Files, names, formats and the .pvd are exactly those of SnapshotWriter (snapshot_writer.hpp),
// which does the writing on the background thread: every file goes to a unique temporary name and
// is renamed when complete, and the .pvd is rewritten after each snapshot in submission order.
//
// Threads and ownership: one background thread per writer, started by the constructor and joined
// by the destructor. write() takes the state by value (moved in): the caller gives the buffer up
// and the writer owns it until it is on disk, then keeps it for the next acquire_buffer(). At most
// one snapshot is being written and one waits in the queue; write() blocks only while a second one
// is already queued. Used as above (buffers from acquire_buffer), at most kMaxBuffers = 2 state
// buffers exist at any time: the one being written and the one being filled or queued (each
// write() gives back one acquired buffer, whatever vector it moves in).
// All member functions are for one (the owning) thread; the writer is not copyable or movable.
//
// Errors: an exception of the background thread (a UserError naming the path: unwritable
// directory, disk full; or anything else) is kept and rethrown, as the same exception, by the next
// acquire_buffer(), write() or finish() on the calling thread, and by every later one (the writer
// stays failed: snapshots after a failure are dropped, the files written before stay valid). It is
// never lost and never reaches std::terminate. The destructor never throws: it completes the
// snapshots still queued (at most two), joins the thread, and prints an error that no call
// reported to std::cerr as one "warning:" line (the run is already failing in that case).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "solver/io/atomic_write.hpp"
#include "solver/io/snapshot_writer.hpp"

namespace dgmax {

class AsyncSnapshotWriter {
 public:
  using Format = SnapshotFormat;
  static constexpr int kMaxBuffers = 2;
  // At most this many snapshots are written but not yet committed (fsync + rename, on the
  // committing thread): when the disk syncs slower than snapshots come, the writer waits for it
  // instead of running ahead, so a run killed outright (SIGKILL, the out-of-memory killer) loses at
  // most these, and each file appears soon after its time step.
  static constexpr int kMaxUncommitted = 2;

  // As SnapshotWriter's constructor (throws its UserErrors here, on the calling thread: bad stem,
  // uncreatable or unwritable directory, VTU without VTK), then starts the background thread.
  // `ctx` must outlive the writer.
  AsyncSnapshotWriter(std::string dir, std::string stem, SnapshotContext ctx, Format f = Format::Auto);
  // Completes the queued snapshots, joins the thread; never throws (see above).
  ~AsyncSnapshotWriter();
  AsyncSnapshotWriter(const AsyncSnapshotWriter&) = delete;
  AsyncSnapshotWriter& operator=(const AsyncSnapshotWriter&) = delete;

  // A state buffer of the context's shape (K elements, Np nodes) to fill for the next snapshot:
  // the memory of a finished snapshot when one is free (its old values still in it), else a new
  // zero-filled one while fewer than kMaxBuffers exist, else it waits for the snapshot being
  // written to finish and returns its buffer. Rethrows a background error.
  Fields acquire_buffer();
  FieldsT<float> acquire_float_buffer();

  // Queues snapshot number count() of `q` at `time` and returns; waits only while another
  // snapshot is already queued. `q` must have the context's shape (else InternalError); it need
  // not come from acquire_buffer(). Single precision is converted to double when written.
  // Rethrows a background error (then `q` is dropped and nothing is queued).
  void write(Fields&& q, double time);
  void write(FieldsT<float>&& q, double time);
  // Copies `q` (into an acquired buffer) for a caller that keeps using its state.
  void write(const Fields& q, double time);

  // SnapshotWriter::resume, before the first write (a restarted run continues the series).
  void resume(const std::vector<double>& times);

  // Waits until every queued snapshot is on disk (with its .pvd entry); rethrows a background
  // error. The writer stays usable: write() after finish() continues the series.
  void finish();

  // Units written into the HDF5 attributes of snapshots queued after this call.
  void set_hdf5_units(const Hdf5Units& u);

  // Paths of the snapshot files on disk so far, in order (all of them after finish()).
  std::vector<std::string> files() const;
  // Path of the .pvd collection ("" for Hdf5).
  std::string pvd_path() const { return writer_->pvd_path(); }
  // The resolved format (never Auto).
  Format format() const { return writer_->format(); }
  const std::string& directory() const { return writer_->directory(); }
  // Snapshots handed to write() (the next snapshot's index); equals written() after a
  // successful finish().
  int count() const;
  // Snapshots on disk so far.
  int written() const;
  // Snapshots queued or being written (0 after finish()).
  int pending() const;

  struct Stats {
    int buffers_allocated = 0;    // new buffers made by acquire_*buffer (the rest were reused)
    int max_buffers_alive = 0;    // most buffers held by the writer or handed out by it at once
    int waits = 0;                // calls of acquire_*buffer/write/finish that had to wait
    double wait_seconds = 0;      // time the calling thread spent in those waits
    double write_seconds = 0;     // time the background thread spent writing (to temporary files)
    double commit_seconds = 0;    // time the committing thread spent in fsync and rename
    int max_uncommitted = 0;      // most snapshots written but not yet committed at once
  };
  Stats stats() const;

 private:
  using Buffer = std::variant<Fields, FieldsT<float>>;
  struct Job {
    Buffer q;
    double time = 0;
    Hdf5Units units;
  };

  template <class Real>
  FieldsT<Real> acquire();
  template <class Real>
  void submit(FieldsT<Real>&& q, double time);
  void run();                                          // the background thread
  void rethrow_if_failed();                            // with m_ held
  int alive() const;                                   // with m_ held
  void note_alive();                                   // with m_ held
  void wait(std::unique_lock<std::mutex>& lock, bool (AsyncSnapshotWriter::*ready)() const);
  bool queue_free() const { return !queued_ || failed(); }
  bool idle() const {
    return ((!queued_ && !busy_) || (failed() && !busy_)) && batches_.empty() && !committing_;
  }
  bool buffer_free() const { return !free_.empty() || alive() < kMaxBuffers || failed() || (!queued_ && !busy_); }
  bool failed() const { return static_cast<bool>(error_); }
  int uncommitted() const { return static_cast<int>(batches_.size()) + (committing_ ? 1 : 0); }

  std::unique_ptr<SnapshotWriter> writer_;  // used by the background thread only, after construction
  const int K_, Np_;

  mutable std::mutex m_;
  std::condition_variable cv_;  // every state change below is notified to all waiters
  std::optional<Job> queued_;   // at most one snapshot waiting
  bool busy_ = false;           // the background thread is writing a snapshot
  bool stop_ = false;           // the destructor asks the thread to drain and end
  std::vector<Buffer> free_;    // buffers of finished snapshots, for acquire_*buffer
  int outstanding_ = 0;         // buffers handed out by acquire_*buffer, not yet given back
  std::exception_ptr error_;    // the first background error
  bool error_reported_ = false;
  int count_ = 0, written_ = 0;
  std::vector<std::string> files_;
  Hdf5Units units_;
  Stats stats_;
  // Committing (fsync + rename, in order) on a second thread: the writer thread hands over a
  // snapshot's files once they are written to their temporary names and frees the buffer, so
  // the stepping waits neither for the disk's bandwidth nor for its latency.
  struct Batch {
    std::vector<PendingCommit> commits;
    std::vector<std::string> files;  // the writer's file list once this batch is on disk
    bool complete = false;           // the whole snapshot (not the part before an error)
  };
  void commit_loop();  // the committing thread
  std::deque<Batch> batches_;
  bool committing_ = false;
  bool writer_done_ = false;  // the writer thread has ended (the committer may end when drained)
  std::thread committer_;
  std::thread thread_;  // last: started when everything above is initialized
};

}  // namespace dgmax
