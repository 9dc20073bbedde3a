#include "codegen/dsl/builtins.hpp"

#include <array>

namespace dgmax::dsl {
namespace {

constexpr std::array<FunctionInfo, 24> kFunctions{{
    {"sin", 1, Builtin::sin},     {"cos", 1, Builtin::cos},     {"tan", 1, Builtin::tan},
    {"asin", 1, Builtin::asin},   {"acos", 1, Builtin::acos},   {"atan", 1, Builtin::atan},
    {"atan2", 2, Builtin::atan2}, {"sinh", 1, Builtin::sinh},   {"cosh", 1, Builtin::cosh},
    {"tanh", 1, Builtin::tanh},   {"exp", 1, Builtin::exp},     {"log", 1, Builtin::log},
    {"sqrt", 1, Builtin::sqrt},   {"abs", 1, Builtin::abs},     {"min", 2, Builtin::min},
    {"max", 2, Builtin::max},     {"pow", 2, Builtin::pow},     {"floor", 1, Builtin::floor},
    {"ceil", 1, Builtin::ceil},   {"sign", 1, Builtin::sign},   {"heaviside", 1, Builtin::heaviside},
    {"erf", 1, Builtin::erf},
    {"besselj", 2, Builtin::besselj, true}, {"bessely", 2, Builtin::bessely, true},
}};

struct FluxName {
  std::string_view name, description;
};
constexpr std::array<FluxName, 8> kFluxNames{{
    {"E", "the electric field vector"},
    {"H", "the magnetic field vector"},
    {"n", "the face normal vector"},
    {"cross", "a vector function"},
    {"dot", "a vector function"},
    {"jump", "a face-trace function"},
    {"avg", "a face-trace function"},
    {"norm", "a vector function"},
}};

}  // namespace

std::span<const FunctionInfo> scalar_functions() { return kFunctions; }

const FunctionInfo* find_scalar_function(std::string_view name) {
  for (const auto& f : kFunctions)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> scalar_function_names() {
  std::vector<std::string> out;
  for (const auto& f : kFunctions) out.emplace_back(f.name);
  return out;
}

bool takes_order(Builtin fn) {
  for (const auto& f : kFunctions)
    if (f.id == fn) return f.order;
  return false;
}

std::string_view flux_only_description(std::string_view name) {
  for (const auto& f : kFluxNames)
    if (f.name == name) return f.description;
  return {};
}

}  // namespace dgmax::dsl
