// The HDF5 pieces of checkpoint files (checkpoint.hpp: one-rank files and the records of a set;
// checkpoint_piece.hpp: a rank's piece of a set): every call checked, with a UserError naming the
// file; every attribute and dataset covered by a SHA-256 digest (checkpoint_digest.hpp), checked as
// it is read, and the large datasets chunked with Fletcher-32 checksums besides.
#pragma once

#include <hdf5.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "solver/io/checkpoint_digest.hpp"
#include "solver/io/hdf5_util.hpp"
#include "solver/physics/fields.hpp"

namespace dgmax {

// Every HDF5 call goes through check(): a negative result becomes a UserError naming the file, the
// call and the object, with HDF5's message. `writing` chooses the message and its hint.
class CheckpointH5 {
 public:
  CheckpointH5(std::string path, bool writing) : path_(std::move(path)), writing_(writing) {}

  [[noreturn]] void fail(const std::string& what) const;

  template <class T>
  T check(T result, const char* call, const std::string& object = {}) const {
    if (result < 0) fail_call(call, object);
    return result;
  }

  void string_attr(hid_t obj, const std::string& name, const std::string& value) const;
  void int_attr(hid_t obj, const std::string& name, long long value) const;
  void double_attr(hid_t obj, const std::string& name, double value) const;
  std::string read_string_attr(hid_t obj, const std::string& name) const;
  long long read_int_attr(hid_t obj, const std::string& name) const;
  double read_double_attr(hid_t obj, const std::string& name) const;

  // An existing dataset or link (H5Lexists).
  bool has(hid_t f, const std::string& name) const;

  // Digests (checkpoint_digest.hpp). Writing: every attribute and dataset written through this
  // object is added; finish_write stores the list as the root attribute "digests". Reading:
  // begin_read loads the list (false when the file has none: an older format), after which every
  // read is checked against it; finish_read fails when a listed item was not read.
  void digest(hid_t obj, const std::string& name, std::string_view type, const void* bytes, size_t size) const;
  void finish_write(hid_t f) const;
  bool begin_read(hid_t f) const;
  void finish_read() const;
  // The SHA-256 of the digest list: the whole file's digest.
  std::string file_digest() const { return digests_.file_digest(); }

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail_call(const char* call, const std::string& object) const;
  void attr(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type, const void* value) const;
  H5Id string_type(const std::string& object) const;
  H5Id open_scalar_attr(hid_t obj, const std::string& name, H5T_class_t cls) const;

  std::string path_;
  bool writing_;
  mutable CheckpointDigests digests_;
};

// Writes the HDF5 file `path` whole or not at all: `body` fills a new file under a temporary name,
// which is closed and renamed into place durably (commit_temp_file_now); on failure the temporary
// file is removed and the error goes on. Its digest list is written last; returns the file's
// digest (CheckpointH5::file_digest).
std::string write_checkpoint_file(const std::string& path, const std::function<void(const CheckpointH5& w, hid_t f)>& body);
// The HDF5 file r.path() opened for reading; r.fail("no such file" + missing_note) when there is
// none, "not an HDF5 file" when it is something else.
H5Id open_checkpoint_file(const CheckpointH5& r, const std::string& missing_note = {});

// True when every value is exactly a float (bitwise: the float widened again is the same double).
bool all_exact_floats(const std::vector<double>& v);

// [K][6][Np] fields (about 1 MiB per chunk), as float32 when `as_float` (exact: the caller checked
// with all_exact_floats), else float64; `long_name` is stored as an attribute.
void write_checkpoint_fields(const CheckpointH5& w, hid_t f, const std::string& name, const Fields& q, bool as_float,
                             const std::string& long_name);
// Reads [K][6][Np] after checking the shape, the type (float64, or float32 widened exactly when
// `allow_float32`: a single-precision run's), the Fletcher-32 filter and that every chunk is there.
Fields read_checkpoint_fields(const CheckpointH5& r, hid_t f, const std::string& name, int K, int Np,
                              bool allow_float32);

// Text as a uint8 dataset (attributes are limited to 64 KiB); reading: fails when missing.
void write_checkpoint_bytes(const CheckpointH5& w, hid_t f, const std::string& name, const std::string& text);
std::string read_checkpoint_bytes(const CheckpointH5& r, hid_t f, const std::string& name);

// Flat float64 / int64 arrays, chunked and checksummed. Reading: empty when the dataset is absent
// (a dataset that its digest list names but is absent fails CheckpointH5::finish_read).
void write_checkpoint_doubles(const CheckpointH5& w, hid_t f, const std::string& name, const std::vector<double>& v,
                              const std::string& long_name);
std::vector<double> read_checkpoint_doubles(const CheckpointH5& r, hid_t f, const std::string& name);
void write_checkpoint_ints(const CheckpointH5& w, hid_t f, const std::string& name, const std::vector<long long>& v,
                           const std::string& long_name);
std::vector<long long> read_checkpoint_ints(const CheckpointH5& r, hid_t f, const std::string& name);

}  // namespace dgmax
