// The one output interface the solver calls: a time series of field snapshots in a directory.
//
//   SnapshotWriter out("results", "cavity", {&md.mesh, &ref, &xyz});
//   out.write(q, t);   // results/cavity_00000.vtu (+ results/cavity.pvd), then _00001, ...
//
// Formats (see vtk_writer.hpp and hdf5_writer.hpp for the file contents):
//   Vtu   <dir>/<stem>_<NNNNN>.vtu, high-order Lagrange cells, plus <dir>/<stem>.pvd listing them
//         with their times (rewritten atomically after each snapshot). Needs a VTK build.
//   Hdf5  <dir>/<stem>_<NNNNN>.h5, one self-contained file per snapshot (time inside). No .pvd:
//         postprocess/h5_to_vtu.py turns them into .vtu files plus <stem>.pvd.
//   Both  both of the above (the .pvd lists the .vtu files).
//   Auto  Vtu in VTK builds (DGMAX_HAS_VTK), Hdf5 otherwise.
// NNNNN is the snapshot index 0, 1, 2, ... (zero-padded to 5 digits, wider past 99999). Every file
// is written to a temporary "<name>.<pid>.<nonce>.<n>.dgmax.tmp" and renamed (atomic_write.hpp), so a
// failed run never leaves a truncated file. AsyncSnapshotWriter (async_snapshot_writer.hpp) runs
// this writer on a background thread so that the time stepping goes on while it writes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "solver/element/reference_element.hpp"
#include "solver/io/hdf5_writer.hpp"
#include "solver/io/pvd_writer.hpp"
#include "solver/mesh/face_maps.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/physics/fields.hpp"

namespace dgmax {

enum class SnapshotFormat { Auto, Vtu, Hdf5, Both };

// "auto", "vtu", "hdf5" (or "h5"), "both" -> format; UserError listing the choices otherwise.
SnapshotFormat parse_snapshot_format(const std::string& text);
const char* to_string(SnapshotFormat f);
// True when this build can write .vtu files (DGMAX_HAS_VTK).
bool vtu_output_available();

// What the writer reads on every snapshot; all three must outlive the SnapshotWriter.
struct SnapshotContext {
  const Mesh* mesh = nullptr;
  const RefElement* ref = nullptr;
  const NodeCoords* xyz = nullptr;  // node coordinates for ref (used by the HDF5 format)
  // A partitioned run: each rank writes its piece <stem>_<NNNNN>_p<RRRR>.vtu (.h5) of its own
  // elements; rank 0 also writes <stem>_<NNNNN>.pvtu listing the pieces, and the .pvd lists those.
  int rank = 0;
  int parts = 1;
  const std::vector<long long>* element_ids = nullptr;  // [K] global element numbers (.vtu "element"), or null
};

class VtuWriter;

class SnapshotWriter {
 public:
  using Format = SnapshotFormat;

  // Creates `dir` (with parents) and checks that it is writable; throws UserError naming the
  // directory and the OS reason otherwise, and when `f` is Vtu/Both in a build without VTK, or
  // `stem` is empty or contains '/'.
  SnapshotWriter(std::string dir, std::string stem, SnapshotContext ctx, Format f = Format::Auto);
  ~SnapshotWriter();
  SnapshotWriter(const SnapshotWriter&) = delete;
  SnapshotWriter& operator=(const SnapshotWriter&) = delete;

  // Writes snapshot number count() at `time` (and rewrites the .pvd). Throws UserError naming the
  // path on I/O failure; files of earlier snapshots stay valid.
  void write(const Fields& q, double time);
  // Single-precision state: converted to double, then written.
  void write(const FieldsT<float>& q, double time);

  // A restarted run: takes snapshots 0 .. times.size()-1 as already written (by the run being
  // continued, with these times, on any number of ranks: the .pvd lists the .pvtu index where
  // there is one, else the .vtu), so the series and the .pvd go on from there. Only before the
  // first write(); the files themselves are not read. InternalError otherwise.
  void resume(const std::vector<double>& times);

  // Paths of all snapshot files written so far, in order (both files per snapshot for Both).
  const std::vector<std::string>& files() const { return files_; }
  // Path of the .pvd collection ("" for Hdf5).
  std::string pvd_path() const;
  // The resolved format (never Auto).
  Format format() const { return format_; }
  int count() const { return count_; }
  const std::string& directory() const { return dir_; }

  // Units written into the HDF5 attributes.
  void set_hdf5_units(const Hdf5Units& u) { units_ = u; }

 private:
  std::string snapshot_name(int index, const char* ext) const;  // file name without dir
  std::string piece_name(int index, int rank, const char* ext) const;  // this name, or a rank's piece of it
  bool writes_index() const { return ctx_.rank == 0; }             // the .pvd (and .pvtu) are rank 0's

  std::string dir_, stem_;
  SnapshotContext ctx_;
  Format format_;
  int count_ = 0;
  std::vector<std::string> files_;
  std::unique_ptr<PvdWriter> pvd_;
  std::unique_ptr<VtuWriter> vtu_;  // VTK builds only
  Hdf5Units units_;
};

}  // namespace dgmax
