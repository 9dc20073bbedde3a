#include "codegen/lower/scalar_dag.hpp"

#include <cmath>
#include <cstring>

#include "codegen/dsl/bessel.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace {

using Op = DagNode::Op;

// The same definitions as codegen/dsl/scalar_eval.cpp (there they are private to that file), so
// that a flux and a scalar expression give the same bits for the same formula.
inline double fn_sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }            // NaN -> NaN
inline double fn_heaviside(double x) { return x < 0 ? 0.0 : x >= 0 ? 1.0 : x; }      // NaN -> NaN
inline double fn_pow(double a, double b) { return b == 2.0 ? a * a : std::pow(a, b); }
inline double fn_min(double a, double b) { return a < b || (a == b && std::signbit(a)) || b != b ? a : b; }
inline double fn_max(double a, double b) { return a > b || (a == b && !std::signbit(a)) || b != b ? a : b; }

// `order`: the order of besselj / bessely (unused by the other functions).
double apply1(dsl::Builtin fn, int order, double x) {
  using B = dsl::Builtin;
  switch (fn) {
    case B::sin: return std::sin(x);
    case B::cos: return std::cos(x);
    case B::tan: return std::tan(x);
    case B::asin: return std::asin(x);
    case B::acos: return std::acos(x);
    case B::atan: return std::atan(x);
    case B::sinh: return std::sinh(x);
    case B::cosh: return std::cosh(x);
    case B::tanh: return std::tanh(x);
    case B::exp: return std::exp(x);
    case B::log: return std::log(x);
    case B::sqrt: return std::sqrt(x);
    case B::abs: return std::fabs(x);
    case B::floor: return std::floor(x);
    case B::ceil: return std::ceil(x);
    case B::sign: return fn_sign(x);
    case B::heaviside: return fn_heaviside(x);
    case B::erf: return std::erf(x);
    case B::besselj: return dsl::bessel_j(order, x);
    case B::bessely: return dsl::bessel_y(order, x);
    default: break;
  }
  DGMAX_ASSERT(false, "not a one-argument builtin");
}

double apply2(dsl::Builtin fn, double a, double b) {
  using B = dsl::Builtin;
  switch (fn) {
    case B::atan2: return std::atan2(a, b);
    case B::min: return fn_min(a, b);
    case B::max: return fn_max(a, b);
    case B::pow: return fn_pow(a, b);
    default: break;
  }
  DGMAX_ASSERT(false, "not a two-argument builtin");
}

bool is_one_argument(dsl::Builtin fn) {
  using B = dsl::Builtin;
  return fn != B::atan2 && fn != B::min && fn != B::max && fn != B::pow;
}

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// c = ±2^k such that x/c == x*(1/c) for every x: both are the correctly rounded x·2^-k.
bool reciprocal_is_exact(double c) {
  if (!std::isnormal(c)) return false;
  int e = 0;
  if (std::fabs(std::frexp(c, &e)) != 0.5) return false;  // not a power of two
  return std::isnormal(1.0 / c);
}

}  // namespace

int ScalarDag::intern(const DagNode& n) {
  // Structural key: every field that defines the node, as bytes (constants by their bits).
  // add and mul are commutative (bit for bit): the key orders their operands, the node keeps
  // the order it was first written in (readable output), and y*x finds the node of x*y.
  int a = n.a, b = n.b;
  if ((n.op == Op::add || n.op == Op::mul) && a > b) std::swap(a, b);
  char key[1 + 4 + 4 + 4 + 8 + 1 + 4];
  key[0] = static_cast<char>(n.op);
  std::memcpy(key + 1, &a, 4);
  std::memcpy(key + 5, &b, 4);
  std::memcpy(key + 9, &n.input, 4);
  std::memcpy(key + 13, &n.value, 8);
  key[21] = static_cast<char>(n.fn);
  std::memcpy(key + 22, &n.order, 4);
  auto [it, inserted] = index_.try_emplace(std::string(key, sizeof key), static_cast<int>(nodes_.size()));
  if (inserted) nodes_.push_back(n);
  return it->second;
}

int ScalarDag::input(int slot) {
  DGMAX_ASSERT(slot >= 0, "negative input slot");
  DagNode n{Op::input};
  n.input = slot;
  return intern(n);
}

int ScalarDag::constant(double v) {
  DagNode n{Op::constant};
  n.value = v;
  return intern(n);
}

namespace {
void check_operand(const std::vector<DagNode>& nodes, int a) {
  DGMAX_ASSERT(a >= 0 && a < static_cast<int>(nodes.size()), "DAG operand out of range");
}
}  // namespace

int ScalarDag::add(int a, int b) {
  check_operand(nodes_, a);
  check_operand(nodes_, b);
  const DagNode &x = nodes_[a], &y = nodes_[b];
  if (x.op == Op::constant && y.op == Op::constant) return constant(x.value + y.value);
  if (y.op == Op::constant && same_bits(y.value, -0.0)) return a;  // x + (-0) == x, also for x = ±0
  if (x.op == Op::constant && same_bits(x.value, -0.0)) return b;
  if (y.op == Op::neg) return sub(a, y.a);  // x + (-y) == x - y
  if (x.op == Op::neg) return sub(b, x.a);  // (-x) + y == y - x
  DagNode n{Op::add};
  n.a = a;
  n.b = b;
  return intern(n);
}

int ScalarDag::sub(int a, int b) {
  check_operand(nodes_, a);
  check_operand(nodes_, b);
  const DagNode &x = nodes_[a], &y = nodes_[b];
  if (x.op == Op::constant && y.op == Op::constant) return constant(x.value - y.value);
  if (y.op == Op::constant && same_bits(y.value, 0.0)) return a;  // x - (+0) == x, also for x = ±0
  if (y.op == Op::neg) return add(a, y.a);                        // x - (-y) == x + y
  DagNode n{Op::sub};
  n.a = a;
  n.b = b;
  return intern(n);
}

