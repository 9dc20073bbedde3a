// The Hilbert space-filling curve in 3D: the index of a grid cell along the curve (Skilling,
// "Programming the Hilbert curve", AIP Conf. Proc. 707, 2004). Consecutive indices are face
// neighbours on the grid, so cutting the curve into chunks gives compact parts.
#pragma once

#include <cstdint>

namespace dgmax {

// Index along the Hilbert curve of the cell (x, y, z) of a 2^bits grid, in [0, 2^(3 bits));
// bits in 1..21 (coordinates must be below 2^bits).
std::uint64_t hilbert_index(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits);

}  // namespace dgmax
