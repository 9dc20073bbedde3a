#include "solver/io/checkpoint_piece.hpp"

#include <hdf5.h>

#include <cstdio>
#include <filesystem>
#include <limits>

#include "solver/io/atomic_write.hpp"
#include "solver/io/checkpoint.hpp"
#include "solver/io/checkpoint_h5.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

constexpr const char* kPieceFormat = "dgmax-checkpoint-piece";
constexpr long long kPieceVersion = 2;  // 1: the same without digests (before 2026-12-06)

}  // namespace

std::string write_checkpoint_piece(const std::string& dir, const CheckpointPiece& p, bool single, std::string* digest) {
  const long long K = static_cast<long long>(p.element.size()), L = static_cast<long long>(p.aux_element.size());
  DGMAX_ASSERT(K > 0 && K <= std::numeric_limits<int>::max() && p.q.K == K && p.res.K == K && p.q.Np > 0 &&
                   p.res.Np == p.q.Np && p.q.q.size() == static_cast<size_t>(K) * kNumComponents * p.q.Np &&
                   p.res.q.size() == p.q.q.size(),
               "checkpoint piece: state does not match its elements");
  DGMAX_ASSERT(p.aux.size() == static_cast<size_t>(2 * L * p.aux_per_element) && (L == 0 || p.aux_per_element > 0),
               "checkpoint piece: auxiliary state does not match its layer elements");
  DGMAX_ASSERT(p.step >= 0 && p.piece >= 0 && p.piece < p.pieces, "checkpoint piece: step or piece out of range");
  const std::string path = checkpoint_piece_path(dir, p.step, p.piece);
  const bool as_float = single && all_exact_floats(p.q.q) && all_exact_floats(p.res.q);
  // durable before the record says the set is complete
  const std::string d = write_checkpoint_file(path, [&](const CheckpointH5& w, hid_t f) {
    w.string_attr(f, "format", kPieceFormat);
    w.int_attr(f, "format_version", kPieceVersion);
    w.string_attr(f, "set_id", p.set_id);
    w.int_attr(f, "step", p.step);
    w.int_attr(f, "piece", p.piece);
    w.int_attr(f, "pieces", p.pieces);
    w.int_attr(f, "K", K);
    w.int_attr(f, "Np", p.q.Np);
    w.int_attr(f, "L", L);
    w.int_attr(f, "A", p.aux_per_element);
    write_checkpoint_ints(w, f, "element", p.element, "global element number of each row [K]");
    write_checkpoint_fields(w, f, "q", p.q, as_float, "state [K][6][Np] (Ex Ey Ez Hx Hy Hz)");
    write_checkpoint_fields(w, f, "res", p.res, as_float, "LSERK4 residual [K][6][Np]");
    if (L > 0) {
      write_checkpoint_ints(w, f, "aux_element", p.aux_element, "global element number of each layer row [L]");
      write_checkpoint_doubles(w, f, "aux", p.aux, "PML auxiliary fields, then their LSERK4 residual [2][L][A]");
    }
  });
  if (digest) *digest = d;
  return path;
}

CheckpointPiece read_checkpoint_piece(const std::string& path, bool with_state, bool allow_float32) {
  QuietHdf5Errors quiet;
  const CheckpointH5 r(path, false);
  H5Id file = open_checkpoint_file(r, " (the checkpoint set is incomplete)");
  const hid_t f = file.get();
  const bool digested = r.begin_read(f);  // then every value is checked before it is used
  if (r.read_string_attr(f, "format") != kPieceFormat)
    r.fail("not a piece of a dgmax checkpoint (format is not '" + std::string(kPieceFormat) + "')");
  if (const long long v = r.read_int_attr(f, "format_version"); v != kPieceVersion)
    r.fail("checkpoint piece format version " + std::to_string(v) + " is not supported (this build reads version " +
           std::to_string(kPieceVersion) + ")");
  if (!digested) r.fail("its digest list (attribute 'digests') is missing");
  CheckpointPiece p;
  p.digest = r.file_digest();
  p.set_id = r.read_string_attr(f, "set_id");
  p.step = r.read_int_attr(f, "step");
  p.piece = r.read_int_attr(f, "piece");
  p.pieces = r.read_int_attr(f, "pieces");
  const long long K = r.read_int_attr(f, "K"), Np = r.read_int_attr(f, "Np"), L = r.read_int_attr(f, "L");
  p.aux_per_element = r.read_int_attr(f, "A");
  if (p.step < 0 || p.piece < 0 || p.piece >= p.pieces) r.fail("step or piece number out of range");
  if (K <= 0 || K > std::numeric_limits<int>::max() || Np <= 0 || Np > 100000 || L < 0 || L > K ||
      p.aux_per_element < 0 || (L > 0 && p.aux_per_element == 0) || p.aux_per_element > 100 * Np)
    r.fail("sizes out of range (K = " + std::to_string(K) + ", Np = " + std::to_string(Np) + ", L = " +
           std::to_string(L) + ", A = " + std::to_string(p.aux_per_element) + ")");
  p.element = read_checkpoint_ints(r, f, "element");
  if (p.element.size() != static_cast<size_t>(K)) r.fail("dataset 'element' is not [K] = [" + std::to_string(K) + "]");
  if (L > 0) {
    p.aux_element = read_checkpoint_ints(r, f, "aux_element");
    if (p.aux_element.size() != static_cast<size_t>(L))
      r.fail("dataset 'aux_element' is not [L] = [" + std::to_string(L) + "]");
  }
  if (with_state) {
    p.q = read_checkpoint_fields(r, f, "q", static_cast<int>(K), static_cast<int>(Np), allow_float32);
    p.res = read_checkpoint_fields(r, f, "res", static_cast<int>(K), static_cast<int>(Np), allow_float32);
    if (L > 0) {
      p.aux = read_checkpoint_doubles(r, f, "aux");
      if (p.aux.size() != static_cast<size_t>(2 * L * p.aux_per_element))
        r.fail("dataset 'aux' is not [2][L][A] = [2][" + std::to_string(L) + "][" + std::to_string(p.aux_per_element) + "]");
    }
    r.finish_read();  // every item of the file was read and matched its digest
  }
  r.check(H5Fclose(file.release()), "H5Fclose");
  return p;
}

}  // namespace dgmax
