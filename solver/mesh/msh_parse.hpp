// The content of a Gmsh .msh file (MSH 2.x and 4.1, ASCII or binary) as Gmsh's model would hold
// it after reading, without Gmsh: physical names, the physical groups of each entity, the nodes,
// and the elements grouped by entity and type. read_msh() (msh_reader.hpp) turns it into a Mesh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "solver/util/error.hpp"

namespace dgmax {

// A place in the file: its byte offset, whether it is text or binary data, and the offset of its
// section's header (binary data is located by the header's line).
struct MshPlace {
  std::size_t offset = 0;
  bool text = true;
  std::size_t section = 0;
};

// The location of `place` in the file `bytes` for a UserError (the file, the line, and for text
// the column and the line as snippet), and for binary data " (at byte N)" to add to the message.
struct MshSpot {
  SourceLocation where;
  std::string at_byte;
};
MshSpot msh_spot(const std::string& path, std::string_view bytes, const MshPlace& place);

// The elements of one type on one entity, in file order.
struct MshElementBlock {
  int dim = 0;     // the entity's dimension (in MSH 4.1 a surface may hold lines: see foreign)
  int entity = 0;  // the entity's tag (MSH 2: the elementary tag)
  int type = 0;    // MSH element type
  // MSH 2: in increasing element tag (Gmsh's MSH 2 reader orders them so); MSH 4.1: file order.
  std::size_t count = 0;
  std::vector<std::int32_t> nodes;  // node indices (into MshContent::node_*): complete tetrahedra and triangles only
  std::vector<long long> tags;      // element tags: triangles, and in MSH 2 complete tetrahedra too
  MshPlace first;                   // where its first element is
};

struct MshContent {
  bool v2 = false;  // MSH 2.x (else 4.1)
    // (dim, tag) -> name, from $PhysicalNames, as Gmsh 4.8 reads them: the first name given to a
  // group wins; a name for tag 0 goes to the next free tag (MSH 2: 1; MSH 4.1: one more than the
  // largest physical tag of that dimension in the entities read so far); MSH 2 skips a name that
  // another group of the dimension has already (MSH 4.1 gives both groups the name).
  std::map<std::pair<int, int>, std::string> physical_names;
  // Per dimension: every entity of the model (tag -> its physical tags, without repeats).
  // MSH 4.1: the entities of $Entities (physical tags in file order) and of $Nodes blocks (none).
  // MSH 2: the elementary tags of the elements, with the physical tags of all their elements
  // (increasing): Gmsh groups MSH 2 elements by elementary tag.
  std::map<int, std::vector<int>> entities[4];
  // The nodes in file order. Gmsh's model holds model_nodes of them (MSH 2: those used by elements).
  std::vector<std::uint64_t> node_tags;
  std::vector<double> node_xyz;  // 3 per node
  bool node_tags_increasing = true;
  std::size_t model_nodes = 0;
  // By (entity dimension, entity tag, element type).
  std::map<std::tuple<int, int, int>, MshElementBlock> blocks;
  // MSH 4.1 blocks of points or lines on a surface entity: Gmsh fails on them ("unsupported
  // element in face"); read_msh reports them as what a physical surface holds, or as corrupt.
  std::set<std::tuple<int, int, int>> foreign;
};

// Reads the bytes of the .msh file `path` (read_msh runs check_msh_structure first, whose messages
// then come first; this checks everything it reads all the same). Throws UserError
// naming the file and the line (text) or byte offset (binary data) for anything that does not
// read as MSH 2.x / 4.1, including files Gmsh 4.8 reads without a word into something else than
// they say: a token that is not a number of the expected kind; a value out of range (dimensions,
// element types, ints over 32 bits, MSH 4.1 tags outside their header's range); a node tag or
// element tag used twice (Gmsh keeps one of the two); a negative entity, elementary or physical
// tag (Gmsh drops those elements, or takes -1 for "every entity"); an element on a node that
// $Nodes does not define; an MSH 4.1 element block on an entity that neither $Entities nor
// $Nodes declares, or of another dimension than its entity (points and lines on a surface
// excepted: MshContent::foreign), an entity declared twice or bounded by an undeclared one, an
// unknown MSH 4.1 section without its "$End" line (Gmsh skips the rest of the file); more data in
// a section than its counts say; counts that the rest of a section cannot hold. Allocations are
// bounded by the file's size, and no step costs more than about n log n in the file's size.
MshContent parse_msh(const std::string& path, std::string_view bytes);

}  // namespace dgmax
