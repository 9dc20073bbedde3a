// Fuzz target: read_msh (solver/mesh/msh_reader.hpp), dgmax's own .msh reader, alone: the
// structural check, the MSH 2.2 / 4.1 parser (ASCII and binary) and the conversion to a Mesh.
// Input: the bytes of the file, written to a private temporary directory as fuzz.msh. Built in
// every build (no Gmsh needed).
// Invariants of an accepted file, besides "no crash": vertex ids, element tags and face tags in
// range; every vertex used by a tetrahedron; finite coordinates; tag names unique and non-empty;
// Mesh::source the path; and a second read gives the same Mesh bit for bit.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "solver/mesh/msh_reader.hpp"

using namespace dgmax;

namespace {

void check_names(const std::vector<std::string>& names, const char* what) {
  std::set<std::string> seen;
  for (const std::string& n : names) {
    if (n.empty()) fuzz::finding(std::string("an empty ") + what + " name");
    if (!seen.insert(n).second) fuzz::finding(std::string("the ") + what + " name '" + n + "' twice");
  }
}

void check(const Mesh& m, const std::string& path) {
  if (m.source != path) fuzz::finding("Mesh::source is '" + m.source + "'");
  if (m.elements.empty()) fuzz::finding("a Mesh without elements");
  if (m.element_tag.size() != m.elements.size()) fuzz::finding("element_tag and elements differ in size");
  const int nv = m.num_vertices(), nvt = static_cast<int>(m.volume_tag_names.size()),
            nbt = static_cast<int>(m.boundary_tag_names.size());
  std::vector<char> used(m.vertices.size(), 0);
  for (const auto& e : m.elements)
    for (int v : e) {
      if (v < 0 || v >= nv) fuzz::finding("a tetrahedron on vertex " + std::to_string(v) + " of " + std::to_string(nv));
      used[v] = 1;
    }
  for (size_t v = 0; v < used.size(); ++v)
    if (!used[v]) fuzz::finding("vertex " + std::to_string(v) + " belongs to no tetrahedron");
  for (const Vec3& x : m.vertices)
    for (double c : x)
      if (!std::isfinite(c)) fuzz::finding("a coordinate " + fuzz::show(c));
  for (int t : m.element_tag)
    if (t < 0 || t >= nvt) fuzz::finding("element tag " + std::to_string(t) + " of " + std::to_string(nvt));
  for (const TaggedFace& f : m.tagged_faces) {
    if (f.tag < 0 || f.tag >= nbt) fuzz::finding("face tag " + std::to_string(f.tag) + " of " + std::to_string(nbt));
    for (int v : f.v)
      if (v < 0 || v >= nv) fuzz::finding("a tagged face on vertex " + std::to_string(v) + " of " + std::to_string(nv));
  }
  check_names(m.volume_tag_names, "volume tag");
  check_names(m.boundary_tag_names, "boundary tag");
  if (!m.periodic.empty()) fuzz::finding("periodic pairs from a .msh");
}

bool same(const Mesh& a, const Mesh& b) {
  if (a.vertices.size() != b.vertices.size() ||
      (!a.vertices.empty() && std::memcmp(a.vertices.data(), b.vertices.data(), a.vertices.size() * sizeof(Vec3)) != 0))
    return false;
  if (a.tagged_faces.size() != b.tagged_faces.size()) return false;
  for (size_t i = 0; i < a.tagged_faces.size(); ++i)
    if (a.tagged_faces[i].v != b.tagged_faces[i].v || a.tagged_faces[i].tag != b.tagged_faces[i].tag) return false;
  return a.elements == b.elements && a.element_tag == b.element_tag && a.volume_tag_names == b.volume_tag_names &&
         a.boundary_tag_names == b.boundary_tag_names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::temp_file("msh-reader", "fuzz.msh");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) fuzz::finding("cannot write " + path);
  }
  try {
    const Mesh mesh = read_msh(path);
    check(mesh, path);
    if (!same(mesh, read_msh(path))) fuzz::finding("a second read gives another Mesh");
  } catch (const UserError& e) {
    fuzz::exercise(e);
    if (e.where().file != path) fuzz::finding("a UserError not located in the file: " + e.render());
  }
  return 0;
}
