// Built-in boards, authored as the text a KFD of the 1.x era prints, then
// served through the same normaliser as captured trees (so gpu_ids, names,
// GPU caches and generation_id are filled in exactly as for a capture).
//
// apu-embedded: an AMD Ryzen Embedded V2748 (Renoir, 8 cores / 16 threads,
//   integrated Radeon Graphics with 7 CUs at 1.6 GHz, gfx90c, PCI 0x1636),
//   as a modern kernel shows it: CPU node 0 plus an integrated GPU node 1
//   with a 512 MiB carve-out.
// datacenter-4gpu: two 64-core AMD EPYC 7763 sockets and four AMD Instinct
//   MI210 (0x740f, gfx90a, 104 CUs, 64 GiB HBM2e) in one xGMI hive, two per
//   socket on PCIe 4.0.
#include <errno.h>

#include <initializer_list>

#include "platform/sim/topology/raw_tree.h"

namespace kfdsim {
namespace topo {
namespace {

struct Kv {
  const char* key;
  uint64_t value;
};

PropText Props(std::initializer_list<Kv> kvs) {
  PropText p;
  for (const Kv& kv : kvs) p.AppendRaw(std::string(kv.key) + " " + Dec(kv.value));
  return p;
}

RawEntry Entry(const std::string& node_origin, const char* kind, size_t index, PropText props) {
  RawEntry e;
  e.index = static_cast<uint32_t>(index);
  e.origin = node_origin + "/" + kind + "/" + Dec(index);
  e.props = std::move(props);
  return e;
}

RawNode CpuNode(uint32_t index, uint64_t cores, uint64_t core_id_base, uint64_t mhz,
                uint64_t io_links, uint64_t p2p_links) {
  RawNode n;
  n.origin = "nodes/" + Dec(index);
  n.props = Props({{"cpu_cores_count", cores},
                   {"simd_count", 0},
                   {"mem_banks_count", 1},
                   {"caches_count", 0},
                   {"io_links_count", io_links},
                   {"p2p_links_count", p2p_links},
                   {"cpu_core_id_base", core_id_base},
                   {"simd_id_base", 0},
                   {"max_waves_per_simd", 0},
                   {"lds_size_in_kb", 0},
                   {"gds_size_in_kb", 0},
                   {"num_gws", 0},
                   {"wave_front_size", 0},
                   {"array_count", 0},
                   {"simd_arrays_per_engine", 0},
                   {"cu_per_simd_array", 0},
                   {"simd_per_cu", 0},
                   {"max_slots_scratch_cu", 0},
                   {"gfx_target_version", 0},
                   {"vendor_id", 0},
                   {"device_id", 0},
                   {"location_id", 0},
                   {"domain", 0},
                   {"drm_render_minor", 0},
                   {"hive_id", 0},
                   {"num_sdma_engines", 0},
                   {"num_sdma_xgmi_engines", 0},
                   {"num_sdma_queues_per_engine", 0},
                   {"num_cp_queues", 0},
                   {"max_engine_clk_ccompute", mhz}});
  return n;
}

void AddMemBank(RawNode* n, uint64_t heap, uint64_t bytes, uint64_t width, uint64_t clk) {
  RawEntry e = Entry(n->origin, "mem_banks", n->mem_banks.size(),
                     Props({{"heap_type", heap},
                            {"size_in_bytes", bytes},
                            {"flags", 0},
                            {"width", width},
                            {"mem_clk_max", clk}}));
  if (heap != 0) {
    e.has_used_memory = true;
    e.used_memory = "0\n";
  }
  n->mem_banks.push_back(std::move(e));
}

struct Link {
  uint64_t type, to, weight, min_bw, max_bw, sdma_mask, flags;
};

PropText LinkProps(uint64_t from, const Link& l) {
  return Props({{"type", l.type},
                {"version_major", 0},
                {"version_minor", 0},
                {"node_from", from},
                {"node_to", l.to},
                {"weight", l.weight},
                {"min_latency", 0},
                {"max_latency", 0},
                {"min_bandwidth", l.min_bw},
                {"max_bandwidth", l.max_bw},
                {"recommended_transfer_size", 0},
                {"recommended_sdma_engine_id_mask", l.sdma_mask},
                {"flags", l.flags}});
}

void AddLink(RawNode* n, uint32_t from, bool p2p, const Link& l) {
  std::vector<RawEntry>* v = p2p ? &n->p2p_links : &n->io_links;
  v->push_back(Entry(n->origin, p2p ? "p2p_links" : "io_links", v->size(), LinkProps(from, l)));
}

constexpr uint64_t kLinkHt = 1, kLinkPcie = 2, kLinkXgmi = 11;
constexpr uint64_t kGiB = 1ull << 30;

RawTree ApuEmbedded() {
  RawTree t;
  t.name = "apu-embedded";
  t.root = "builtin:apu-embedded";
  t.hints.cpu_vendor = "AuthenticAMD";
  t.hints.cpu_model_name = "AMD Ryzen Embedded V2748 with Radeon Graphics";
  RawNode cpu = CpuNode(0, 16, 0, 2900, 1, 0);
  AddMemBank(&cpu, 0, 32 * kGiB, 64, 1600);
  AddLink(&cpu, 0, false, {kLinkPcie, 1, 20, 0, 0, 0, 3});

  RawNode gpu;
  gpu.origin = "nodes/1";
  gpu.props = Props({{"cpu_cores_count", 0},
                     {"simd_count", 28},
                     {"mem_banks_count", 1},
                     {"caches_count", 0},
                     {"io_links_count", 1},
                     {"p2p_links_count", 0},
                     {"cpu_core_id_base", 0},
                     {"simd_id_base", 2147487744},
                     {"max_waves_per_simd", 10},
                     {"lds_size_in_kb", 64},
                     {"gds_size_in_kb", 0},
                     {"num_gws", 0},
                     {"wave_front_size", 64},
                     {"array_count", 1},
                     {"simd_arrays_per_engine", 1},
                     {"cu_per_simd_array", 8},
                     {"simd_per_cu", 4},
                     {"max_slots_scratch_cu", 32},
                     {"gfx_target_version", 90012},
                     {"vendor_id", 4098},
                     {"device_id", 0x1636},
                     {"location_id", 0x0300},
                     {"domain", 0},
                     {"drm_render_minor", 128},
                     {"hive_id", 0},
                     {"num_sdma_engines", 1},
                     {"num_sdma_xgmi_engines", 0},
                     {"num_sdma_queues_per_engine", 2},
                     {"num_cp_queues", 24},
                     {"max_engine_clk_fcompute", 1600},
                     {"local_mem_size", 0},
                     {"fw_version", 464},
                     {"capability", 0x0407a280},
                     {"debug_prop", 470},
                     {"sdma_fw_version", 40},
                     {"unique_id", 0},
                     {"num_xcc", 1},
                     {"max_engine_clk_ccompute", 2900}});
  AddMemBank(&gpu, 1, 512ull << 20, 64, 1600);
  AddLink(&gpu, 1, false, {kLinkPcie, 0, 20, 0, 0, 0, 1});
  t.nodes.push_back(std::move(cpu));
  t.nodes.push_back(std::move(gpu));
  return t;
}

RawTree Datacenter4Gpu() {
  RawTree t;
  t.name = "datacenter-4gpu";
  t.root = "builtin:datacenter-4gpu";
  t.hints.cpu_vendor = "AuthenticAMD";
  t.hints.cpu_model_name = "AMD EPYC 7763 64-Core Processor";
  constexpr uint32_t kCpus = 2, kGpus = 4;
  const uint64_t bus[kGpus] = {0x03, 0x26, 0x83, 0xa3};
  const uint64_t unique[kGpus] = {0x1e7a41c9d2b05a11ull, 0x1e7a41c9d2b05a12ull,
                                  0x1e7a41c9d2b05a13ull, 0x1e7a41c9d2b05a14ull};
  const uint64_t hive = 0xaefb3c1d29a4e6b5ull;
  // Socket s hosts GPUs 2s and 2s+1 (nodes kCpus+2s, kCpus+2s+1).
  for (uint32_t s = 0; s < kCpus; ++s) {
    RawNode cpu = CpuNode(s, 64, 64ull * s, 2450, 3, 2);
    AddMemBank(&cpu, 0, 256 * kGiB, 72, 3200);
    AddLink(&cpu, s, false, {kLinkHt, 1 - s, 32, 0, 0, 0, 0});
    for (uint32_t g = 0; g < kGpus; ++g) {
      const bool local = g / 2 == s;
      AddLink(&cpu, s, !local,
              local ? Link{kLinkPcie, kCpus + g, 20, 312, 32000, 3, 3}
                    : Link{kLinkPcie, kCpus + g, 52, 0, 0, 0, 3});
    }
    t.nodes.push_back(std::move(cpu));
  }
  for (uint32_t g = 0; g < kGpus; ++g) {
    const uint32_t id = kCpus + g;
    RawNode gpu;
    gpu.origin = "nodes/" + Dec(id);
    gpu.props = Props({{"cpu_cores_count", 0},
                       {"simd_count", 416},
                       {"mem_banks_count", 1},
                       {"caches_count", 0},
                       {"io_links_count", 4},
                       {"p2p_links_count", 1},
                       {"cpu_core_id_base", 0},
                       {"simd_id_base", 2147487744ull + 112ull * g},
                       {"max_waves_per_simd", 8},
                       {"lds_size_in_kb", 64},
                       {"gds_size_in_kb", 0},
                       {"num_gws", 64},
                       {"wave_front_size", 64},
                       {"array_count", 8},
                       {"simd_arrays_per_engine", 1},
                       {"cu_per_simd_array", 14},
                       {"simd_per_cu", 4},
                       {"max_slots_scratch_cu", 32},
                       {"gfx_target_version", 90010},
                       {"vendor_id", 4098},
                       {"device_id", 0x740f},
                       {"location_id", bus[g] << 8},
                       {"domain", 0},
                       {"drm_render_minor", 128 + g},
                       {"hive_id", hive},
                       {"num_sdma_engines", 2},
                       {"num_sdma_xgmi_engines", 3},
                       {"num_sdma_queues_per_engine", 8},
                       {"num_cp_queues", 24},
                       {"max_engine_clk_fcompute", 1700},
                       {"local_mem_size", 0},
                       {"fw_version", 92},
                       {"capability", 746037888},
                       {"debug_prop", 470},
                       {"sdma_fw_version", 9},
                       {"unique_id", unique[g]},
                       {"num_xcc", 1},
                       {"max_engine_clk_ccompute", 2450}});
    AddMemBank(&gpu, 1, 68702699520ull, 4096, 1600);
    const uint32_t socket = g / 2;
    AddLink(&gpu, id, false, {kLinkPcie, socket, 20, 312, 32000, 3, 1});
    for (uint32_t peer = 0; peer < kGpus; ++peer) {
      if (peer == g) continue;
      AddLink(&gpu, id, false, {kLinkXgmi, kCpus + peer, 15, 50000, 50000, 28, 1});
    }
    AddLink(&gpu, id, true, {kLinkPcie, 1 - socket, 52, 0, 0, 0, 1});
    t.nodes.push_back(std::move(gpu));
  }
  return t;
}

}  // namespace

std::vector<std::string> BuiltinNames() { return {"apu-embedded", "datacenter-4gpu"}; }

int BuildBuiltinTree(const std::string& name, RawTree* out) {
  if (name == "apu-embedded") {
    *out = ApuEmbedded();
  } else if (name == "datacenter-4gpu") {
    *out = Datacenter4Gpu();
  } else {
    return ENOENT;
  }
  return 0;
}

}  // namespace topo
}  // namespace kfdsim
