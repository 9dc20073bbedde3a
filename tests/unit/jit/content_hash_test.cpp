// SHA-256 against the FIPS 180-4 / NIST test vectors, incremental updates, and cache keys whose
// fields cannot run into each other.
#include <gtest/gtest.h>

#include <random>

#include "codegen/jit/content_hash.hpp"

namespace dgmax::codegen {
namespace {

TEST(ContentHash, Sha256TestVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
                       "opqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256_hex("The quick brown fox jumps over the lazy dog"),
            "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
}

TEST(ContentHash, PaddingBoundaries) {
  // Lengths around the 56- and 64-byte block boundaries, against values from `sha256sum`.
  EXPECT_EQ(sha256_hex(std::string(55, 'x')), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  EXPECT_EQ(sha256_hex(std::string(56, 'x')), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  EXPECT_EQ(sha256_hex(std::string(64, 'x')), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}

TEST(ContentHash, IncrementalUpdatesGiveTheSameDigest) {
  std::mt19937 rng(7);
  std::string data(3000, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  const std::string whole = sha256_hex(data);
  for (int trial = 0; trial < 50; ++trial) {
    Sha256 s;
    size_t pos = 0;
    while (pos < data.size()) {
      const size_t n = std::min<size_t>(rng() % 130, data.size() - pos);
      s.update(data.data() + pos, n);
      pos += n;
    }
    EXPECT_EQ(s.hex_digest(), whole);
  }
}

TEST(ContentHash, KeysSeparateFields) {
  auto key = [](std::initializer_list<std::string> fields) {
    ContentHash h;
    for (const auto& f : fields) h.add(f);
    return h.key();
  };
  const std::string k = key({"ab", "c"});
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(k.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key({"ab", "c"}), k);
  EXPECT_NE(key({"a", "bc"}), k);
  EXPECT_NE(key({"abc"}), k);
  EXPECT_NE(key({"ab", "c", ""}), k);
  EXPECT_NE(key({"c", "ab"}), k);
}

}  // namespace
}  // namespace dgmax::codegen
