// Built-in structured box mesher: no Gmsh needed, used for tests and benchmarks.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "solver/mesh/mesh.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

// Elements whose centroid lies inside [lower, upper] get volume tag `tag` (later regions win).
// Put region faces on cell boundaries for an exactly resolved interface.
struct BoxRegion {
  std::string tag;
  Vec3 lower, upper;
};

struct BoxSpec {
  Vec3 lower{0, 0, 0};
  Vec3 upper{1, 1, 1};
  std::array<int, 3> cells{4, 4, 4};
  std::array<bool, 3> periodic{false, false, false};  // glue xmin↔xmax, ymin↔ymax, zmin↔zmax
  std::vector<BoxRegion> regions;                     // volume tags other than `domain`
  SourceLocation where;  // where it was asked for (the config's mesh.box.cells): for messages
};

// Each cell is split into 6 tetrahedra around its main diagonal (Kuhn subdivision), which is
// conforming across cells. Boundary tags: xmin xmax ymin ymax zmin zmax; volume tag: domain.
// Periodic directions become PeriodicPair entries (their faces stay tagged for reference).
// UserError at spec.where, before allocating anything, when the mesh could not be run in the
// available host memory (kMinRunBytesPerElement per element, memory_estimate.hpp).
Mesh make_box_mesh(const BoxSpec& spec);

// Parses "box:NX,NY,NZ" (unit cube) or "box:N" (N cells each way); returns false when `text`
// does not start with "box:", throws UserError when it does but is malformed.
bool parse_box_shorthand(const std::string& text, BoxSpec& spec);

}  // namespace dgmax
