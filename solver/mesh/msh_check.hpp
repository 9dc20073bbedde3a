// A structural check of a Gmsh .msh file, run before Gmsh reads it. Gmsh trusts the counts in a
// file: a corrupted count makes it allocate without bound (std::bad_alloc, "vector larger than
// max_size()", or memory exhaustion), and a truncated file reads as a smaller, valid-looking mesh.
// This check needs no Gmsh and allocates nothing per item.
#pragma once

#include <string>
#include <string_view>

namespace dgmax {

// Walks the sections of the .msh file `path` and throws UserError (location: the file, and the
// line of the section or item when known; byte offsets in the message for binary data) when
//   - a section has no end marker ("$Nodes" without "$EndNodes"): the file is truncated;
//   - a count in $PhysicalNames, $Entities, $Nodes, $Elements or $Periodic (MSH 2.x and 4.1,
//     ASCII or binary) promises more items than the rest of the section can hold, e.g.
//     "section $Elements declares 4294967295 elements, ... room for at most 212";
//   - binary data does not end where its counts say, or a count is negative or not a number;
//   - MSH 4.1 blocks do not add up to their header's total, or a tag lies outside the header's
//     [minTag, maxTag] (Gmsh sizes its tables from the header and fills them from the blocks);
//   - the file has no $Elements section (cut off between sections);
//   - in text, a line inside a section (other than $Comments) starts with '$': Gmsh would take it
//     for the next section, this walk for data;
//   - the mesh is partitioned (MSH 2 partition tags, MSH 4 $PartitionedEntities): Gmsh 4.8's
//     MSH 2 reader crashed on partition tags, and dgmax partitions meshes itself;
//   - the format is not MSH 2.x or 4.1 (or MSH 1, which has no $MeshFormat), or its data size
//     is not 8, or its file type is neither 0 nor 1 (Gmsh reads any other as binary): Gmsh's
//     readers of MSH 3 and 4.0 trust every count, so such files are refused with how to convert them.
// Other sections are checked for their end marker only. Files are mapped, not copied, so the
// check is cheap next to Gmsh's own reading.
void check_msh_structure(const std::string& path);
// The same on the file's bytes, already read or mapped (`path` names it in messages).
void check_msh_structure(const std::string& path, std::string_view bytes);

}  // namespace dgmax
