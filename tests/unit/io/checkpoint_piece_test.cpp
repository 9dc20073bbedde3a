// The files of a checkpoint written on several ranks (solver/io/checkpoint_piece, checkpoint):
// a rank's piece round-trips bitwise with its element numbers, a damaged or missing piece is named,
// the record carries the set and no state, and the newest two sets are kept with their pieces.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "expect_user_error.hpp"
#include "io_test_util.hpp"
#include "same_bits.hpp"
#include "solver/io/checkpoint.hpp"
#include "solver/io/checkpoint_piece.hpp"

using namespace dgmax;
using namespace dgmax::test;
namespace fs = std::filesystem;

namespace {

Fields random_rows(int K, int Np, unsigned seed) {
  Fields q(K, Np);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : q.q) v = u(rng);
  q.q[0] = -0.0;
  return q;
}

// Piece `piece` of `pieces` at `step`: K elements numbered from `first` down by 2 (any order is
// allowed), L of them in the layer with A values each.
CheckpointPiece make_piece(long long step, long long piece, long long pieces, int K, int L, const std::string& set_id) {
  CheckpointPiece p;
  p.set_id = set_id;
  p.step = step;
  p.piece = piece;
  p.pieces = pieces;
  for (int k = 0; k < K; ++k) p.element.push_back(100 * piece + 2 * (K - k));
  p.q = random_rows(K, 10, static_cast<unsigned>(step + piece));
  p.res = random_rows(K, 10, static_cast<unsigned>(step + piece + 1000));
  for (int s = 0; s < L; ++s) p.aux_element.push_back(p.element[static_cast<size_t>(s)]);
  p.aux_per_element = 180;
  p.aux.resize(static_cast<size_t>(2 * L * 180));
  for (size_t i = 0; i < p.aux.size(); ++i) p.aux[i] = 1e-3 * static_cast<double>(i) + static_cast<double>(piece);
  return p;
}

// The record of a set of two pieces of 4 elements (one in the layer), with K = 8.
Checkpoint make_record(long long step, const std::string& set_id) {
  Checkpoint c;
  c.id.config_hash = "c0ffee";
  c.id.mesh_fingerprint = "feed";
  c.id.backend = "cpu";
  c.id.precision = "double";
  c.id.K = 8;
  c.id.N = 2;
  c.id.Np = 10;
  c.id.dt = 0.1;
  c.id.t_final = 1000;
  c.step = step;
  for (long long s = 0; s < step; ++s) c.time += c.id.dt;  // the run's sum (checkpoint.hpp)
  c.progress = "{\"csv\": \"step,t,energy\\n\"}";
  c.set.pieces = 2;
  c.set.set_id = set_id;
  c.set.partition_method = "sfc";
  c.set.partition_hash = "abc";
  c.set.piece_elements = {4, 4};
  c.set.piece_layer_elements = {1, 1};
  c.set.piece_digests = {std::string(64, '0'), std::string(64, '0')};  // write_set: the pieces' own
  return c;
}