int ScalarDag::mul(int a, int b) {
  check_operand(nodes_, a);
  check_operand(nodes_, b);
  const DagNode &x = nodes_[a], &y = nodes_[b];
  if (x.op == Op::constant && y.op == Op::constant) return constant(x.value * y.value);
  if (y.op == Op::constant && y.value == 1.0) return a;  // x*1 == x; x*0 is kept (NaN, inf)
  if (x.op == Op::constant && x.value == 1.0) return b;
  DagNode n{Op::mul};
  n.a = a;
  n.b = b;
  return intern(n);
}

int ScalarDag::div(int a, int b) {
  check_operand(nodes_, a);
  check_operand(nodes_, b);
  const DagNode &x = nodes_[a], &y = nodes_[b];
  if (x.op == Op::constant && y.op == Op::constant) return constant(x.value / y.value);
  if (y.op == Op::constant && y.value == 1.0) return a;
  if (y.op == Op::constant && reciprocal_is_exact(y.value)) return mul(a, constant(1.0 / y.value));
  DagNode n{Op::div};
  n.a = a;
  n.b = b;
  return intern(n);
}

int ScalarDag::neg(int a) {
  check_operand(nodes_, a);
  const DagNode& x = nodes_[a];
  if (x.op == Op::constant) return constant(-x.value);
  if (x.op == Op::neg) return x.a;
  DagNode n{Op::neg};
  n.a = a;
  return intern(n);
}

int ScalarDag::call(dsl::Builtin fn, int a) {
  DGMAX_ASSERT(is_one_argument(fn) && !dsl::takes_order(fn), "builtin called with 1 argument");
  check_operand(nodes_, a);
  const DagNode& x = nodes_[a];
  if (x.op == Op::constant) return constant(apply1(fn, 0, x.value));
  DagNode n{Op::call1};
  n.a = a;
  n.fn = fn;
  return intern(n);
}

int ScalarDag::call_order(dsl::Builtin fn, int n, int a) {
  DGMAX_ASSERT(dsl::takes_order(fn), "builtin called with an order");
  DGMAX_ASSERT(n >= 0 && n <= dsl::kMaxBesselOrder, "order out of range");
  check_operand(nodes_, a);
  const DagNode& x = nodes_[a];
  if (x.op == Op::constant) return constant(apply1(fn, n, x.value));
  DagNode node{Op::call1};
  node.a = a;
  node.fn = fn;
  node.order = n;
  return intern(node);
}

int ScalarDag::call(dsl::Builtin fn, int a, int b) {
  DGMAX_ASSERT(!is_one_argument(fn) && !dsl::takes_order(fn), "builtin called with 2 arguments");
  check_operand(nodes_, a);
  check_operand(nodes_, b);
  const DagNode &x = nodes_[a], &y = nodes_[b];
  if (x.op == Op::constant && y.op == Op::constant) return constant(apply2(fn, x.value, y.value));
  // x^2 and pow(x, 2) are x*x, as in scalar expressions (exact, and what users mean).
  if (fn == dsl::Builtin::pow && y.op == Op::constant && y.value == 2.0) return mul(a, a);
  DagNode n{Op::call2};
  n.a = a;
  n.b = b;
  n.fn = fn;
  return intern(n);
}

std::vector<bool> ScalarDag::live() const {
  std::vector<bool> live(nodes_.size(), false);
  for (int o : outputs) {
    DGMAX_ASSERT(o >= 0 && o < static_cast<int>(nodes_.size()), "DAG output out of range");
    live[o] = true;
  }
  for (size_t i = nodes_.size(); i-- > 0;) {
    if (!live[i]) continue;
    const DagNode& n = nodes_[i];
    if (n.a >= 0) live[n.a] = true;
    if (n.b >= 0) live[n.b] = true;
  }
  return live;
}

int ScalarDag::operation_count() const {
  const std::vector<bool> l = live();
  int count = 0;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (l[i] && nodes_[i].op != Op::input && nodes_[i].op != Op::constant) ++count;
  return count;
}

ScalarDag ScalarDag::pruned() const {
  const std::vector<bool> l = live();
  ScalarDag out;
  std::vector<int> id(nodes_.size(), -1);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!l[i]) continue;
    DagNode n = nodes_[i];
    if (n.a >= 0) n.a = id[n.a];
    if (n.b >= 0) n.b = id[n.b];
    // re-keyed as is, without simplifying again
    id[i] = out.intern(n);
  }
  for (int o : outputs) out.outputs.push_back(id[o]);
  return out;
}

void evaluate(const ScalarDag& dag, const double* in, double* out, double* scratch) {
  const std::vector<DagNode>& nodes = dag.nodes();
  double* v = scratch;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const DagNode& n = nodes[i];
    switch (n.op) {
      case Op::input: v[i] = in[n.input]; break;
      case Op::constant: v[i] = n.value; break;
      case Op::add: v[i] = v[n.a] + v[n.b]; break;
      case Op::sub: v[i] = v[n.a] - v[n.b]; break;
      case Op::mul: v[i] = v[n.a] * v[n.b]; break;
      case Op::div: v[i] = v[n.a] / v[n.b]; break;
      case Op::neg: v[i] = -v[n.a]; break;
      case Op::call1: v[i] = apply1(n.fn, n.order, v[n.a]); break;
      case Op::call2: v[i] = apply2(n.fn, v[n.a], v[n.b]); break;
    }
  }
  for (size_t k = 0; k < dag.outputs.size(); ++k) out[k] = v[dag.outputs[k]];
}

}  // namespace dgmax::codegen
