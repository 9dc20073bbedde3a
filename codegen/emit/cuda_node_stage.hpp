// The cuda backend's one-node-per-thread kernels (plans without tensor cores: T, S, V, R, at every
// fusion level): thread (i, y) of a block computes node i of its elements y*EPT .. y*EPT + EPT-1.
// Templates of generated source with the plan's values as named fields ({epb}, {vw}, ...), which
// generate_cuda_source (cuda_kernels.cpp) formats and prints between its own parts.
#pragma once

namespace dgmax::codegen {

// The state's staging, the loads of the volume and lift loops, the face fluxes of a block
// (block_fluxes), the volume and lift terms of a node (volume_nodes, lift_nodes). Printed after
// the block shape and the asynchronous copies, before node_current and rhs_component.
const char* cuda_node_helpers_template();
// The kernels of each fusion level (dgmax_volume, dgmax_surface, dgmax_lift, dgmax_surface_lift,
// the fused dgmax_stage) and their common end (finish_rhs, lift_block). Printed after rhs_component.
const char* cuda_node_kernels_template();

}  // namespace dgmax::codegen
