#include "lib/topology/keys.h"

namespace hke::topology {
namespace {

constexpr ValueWidth k32 = ValueWidth::k32;
constexpr ValueWidth k64 = ValueWidth::k64;

constexpr KeySpec kNodeKeys[] = {
    {"cpu_cores_count", k32},
    {"simd_count", k32},
    {"mem_banks_count", k32},
    {"caches_count", k32},
    {"io_links_count", k32},
    {"p2p_links_count", k32},
    {"cpu_core_id_base", k32},
    {"simd_id_base", k32},
    {"capability", k32},
    {"capability2", k32},
    {"max_waves_per_simd", k32},
    {"lds_size_in_kb", k32},
    {"gds_size_in_kb", k32},
    {"wave_front_size", k32},
    {"array_count", k32},
    {"simd_arrays_per_engine", k32},
    {"cu_per_simd_array", k32},
    {"simd_per_cu", k32},
    {"max_slots_scratch_cu", k32},
    {"fw_version", k32},
    {"vendor_id", k32},
    {"device_id", k32},
    {"location_id", k32},
    {"domain", k32},
    {"max_engine_clk_fcompute", k32},
    {"max_engine_clk_ccompute", k32},
    {"drm_render_minor", k32},
    {"sdma_fw_version", k32},
    {"num_sdma_engines", k32},
    {"num_sdma_xgmi_engines", k32},
    {"num_gws", k32},
    {"num_sdma_queues_per_engine", k32},
    {"num_cp_queues", k32},
    {"num_xcc", k32},
    {"family_id", k32},
    {"gfx_target_version", k32},
    {"debug_prop", k64},
    {"local_mem_size", k64},
    {"hive_id", k64},
    {"unique_id", k64},
};
static_assert(sizeof(kNodeKeys) / sizeof(kNodeKeys[0]) == kNodeKeyCount, "node key table");

constexpr KeySpec kSystemKeys[] = {
    {"platform_oem", k64},
    {"platform_id", k64},
    {"platform_rev", k64},
};
static_assert(sizeof(kSystemKeys) / sizeof(kSystemKeys[0]) == kSystemKeyCount, "system key table");

constexpr KeySpec kMemKeys[] = {
    {"heap_type", k32}, {"size_in_bytes", k64}, {"flags", k32}, {"width", k32}, {"mem_clk_max", k32},
};
static_assert(sizeof(kMemKeys) / sizeof(kMemKeys[0]) == kMemKeyCount, "memory key table");

constexpr KeySpec kCacheKeys[] = {
    {"processor_id_low", k32}, {"level", k32},       {"size", k32},    {"cache_line_size", k32},
    {"cache_lines_per_tag", k32}, {"association", k32}, {"latency", k32}, {"type", k32},
};
static_assert(sizeof(kCacheKeys) / sizeof(kCacheKeys[0]) == kCacheKeyCount, "cache key table");

constexpr KeySpec kLinkKeys[] = {
    {"type", k32},
    {"version_major", k32},
    {"version_minor", k32},
    {"node_from", k32},
    {"node_to", k32},
    {"weight", k32},
    {"min_latency", k32},
    {"max_latency", k32},
    {"min_bandwidth", k32},
    {"max_bandwidth", k32},
    {"recommended_transfer_size", k32},
    {"recommended_sdma_engine_id_mask", k32},
    {"flags", k32},
};
static_assert(sizeof(kLinkKeys) / sizeof(kLinkKeys[0]) == kLinkKeyCount, "link key table");

constexpr KeyTable kNodeTable{kNodeKeys, kNodeKeyCount};
constexpr KeyTable kSystemTable{kSystemKeys, kSystemKeyCount};
constexpr KeyTable kMemTable{kMemKeys, kMemKeyCount};
constexpr KeyTable kCacheTable{kCacheKeys, kCacheKeyCount};
constexpr KeyTable kLinkTable{kLinkKeys, kLinkKeyCount};

}  // namespace

const KeyTable& NodeKeys() { return kNodeTable; }
const KeyTable& SystemKeys() { return kSystemTable; }
const KeyTable& MemKeys() { return kMemTable; }
const KeyTable& CacheKeys() { return kCacheTable; }
const KeyTable& LinkKeys() { return kLinkTable; }

}  // namespace hke::topology
