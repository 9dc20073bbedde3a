#include "solver/physics/pml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dgmax {
namespace {

struct Box {
  Vec3 lo{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
          std::numeric_limits<double>::infinity()};
  Vec3 hi{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity()};
  void add(const Vec3& x) {
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], x[d]), hi[d] = std::max(hi[d], x[d]);
  }
  bool empty() const { return lo[0] > hi[0]; }
};

std::string box_text(const Box& b) {
  return fmt::format("[{:.6g}, {:.6g}] x [{:.6g}, {:.6g}] x [{:.6g}, {:.6g}]", b.lo[0], b.hi[0], b.lo[1], b.hi[1],
                     b.lo[2], b.hi[2]);
}

void check_parameters(const PmlSpec& s) {
  auto bad = [&](const std::string& what, const std::string& hint) { throw UserError("pml: " + what, s.where, hint); };
  if (!(s.order >= 0 && s.order <= 10)) bad(fmt::format("order {} is outside [0, 10]", s.order), "2 to 4 is usual");
  if (!(s.reflection > 0 && s.reflection < 1))
    bad(fmt::format("reflection {} is not in (0, 1)", s.reflection), "the target reflection, e.g. 1e-6");
  if (!(s.sigma_max >= 0 && std::isfinite(s.sigma_max)))
    bad(fmt::format("sigma_max {} is not a finite value >= 0", s.sigma_max), "leave it out to derive it from `reflection`");
  if (!(s.kappa >= 1 && std::isfinite(s.kappa))) bad(fmt::format("kappa {} is not >= 1", s.kappa), "1 means no real stretching");
  if (!(s.alpha >= 0 && std::isfinite(s.alpha)))
    bad(fmt::format("alpha {} is not a finite value >= 0", s.alpha), "a small positive shift such as 0.05 damps static fields");
  if (!(s.thickness >= 0 && std::isfinite(s.thickness)))
    bad(fmt::format("thickness {} is not a finite value > 0", s.thickness), "the layer's thickness in length units");
}

// Whether element k lies outside the open inner box: along some axis all its vertices are on or
// beyond one of the box's planes (tolerance: a relative 1e-9 of the mesh size).
bool outside(const Mesh& m, int k, const Box& inner, double tol) {
  for (int d = 0; d < 3; ++d) {
    bool below = true, above = true;
    for (int v : m.elements[k]) {
      below = below && m.vertices[v][d] <= inner.lo[d] + tol;
      above = above && m.vertices[v][d] >= inner.hi[d] - tol;
    }
    if (below || above) return true;
  }
  return false;
}

}  // namespace

double PmlLayer::max_rate() const {
  double r = 0;
  for (int d = 0; d < 3; ++d) r = std::max({r, profile.sigma_lo[d], profile.sigma_hi[d]});
  return r + profile.alpha;  // kappa >= 1 only lowers sigma/kappa
}

