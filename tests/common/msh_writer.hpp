// Writes a small mesh model as a Gmsh .msh file, MSH 4.1 or 2.2, ASCII or binary (either byte
// order), the way Gmsh lays them out: for the .msh reader tests (tests/unit/mesh/msh_reader_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax::test {

// Entities with their physical tags, nodes on entities, elements on entities, $PhysicalNames.
struct Model {
  struct Entity {
    int dim, tag;
    std::vector<int> physicals;
  };
  struct Node {
    long long tag;
    Vec3 x;
    int dim, entity;
  };
  struct Element {
    long long tag;
    int type, dim, entity;
    std::vector<long long> nodes;
  };
  std::vector<std::pair<std::pair<int, int>, std::string>> names;
  std::vector<Entity> entities;
  std::vector<Node> nodes;
  std::vector<Element> elements;
};

// Values as text tokens or as (possibly byte-swapped) binary.
class Out {
 public:
  Out(bool binary, bool swap) : binary_(binary), swap_(swap) {}
  template <typename T>
  void bin(T v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (swap_) std::reverse(b, b + sizeof(T));
    s.append(reinterpret_cast<const char*>(b), sizeof(T));
  }
  void i(int v) { binary_ ? bin<std::int32_t>(v) : text(std::to_string(v)); }
  void z(unsigned long long v) { binary_ ? bin<std::uint64_t>(v) : text(std::to_string(v)); }
  void d(double v) {
    if (binary_) return bin<double>(v);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    text(buf);
  }
  void text(const std::string& t) { s += t + " "; }
  void nl() {  // a line break in text (binary data has none)
    if (!binary_) s += "\n";
  }
  std::string s;

 private:
  bool binary_, swap_;
};

// $MeshFormat (with the endianness marker in binary) and $PhysicalNames (text in every format).
inline std::string header(const Model& m, const char* version, bool binary, bool swap) {
  Out o(true, swap);
  o.s = std::string("$MeshFormat\n") + version + (binary ? " 1 8\n" : " 0 8\n");
  if (binary) o.bin<std::int32_t>(1), o.s += "\n";
  o.s += "$EndMeshFormat\n$PhysicalNames\n" + std::to_string(m.names.size()) + "\n";
  for (const auto& [key, name] : m.names)
    o.s += std::to_string(key.first) + " " + std::to_string(key.second) + " \"" + name + "\"\n";
  return o.s + "$EndPhysicalNames\n";
}

