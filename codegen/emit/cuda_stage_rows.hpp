// The cuda stage kernel of plans with element-field rows (plan option E, codegen/tune/cuda_plan.hpp):
// the stage's GEMM transposed, rhs^T[6 EPB][NPK] = A x [Dr^T; Ds^T; Dt^T; LIFT^T], on Hopper's
// warpgroup MMAs in split TF32. Part of the source generate_cuda_source prints.
#pragma once

#include <string>

namespace dgmax::codegen {

// The E plan's dgmax_stage and its helpers (inside the generated source's tensor-core section,
// after the shared staging helpers: prefetch_group, stage_flux_rows, to_tf32, b_desc, wgmma_tf32;
// the operator table OpsT is printed with the other tables, cuda_kernels.cpp).
std::string state_rows_stage_section();

}  // namespace dgmax::codegen
