#include "solver/io/snapshot_writer.hpp"

#include <cstdio>
#include <filesystem>
#include <utility>

#include "dgmax/config.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/io/pvtu_writer.hpp"
#include "solver/util/error.hpp"

#if DGMAX_HAS_VTK
#include "solver/io/vtk_writer.hpp"
#else
namespace dgmax {
// Never instantiated without VTK; complete so that unique_ptr<VtuWriter> can be destroyed.
class VtuWriter {
 public:
  void write(const std::string&, const Fields&, double) {}
};
}  // namespace dgmax
#endif

namespace dgmax {

bool vtu_output_available() { return DGMAX_HAS_VTK != 0; }

SnapshotFormat parse_snapshot_format(const std::string& text) {
  if (text == "auto") return SnapshotFormat::Auto;
  if (text == "vtu" || text == "vtk") return SnapshotFormat::Vtu;
  if (text == "hdf5" || text == "h5") return SnapshotFormat::Hdf5;
  if (text == "both") return SnapshotFormat::Both;
  throw UserError("unknown output format '" + text + "'", {},
                  "use one of: auto, vtu, hdf5, both");
}

const char* to_string(SnapshotFormat f) {
  switch (f) {
    case SnapshotFormat::Auto: return "auto";
    case SnapshotFormat::Vtu: return "vtu";
    case SnapshotFormat::Hdf5: return "hdf5";
    case SnapshotFormat::Both: return "both";
  }
  return "?";
}

SnapshotWriter::SnapshotWriter(std::string dir, std::string stem, SnapshotContext ctx, Format f)
    : dir_(std::move(dir)), stem_(std::move(stem)), ctx_(ctx), format_(f) {
  DGMAX_ASSERT(ctx_.mesh && ctx_.ref && ctx_.xyz, "SnapshotContext has a null member");
  if (stem_.empty() || stem_.find('/') != std::string::npos)
    throw UserError("invalid output file name '" + stem_ + "'", {},
                    "give a plain name without '/' (the directory is set separately)");
  if (format_ == Format::Auto) format_ = vtu_output_available() ? Format::Vtu : Format::Hdf5;
  if ((format_ == Format::Vtu || format_ == Format::Both) && !vtu_output_available())
    throw UserError(std::string("output format '") + to_string(format_) +
                        "' needs VTK, but this dgmax was built without it",
                    {},
                    "use format hdf5 and convert with postprocess/h5_to_vtu.py, or rebuild "
                    "with -DDGMAX_USE_VTK=ON");
  ensure_writable_directory(dir_);
  if (format_ == Format::Vtu || format_ == Format::Both) {
#if DGMAX_HAS_VTK
    vtu_ = std::make_unique<VtuWriter>(*ctx_.mesh, *ctx_.ref, ctx_.element_ids);
#endif
    if (writes_index())
      pvd_ = std::make_unique<PvdWriter>((std::filesystem::path(dir_) / (stem_ + ".pvd")).string());
  }
}

SnapshotWriter::~SnapshotWriter() = default;

std::string SnapshotWriter::snapshot_name(int index, const char* ext) const {
  char num[32];
  std::snprintf(num, sizeof num, "%05d", index);
  return stem_ + "_" + num + ext;
}

std::string SnapshotWriter::piece_name(int index, int rank, const char* ext) const {
  if (ctx_.parts <= 1) return snapshot_name(index, ext);
  char part[32];
  std::snprintf(part, sizeof part, "_p%04d", rank);
  const std::string whole = snapshot_name(index, "");
  return whole + part + ext;
}

std::string SnapshotWriter::pvd_path() const { return pvd_ ? pvd_->path() : std::string(); }

void SnapshotWriter::write(const Fields& q, double time) {
  const int index = count_;
  if (format_ == Format::Vtu || format_ == Format::Both) {
    const std::string name = piece_name(index, ctx_.rank, ".vtu");
    const std::string path = (std::filesystem::path(dir_) / name).string();
    vtu_->write(path, q, time);
    files_.push_back(path);
    if (ctx_.parts > 1 && writes_index()) {  // the pieces of the other ranks are written by them
      std::vector<std::string> pieces;
      for (int r = 0; r < ctx_.parts; ++r) pieces.push_back(piece_name(index, r, ".vtu"));
      const std::string index_name = snapshot_name(index, ".pvtu");
      write_pvtu((std::filesystem::path(dir_) / index_name).string(), pieces);
      files_.push_back((std::filesystem::path(dir_) / index_name).string());
      pvd_->add(time, index_name);
    } else if (pvd_) {
      pvd_->add(time, name);
    }
  }
  if (format_ == Format::Hdf5 || format_ == Format::Both) {
    const std::string path = (std::filesystem::path(dir_) / piece_name(index, ctx_.rank, ".h5")).string();
    write_hdf5_snapshot(path, *ctx_.mesh, *ctx_.ref, *ctx_.xyz, q, time, index, units_);
    files_.push_back(path);
  }
  ++count_;
}

void SnapshotWriter::resume(const std::vector<double>& times) {
  DGMAX_ASSERT(count_ == 0, "SnapshotWriter::resume after a write");
  const std::filesystem::path dir(dir_);
  for (const double time : times) {
    const int index = count_++;
    if (format_ == Format::Vtu || format_ == Format::Both) {
      // the run being continued may have had another number of ranks: its .pvtu index of pieces,
      // or its whole .vtu, whichever it left (else what this run would write)
      const std::string whole = snapshot_name(index, ".vtu"), joined = snapshot_name(index, ".pvtu");
      std::error_code ec;
      const bool pieces = std::filesystem::exists(dir / joined, ec) || (ctx_.parts > 1 && !std::filesystem::exists(dir / whole, ec));
      const std::string name = pieces ? joined : whole;
      files_.push_back((dir / name).string());
      if (pvd_) pvd_->add(time, name);
    }
    if (format_ == Format::Hdf5 || format_ == Format::Both)
      files_.push_back((dir / piece_name(index, ctx_.rank, ".h5")).string());
  }
}

void SnapshotWriter::write(const FieldsT<float>& q, double time) {
  Fields d(q.K, q.Np);
  for (size_t i = 0; i < q.q.size(); ++i) d.q[i] = q.q[i];
  write(d, time);
}

}  // namespace dgmax
