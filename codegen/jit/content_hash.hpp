// Content hashes for the JIT caches: SHA-256 (FIPS 180-4), written here so that codegen has no
// dependency for it. Cache keys hash several fields (source, compiler identity, flags, ...); each
// field is length-prefixed, so ("ab", "c") and ("a", "bc") give different keys.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dgmax::codegen {

// Incremental SHA-256.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // The 32-byte digest. The object is spent afterwards (call nothing else on it).
  std::array<uint8_t, 32> finish();
  // finish() as 64 lower-case hex digits.
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);
  uint32_t h_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

// SHA-256 of `bytes` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

// A cache key built from several fields, in order.
class ContentHash {
 public:
  ContentHash& add(std::string_view field);  // appends 8-byte length, then the bytes
  // The first 32 hex digits (128 bits) of the SHA-256: the name of a cache entry. The object is
  // spent afterwards.
  std::string key();

 private:
  Sha256 sha_;
};

}  // namespace dgmax::codegen
