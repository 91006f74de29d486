// The counter tables (see tables.h). Written as runs of consecutive ids;
// where upstream's list repeats an id (Hawaii's TCC lists 159 twice) the
// repeat is kept, so the blob has the same counters as upstream's.
#include "lib/pmc/tables.h"

namespace hke::pmc {
namespace {

// clang-format off
constexpr BlockSpec kKaveriBlocks[] = {
    {kSq, 8, 2, {{0, 163}, {168, 83}}},
};
constexpr BlockSpec kHawaiiBlocks[] = {
    {kCb, 7, 1, {{0, 226}}},
    {kCpf, 5, 1, {{0, 17}}},
    {kCpg, 5, 1, {{0, 46}}},
    {kDb, 12, 1, {{0, 257}}},
    {kGds, 4, 1, {{0, 121}}},
    {kGrbm, 2, 1, {{0, 34}}},
    {kGrbmse, 1, 1, {{0, 15}}},
    {kIa, 7, 1, {{0, 18}}},
    {kPasc, 11, 1, {{0, 395}}},
    {kPasu, 10, 1, {{0, 153}}},
    {kSpi, 4, 1, {{0, 186}}},
    {kSrbm, 2, 1, {{0, 19}}},
    {kSq, 8, 2, {{0, 163}, {168, 83}}},
    {kSx, 4, 1, {{0, 34}}},
    {kTa, 6, 1, {{0, 111}}},
    {kTca, 10, 1, {{0, 39}}},
    {kTcc, 10, 3, {{0, 45}, {64, 96}, {159, 1}}},
    {kTcp, 10, 1, {{0, 154}}},
    {kTcs, 7, 2, {{0, 21}, {64, 64}}},
    {kTd, 6, 1, {{0, 55}}},
    {kVgt, 10, 1, {{0, 140}}},
    {kWd, 4, 1, {{0, 10}}},
};
constexpr BlockSpec kCarrizoBlocks[] = {
    {kCb, 7, 1, {{0, 396}}},
    {kCpf, 5, 1, {{0, 20}}},
    {kCpg, 5, 1, {{0, 49}}},
    {kDb, 12, 1, {{0, 257}}},
    {kGds, 4, 1, {{0, 121}}},
    {kGrbm, 2, 1, {{0, 34}}},
    {kGrbmse, 1, 1, {{0, 15}}},
    {kIa, 7, 1, {{0, 24}}},
    {kPasc, 11, 1, {{0, 397}}},
    {kPasu, 10, 1, {{0, 153}}},
    {kSpi, 4, 1, {{0, 197}}},
    {kSrbm, 2, 1, {{0, 28}}},
    {kSq, 8, 3, {{1, 165}, {167, 125}, {298, 1}}},
    {kSx, 4, 1, {{0, 34}}},
    {kTa, 6, 1, {{0, 119}}},
    {kTca, 10, 1, {{1, 34}}},
    {kTcc, 10, 2, {{0, 108}, {128, 64}}},
    {kTcp, 10, 1, {{0, 183}}},
    {kTd, 6, 1, {{0, 55}}},
    {kVgt, 10, 1, {{0, 146}}},
    {kWd, 4, 1, {{0, 37}}},
};
constexpr BlockSpec kFijiBlocks[] = {
    {kCb, 7, 1, {{0, 396}}},
    {kCpf, 5, 1, {{0, 20}}},
    {kCpg, 5, 1, {{0, 49}}},
    {kDb, 12, 1, {{0, 257}}},
    {kGds, 4, 1, {{0, 121}}},
    {kGrbm, 2, 1, {{0, 34}}},
    {kGrbmse, 1, 1, {{0, 15}}},
    {kIa, 7, 1, {{0, 24}}},
    {kPasc, 11, 1, {{0, 397}}},
    {kPasu, 10, 1, {{0, 153}}},
    {kSpi, 4, 1, {{0, 197}}},
    {kSrbm, 2, 1, {{0, 28}}},
    {kSq, 8, 3, {{1, 165}, {167, 125}, {298, 1}}},
    {kSx, 4, 1, {{0, 34}}},
    {kTa, 6, 1, {{0, 119}}},
    {kTca, 10, 1, {{1, 34}}},
    {kTcc, 10, 2, {{0, 108}, {128, 128}}},
    {kTcp, 10, 1, {{0, 183}}},
    {kTd, 6, 1, {{0, 55}}},
    {kVgt, 10, 1, {{0, 146}}},
    {kWd, 4, 1, {{0, 37}}},
};
constexpr BlockSpec kPolarisBlocks[] = {
    {kCb, 7, 1, {{0, 396}}},
    {kCpf, 5, 1, {{0, 20}}},
    {kCpg, 5, 1, {{0, 49}}},
    {kDb, 12, 1, {{0, 257}}},
    {kGds, 4, 1, {{0, 121}}},
    {kGrbm, 2, 1, {{0, 34}}},
    {kGrbmse, 1, 1, {{0, 15}}},
    {kIa, 7, 1, {{0, 24}}},
    {kPasc, 11, 1, {{0, 397}}},
    {kPasu, 10, 1, {{0, 153}}},
    {kSpi, 4, 1, {{0, 197}}},
    {kSrbm, 2, 1, {{0, 28}}},
    {kSq, 8, 3, {{1, 165}, {168, 107}, {276, 20}}},
    {kSx, 4, 1, {{0, 34}}},
    {kTa, 6, 1, {{0, 119}}},
    {kTca, 10, 1, {{1, 34}}},
    {kTcc, 10, 2, {{0, 108}, {128, 128}}},
    {kTcp, 10, 1, {{0, 183}}},
    {kTd, 6, 1, {{0, 55}}},
    {kVgt, 10, 1, {{0, 147}}},
    {kWd, 4, 1, {{0, 37}}},
};
constexpr BlockSpec kGfx9Blocks[] = {
    {kCb, 7, 1, {{0, 438}}},
    {kCpf, 5, 1, {{0, 32}}},
    {kCpg, 5, 1, {{0, 59}}},
    {kDb, 12, 1, {{0, 328}}},
    {kGds, 4, 1, {{0, 121}}},
    {kGrbm, 2, 1, {{0, 38}}},
    {kGrbmse, 1, 1, {{0, 16}}},
    {kIa, 7, 1, {{0, 32}}},
    {kPasc, 11, 1, {{0, 491}}},
    {kPasu, 10, 1, {{0, 292}}},
    {kSpi, 18, 1, {{0, 196}}},
    {kSq, 16, 2, {{1, 183}, {255, 118}}},
    {kSx, 4, 1, {{0, 208}}},
    {kTa, 6, 1, {{0, 119}}},
    {kTca, 10, 1, {{1, 34}}},
    {kTcc, 10, 2, {{0, 108}, {128, 128}}},
    {kTcp, 10, 1, {{0, 85}}},
    {kTd, 6, 1, {{0, 57}}},
    {kVgt, 10, 1, {{0, 148}}},
    {kWd, 4, 1, {{0, 58}}},
};
constexpr BlockSpec kGfx10Blocks[] = {
    {kCb, 7, 1, {{0, 461}}},
    {kCpf, 6, 1, {{0, 40}}},
    {kCpg, 6, 1, {{0, 82}}},
    {kDb, 12, 1, {{0, 370}}},
    {kGds, 10, 1, {{0, 123}}},
    {kGrbm, 2, 1, {{0, 47}}},
    {kGrbmse, 1, 1, {{0, 19}}},
    {kPasc, 11, 1, {{0, 552}}},
    {kPasu, 16, 1, {{0, 266}}},
    {kSpi, 18, 1, {{0, 329}}},
    {kSq, 16, 1, {{0, 512}}},
    {kSx, 4, 1, {{0, 225}}},
    {kTa, 5, 1, {{0, 226}}},
    {kTcp, 10, 1, {{0, 77}}},
    {kTd, 5, 1, {{0, 61}}},
};
// clang-format on

template <uint32_t N>
constexpr Table Make(const char* name, const BlockSpec (&b)[N]) {
  return Table{name, b, N};
}

constexpr Table kTables[kTableCount] = {
    Make("kaveri", kKaveriBlocks), Make("hawaii", kHawaiiBlocks), Make("carrizo", kCarrizoBlocks),
    Make("fiji", kFijiBlocks),     Make("polaris", kPolarisBlocks), Make("gfx9", kGfx9Blocks),
    Make("gfx10", kGfx10Blocks),
};

constexpr uint32_t Counters(const BlockSpec& b) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < b.run_count; ++i) n += b.runs[i].count;
  return n;
}

