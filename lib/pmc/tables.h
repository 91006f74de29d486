// Counter tables of the GPU blocks, per GFX family, and the block ids the
// public API uses (HsaCounter::BlockIndex).
//
// Facts from upstream's pmc_table.c, restated: each family has a set of
// blocks; each block has a number of slots (counters that can count at the
// same time), a list of counter ids (selector values; here as up to three
// runs of consecutive ids), and 64-bit counters with an all-ones mask.
// Families: gfx7 (Kaveri, whose table has the SQ block only, and Hawaii),
// gfx8 (Carrizo; Fiji, told from Polaris/VegaM by PCI device id 0x7300 or
// 0x730F; Polaris and VegaM; Tonga has no table), gfx9 (one table for every
// gfx9 target, MI parts included: gfx90a, gfx940-942, gfx950) and gfx10.
// gfx11 and later have no table upstream (the counters moved to
// rocprofiler's own PM4/AQL tables), so their nodes are INVALID_PARAMETER
// like CPU nodes.
//
// The block ids are upstream's enum order, with the privileged IOMMU block
// last (24) as upstream numbered it before it dropped the block.
#ifndef HKE_LIB_PMC_TABLES_H_
#define HKE_LIB_PMC_TABLES_H_

#include <cstdint>

#include "hsakmt/hsakmttypes.h"

namespace hke::pmc {

enum BlockId : uint32_t {
  kCb = 0,
  kCpc,
  kCpf,
  kCpg,
  kDb,
  kGds,
  kGrbm,
  kGrbmse,
  kIa,
  kMc,
  kPasc,
  kPasu,
  kSpi,
  kSrbm,
  kSq,
  kSx,
  kTa,
  kTca,
  kTcc,
  kTcp,
  kTcs,
  kTd,
  kVgt,
  kWd,
  kIommu,  // privileged: the AMD IOMMU PMU, through host perf_event
  kBlockCount
};

// A run of consecutive counter ids.
struct IdRun {
  uint16_t first;
  uint16_t count;
};

struct BlockSpec {
  uint8_t block;  // BlockId
  uint8_t slots;
  uint8_t run_count;
  IdRun runs[3];
};

enum TableId : uint32_t {
  kKaveri = 0,
  kHawaii,
  kCarrizo,
  kFiji,
  kPolaris,
  kGfx9,
  kGfx10,
  kTableCount
};

struct Table {
  const char* name;
  const BlockSpec* blocks;  // sorted by block id
  uint32_t block_count;
};

// Bounds over every table (checked in tables.cc): the largest block count
// and counter count, which size the context's counter-property blobs.
inline constexpr uint32_t kMaxTableBlocks = 22;
inline constexpr uint32_t kMaxTableCounters = 3390;
// GPU counters: 64 bits, every bit significant.
inline constexpr uint32_t kGpuCounterBits = 64;

// The table of a node from its gfx_target_version (decimal MMmmss) and PCI
// device id; false for a CPU node (0), gfx11+, Tonga and unknown families.
bool SelectTable(uint32_t gfx_version, uint32_t device_id, TableId* out);
const Table& GetTable(TableId id);
// Counters of a block (the sum of its runs).
uint32_t BlockCounters(const BlockSpec& b);
// True when `id` is one of the block's counter ids.
bool BlockHasCounter(const BlockSpec& b, uint64_t id);
// The block of a table, or nullptr when the table lacks it.
const BlockSpec* FindBlock(const Table& t, uint32_t block);
// The public UUID of a block id (< kBlockCount).
HSA_UUID BlockUuid(uint32_t block);

}  // namespace hke::pmc

#endif  // HKE_LIB_PMC_TABLES_H_
