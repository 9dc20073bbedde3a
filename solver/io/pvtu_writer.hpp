// The index of one snapshot of a partitioned run (.pvtu): ParaView opens it and reads the ranks'
// .vtu pieces it lists as one grid. The arrays it declares are those VtuWriter (vtk_writer.hpp)
// writes into every piece: points (Float64), point data E, H (3 components) and |E| (Float64),
// cell data volume_tag and element (Int32).
#pragma once

#include <string>
#include <vector>

namespace dgmax {

// Writes `path` atomically; `pieces` are file names relative to the .pvtu's folder.
void write_pvtu(const std::string& path, const std::vector<std::string>& pieces);

}  // namespace dgmax
