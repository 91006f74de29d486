#include "lib/topology/gfx.h"

#include <cstddef>

namespace hke::topology {
namespace {

constexpr uint32_t kArcturus = 0x090008;
constexpr uint32_t kAldebaran = 0x09000a;
constexpr uint32_t kGfx94xFamily = 0x090400;  // gfx940..gfx942 (any stepping)
constexpr uint32_t kGfx950 = 0x090500;
constexpr uint32_t kGfx1100 = 0x0b0000;
constexpr uint32_t kGfx1101 = 0x0b0001;
constexpr uint32_t kGfx1200 = 0x0c0000;
constexpr uint32_t kGfx1201 = 0x0c0001;

// PCI device ids of each family (public amdgpu facts).
struct Family {
  GfxIpEntry entry;
  const uint16_t* ids;
  uint8_t count;
};

constexpr uint16_t kSpectre[] = {0x1304, 0x1305, 0x1306, 0x1307, 0x1309, 0x130A, 0x130B,
                                 0x130C, 0x130D, 0x130E, 0x130F, 0x1310, 0x1311, 0x1313,
                                 0x1315, 0x1318, 0x131B, 0x131C, 0x131D};
constexpr uint16_t kSpooky[] = {0x1312, 0x1316, 0x1317};
constexpr uint16_t kHawaii[] = {0x67A0, 0x67A1, 0x67A2, 0x67A8, 0x67A9, 0x67AA,
                                0x67B0, 0x67B1, 0x67B8, 0x67B9, 0x67BA, 0x67BE};
constexpr uint16_t kCarrizo[] = {0x9870, 0x9874, 0x9875, 0x9876, 0x9877};
constexpr uint16_t kTonga[] = {0x6920, 0x6921, 0x6928, 0x6929, 0x692B,
                               0x692F, 0x6930, 0x6938, 0x6939};
constexpr uint16_t kFiji[] = {0x7300, 0x730F};
constexpr uint16_t kPolaris10[] = {0x67C0, 0x67C1, 0x67C2, 0x67C4, 0x67C7, 0x67C8, 0x67C9,
                                   0x67CA, 0x67CC, 0x67CF, 0x67D0, 0x67DF, 0x6FDF};
constexpr uint16_t kPolaris11[] = {0x67E0, 0x67E1, 0x67E3, 0x67E7, 0x67E8,
                                   0x67E9, 0x67EB, 0x67EF, 0x67FF};
constexpr uint16_t kPolaris12[] = {0x6980, 0x6981, 0x6985, 0x6986,
                                   0x6987, 0x6995, 0x6997, 0x699F};
constexpr uint16_t kVegaM[] = {0x694C, 0x694E, 0x694F};
constexpr uint16_t kVega10[] = {0x6860, 0x6861, 0x6862, 0x6863, 0x6864, 0x6867, 0x6868,
                                0x6869, 0x686A, 0x686B, 0x686C, 0x686D, 0x686E, 0x687F};
constexpr uint16_t kVega12[] = {0x69A0, 0x69A1, 0x69A2, 0x69A3, 0x69AF};
constexpr uint16_t kRaven[] = {0x15DD, 0x15D8};
constexpr uint16_t kVega20[] = {0x66A0, 0x66A1, 0x66A2, 0x66A3, 0x66A4, 0x66A7, 0x66AF};
constexpr uint16_t kArcturusIds[] = {0x7388, 0x738C, 0x738E, 0x7390};
constexpr uint16_t kAldebaranIds[] = {0x7408, 0x740C, 0x740F, 0x7410};
constexpr uint16_t kRenoir[] = {0x15E7, 0x1636, 0x1638, 0x164C};
constexpr uint16_t kNavi10[] = {0x7310, 0x7312, 0x7318, 0x731A, 0x731E, 0x731F};
constexpr uint16_t kCyanSkillfish[] = {0x13F9, 0x13FA, 0x13FB, 0x13FC, 0x13FE, 0x143F};
constexpr uint16_t kNavi14[] = {0x7340, 0x7341, 0x7347};
constexpr uint16_t kNavi12[] = {0x7360, 0x7362};
constexpr uint16_t kSiennaCichlid[] = {0x73A0, 0x73A1, 0x73A2, 0x73A3, 0x73A5, 0x73A8,
                                       0x73A9, 0x73AB, 0x73AC, 0x73AD, 0x73AE, 0x73BF};
constexpr uint16_t kNavyFlounder[] = {0x73C0, 0x73C1, 0x73C3, 0x73DA, 0x73DB,
                                      0x73DC, 0x73DD, 0x73DE, 0x73DF};
constexpr uint16_t kDimgreyCavefish[] = {0x73E0, 0x73E1, 0x73E2, 0x73E8, 0x73E9, 0x73EA,
                                         0x73EB, 0x73EC, 0x73ED, 0x73EF, 0x73FF};
constexpr uint16_t kVanGogh[] = {0x163F};
constexpr uint16_t kBeigeGoby[] = {0x7420, 0x7421, 0x7422, 0x7423, 0x743F};
constexpr uint16_t kYellowCarp[] = {0x164D, 0x1681};

#define HKE_FAMILY(major, minor, step, name, ids) \
  { {major, minor, step, name}, ids, static_cast<uint8_t>(sizeof(ids) / sizeof(ids[0])) }
constexpr Family kFamilies[] = {
    HKE_FAMILY(7, 0, 0, "Spectre", kSpectre),
    HKE_FAMILY(7, 0, 0, "Spooky", kSpooky),
    HKE_FAMILY(7, 0, 1, "Hawaii", kHawaii),
    HKE_FAMILY(8, 0, 1, "Carrizo", kCarrizo),
    HKE_FAMILY(8, 0, 2, "Tonga", kTonga),
    HKE_FAMILY(8, 0, 3, "Fiji", kFiji),
    HKE_FAMILY(8, 0, 3, "Polaris10", kPolaris10),
    HKE_FAMILY(8, 0, 3, "Polaris11", kPolaris11),
    HKE_FAMILY(8, 0, 3, "Polaris12", kPolaris12),
    HKE_FAMILY(8, 0, 3, "VegaM", kVegaM),
    HKE_FAMILY(9, 0, 0, "Vega10", kVega10),
    HKE_FAMILY(9, 0, 4, "Vega12", kVega12),
    HKE_FAMILY(9, 0, 2, "Raven", kRaven),
    HKE_FAMILY(9, 0, 6, "Vega20", kVega20),
    HKE_FAMILY(9, 0, 8, "Arcturus", kArcturusIds),
    HKE_FAMILY(9, 0, 10, "Aldebaran", kAldebaranIds),
    HKE_FAMILY(9, 0, 12, "Renoir", kRenoir),
    HKE_FAMILY(10, 1, 0, "Navi10", kNavi10),
    HKE_FAMILY(10, 1, 3, "cyan_skillfish", kCyanSkillfish),
    HKE_FAMILY(10, 1, 2, "Navi14", kNavi14),
    HKE_FAMILY(10, 1, 1, "Navi12", kNavi12),
    HKE_FAMILY(10, 3, 0, "SIENNA_CICHLID", kSiennaCichlid),
    HKE_FAMILY(10, 3, 1, "NAVY_FLOUNDER", kNavyFlounder),
    HKE_FAMILY(10, 3, 2, "DIMGREY_CAVEFISH", kDimgreyCavefish),
    HKE_FAMILY(10, 3, 3, "VanGogh", kVanGogh),
    HKE_FAMILY(10, 3, 4, "BEIGE_GOBY", kBeigeGoby),
    HKE_FAMILY(10, 3, 5, "YELLOW_CARP", kYellowCarp),
};
#undef HKE_FAMILY

}  // namespace

uint32_t VgprSizePerCu(uint32_t packed_gfx) {
  if (packed_gfx == kGfx950 || (packed_gfx & ~0xffu) == kGfx94xFamily ||
      packed_gfx == kAldebaran || packed_gfx == kArcturus) {
    return 0x80000;
  }
  if (packed_gfx == kGfx1100 || packed_gfx == kGfx1101 || packed_gfx == kGfx1200 ||
      packed_gfx == kGfx1201) {
    return 0x60000;
  }
  return 0x40000;
}

const GfxIpEntry* FindGfxIpByDeviceId(uint16_t device_id, uint32_t gfx_major) {
  if (gfx_major > 10 || device_id == 0) return nullptr;
  for (const Family& f : kFamilies) {
    for (uint8_t i = 0; i < f.count; ++i) {
      if (f.ids[i] == device_id) return &f.entry;
    }
  }
  return nullptr;
}

}  // namespace hke::topology
