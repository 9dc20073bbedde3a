#include "solver/mesh/hilbert.hpp"

#include "solver/util/error.hpp"

namespace dgmax {

std::uint64_t hilbert_index(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits) {
  DGMAX_ASSERT(bits >= 1 && bits <= 21, "hilbert_index: bits must be in 1..21");
  std::uint32_t X[3] = {x, y, z};
  const std::uint32_t M = 1u << (bits - 1);
  // Skilling's AxestoTranspose: inverse undo, then Gray encode
  for (std::uint32_t Q = M; Q > 1; Q >>= 1) {
    const std::uint32_t P = Q - 1;
    for (int i = 0; i < 3; ++i) {
      if (X[i] & Q) {
        X[0] ^= P;
      } else {
        const std::uint32_t t = (X[0] ^ X[i]) & P;
        X[0] ^= t;
        X[i] ^= t;
      }
    }
  }
  for (int i = 1; i < 3; ++i) X[i] ^= X[i - 1];
  std::uint32_t t = 0;
  for (std::uint32_t Q = M; Q > 1; Q >>= 1)
    if (X[2] & Q) t ^= Q - 1;
  for (int i = 0; i < 3; ++i) X[i] ^= t;
  // the transposed index, bit-interleaved: most significant bit of X[0] first
  std::uint64_t h = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int i = 0; i < 3; ++i) h = (h << 1) | ((X[i] >> b) & 1u);
  return h;
}

}  // namespace dgmax