// Every table: sorted by block id, no IOMMU block, runs in range, within
// the bounds the blob storage is sized for.
constexpr bool TablesFit() {
  for (const Table& t : kTables) {
    if (t.block_count > kMaxTableBlocks) return false;
    uint32_t total = 0;
    for (uint32_t i = 0; i < t.block_count; ++i) {
      const BlockSpec& b = t.blocks[i];
      if (b.block >= kIommu || b.slots == 0 || b.run_count == 0 || b.run_count > 3) return false;
      if (i > 0 && t.blocks[i - 1].block >= b.block) return false;
      total += Counters(b);
    }
    if (total > kMaxTableCounters) return false;
  }
  return true;
}
static_assert(TablesFit(), "a counter table exceeds kMaxTableBlocks/kMaxTableCounters or is unsorted");

// Public UUIDs by block id (hsakmttypes.h), IOMMU as upstream defined it.
HSA_DEFINE_UUID(kIommuUuid, 0x80969879, 0xb0f6, 0x4be6, 0x97, 0xf6, 0x6a, 0x63, 0x0, 0xf5, 0x10,
                0x1d);

}  // namespace

bool SelectTable(uint32_t gfx_version, uint32_t device_id, TableId* out) {
  const uint32_t major = gfx_version / 10000;
  const uint32_t minor = (gfx_version / 100) % 100;
  const uint32_t step = gfx_version % 100;
  TableId t = kTableCount;
  switch (major) {
    case 7:
      t = (minor == 0 && step == 0) ? kKaveri : kHawaii;
      break;
    case 8:
      if (minor == 0 && step == 2) return false;  // Tonga: no table upstream
      if (minor == 0 && step == 1) {
        t = kCarrizo;
      } else {
        t = (device_id == 0x7300 || device_id == 0x730F) ? kFiji : kPolaris;
      }
      break;
    case 9:
      t = kGfx9;
      break;
    case 10:
      t = kGfx10;
      break;
    default:
      return false;  // CPU (0), gfx11, gfx12, unknown
  }
  *out = t;
  return true;
}

