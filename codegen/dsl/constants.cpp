#include "codegen/dsl/constants.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "codegen/dsl/builtins.hpp"
#include "codegen/dsl/parser.hpp"
#include "codegen/dsl/scalar_eval.hpp"

namespace dgmax::dsl {
namespace {

using Defs = std::vector<std::pair<std::string, ExprSource>>;

// Where the constant's name is: YAML "  omega: 2*pi" has it on the value's line, before it.
SourceLocation name_location(const std::string& name, const ExprSource& src) {
  SourceLocation loc = src.origin;
  if (loc.line > 0 && loc.column > 0 && !loc.snippet.empty()) {
    const size_t before = std::min<size_t>(loc.column - 1, loc.snippet.size());
    const size_t pos = name.empty() ? std::string::npos : loc.snippet.rfind(name, before);
    if (pos != std::string::npos && pos + name.size() <= before) loc.column = static_cast<int>(pos) + 1;
  } else {
    loc.column = 0;
    loc.snippet.clear();
  }
  return loc;
}

[[noreturn]] void name_error(const std::string& name, const ExprSource& src, std::string message,
                             std::string hint = {}) {
  throw UserError(std::move(message), name_location(name, src), std::move(hint));
}

void check_name(const std::string& name, const ExprSource& src,
                const std::vector<std::string>& variables) {
  std::string q = "'";  // (appending avoids a GCC 12 -Wrestrict false positive on "'" + str)
  q += quote_for_message(name, 40);
  q += "'";
  if (!is_identifier(name))
    name_error(name, src, q + " is not a valid constant name",
               "a name starts with a letter or '_' and continues with letters, digits or '_'");
  if (std::find(variables.begin(), variables.end(), name) != variables.end()) {
    std::string list;
    for (const auto& v : variables) list += (list.empty() ? "" : ", ") + v;
    name_error(name, src, "constant name " + q + " is reserved for a variable (" + list + ")",
               "choose another name");
  }
  if (name == "pi") name_error(name, src, "constant name 'pi' is reserved: pi is built in");
  if (find_scalar_function(name))
    name_error(name, src, "constant name " + q + " is reserved: it is a function",
               "choose another name");
  if (auto d = flux_only_description(name); !d.empty())
    name_error(name, src,
               "constant name " + q + " is reserved: in flux expressions it is " + std::string(d),
               "choose another name");
}

// Names used as values in `e`, with offsets, in source order.
void collect_names(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind() == Expr::Kind::variable) out.push_back(&e);
  for (const auto& c : e.children()) collect_names(*c, out);
}

}  // namespace

bool is_identifier(const std::string& name) {
  if (name.empty()) return false;
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!start(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

std::map<std::string, double> evaluate_constants(const Defs& defs,
                                                 const std::vector<std::string>& variables) {
  if (defs.size() > kMaxConstants)
    name_error(defs[kMaxConstants].first, defs[kMaxConstants].second,
               "more than " + std::to_string(kMaxConstants) + " constants",
               "a config needs a few dozen; compute repeated values in the expressions");
  // Names first (all of them, so forward references can be told from unknown names).
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < defs.size(); ++i) {
    const auto& [name, src] = defs[i];
    check_name(name, src, variables);
    if (auto [it, fresh] = index.emplace(name, i); !fresh) {
      const SourceLocation& first = defs[it->second].second.origin;
      name_error(name, src, "constant '" + name + "' is defined twice",
                 first.line > 0 ? "first defined at line " + std::to_string(first.line) : "");
    }
  }

  // Parse everything, then record which constants each one uses.
  std::vector<ExprPtr> asts;
  std::vector<std::vector<const Expr*>> uses(defs.size());
  for (size_t i = 0; i < defs.size(); ++i) {
    asts.push_back(parse(defs[i].second));
    collect_names(*asts[i], uses[i]);
  }

  // Whether constant `from` reaches `target` through uses; fills `path` (from ... target).
  std::function<bool(size_t, size_t, std::vector<size_t>&, std::vector<bool>&)> reaches =
      [&](size_t from, size_t target, std::vector<size_t>& path, std::vector<bool>& seen) {
        if (seen[from]) return false;
        seen[from] = true;
        path.push_back(from);
        if (from == target) return true;
        for (const Expr* u : uses[from])
          if (auto it = index.find(u->name()); it != index.end())
            if (reaches(it->second, target, path, seen)) return true;
        path.pop_back();
        return false;
      };

  // One context that grows by each value (a copy per constant would make n constants cost n²).
  ScalarContext ctx;
  std::map<std::string, double>& values = ctx.constants;
  for (size_t i = 0; i < defs.size(); ++i) {
    const auto& [name, src] = defs[i];
    for (const Expr* u : uses[i]) {
      const auto it = index.find(u->name());
      if (it == index.end() || it->second < i) continue;
      if (it->second == i)
        throw error_at(src, u->offset(), "constant '" + name + "' refers to itself");
      std::vector<size_t> path;
      std::vector<bool> seen(defs.size(), false);
      if (reaches(it->second, i, path, seen)) {
        std::string chain = name;
        for (size_t k : path) chain += " -> " + defs[k].first;
        throw error_at(src, u->offset(), "constants depend on each other in a cycle: " + chain,
                       "a constant cannot depend on itself, directly or through others");
      }
      throw error_at(src, u->offset(),
                     "constant '" + name + "' uses '" + u->name() + "', which is defined after it",
                     "constants may use pi and the constants defined above them; move '" +
                         u->name() + "' above '" + name + "'");
    }

    for (const auto& v : variables)
      ctx.unavailable[v] = "constant '" + name + "' cannot use '" + v +
                           "': constants are fixed numbers, evaluated before the run";
    const ScalarFunction f = ScalarFunction::compile(*asts[i], ctx, src);
    DGMAX_ASSERT(f.is_constant(), "constant with variables");
    const double v = f(nullptr);
    if (!std::isfinite(v))
      throw error_at(src, 0,
                     "constant '" + name + "' evaluates to " +
                         (std::isnan(v) ? std::string("NaN") : v > 0 ? "inf" : "-inf"),
                     "check for a division by zero, log of 0, sqrt of a negative number, or "
                     "overflow");
    values[name] = v;
  }
  return std::move(values);
}

}  // namespace dgmax::dsl
