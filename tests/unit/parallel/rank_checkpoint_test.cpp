// A restart reads its elements out of a checkpoint set written on any number of ranks
// (solver/parallel/rank_checkpoint): here one rank (these tests run without mpirun) takes a set written
// as three ranks write one, with each piece's elements in its own order; a set with a piece
// missing or from another set is skipped for the complete one before it, with a warning.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "expect_user_error.hpp"
#include "same_bits.hpp"
#include "solver/parallel/rank_checkpoint.hpp"
#include "solver/io/checkpoint_piece.hpp"
#include "temp_path.hpp"

using namespace dgmax;
using dgmax::test::same_bits;
namespace fs = std::filesystem;

namespace {

constexpr int kK = 12, kNp = 10, kA = 18 * kNp;
const std::vector<long long> kLayer = {1, 4, 5, 10};  // global numbers of the layer's elements

CheckpointIdentity identity() {
  CheckpointIdentity id;
  id.config_hash = "c0ffee";
  id.mesh_fingerprint = "feed";
  id.backend = "cpu";
  id.precision = "double";
  id.K = kK;
  id.N = 2;
  id.Np = kNp;
  id.dt = 0.1;
  id.t_final = 1000;
  return id;
}

// The whole run's state at `step`: [K][6][Np], [K][6][Np], [2][layer][A] in kLayer's order.
struct WholeState {
  Fields q, res;
  std::vector<double> aux;
};

WholeState whole_state(long long step) {
  WholeState w{Fields(kK, kNp), Fields(kK, kNp), std::vector<double>(2 * kLayer.size() * kA)};
  std::mt19937_64 rng(static_cast<unsigned>(step));
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto* v : {&w.q.q, &w.res.q, &w.aux})
    for (double& x : *v) x = u(rng);
  return w;
}

void copy_row(const Fields& from, size_t i, Fields& to, size_t j) {
  const size_t n = 6 * kNp;
  std::copy_n(from.q.begin() + static_cast<long>(i * n), n, to.q.begin() + static_cast<long>(j * n));
}

// Writes `w` as ranks 0..2 write a set: rank r owns the elements g with g % 3 == r, listed from the
// largest down; then the record. Returns its path.
std::string write_three_rank_set(const std::string& dir, long long step, const WholeState& w, const std::string& set_id) {
  Checkpoint rec;
  rec.id = identity();
  rec.step = step;
  for (long long s = 0; s < step; ++s) rec.time += rec.id.dt;  // the run's sum (checkpoint.hpp)
  rec.progress = "{}";
  rec.set.pieces = 3;
  rec.set.set_id = set_id;
  rec.set.partition_method = "sfc";
  rec.set.partition_hash = "three";
  for (long long r = 0; r < 3; ++r) {
    CheckpointPiece p;
    p.set_id = set_id;
    p.step = step;
    p.piece = r;
    p.pieces = 3;
    p.aux_per_element = kA;
    for (long long g = kK - 1; g >= 0; --g)
      if (g % 3 == r) p.element.push_back(g);
    p.q = Fields(static_cast<int>(p.element.size()), kNp);
    p.res = p.q;
    for (size_t i = 0; i < p.element.size(); ++i) {
      copy_row(w.q, static_cast<size_t>(p.element[i]), p.q, i);
      copy_row(w.res, static_cast<size_t>(p.element[i]), p.res, i);
    }
    std::vector<size_t> slots;  // positions in kLayer of this piece's layer elements
    for (size_t s = 0; s < kLayer.size(); ++s)
      if (kLayer[s] % 3 == r) slots.push_back(s), p.aux_element.push_back(kLayer[s]);
    p.aux.resize(2 * slots.size() * kA);
    for (size_t half = 0; half < 2; ++half)
      for (size_t i = 0; i < slots.size(); ++i)
        std::copy_n(w.aux.begin() + static_cast<long>((half * kLayer.size() + slots[i]) * kA), kA,
                    p.aux.begin() + static_cast<long>((half * slots.size() + i) * kA));
    rec.set.piece_elements.push_back(static_cast<long long>(p.element.size()));
    rec.set.piece_layer_elements.push_back(static_cast<long long>(p.aux_element.size()));
    rec.set.piece_digests.emplace_back();
    write_checkpoint_piece(dir, p, false, &rec.set.piece_digests.back());
  }
  return write_checkpoint(dir, rec);
}

