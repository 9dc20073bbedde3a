// `dgmax doc config [KEY]`: the committed reference is the command's output, one key prints its
// entry, a section its keys, and an unknown key is one message with a suggestion.
#include <gtest/gtest.h>

#include <string>

#include "run_cli.hpp"
#include "solver/io/config_schema.hpp"

using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax;

TEST(DocConfig, CommittedReferenceIsTheCommandsOutput) {
  const CliResult r = run_dgmax("doc config");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const std::string committed = read_all(std::string(DGMAX_SOURCE_DIR) + "/docs/config-reference.md");
  EXPECT_EQ(committed, r.out) << "docs/config-reference.md is not what `dgmax doc config` prints; regenerate it "
                                 "with: build/dgmax doc config > docs/config-reference.md";
  // every schema key is in it, as a table row
  for (const dgmax::ConfigKey& key : dgmax::config_schema())
    EXPECT_NE(r.out.find("\n| `" + key.path + "` | "), std::string::npos) << key.path;
}

TEST(DocConfig, OneKeyByItsConcretePath) {
  const CliResult r = run_dgmax("doc config materials.glass.eps");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "materials.<tag>.eps\n"
            "  Relative permittivity.\n"
            "  type     constant expression\n"
            "  default  1\n"
            "  unit     relative\n"
            "  allowed  > 0\n"
            "  example  4\n\n");
}

TEST(DocConfig, ASectionPrintsAllItsKeys) {
  const CliResult r = run_dgmax("doc config pml");
  ASSERT_EQ(r.code, 0) << r.err;
  int entries = 0;
  for (const dgmax::ConfigKey& key : dgmax::config_schema()) {
    if (dgmax::config_key_section(key.path) != "pml") continue;
    ++entries;
    EXPECT_NE(r.out.find(key.path + "\n  " + key.description + "\n"), std::string::npos) << key.path;
  }
  EXPECT_EQ(entries, 8);  // pml and its 7 keys
  EXPECT_EQ(r.out.find("tfsf"), std::string::npos);
}

TEST(DocConfig, UnknownKeyIsOneMessageWithASuggestion) {
  const CliResult r = run_dgmax("doc config pml.kapa");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("error: unknown config key 'pml.kapa'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: did you mean 'pml.kappa'? `dgmax doc config` lists every key"), std::string::npos)
      << r.err;
  const CliResult bare = run_dgmax("doc");
  EXPECT_EQ(bare.code, 1) << bare.err;  // doc needs what to document
}
