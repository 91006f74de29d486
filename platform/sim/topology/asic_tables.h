// Public facts about AMD GPU families (keyed by gfx_target_version) the
// loader needs when a capture lacks them: per-ASIC GPU cache layouts (as
// amdkfd reports them), sysfs ASIC names, DRM family ids and the family
// defaults of the simulated GPU. What a PCI device id is (its GFX version,
// whether it is an APU) comes from the library's device table
// (lib/topology/device_table.h), the one table of device ids.
//
// All tables are constant data; safe from any thread.
#ifndef HKE_PLATFORM_SIM_TOPOLOGY_ASIC_TABLES_H_
#define HKE_PLATFORM_SIM_TOPOLOGY_ASIC_TABLES_H_

#include <cstddef>
#include <cstdint>

namespace kfdsim {
namespace topo {

// How many compute units one cache instance serves.
enum : uint16_t {
  kPerShaderArray = 0xfffe,  // one instance per shader array (GL1)
  kPerXcc = 0xfffd,          // one instance per XCC (L2)
  kPerNode = 0xfffc,         // one instance per node (L3 / Infinity Cache / MALL)
};

struct GpuCacheSpec {
  uint32_t size_kb;
  uint16_t line_size;
  uint8_t level;
  bool instruction;         // instruction cache, else data cache
  uint16_t cu_shared;       // 1: per CU; n: per n CUs of one shader array; or a kPer* value
  bool scale_by_partition;  // size is the whole device's; a partition node gets its share
};

// What the simulated GPU of a family has where a capture says nothing:
// values a capture may lack (VRAM, memory bus, SDMA engines on kernels
// before num_sdma_engines) and one no capture holds (the PCI revision
// DEV_INFO reports). The capture's values always win.
struct FamilyDefaults {
  uint64_t vram_bytes;   // the whole device; an APU's carve-out
  uint32_t mem_width;    // bits
  uint32_t mem_clk_max;  // MHz
  uint32_t device_xcc;   // XCCs of the whole device (partitions share memory and MALL)
  uint8_t pci_rev;       // revision amdgpu.ids names for the common product
  uint8_t sdma_engines;  // PCIe SDMA engines
  uint8_t sdma_queues_per_engine;
};

struct AsicFacts {
  const char* sysfs_name;  // the GPU node's `name` file ("aldebaran", "ip discovery")
  uint32_t drm_family;     // AMDGPU_FAMILY_* (dGPU flavour; APUs adjust)
  uint32_t gb_addr_config;
  const GpuCacheSpec* caches;
  size_t num_caches;
  FamilyDefaults defaults;
  bool known;  // false: generic fallback facts
};

// Facts keyed by gfx_target_version (decimal MMmmss). Always fills *out;
// returns false when the version is not known and a fallback was used.
bool LookupAsic(uint32_t gfx_target_version, bool apu, AsicFacts* out);

// True for gfx versions that only ship as integrated GPUs.
bool IsApuGfx(uint32_t gfx_target_version);

// amdgpu's per-GPU noretry default (amdgpu_gmc_noretry_set, for noretry=-1):
// retry faults off on GC 9.0.1 (gfx900), 9.4.x (gfx906, gfx908, gfx90a,
// gfx94x), 9.5.0 (gfx950) and from 10.3.0 (gfx103x, gfx11, gfx12); on the
// others (Raven, Vega12, Renoir since the 9.3.0 revert, Navi1x, gfx7/8).
bool NoretryDefault(uint32_t gfx_target_version);

}  // namespace topo
}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_TOPOLOGY_ASIC_TABLES_H_
