// Public amdgpu facts: the PCI ids of each family (amdgpu's PCI id list and
// amdgpu.ids), the GFX IP version the KFD reports for them, and upstream's
// family names. Upstream's rows keep upstream's order.
#include "lib/topology/device_table.h"

namespace hke::topology {
namespace {

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
constexpr uint16_t kPolaris12[] = {0x6980, 0x6981, 0x6985, 0x6986, 0x6987, 0x6995, 0x6997, 0x699F};
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

// Families whose kernels always report gfx_target_version; upstream's
// thunk has no row for them.
constexpr uint16_t kMi300a[] = {0x74A0};
constexpr uint16_t kAquaVanjaram[] = {0x74A1, 0x74A2, 0x74A5};
constexpr uint16_t kGfx950Ids[] = {0x75A0, 0x75A3};
constexpr uint16_t kNavi31[] = {0x7448, 0x744C};
constexpr uint16_t kNavi32[] = {0x747E};
constexpr uint16_t kNavi33[] = {0x7480, 0x7489};
constexpr uint16_t kPhoenix[] = {0x15BF, 0x15C8};
constexpr uint16_t kStrix[] = {0x150E};
constexpr uint16_t kStrixHalo[] = {0x1586};
constexpr uint16_t kNavi44[] = {0x7590};
constexpr uint16_t kNavi48[] = {0x7550};

#define HKE_FAMILY(major, minor, step, name, integrated, thunk, ids) \
  {                                                                  \
    {major, minor, step, name}, integrated, thunk, ids,              \
        static_cast<uint8_t>(sizeof(ids) / sizeof(ids[0]))           \
  }
constexpr DeviceFamily kFamilies[] = {
    HKE_FAMILY(7, 0, 0, "Spectre", true, true, kSpectre),
    HKE_FAMILY(7, 0, 0, "Spooky", true, true, kSpooky),
    HKE_FAMILY(7, 0, 1, "Hawaii", false, true, kHawaii),
    HKE_FAMILY(8, 0, 1, "Carrizo", true, true, kCarrizo),
    HKE_FAMILY(8, 0, 2, "Tonga", false, true, kTonga),
    HKE_FAMILY(8, 0, 3, "Fiji", false, true, kFiji),
    HKE_FAMILY(8, 0, 3, "Polaris10", false, true, kPolaris10),
    HKE_FAMILY(8, 0, 3, "Polaris11", false, true, kPolaris11),
    HKE_FAMILY(8, 0, 3, "Polaris12", false, true, kPolaris12),
    HKE_FAMILY(8, 0, 3, "VegaM", false, true, kVegaM),
    HKE_FAMILY(9, 0, 0, "Vega10", false, true, kVega10),
    HKE_FAMILY(9, 0, 4, "Vega12", false, true, kVega12),
    HKE_FAMILY(9, 0, 2, "Raven", true, true, kRaven),
    HKE_FAMILY(9, 0, 6, "Vega20", false, true, kVega20),
    HKE_FAMILY(9, 0, 8, "Arcturus", false, true, kArcturusIds),
    HKE_FAMILY(9, 0, 10, "Aldebaran", false, true, kAldebaranIds),
    HKE_FAMILY(9, 0, 12, "Renoir", true, true, kRenoir),
    HKE_FAMILY(10, 1, 0, "Navi10", false, true, kNavi10),
    HKE_FAMILY(10, 1, 3, "cyan_skillfish", true, true, kCyanSkillfish),
    HKE_FAMILY(10, 1, 2, "Navi14", false, true, kNavi14),
    HKE_FAMILY(10, 1, 1, "Navi12", false, true, kNavi12),
    HKE_FAMILY(10, 3, 0, "SIENNA_CICHLID", false, true, kSiennaCichlid),
    HKE_FAMILY(10, 3, 1, "NAVY_FLOUNDER", false, true, kNavyFlounder),
    HKE_FAMILY(10, 3, 2, "DIMGREY_CAVEFISH", false, true, kDimgreyCavefish),
    HKE_FAMILY(10, 3, 3, "VanGogh", true, true, kVanGogh),
    HKE_FAMILY(10, 3, 4, "BEIGE_GOBY", false, true, kBeigeGoby),
    HKE_FAMILY(10, 3, 5, "YELLOW_CARP", true, true, kYellowCarp),
    HKE_FAMILY(9, 4, 2, "MI300A", true, false, kMi300a),
    HKE_FAMILY(9, 4, 2, "Aqua Vanjaram", false, false, kAquaVanjaram),
    HKE_FAMILY(9, 5, 0, "gfx950", false, false, kGfx950Ids),
    HKE_FAMILY(11, 0, 0, "Navi31", false, false, kNavi31),
    HKE_FAMILY(11, 0, 1, "Navi32", false, false, kNavi32),
    HKE_FAMILY(11, 0, 2, "Navi33", false, false, kNavi33),
    HKE_FAMILY(11, 0, 3, "Phoenix", true, false, kPhoenix),
    HKE_FAMILY(11, 5, 0, "Strix", true, false, kStrix),
    HKE_FAMILY(11, 5, 1, "Strix Halo", true, false, kStrixHalo),
    HKE_FAMILY(12, 0, 0, "Navi44", false, false, kNavi44),
    HKE_FAMILY(12, 0, 1, "Navi48", false, false, kNavi48),
};
#undef HKE_FAMILY

constexpr size_t kFamilyCount = sizeof(kFamilies) / sizeof(kFamilies[0]);

}  // namespace

size_t DeviceFamilyCount() { return kFamilyCount; }

const DeviceFamily& DeviceFamilyAt(size_t i) { return kFamilies[i < kFamilyCount ? i : 0]; }

const DeviceFamily* FindDeviceFamily(uint16_t device_id) {
  if (device_id == 0) return nullptr;
  for (const DeviceFamily& f : kFamilies) {
    for (uint8_t i = 0; i < f.count; ++i) {
      if (f.ids[i] == device_id) return &f;
    }
  }
  return nullptr;
}

}  // namespace hke::topology
