#include "codegen/lower/flux_inputs.hpp"

#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace {

constexpr const char* kLabels[kNumFluxInputs] = {
    "E.int.x", "E.int.y", "E.int.z",  // kEint
    "H.int.x", "H.int.y", "H.int.z",  // kHint
    "E.ext.x", "E.ext.y", "E.ext.z",  // kEext
    "H.ext.x", "H.ext.y", "H.ext.z",  // kHext
    "n.x",     "n.y",     "n.z",      // kNormal
    "eps.int", "eps.ext", "mu.int", "mu.ext", "Z.int", "Z.ext", "Y.int", "Y.ext",
    "Einc.x",  "Einc.y",  "Einc.z",   // kEinc
    "Hinc.x",  "Hinc.y",  "Hinc.z",   // kHinc
};

static_assert(kEint == 0 && kHint == 3 && kEext == 6 && kHext == 9 && kNormal == 12 &&
              kEpsInt == 15 && kYExt == 22 && kEinc == 23 && kHinc == 26 && kNumFluxInputs == 29,
              "update kLabels with the slot layout");

}  // namespace

const char* flux_input_label(int slot) {
  DGMAX_ASSERT(slot >= 0 && slot < kNumFluxInputs, "flux input slot out of range");
  return kLabels[slot];
}

}  // namespace dgmax::codegen