PmlLayer build_pml_layer(const PmlSpec& spec, const MeshData& md, const std::vector<Material>& material) {
  check_parameters(spec);
  const Mesh& m = md.mesh;
  const int K = m.num_elements();
  Box outer;
  for (const Vec3& x : m.vertices) outer.add(x);
  double size = 0;
  for (int d = 0; d < 3; ++d) size = std::max(size, outer.hi[d] - outer.lo[d]);
  const double tol = 1e-9 * size;

  PmlLayer layer;
  layer.slot_of.assign(static_cast<size_t>(K), -1);
  std::vector<char> in_layer(static_cast<size_t>(K), 0);
  Box inner;
  if (!spec.regions.empty()) {
    if (spec.thickness > 0)
      throw UserError("pml: both `regions` and `thickness` are given", spec.where, "give one of them");
    for (const std::string& r : spec.regions) {
      const int tag = m.volume_tag(r);
      if (tag < 0)
        throw UserError("pml: the mesh has no volume tag '" + r + "'", spec.where,
                        "the layer's regions are volume tags of the mesh (dgmax info CONFIG lists them)");
      int count = 0;
      for (int k = 0; k < K; ++k)
        if (m.element_tag[k] == tag) in_layer[k] = 1, ++count;
      if (count == 0) throw UserError("pml: volume tag '" + r + "' has no elements", spec.where, "");
    }
    for (int k = 0; k < K; ++k)
      if (!in_layer[k])
        for (int v : m.elements[k]) inner.add(m.vertices[v]);
    if (inner.empty())
      throw UserError("pml: every element is in the layer", spec.where, "the layer must surround a domain of other elements");
  } else {
    if (!(spec.thickness > 0))
      throw UserError("pml: neither `regions` nor `thickness` is given", spec.where,
                      "e.g. thickness: 0.3, or regions: [pml] (mesh.box.pml makes such a tag)");
    for (int d = 0; d < 3; ++d) {
      inner.lo[d] = outer.lo[d] + spec.thickness, inner.hi[d] = outer.hi[d] - spec.thickness;
      if (!(inner.lo[d] < inner.hi[d]))
        throw UserError(fmt::format("pml: thickness {} leaves no domain inside the mesh's bounding box {}", spec.thickness,
                                    box_text(outer)),
                        spec.where, "the layer takes `thickness` from each side of the box");
    }
    for (int k = 0; k < K; ++k) {
      const Vec3 c = element_centroid(m, k);
      for (int d = 0; d < 3; ++d) in_layer[k] = in_layer[k] || c[d] < inner.lo[d] || c[d] > inner.hi[d];
    }
  }
  // a layer element inside the inner box, or one straddling its planes, makes no layer
  for (int k = 0; k < K; ++k)
    if (in_layer[k] && !outside(m, k, inner, tol)) {
      const Vec3 c = element_centroid(m, k);
      throw UserError(fmt::format("pml: element {} (centroid ({:.6g}, {:.6g}, {:.6g})) of the layer reaches into the "
                                  "domain it should surround, {}",
                                  k, c[0], c[1], c[2], box_text(inner)),
                      spec.where,
                      spec.regions.empty() ? "put the layer's inner faces on element faces (box meshes: a multiple of the "
                                             "cell size, or mesh.box.pml)"
                                           : "a PML region must be a box-shaped shell around the other elements");
    }
  // and a domain element reaching out of the inner box: the planes cut through it (thickness not on
  // element faces), so the layer would not be the one asked for
  if (spec.regions.empty())
    for (int k = 0; k < K; ++k) {
      if (in_layer[k]) continue;
      for (int v : m.elements[k])
        for (int d = 0; d < 3; ++d)
          if (m.vertices[v][d] < inner.lo[d] - tol || m.vertices[v][d] > inner.hi[d] + tol) {
            const Vec3 c = element_centroid(m, k);
            throw UserError(fmt::format("pml: thickness {} cuts through element {} (centroid ({:.6g}, {:.6g}, {:.6g})): it "
                                        "reaches into the layer from the domain {}",
                                        spec.thickness, k, c[0], c[1], c[2], box_text(inner)),
                            spec.where,
                            "put the layer's inner faces on element faces (box meshes: a multiple of the cell size, "
                            "or mesh.box.pml)");
          }
    }

  // the layer's damping is set up for straight-sided elements (one profile value per element at
  // its vertices' centroid, the straight-sided right-hand side it scales): a curved object must
  // stay in the domain, away from the layer
  for (int k = 0; k < K; ++k)
    if (in_layer[k] && m.is_curved(k)) {
      const Vec3 c = element_centroid(m, k);
      throw UserError(fmt::format("pml: element {} (centroid ({:.6g}, {:.6g}, {:.6g})) of the layer is curved "
                                  "(geometry order {}), and the layer takes straight-sided elements only",
                                  k, c[0], c[1], c[2], m.geometry_order),
                      spec.where,
                      "mesh the layer with straight-sided elements: keep the curved object away from it (at least "
                      "one element between them), or make the layer thinner");
    }
  layer.wave_speed = 0;
  for (int k = 0; k < K; ++k)
    if (in_layer[k]) {
      layer.slot_of[k] = static_cast<int>(layer.elements.size());
      layer.elements.push_back(k);
      layer.wave_speed = std::max(layer.wave_speed, 1 / std::sqrt(material[k].eps * material[k].mu));
    }
  if (layer.elements.empty())
    throw UserError("pml: no element lies in the layer", spec.where, "check `thickness` against the mesh size");

  codegen::PmlProfile& p = layer.profile;
  p.order = spec.order;
  p.kappa_max = spec.kappa;
  p.alpha = spec.alpha;
  bool any = false;
  for (int d = 0; d < 3; ++d) {
    p.inner_lo[d] = inner.lo[d], p.inner_hi[d] = inner.hi[d];
    const double wl = inner.lo[d] - outer.lo[d], wh = outer.hi[d] - inner.hi[d];
    p.width_lo[d] = wl > tol ? wl : 0;
    p.width_hi[d] = wh > tol ? wh : 0;
    // R = exp(-2 sigma_max w / ((order + 1) c)) at normal incidence
    auto smax = [&](double w) {
      if (w <= 0) return 0.0;
      return spec.sigma_max > 0 ? spec.sigma_max : (spec.order + 1) * layer.wave_speed * std::log(1 / spec.reflection) / (2 * w);
    };
    p.sigma_lo[d] = smax(p.width_lo[d]);
    p.sigma_hi[d] = smax(p.width_hi[d]);
    any = any || p.width_lo[d] > 0 || p.width_hi[d] > 0;
  }
  if (!any) throw UserError("pml: the layer has no thickness on any side", spec.where, "");
  layer.whole_elements = static_cast<int>(layer.elements.size());
  long at_corners = 0;
  for (const int k : layer.elements) at_corners += element_at_cell_corners(m, k);
  layer.cell_corner_share = static_cast<double>(at_corners) / static_cast<double>(layer.elements.size());
  return layer;
}