inline std::string msh41(const Model& m, bool binary, bool swap = false) {
  const std::string s = header(m, "4.1", binary, swap);
  Out o(binary, swap);
  o.s = "$Entities\n";
  for (int dim = 0; dim < 4; ++dim)
    o.z(static_cast<unsigned long long>(std::count_if(m.entities.begin(), m.entities.end(), [&](const Model::Entity& e) { return e.dim == dim; })));
  o.nl();
  for (int dim = 0; dim < 4; ++dim)
    for (const Model::Entity& e : m.entities) {
      if (e.dim != dim) continue;
      o.i(e.tag);
      for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) o.d(0);
      o.z(e.physicals.size());
      for (int p : e.physicals) o.i(p);
      if (dim > 0) o.z(0);
      o.nl();
    }
  o.s += std::string(binary ? "\n" : "") + "$EndEntities\n$Nodes\n";
  // blocks: runs of nodes on one entity
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < m.nodes.size(); ++i)
    if (i == 0 || m.nodes[i].dim != m.nodes[i - 1].dim || m.nodes[i].entity != m.nodes[i - 1].entity) runs.push_back({i, i + 1});
    else runs.back().second = i + 1;
  long long lo = m.nodes.empty() ? 0 : m.nodes[0].tag, hi = lo;
  for (const auto& n : m.nodes) lo = std::min(lo, n.tag), hi = std::max(hi, n.tag);
  o.z(runs.size()), o.z(m.nodes.size()), o.z(static_cast<unsigned long long>(lo)), o.z(static_cast<unsigned long long>(hi)), o.nl();
  for (const auto& [b, e] : runs) {
    o.i(m.nodes[b].dim), o.i(m.nodes[b].entity), o.i(0), o.z(e - b), o.nl();
    for (size_t i = b; i < e; ++i) o.z(static_cast<unsigned long long>(m.nodes[i].tag)), o.nl();
    for (size_t i = b; i < e; ++i) o.d(m.nodes[i].x[0]), o.d(m.nodes[i].x[1]), o.d(m.nodes[i].x[2]), o.nl();
  }
  o.s += std::string(binary ? "\n" : "") + "$EndNodes\n$Elements\n";
  runs.clear();
  for (size_t i = 0; i < m.elements.size(); ++i) {
    const auto& a = m.elements[i];
    if (i == 0 || a.dim != m.elements[i - 1].dim || a.entity != m.elements[i - 1].entity || a.type != m.elements[i - 1].type)
      runs.push_back({i, i + 1});
    else
      runs.back().second = i + 1;
  }
  lo = m.elements.empty() ? 0 : m.elements[0].tag, hi = lo;
  for (const auto& e : m.elements) lo = std::min(lo, e.tag), hi = std::max(hi, e.tag);
  o.z(runs.size()), o.z(m.elements.size()), o.z(static_cast<unsigned long long>(lo)), o.z(static_cast<unsigned long long>(hi)), o.nl();
  for (const auto& [b, e] : runs) {
    o.i(m.elements[b].dim), o.i(m.elements[b].entity), o.i(m.elements[b].type), o.z(e - b), o.nl();
    for (size_t i = b; i < e; ++i) {
      o.z(static_cast<unsigned long long>(m.elements[i].tag));
      for (long long n : m.elements[i].nodes) o.z(static_cast<unsigned long long>(n));
      o.nl();
    }
  }
  o.s += std::string(binary ? "\n" : "") + "$EndElements\n";
  return s + o.s;
}

// MSH 2.2 as Gmsh writes it: an element's tags are (physical tag, entity tag), and an element of
// an entity in several physical groups is written once per group (the copies numbered 1000 up).
inline std::string msh22(const Model& m, bool binary, bool swap = false) {
  const std::string s = header(m, "2.2", binary, swap);
  Out o(binary, swap);
  o.s = "$Nodes\n" + std::to_string(m.nodes.size()) + "\n";
  for (const auto& n : m.nodes) o.i(static_cast<int>(n.tag)), o.d(n.x[0]), o.d(n.x[1]), o.d(n.x[2]), o.nl();
  if (binary) o.s += "\n";
  o.s += "$EndNodes\n$Elements\n" + std::to_string(m.elements.size()) + "\n";
  std::vector<std::pair<long long, int>> written;  // (number, physical) per element
  size_t count = 0;
  for (const auto& e : m.elements) {
    std::vector<int> physicals = {0};
    for (const auto& en : m.entities)
      if (en.dim == e.dim && en.tag == e.entity && !en.physicals.empty()) physicals = en.physicals;
    for (size_t k = 0; k < physicals.size(); ++k) {
      if (binary) o.i(e.type), o.i(1), o.i(2);  // one-element blocks
      o.i(static_cast<int>(e.tag + 1000 * static_cast<long long>(k)));
      if (!binary) o.i(e.type), o.i(2);
      o.i(physicals[k]), o.i(e.entity);
      for (long long n : e.nodes) o.i(static_cast<int>(n));
      o.nl();
      ++count;
    }
  }
  if (binary) o.s += "\n";
  o.s += "$EndElements\n";
  const size_t at = o.s.find("$Elements\n") + 10;
  o.s.replace(at, o.s.find('\n', at) - at, std::to_string(count));
  return s + o.s;
}

}  // namespace dgmax::test