void write_set(const std::string& dir, long long step, const std::string& set_id) {
  Checkpoint c = make_record(step, set_id);
  for (long long r = 0; r < 2; ++r)
    write_checkpoint_piece(dir, make_piece(step, r, 2, 4, 1, set_id), false, &c.set.piece_digests[static_cast<size_t>(r)]);
  write_checkpoint(dir, c);
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(CheckpointPiece, RoundTripIsBitwiseWithElementNumbers) {
  TempDir dir("piece_roundtrip");
  const CheckpointPiece p = make_piece(40, 2, 3, 7, 3, "set-a");
  const std::string path = write_checkpoint_piece(dir.str(), p, false);
  EXPECT_EQ(path, checkpoint_piece_path(dir.str(), 40, 2));
  EXPECT_EQ(fs::path(path).filename().string(), "checkpoint_000000000040_p0002.h5");
  EXPECT_EQ(dir.count_tmp(), 0);
  const CheckpointPiece r = read_checkpoint_piece(path);
  EXPECT_EQ(r.set_id, "set-a");
  EXPECT_EQ(r.step, 40);
  EXPECT_EQ(r.piece, 2);
  EXPECT_EQ(r.pieces, 3);
  EXPECT_EQ(r.element, p.element);
  EXPECT_EQ(r.aux_element, p.aux_element);
  EXPECT_EQ(r.aux_per_element, 180);
  EXPECT_TRUE(same_bits(r.q.q, p.q.q));
  EXPECT_TRUE(same_bits(r.res.q, p.res.q));
  EXPECT_TRUE(same_bits(r.aux, p.aux));
  EXPECT_TRUE(std::signbit(r.q.q[0]));
  // the element lists alone, to see whether a piece holds a rank's elements
  const CheckpointPiece head = read_checkpoint_piece(path, false);
  EXPECT_EQ(head.element, p.element);
  EXPECT_TRUE(head.q.q.empty() && head.aux.empty());
  // a piece without layer elements has no /aux
  const CheckpointPiece plain = make_piece(40, 0, 3, 5, 0, "set-a");
  EXPECT_TRUE(read_checkpoint_piece(write_checkpoint_piece(dir.str(), plain, false)).aux.empty());
}

TEST(CheckpointPiece, SinglePrecisionIsStoredAsFloats) {
  TempDir dir("piece_single");
  CheckpointPiece p = make_piece(1, 0, 1, 40, 0, "s");
  for (auto* f : {&p.q, &p.res})
    for (auto& v : f->q) v = static_cast<double>(static_cast<float>(v));
  const auto dsize = fs::file_size(write_checkpoint_piece(dir.str(), p, false));
  p.step = 2;
  const std::string path = write_checkpoint_piece(dir.str(), p, true);
  EXPECT_LT(fs::file_size(path), dsize * 3 / 4);
  EXPECT_TRUE(same_bits(read_checkpoint_piece(path).q.q, p.q.q));
}

TEST(CheckpointPiece, MissingOrDamagedPieceIsNamed) {
  TempDir dir("piece_damaged");
  const std::string path = write_checkpoint_piece(dir.str(), make_piece(3, 1, 2, 30, 2, "x"), false);
  fs::resize_file(path, fs::file_size(path) / 2);
  expect_user_error([&] { read_checkpoint_piece(path); }, {"cannot read checkpoint", path});
  const std::string missing = checkpoint_piece_path(dir.str(), 3, 0);
  expect_user_error([&] { read_checkpoint_piece(missing); }, {missing, "the checkpoint set is incomplete"});
  // a one-rank checkpoint is not a piece
  write_checkpoint(dir.str(), [] {
    Checkpoint c = make_record(5, "y");
    c.set = {};
    c.q = random_rows(8, 10, 1);
    c.res = random_rows(8, 10, 2);
    return c;
  }());
  expect_user_error([&] { read_checkpoint_piece(checkpoint_path(dir.str(), 5)); }, {"not a piece of a dgmax checkpoint"});
}

TEST(CheckpointRecord, CarriesTheSetAndNoState) {
  TempDir dir("record_roundtrip");
  const Checkpoint c = make_record(20, "set-b");
  const std::string path = write_checkpoint(dir.str(), c);
  EXPECT_EQ(path, checkpoint_path(dir.str(), 20));
  const Checkpoint r = read_checkpoint(path);
  EXPECT_EQ(r.set.pieces, 2);
  EXPECT_EQ(r.set.set_id, "set-b");
  EXPECT_EQ(r.set.partition_method, "sfc");
  EXPECT_EQ(r.set.partition_hash, "abc");
  EXPECT_EQ(r.set.piece_elements, c.set.piece_elements);
  EXPECT_EQ(r.set.piece_layer_elements, c.set.piece_layer_elements);
  EXPECT_EQ(r.step, 20);
  EXPECT_EQ(r.progress, c.progress);
  EXPECT_TRUE(r.q.q.empty() && r.res.q.empty() && r.aux.empty());
  EXPECT_TRUE(describe_mismatch(r, c.id).empty()) << "a record's state is in its pieces, not missing";
  // a record with state, or with piece counts that do not add up to K, is a bug or a damaged file
  Checkpoint bad = c;
  bad.q = random_rows(8, 10, 1);
  EXPECT_THROW(write_checkpoint(dir.str(), bad), InternalError);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t a = H5Aopen(f, "K", H5P_DEFAULT);
    const long long K = 9;
    H5Awrite(a, H5T_NATIVE_LLONG, &K);
    H5Aclose(a);
    H5Fclose(f);
  }
  expect_user_error([&] { read_checkpoint(path); }, {path, "'/@K' does not match its digest"});
}

TEST(CheckpointRecord, TheNewestTwoSetsAreKeptWithTheirPieces) {
  TempDir dir("record_keep");
  write_set(dir.str(), 10, "a");
  write_set(dir.str(), 20, "a");
  // pieces of a set whose record was never written (a crash), and of an earlier run that went further
  write_checkpoint_piece(dir.str(), make_piece(25, 0, 2, 4, 1, "a"), false);
  write_checkpoint_piece(dir.str(), make_piece(90, 1, 3, 4, 1, "old"), false);
  write_set(dir.str(), 30, "a");
  EXPECT_EQ(names_in(dir.str()),
            (std::vector<std::string>{"checkpoint_000000000020.h5", "checkpoint_000000000020_p0000.h5",
                                      "checkpoint_000000000020_p0001.h5", "checkpoint_000000000030.h5",
                                      "checkpoint_000000000030_p0000.h5", "checkpoint_000000000030_p0001.h5"}));
  // a one-rank checkpoint (the run continued on one rank): the set before it stays with its pieces
  Checkpoint one = make_record(40, "");
  one.set = {};
  one.q = random_rows(8, 10, 1);
  one.res = random_rows(8, 10, 2);
  write_checkpoint(dir.str(), one);
  EXPECT_EQ(names_in(dir.str()),
            (std::vector<std::string>{"checkpoint_000000000030.h5", "checkpoint_000000000030_p0000.h5",
                                      "checkpoint_000000000030_p0001.h5", "checkpoint_000000000040.h5"}));
  EXPECT_EQ(dir.count_tmp(), 0);
}
