// The CUDA source of the halo kernels of a partitioned run (a module of their own, apart from the
// generated stage kernels; `real` is the state's precision):
//   dgmax_halo_gather   out[i] = q[index[i]]   the owned face traces into the send buffer
//   dgmax_halo_scatter  q[index[i]] = in[i]    the received traces into the ghosts' face nodes
#pragma once

#include <string>

namespace dgmax::codegen {

// `single`: the state is float (else double).
std::string cuda_halo_source(bool single);

}  // namespace dgmax::codegen
