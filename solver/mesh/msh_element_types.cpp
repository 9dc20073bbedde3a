// The MSH element type table: nodes, dimension, order and family of types 1..140, as Gmsh 4.8's
// getElementProperties gives them (its names: "Tetrahedron 10", "Quadrilateral 9", "Point").
#include "solver/mesh/msh_element_types.hpp"

namespace dgmax {
namespace {

struct Row {
  short nodes;
  signed char dim, order, family;  // family: index into kFamilies
};

constexpr const char* kFamilies[] = {"",          "line",       "triangle", "quadrangle", "tetrahedron",
                                     "hexahedron", "prism",      "pyramid",  "point"};

// Types 1..140; {0, 0, 0, 0}: unknown to Gmsh 4.8, or of variable size (polygons, polyhedra,
// XFEM elements).
constexpr Row kTypes[] = {
    {2, 1, 1, 1}, {3, 2, 1, 2}, {4, 2, 1, 3}, {4, 3, 1, 4}, {8, 3, 1, 5}, {6, 3, 1, 6},
    {5, 3, 1, 7}, {3, 1, 2, 1}, {6, 2, 2, 2}, {9, 2, 2, 3}, {10, 3, 2, 4}, {27, 3, 2, 5},
    {18, 3, 2, 6}, {14, 3, 2, 7}, {1, 0, 0, 8}, {8, 2, 2, 3}, {20, 3, 2, 5}, {15, 3, 2, 6},
    {13, 3, 2, 7}, {9, 2, 3, 2}, {10, 2, 3, 2}, {12, 2, 4, 2}, {15, 2, 4, 2}, {15, 2, 5, 2},
    {21, 2, 5, 2}, {4, 1, 3, 1}, {5, 1, 4, 1}, {6, 1, 5, 1}, {20, 3, 3, 4}, {35, 3, 4, 4},
    {56, 3, 5, 4}, {22, 3, 4, 4}, {28, 3, 5, 4}, {0, 0, 0, 0}, {0, 0, 0, 0}, {16, 2, 3, 3},
    {25, 2, 4, 3}, {36, 2, 5, 3}, {12, 2, 3, 3}, {16, 2, 4, 3}, {20, 2, 5, 3}, {28, 2, 6, 2},
    {36, 2, 7, 2}, {45, 2, 8, 2}, {55, 2, 9, 2}, {66, 2, 10, 2}, {49, 2, 6, 3}, {64, 2, 7, 3},
    {81, 2, 8, 3}, {100, 2, 9, 3}, {121, 2, 10, 3}, {18, 2, 6, 2}, {21, 2, 7, 2}, {24, 2, 8, 2},
    {27, 2, 9, 2}, {30, 2, 10, 2}, {24, 2, 6, 3}, {28, 2, 7, 3}, {32, 2, 8, 3}, {36, 2, 9, 3},
    {40, 2, 10, 3}, {7, 1, 6, 1}, {8, 1, 7, 1}, {9, 1, 8, 1}, {10, 1, 9, 1}, {11, 1, 10, 1},
    {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {84, 3, 6, 4}, {120, 3, 7, 4},
    {165, 3, 8, 4}, {220, 3, 9, 4}, {286, 3, 10, 4}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0},
    {34, 3, 6, 4}, {40, 3, 7, 4}, {46, 3, 8, 4}, {52, 3, 9, 4}, {58, 3, 10, 4}, {1, 1, 0, 1},
    {1, 2, 0, 2}, {1, 2, 0, 3}, {1, 3, 0, 4}, {1, 3, 0, 5}, {1, 3, 0, 6}, {0, 0, 0, 0},
    {0, 0, 0, 0}, {64, 3, 3, 5}, {125, 3, 4, 5}, {216, 3, 5, 5}, {343, 3, 6, 5}, {512, 3, 7, 5},
    {729, 3, 8, 5}, {1000, 3, 9, 5}, {32, 3, 3, 5}, {44, 3, 4, 5}, {56, 3, 5, 5}, {68, 3, 6, 5},
    {80, 3, 7, 5}, {92, 3, 8, 5}, {104, 3, 9, 5}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0},
    {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0},
    {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {30, 3, 3, 7}, {55, 3, 4, 7}, {91, 3, 5, 7},
    {140, 3, 6, 7}, {204, 3, 7, 7}, {285, 3, 8, 7}, {385, 3, 9, 7}, {21, 3, 3, 7}, {29, 3, 4, 7},
    {37, 3, 5, 7}, {45, 3, 6, 7}, {53, 3, 7, 7}, {61, 3, 8, 7}, {69, 3, 9, 7}, {1, 3, 0, 7},
    {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {16, 3, 3, 4}, {0, 0, 0, 0},
    {0, 0, 0, 0}, {0, 0, 0, 0},
};

}  // namespace

MshElementType msh_element_type(long long type) {
  constexpr long long n = sizeof(kTypes) / sizeof(kTypes[0]);
  if (type < 1 || type > n) return {};
  const Row& r = kTypes[type - 1];
  if (r.nodes == 0) return {};
  return {r.nodes, r.dim, r.order, kFamilies[static_cast<int>(r.family)]};
}

int msh_tetrahedron_type(int q) {
  constexpr int kTypes[] = {4, 11, 29, 30, 31, 71, 72, 73, 74, 75};
  return q >= 1 && q <= 10 ? kTypes[q - 1] : 0;
}

int msh_triangle_type(int q) {
  constexpr int kTypes[] = {2, 9, 21, 23, 25, 42, 43, 44, 45, 46};
  return q >= 1 && q <= 10 ? kTypes[q - 1] : 0;
}

bool msh_complete_simplex(const MshElementType& t) {
  const std::string family = t.family;
  const int q = t.order;
  if (q < 1) return false;  // the one-node "elements" of order 0
  if (family == "tetrahedron") return t.nodes == (q + 1) * (q + 2) * (q + 3) / 6;
  if (family == "triangle") return t.nodes == (q + 1) * (q + 2) / 2;
  return false;
}

std::string describe_msh_elements(long long type, std::size_t count) {
  const MshElementType t = msh_element_type(type);
  if (t.nodes == 0)
    return std::to_string(count) + (count == 1 ? " element" : " elements") + " of type " + std::to_string(type);
  std::string family = t.family;
  if (count != 1) {
    const std::string hedron = "hedron";
    if (family.size() > hedron.size() && family.compare(family.size() - hedron.size(), hedron.size(), hedron) == 0)
      family.replace(family.size() - 2, 2, "a");  // tetrahedron -> tetrahedra
    else
      family += "s";
  }
  std::string text = std::to_string(count) + " " + family;
  if (t.dim > 0) text += " (" + std::to_string(t.nodes) + "-node)";
  return text;
}

}  // namespace dgmax