bool element_at_cell_corners(const Mesh& mesh, int k) {
  Box b;
  for (const int v : mesh.elements[k]) b.add(mesh.vertices[v]);
  for (const int v : mesh.elements[k])
    for (int d = 0; d < 3; ++d) {
      const double x = mesh.vertices[v][d], tol = 1e-9 * (b.hi[d] - b.lo[d]);
      if (std::abs(x - b.lo[d]) > tol && std::abs(x - b.hi[d]) > tol) return false;
    }
  return true;
}

PmlLayer localize_pml_layer(const PmlLayer& whole, const MeshData& local) {
  if (!local.halo.partitioned()) return whole;
  PmlLayer out;
  out.profile = whole.profile;
  out.wave_speed = whole.wave_speed;
  out.whole_elements = whole.whole_elements;
  out.cell_corner_share = whole.cell_corner_share;
  out.slot_of.assign(static_cast<size_t>(local.mesh.num_elements()), -1);
  for (int k = 0; k < local.owned_elements(); ++k)
    if (whole.slot_of[static_cast<size_t>(local.halo.global_index(k))] >= 0) {
      out.slot_of[static_cast<size_t>(k)] = static_cast<int>(out.elements.size());
      out.elements.push_back(k);
    }
  return out;
}

std::vector<double> pml_partition_weights(const PmlLayer* whole, int K) {
  if (!whole) return {};
  std::vector<double> w(static_cast<size_t>(K), 1.0);
  for (int k : whole->elements) w[static_cast<size_t>(k)] = kPmlElementCost;
  return w;
}

void check_pml_time_step(const PmlLayer& layer, const PmlSpec& spec, double dt) {
  const double r = layer.max_rate(), alpha = layer.profile.alpha, sigma = r - alpha;
  if (dt * r > 2) {
    // the key that makes the rate: alpha, or sigma_max (given, or derived from reflection and the
    // layer's thickness)
    const bool by_alpha = alpha >= sigma;
    const SourceLocation& at = by_alpha ? spec.alpha_where : spec.sigma_where;
    throw UserError(fmt::format("pml: the damping rate {:.4g} (sigma_max {:.4g} + alpha {:.4g}) needs a time step below "
                                "{:.4g}, but the step is {:.4g}",
                                r, sigma, alpha, 2 / r, dt),
                    at.file.empty() ? spec.where : at,
                    by_alpha ? "lower `alpha` (a small shift such as 0.05 is usual)"
                             : "make the layer thicker, or raise `reflection`, or lower `sigma_max`");
  }
}

}  // namespace dgmax
