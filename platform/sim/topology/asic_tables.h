// Public facts about AMD GPUs the loader needs when a capture lacks them:
// per-ASIC GPU cache layouts (as amdkfd reports them), sysfs ASIC names,
// DRM family ids, and per-device memory/PCI facts.
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

struct AsicFacts {
  const char* sysfs_name;  // the GPU node's `name` file ("aldebaran", "ip discovery")
  uint32_t drm_family;     // AMDGPU_FAMILY_* (dGPU flavour; APUs adjust)
  uint32_t gb_addr_config;
  const GpuCacheSpec* caches;
  size_t num_caches;
  bool known;  // false: generic fallback facts
};

// Facts keyed by gfx_target_version (decimal MMmmss). Always fills *out;
// returns false when the version is not known and a fallback was used.
bool LookupAsic(uint32_t gfx_target_version, bool apu, AsicFacts* out);

// True for gfx versions that only ship as integrated GPUs.
bool IsApuGfx(uint32_t gfx_target_version);

struct DeviceFacts {
  uint16_t device_id;
  uint8_t pci_rev;  // revision that amdgpu.ids names (0 when unknown)
  bool apu;
  uint32_t gfx_target_version;
  uint64_t vram_bytes;    // whole device; an APU's carve-out
  uint32_t mem_width;     // bits
  uint32_t mem_clk_max;   // MHz
  uint32_t total_xcc;     // XCCs of the whole device (partitions share the memory)
  const char* marketing;  // for reports only
};

// nullptr when the device id is not in the table.
const DeviceFacts* LookupDevice(uint32_t device_id);

}  // namespace topo
}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_TOPOLOGY_ASIC_TABLES_H_
