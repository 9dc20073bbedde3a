// The GPU's own ceilings, measured at the start of `dgmax bench`: device-to-device copy bandwidth
// (bytes read + written per second, a large copy kernel) and the FMA rate (independent FMA chains
// in every thread of a full grid; an FMA counted as 2 flops), fp32 or fp64.
#pragma once

namespace dgmax::cuda {

struct DeviceCeilings {
  double bandwidth;  // bytes/s
  double flops;      // flop/s
};

DeviceCeilings measure_device_ceilings(bool single);

}  // namespace dgmax::cuda