const Table& GetTable(TableId id) { return kTables[id < kTableCount ? id : kGfx9]; }

uint32_t BlockCounters(const BlockSpec& b) { return Counters(b); }

bool BlockHasCounter(const BlockSpec& b, uint64_t id) {
  for (uint32_t i = 0; i < b.run_count; ++i) {
    if (id >= b.runs[i].first && id - b.runs[i].first < b.runs[i].count) return true;
  }
  return false;
}

const BlockSpec* FindBlock(const Table& t, uint32_t block) {
  for (uint32_t i = 0; i < t.block_count; ++i) {
    if (t.blocks[i].block == block) return &t.blocks[i];
  }
  return nullptr;
}

HSA_UUID BlockUuid(uint32_t block) {
  switch (block) {
    case kCb: return HSA_PROFILEBLOCK_AMD_CB;
    case kCpf: return HSA_PROFILEBLOCK_AMD_CPF;
    case kCpg: return HSA_PROFILEBLOCK_AMD_CPG;
    case kDb: return HSA_PROFILEBLOCK_AMD_DB;
    case kGds: return HSA_PROFILEBLOCK_AMD_GDS;
    case kGrbm: return HSA_PROFILEBLOCK_AMD_GRBM;
    case kGrbmse: return HSA_PROFILEBLOCK_AMD_GRBMSE;
    case kIa: return HSA_PROFILEBLOCK_AMD_IA;
    case kMc: return HSA_PROFILEBLOCK_AMD_MC;
    case kPasc: return HSA_PROFILEBLOCK_AMD_PASC;
    case kPasu: return HSA_PROFILEBLOCK_AMD_PASU;
    case kSpi: return HSA_PROFILEBLOCK_AMD_SPI;
    case kSrbm: return HSA_PROFILEBLOCK_AMD_SRBM;
    case kSq: return HSA_PROFILEBLOCK_AMD_SQ;
    case kSx: return HSA_PROFILEBLOCK_AMD_SX;
    case kTa: return HSA_PROFILEBLOCK_AMD_TA;
    case kTca: return HSA_PROFILEBLOCK_AMD_TCA;
    case kTcc: return HSA_PROFILEBLOCK_AMD_TCC;
    case kTcp: return HSA_PROFILEBLOCK_AMD_TCP;
    case kTcs: return HSA_PROFILEBLOCK_AMD_TCS;
    case kTd: return HSA_PROFILEBLOCK_AMD_TD;
    case kVgt: return HSA_PROFILEBLOCK_AMD_VGT;
    case kWd: return HSA_PROFILEBLOCK_AMD_WD;
    case kIommu: return kIommuUuid;
    default: {
      // CPC has no public UUID (upstream leaves it unset; no table has it).
      HSA_UUID none{};
      return none;
    }
  }
}

}  // namespace hke::pmc
