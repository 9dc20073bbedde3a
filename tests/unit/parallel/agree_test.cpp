// agree_on_errors (solver/parallel/agree.hpp) on one rank, as these tests run: the phase's result
// and its exceptions pass through unchanged (type and message), void phases included. Several
// ranks, with rank 0 held back, are MpiRanksErrors.ALateRankZeroStillSaysTheErrorAlone.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "solver/parallel/agree.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;

TEST(AgreeOnErrors, OneRankReturnsThePhasesResult) {
  ASSERT_FALSE(world().parallel());
  EXPECT_EQ(agree_on_errors([] { return std::string("mesh"); }), "mesh");
  // a move-only result
  const std::unique_ptr<int> p = agree_on_errors([] { return std::make_unique<int>(7); });
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, 7);
  int calls = 0;
  agree_on_errors([&] { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(AgreeOnErrors, OneRankRethrowsThePhasesErrorUnchanged) {
  try {
    agree_on_errors([]() -> int { throw UserError("unknown key 'finall' in 'time'", {"case.yaml", 3, 1, {}}, "did you mean 'final'?"); });
    FAIL() << "no exception";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message(), "unknown key 'finall' in 'time'");
    EXPECT_EQ(e.hint(), "did you mean 'final'?");
    EXPECT_EQ(e.where().file, "case.yaml");
  }
  EXPECT_THROW(agree_on_errors([] { throw std::bad_alloc(); }), std::bad_alloc);
}

TEST(AgreeOnErrors, PeerReportsErrorNamesTheRankThatSpeaks) {
  const PeerReportsError e(3);
  EXPECT_EQ(e.rank(), 3);
  EXPECT_NE(std::string(e.what()).find("another rank"), std::string::npos);
}
