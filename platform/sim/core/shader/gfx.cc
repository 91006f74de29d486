// The GFX9-family table (see gfx.h). Facts from the AMD Vega, MI100 (CDNA1),
// MI200 (CDNA2) and MI300 (CDNA3) ISA manuals and LLVM's AMDGPU encodings,
// checked against llvm-mc-14 where it knows the target (it does not know
// gfx940+; the gfx942 row follows the CDNA3 manual).
#include "platform/sim/core/shader/gfx.h"

namespace kfdsim::shader {

namespace {

// name, versions, dot, agprs, gfx90a, fp atomics, gfx940, packed tid, granule
constexpr GfxTraits kTargets[] = {
    // gfx900/902/904/909 and the gfx90c APU share the Vega ISA.
    {"gfx900", 90000, 90004, false, false, false, false, false, false, 4},
    {"gfx906", 90006, 90006, true, false, false, false, false, false, 4},
    {"gfx908", 90008, 90008, true, true, false, true, false, false, 4},
    {"gfx909", 90009, 90009, false, false, false, false, false, false, 4},
    {"gfx90a", 90010, 90010, true, true, true, true, false, true, 8},
    {"gfx90c", 90012, 90012, false, false, false, false, false, false, 4},
    {"gfx942", 90400, 90402, true, true, true, true, true, true, 8},
};

}  // namespace

const GfxTraits* TraitsFor(uint32_t gfx_target_version) {
  for (const GfxTraits& t : kTargets) {
    if (gfx_target_version >= t.first_version && gfx_target_version <= t.last_version) return &t;
  }
  return nullptr;
}

}  // namespace kfdsim::shader