// One rank's view: every element, the layer in kLayer's order.
RankElements one_rank() {
  RankElements e;
  for (long long g = 0; g < kK; ++g) e.owned.push_back(g);
  e.layer = kLayer;
  e.K_local = kK;
  e.aux_per_element = kA;
  return e;
}

// The restart point of `dir` with what went to stderr (rank 0's warnings).
RestartPoint read_capturing(const std::string& dir, std::string* warnings) {
  ::testing::internal::CaptureStderr();
  try {
    RestartPoint rp = read_rank_checkpoint(dir, identity(), one_rank());
    *warnings = ::testing::internal::GetCapturedStderr();
    return rp;
  } catch (...) {
    *warnings = ::testing::internal::GetCapturedStderr();
    throw;
  }
}

}  // namespace

TEST(RankCheckpoint, OneRankTakesASetOfThreeRanksInGlobalOrder) {
  const std::string dir = test::unique_temp_dir("rank_ckpt_three");
  const WholeState w = whole_state(40);
  const std::string record = write_three_rank_set(dir, 40, w, "s40");
  std::string warnings;
  const RestartPoint rp = read_capturing(dir, &warnings);
  EXPECT_EQ(warnings, "");
  EXPECT_EQ(rp.path, record);
  EXPECT_TRUE(rp.mismatch.empty());
  EXPECT_EQ(rp.record.step, 40);
  EXPECT_EQ(rp.record.set.pieces, 3);
  EXPECT_TRUE(same_bits(rp.q.q, w.q.q)) << "the state in the global element order";
  EXPECT_TRUE(same_bits(rp.res.q, w.res.q));
  EXPECT_TRUE(same_bits(rp.aux, w.aux)) << "the layer's fields in this run's slot order";
  fs::remove_all(dir);
}

TEST(RankCheckpoint, IncompleteOrMixedSetFallsBackToTheCompleteOne) {
  const std::string dir = test::unique_temp_dir("rank_ckpt_incomplete");
  const WholeState w20 = whole_state(20);
  write_three_rank_set(dir, 20, w20, "s20");
  write_three_rank_set(dir, 40, whole_state(40), "s40");
  // a crash between the pieces: one is missing
  const std::string lost = checkpoint_piece_path(dir, 40, 1);
  fs::remove(lost);
  std::string warnings;
  RestartPoint rp = read_capturing(dir, &warnings);
  EXPECT_EQ(rp.record.step, 20);
  EXPECT_TRUE(same_bits(rp.q.q, w20.q.q));
  EXPECT_NE(warnings.find("warning: cannot read checkpoint '" + lost + "': no such file (the checkpoint set is incomplete)"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("trying the previous checkpoint"), std::string::npos) << warnings;
  // in its place a piece of another set of the same step (an earlier run's)
  {
    const std::string other = test::unique_temp_dir("rank_ckpt_other");
    write_three_rank_set(other, 40, whole_state(41), "earlier");
    fs::copy_file(checkpoint_piece_path(other, 40, 1), lost);
    fs::remove_all(other);
  }
  rp = read_capturing(dir, &warnings);
  EXPECT_EQ(rp.record.step, 20);
  EXPECT_NE(warnings.find("belongs to another checkpoint"), std::string::npos) << warnings;
  // no complete set at all: one error naming the directory and why
  fs::remove(checkpoint_piece_path(dir, 20, 2));
  const UserError e = test::expect_user_error([&] { read_capturing(dir, &warnings); }, {"no valid checkpoint", dir});
  EXPECT_NE(e.message().find("the checkpoint set is incomplete"), std::string::npos) << e.message();
  fs::remove_all(dir);
}

TEST(RankCheckpoint, AnotherRunsSetIsDescribedNotRead) {
  const std::string dir = test::unique_temp_dir("rank_ckpt_other_run");
  write_three_rank_set(dir, 20, whole_state(20), "s20");
  CheckpointIdentity now = identity();
  now.N = 3;
  now.Np = 20;
  const RestartPoint rp = read_rank_checkpoint(dir, now, one_rank());
  ASSERT_FALSE(rp.mismatch.empty());
  EXPECT_EQ(rp.mismatch[0], "order N: checkpoint 2, config 3");
  EXPECT_TRUE(rp.q.q.empty()) << "the state of another run is not read";
  fs::remove_all(dir);
}
