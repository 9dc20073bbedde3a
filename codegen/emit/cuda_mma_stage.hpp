// The cuda backend's stage on tensor cores (plan option M and those built on it: W, H, C, A, G, X;
// E's own stage is cuda_stage_rows.cpp, printed inside this one): per block, the volume and lift
// terms as one GEMM. A template of generated source with the plan's values as named fields, which
// generate_cuda_source (cuda_kernels.cpp) formats and prints after the one-node-per-thread kernels.
#pragma once

namespace dgmax::codegen {

// The GEMM's shapes and fragments, the staging of B (curl-weighted state, face fluxes), the
// groups' asynchronous copies, the end of the stage, and dgmax_stage (all under FUSION == 2 && MMA).
const char* cuda_mma_stage_template();

}  // namespace dgmax::codegen
