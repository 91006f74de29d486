// Values are public facts: amdkfd's per-ASIC cache tables (kfd_crat.c) and
// IP-discovery values as real kernels print them, AMD product data sheets,
// the amdgpu.ids revisions and amdkfd's per-ASIC SDMA counts.
#include "platform/sim/topology/asic_tables.h"

namespace kfdsim {
namespace topo {
namespace {

constexpr uint32_t kFamilyCi = 120, kFamilyKv = 125, kFamilyVi = 130, kFamilyCz = 135;
constexpr uint32_t kFamilyAi = 141, kFamilyRv = 142, kFamilyNv = 143, kFamilyVgh = 144;
constexpr uint32_t kFamilyGc1100 = 145, kFamilyYc = 146, kFamilyGc1101 = 148;
constexpr uint32_t kFamilyGc1036 = 149, kFamilyGc1150 = 150, kFamilyGc1037 = 151;
constexpr uint32_t kFamilyGc1200 = 152;

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kMiB = 1ull << 20;

#define L1D(kb, line, shared) \
  { kb, line, 1, false, shared, false }
#define L1I(kb, line, shared) \
  { kb, line, 1, true, shared, false }
#define L2(kb, line) \
  { kb, line, 2, false, kPerXcc, false }
#define L3(kb, line) \
  { kb, line, 3, false, kPerNode, false }

// GFX9 (Vega and CDNA): TCP per CU, SQC instruction/scalar-data per CU group, one L2.
const GpuCacheSpec kVega10[] = {L1D(16, 64, 1), L1I(32, 64, 3), L1D(16, 64, 3), L2(4096, 64)};
const GpuCacheSpec kRaven[] = {L1D(16, 64, 1), L1I(32, 64, 3), L1D(16, 64, 3), L2(1024, 64)};
const GpuCacheSpec kRenoir[] = {L1D(16, 64, 1), L1I(32, 64, 3), L1D(16, 64, 3), L2(1024, 64)};
const GpuCacheSpec kVega12[] = {L1D(16, 64, 1), L1I(32, 64, 3), L1D(16, 64, 3), L2(2048, 64)};
const GpuCacheSpec kVega20[] = {L1D(16, 64, 1), L1I(32, 64, 3), L1D(16, 64, 3), L2(8192, 64)};
const GpuCacheSpec kAldebaran[] = {L1D(16, 64, 1), L1I(32, 64, 2), L1D(16, 64, 2), L2(8192, 128)};
// GC 9.4.3 (MI300 family): IP-discovery values; the MALL is split between partitions.
const GpuCacheSpec kGfx94x[] = {L1D(32, 128, 1),
                                L1I(64, 64, 2),
                                L1D(16, 64, 2),
                                L2(4096, 128),
                                {262144, 64, 3, false, kPerNode, true}};

// GFX10 (RDNA1/2): adds the GL1 per shader array, RDNA2 dGPUs add Infinity Cache.
#define RDNA_L1 L1D(16, 128, 1), L1I(32, 64, 2), L1D(16, 64, 2)
const GpuCacheSpec kNavi10[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(4096, 128)};
const GpuCacheSpec kNavi14[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(2048, 128)};
const GpuCacheSpec kSienna[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(4096, 128),
                                L3(131072, 64)};
const GpuCacheSpec kNavyFlounder[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(3072, 128),
                                      L3(98304, 64)};
const GpuCacheSpec kDimgrey[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(2048, 128),
                                 L3(32768, 64)};
const GpuCacheSpec kVangogh[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(1024, 128)};
const GpuCacheSpec kBeigeGoby[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(1024, 128),
                                   L3(16384, 64)};
const GpuCacheSpec kYellowCarp[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(2048, 128)};
const GpuCacheSpec kGfx1036[] = {RDNA_L1, L1D(128, 128, kPerShaderArray), L2(256, 128)};

// GFX11/12 (RDNA3/4): IP-discovery values (32 KiB vector L0, 256 KiB GL1).
#define RDNA3_L1 L1D(32, 128, 1), L1I(32, 128, 2), L1D(16, 64, 2)
const GpuCacheSpec kNavi31[] = {RDNA3_L1, L1D(256, 128, kPerShaderArray), L2(6144, 128),
                                L3(98304, 0)};
const GpuCacheSpec kNavi32[] = {RDNA3_L1, L1D(256, 128, kPerShaderArray), L2(4096, 128),
                                L3(65536, 0)};
const GpuCacheSpec kNavi33[] = {RDNA3_L1, L1D(256, 128, kPerShaderArray), L2(2048, 128),
                                L3(32768, 0)};
const GpuCacheSpec kPhoenix[] = {RDNA3_L1, L1D(256, 128, kPerShaderArray), L2(2048, 128)};
const GpuCacheSpec kStrixHalo[] = {RDNA3_L1, L1D(256, 128, kPerShaderArray), L2(2048, 128),
                                   L3(32768, 0)};
const GpuCacheSpec kNavi44[] = {RDNA3_L1, L2(4096, 128), L3(32768, 64)};
const GpuCacheSpec kNavi48[] = {RDNA3_L1, L2(8192, 128), L3(65536, 64)};

// What amdkfd serves for an ASIC it has no table for.
const GpuCacheSpec kGeneric[] = {L1D(16, 64, 1), L1I(32, 64, 2), L1D(16, 64, 2),
                                 L1D(128, 64, kPerShaderArray), L2(2048, 64)};

#undef L1D
#undef L1I
#undef L2
#undef L3
#undef RDNA_L1
#undef RDNA3_L1

struct AsicRow {
  uint32_t gfx;
  const char* name;
  uint32_t family;
  uint32_t gb_addr_config;
  const GpuCacheSpec* caches;
  size_t num_caches;
  FamilyDefaults defaults;
};

// Defaults per family: VRAM, bus width and memory clock of the family's
// common product (AMD data sheets; an APU's typical carve-out), the XCCs of
// the whole device, the PCI revision amdgpu.ids names for it, and the SDMA
// engines and queues per engine amdkfd gave the family.
#define ROW(gfx, name, fam, gb, table, vram, width, clk, xcc, rev, sdma, queues) \
  {                                                                              \
    gfx, name, fam, gb, table, sizeof(table) / sizeof(table[0]), {               \
      vram, width, clk, xcc, rev, sdma, queues                                   \
    }                                                                            \
  }
const AsicRow kAsics[] = {
    ROW(90000, "vega10", kFamilyAi, 0x2a114042u, kVega10, 8 * kGiB, 2048, 945, 1, 0x00, 2, 2),
    ROW(90002, "raven", kFamilyRv, 0x24000042u, kRaven, 512 * kMiB, 64, 1200, 1, 0x00, 1, 2),
    ROW(90004, "vega12", kFamilyAi, 0x24104041u, kVega12, 4 * kGiB, 1024, 740, 1, 0x00, 2, 2),
    ROW(90006, "vega20", kFamilyAi, 0x2a114042u, kVega20, 16 * kGiB, 4096, 1000, 1, 0xc1, 2, 8),
    ROW(90008, "arcturus", kFamilyAi, 0x2a114042u, kVega20, 32 * kGiB, 4096, 1200, 1, 0x01, 2, 8),
    ROW(90009, "raven", kFamilyRv, 0x26013041u, kRaven, 512 * kMiB, 64, 1200, 1, 0x00, 1, 2),
    ROW(90010, "aldebaran", kFamilyAi, 0x2a114042u, kAldebaran, 64 * kGiB, 4096, 1600, 1, 0x02, 2,
        8),
    ROW(90012, "renoir", kFamilyRv, 0x26013041u, kRenoir, 512 * kMiB, 64, 1600, 1, 0x00, 1, 2),
    ROW(90400, "ip discovery", kFamilyAi, 0x2a114042u, kGfx94x, 192 * kGiB, 8192, 1300, 8, 0x00, 2,
        8),
    ROW(90401, "ip discovery", kFamilyAi, 0x2a114042u, kGfx94x, 192 * kGiB, 8192, 1300, 8, 0x00, 2,
        8),
    ROW(90402, "ip discovery", kFamilyAi, 0x2a114042u, kGfx94x, 192 * kGiB, 8192, 1300, 8, 0x00, 2,
        8),
    ROW(90500, "ip discovery", kFamilyAi, 0x2a114042u, kGfx94x, 288 * kGiB, 8192, 1900, 8, 0x00, 2,
        8),
    ROW(100100, "navi10", kFamilyNv, 0x00100044u, kNavi10, 8 * kGiB, 256, 875, 1, 0x00, 2, 8),
    ROW(100101, "navi12", kFamilyNv, 0x00100044u, kNavi10, 8 * kGiB, 2048, 1000, 1, 0x00, 2, 8),
    ROW(100102, "navi14", kFamilyNv, 0x00000042u, kNavi14, 4 * kGiB, 128, 875, 1, 0x00, 2, 8),
    ROW(100103, "cyan_skillfish", kFamilyNv, 0x00100044u, kNavi10, 8 * kGiB, 256, 875, 1, 0x00, 2,
        8),
    ROW(100300, "sienna_cichlid", kFamilyNv, 0x00000444u, kSienna, 16 * kGiB, 256, 1000, 1, 0xc0, 2,
        8),
    ROW(100301, "navy_flounder", kFamilyNv, 0x00000343u, kNavyFlounder, 12 * kGiB, 192, 1000, 1,
        0xc1, 2, 8),
    ROW(100302, "dimgrey_cavefish", kFamilyNv, 0x00000242u, kDimgrey, 8 * kGiB, 128, 1094, 1, 0xc1,
        2, 8),
    ROW(100303, "vangogh", kFamilyVgh, 0x00000242u, kVangogh, 512 * kMiB, 128, 2750, 1, 0x00, 1, 2),
    ROW(100304, "beige_goby", kFamilyNv, 0x00000241u, kBeigeGoby, 4 * kGiB, 64, 1124, 1, 0x00, 2,
        8),
    ROW(100305, "yellow_carp", kFamilyYc, 0x00000242u, kYellowCarp, 512 * kMiB, 128, 2400, 1, 0x00,
        1, 2),
    ROW(100306, "ip discovery", kFamilyGc1036, 0x00000241u, kGfx1036, 512 * kMiB, 128, 2400, 1,
        0x00, 1, 2),
    ROW(100307, "ip discovery", kFamilyGc1037, 0x00000241u, kGfx1036, 512 * kMiB, 64, 2750, 1, 0x00,
        1, 2),
    ROW(110000, "ip discovery", kFamilyGc1100, 0x00000545u, kNavi31, 24 * kGiB, 384, 1250, 1, 0xc8,
        2, 8),
    ROW(110001, "ip discovery", kFamilyGc1100, 0x00000444u, kNavi32, 16 * kGiB, 256, 1218, 1, 0xc8,
        2, 8),
    ROW(110002, "ip discovery", kFamilyGc1100, 0x00000343u, kNavi33, 8 * kGiB, 128, 1125, 1, 0x00,
        2, 8),
    ROW(110003, "ip discovery", kFamilyGc1101, 0x00000242u, kPhoenix, 512 * kMiB, 128, 2800, 1,
        0x00, 1, 2),
    ROW(110500, "ip discovery", kFamilyGc1150, 0x00000242u, kPhoenix, 512 * kMiB, 128, 3750, 1,
        0x00, 1, 2),
    ROW(110501, "ip discovery", kFamilyGc1150, 0x00000444u, kStrixHalo, 512 * kMiB, 256, 4000, 1,
        0x00, 1, 2),
    ROW(110502, "ip discovery", kFamilyGc1150, 0x00000242u, kPhoenix, 512 * kMiB, 128, 3750, 1,
        0x00, 1, 2),
    ROW(120000, "ip discovery", kFamilyGc1200, 0x00000444u, kNavi44, 16 * kGiB, 128, 1250, 1, 0x00,
        2, 8),
    ROW(120001, "ip discovery", kFamilyGc1200, 0x00000545u, kNavi48, 16 * kGiB, 256, 1250, 1, 0x00,
        2, 8),
};
#undef ROW

// What the loader assumes for a version it has no row for.
constexpr FamilyDefaults kApuDefaults = {512 * kMiB, 64, 1600, 1, 0, 1, 2};
constexpr FamilyDefaults kDgpuDefaults = {8 * kGiB, 256, 1000, 1, 0, 2, 2};

}  // namespace

bool IsApuGfx(uint32_t gfx) {
  switch (gfx) {
    case 70000:   // Kaveri
    case 80001:   // Carrizo
    case 90002:   // Raven
    case 90009:   // Picasso
    case 90012:   // Renoir/Cezanne
    case 100303:  // Van Gogh
    case 100305:  // Yellow Carp
    case 100306:  // Raphael iGPU
    case 100307:  // Mendocino
    case 110003:  // Phoenix
    case 110500:  // Strix
    case 110501:  // Strix Halo
    case 110502:  // Krackan
      return true;
    default:
      return false;
  }
}

bool NoretryDefault(uint32_t gfx) {
  if (gfx == 90000) return true;                   // GC 9.0.1
  if (gfx == 90006 || gfx == 90008 || gfx == 90010) return true;  // GC 9.4.0-9.4.2
  if (gfx >= 90400 && gfx <= 90402) return true;   // GC 9.4.3/9.4.4
  if (gfx == 90500) return true;                   // GC 9.5.0
  return gfx >= 100300;                            // GC 10.3.0 and later
}

bool LookupAsic(uint32_t gfx, bool apu, AsicFacts* out) {
  for (const AsicRow& r : kAsics) {
    if (r.gfx != gfx) continue;
    out->sysfs_name = r.name;
    out->drm_family = r.family;
    out->gb_addr_config = r.gb_addr_config;
    out->caches = r.caches;
    out->num_caches = r.num_caches;
    out->defaults = r.defaults;
    out->known = true;
    return true;
  }
  const uint32_t major = gfx / 10000;
  out->sysfs_name = "ip discovery";
  out->caches = kGeneric;
  out->num_caches = sizeof(kGeneric) / sizeof(kGeneric[0]);
  out->known = false;
  out->defaults = apu ? kApuDefaults : kDgpuDefaults;
  switch (major) {
    case 7:
      out->drm_family = apu ? kFamilyKv : kFamilyCi;
      out->gb_addr_config = 0x12010001u;
      break;
    case 8:
      out->drm_family = apu ? kFamilyCz : kFamilyVi;
      out->gb_addr_config = 0x22011003u;
      break;
    case 9:
      out->drm_family = apu ? kFamilyRv : kFamilyAi;
      out->gb_addr_config = 0x2a114042u;
      break;
    case 10:
      out->drm_family = apu ? kFamilyYc : kFamilyNv;
      out->gb_addr_config = 0x00000444u;
      break;
    case 11:
      out->drm_family = apu ? kFamilyGc1101 : kFamilyGc1100;
      out->gb_addr_config = 0x00000444u;
      break;
    case 12:
      out->drm_family = kFamilyGc1200;
      out->gb_addr_config = 0x00000444u;
      break;
    default:
      out->drm_family = 0;
      out->gb_addr_config = 0;
      break;
  }
  return false;
}

}  // namespace topo
}  // namespace kfdsim
