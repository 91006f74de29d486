// Turns a RawTree (captured or built-in) into a served Board: fills in what
// the capture lacks, corrects counts that disagree with the files served,
// and builds the path map and the BoardDesc from the served values.
#include <errno.h>

#include <algorithm>
#include <memory>

#include "lib/topology/device_table.h"
#include "platform/sim/topology/asic_tables.h"
#include "platform/sim/topology/file_map.h"
#include "platform/sim/topology/host_files.h"
#include "platform/sim/topology/raw_tree.h"

namespace kfdsim {
namespace topo {
namespace {

constexpr const char* kKfdTopology = "/sys/devices/virtual/kfd/kfd/topology";
constexpr uint32_t kMaxCpus = 512;      // keeps shared_cpu_map well inside the thunk's buffer
constexpr uint32_t kMaxGpuNodes = 128;  // render minors 128..255
constexpr uint64_t kMaxCuSlots = 1024;  // array_count * cu_per_simd_array
constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kApuCarveOut = 512ull << 20;  // a typical BIOS carve-out
constexpr uint32_t kHeapSystem = 0, kHeapFbPublic = 1, kHeapFbPrivate = 2;
constexpr uint32_t kCacheData = 1, kCacheInstruction = 2, kCacheHsaCu = 8;
constexpr uint32_t kLinkQpi = 5;

struct NodeState {
  bool gpu = false;
  bool apu = false;
  uint32_t gfx = 0;
  const hke::topology::DeviceFamily* family = nullptr;  // by device_id (the library's table)
  AsicFacts asic{};
  uint32_t gpu_id = 0;
  uint32_t minor = 0;
  std::string gpu_id_text;
  std::string name_text;
};

class Normaliser {
 public:
  Normaliser(RawTree* tree, const LoadOptions& options, std::vector<std::string>* report,
             std::string* error)
      : tree_(*tree), options_(options), report_(*report), error_(*error) {}

  int Run(Board* out);

 private:
  int Fail(const std::string& origin, const std::string& what) {
    error_ = tree_.root + "/" + origin + ": " + what;
    return EINVAL;
  }
  void Note(const std::string& origin, const std::string& what) {
    report_.push_back(origin + ": " + what);
  }

  int Classify();
  int AssignGpuIds();
  int AssignRenderMinors();
  void FillMemoryBanks();
  void FillCaches();
  void FixLinks();
  void FixCounts();
  void FixFiles();
  void PlanHost(HostPlan* plan);
  void Serve(MapFileProvider* files);
  void Describe(BoardDesc* desc, uint64_t system_bytes);

  RawTree& tree_;
  const LoadOptions& options_;
  std::vector<std::string>& report_;
  std::string& error_;
  std::vector<NodeState> state_;
  AmdgpuParams params_;
};

std::string HexId(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

bool ParseDecimalFile(const std::string& text, uint64_t* out) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ')) --end;
  if (end == 0) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    const uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

int Normaliser::Classify() {
  state_.resize(tree_.nodes.size());
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    RawNode& node = tree_.nodes[i];
    NodeState& st = state_[i];
    const std::string props = node.origin + "/properties";
    st.gpu = node.props.Get("simd_count") > 0;
    if (!st.gpu) continue;
    const uint64_t simd_per_cu = node.props.Get("simd_per_cu");
    const uint64_t arrays = node.props.Get("array_count");
    const uint64_t per_array = node.props.Get("cu_per_simd_array");
    if (simd_per_cu == 0) return Fail(props, "simd_per_cu is 0 on a GPU node");
    if (arrays > 256 || per_array > 64 || arrays * per_array > kMaxCuSlots) {
      return Fail(props, "implausible shader layout (array_count " + Dec(arrays) +
                             ", cu_per_simd_array " + Dec(per_array) + ")");
    }
    if (node.props.Get("simd_count") / simd_per_cu > kMaxCuSlots) {
      return Fail(props, "implausible simd_count " + Dec(node.props.Get("simd_count")));
    }
    const uint64_t gfx = node.props.Get("gfx_target_version");
    if (gfx > 999999) return Fail(props, "implausible gfx_target_version " + Dec(gfx));
    const uint64_t device_id = node.props.Get("device_id");
    if (device_id <= 0xffff) {
      st.family = hke::topology::FindDeviceFamily(static_cast<uint16_t>(device_id));
    }
    st.gfx = static_cast<uint32_t>(gfx);
    if (st.gfx == 0) {
      if (st.family == nullptr) {
        return Fail(props, "GPU node without gfx_target_version and with a device_id (" +
                               HexId(device_id) + ") the device table does not know");
      }
      st.gfx = hke::topology::GfxTargetVersionOf(st.family->gfx);
      node.props.Set("gfx_target_version", st.gfx, "max_slots_scratch_cu");
      Note(node.origin, "gfx_target_version missing; served " + Dec(st.gfx) + " (device_id " +
                            HexId(device_id) + " is " + st.family->gfx.amd_name +
                            " in the device table)");
    }
    st.apu = node.props.Get("cpu_cores_count") > 0 || IsApuGfx(st.gfx) ||
             (st.family != nullptr && st.family->integrated);
    if (!LookupAsic(st.gfx, st.apu, &st.asic)) {
      Note(node.origin, "gfx_target_version " + Dec(st.gfx) +
                            " has no cache table here; generic GPU facts used");
    }
    // Kernels before the SDMA keys still ran SDMA queues: the simulated GPU
    // gets the family's engines, the served file stays as captured.
    if (!node.props.Has("num_sdma_engines")) {
      Note(node.origin, "num_sdma_engines missing; the simulated GPU has " +
                            Dec(st.asic.defaults.sdma_engines) + " SDMA engines (family default, " +
                            "not served)");
    }
    if (!node.props.Has("num_sdma_queues_per_engine")) {
      Note(node.origin, "num_sdma_queues_per_engine missing; the simulated GPU has " +
                            Dec(st.asic.defaults.sdma_queues_per_engine) +
                            " queues per SDMA engine (family default, not served)");
    }
  }
  return 0;
}

int Normaliser::AssignGpuIds() {
  std::vector<bool> used(0x10000, false);
  std::vector<size_t> derive;
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    RawNode& node = tree_.nodes[i];
    NodeState& st = state_[i];
    uint64_t captured = 0;
    if (node.has_gpu_id && !ParseDecimalFile(node.gpu_id, &captured)) {
      return Fail(node.origin + "/gpu_id", "not a decimal number");
    }
    if (!st.gpu) {
      st.gpu_id = 0;
      if (node.has_gpu_id && captured == 0) {
        st.gpu_id_text = node.gpu_id;
      } else {
        st.gpu_id_text = "0\n";
        if (node.has_gpu_id)
          Note(node.origin, "gpu_id " + Dec(captured) + " on a CPU node; served 0");
      }
      continue;
    }
    if (node.has_gpu_id && captured != 0 && captured <= 0xffffffffu &&
        !(captured < used.size() && used[static_cast<size_t>(captured)])) {
      st.gpu_id = static_cast<uint32_t>(captured);
      st.gpu_id_text = node.gpu_id;
      if (captured < used.size()) used[static_cast<size_t>(captured)] = true;
      continue;
    }
    if (node.has_gpu_id) {
      Note(node.origin, "gpu_id " + Dec(captured) + " is 0, too large or a duplicate; replaced");
    }
    derive.push_back(i);
  }
  // Derived ids: a hash of where the device sits, folded to 16 bits and made
  // distinct in node order, so a tree always gets the same ids.
  for (size_t i : derive) {
    const PropText& p = tree_.nodes[i].props;
    uint64_t h = 0xcbf29ce484222325ull;
    const uint64_t parts[] = {p.Get("domain"), p.Get("location_id"), p.Get("device_id"),
                              p.Get("unique_id"), i};
    for (uint64_t part : parts) {
      for (int b = 0; b < 8; ++b) {
        h ^= (part >> (8 * b)) & 0xff;
        h *= 0x100000001b3ull;
      }
    }
    uint32_t id = static_cast<uint32_t>((h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48)) & 0xffff);
    while (id == 0 || used[id]) id = (id + 1) & 0xffff;
    used[id] = true;
    state_[i].gpu_id = id;
    state_[i].gpu_id_text = Dec(id) + "\n";
    Note(tree_.nodes[i].origin,
         "gpu_id missing; served " + Dec(id) + " (derived from domain/location_id/unique_id/node)");
  }
  return 0;
}

int Normaliser::AssignRenderMinors() {
  std::vector<bool> taken(256, false);
  std::vector<size_t> reassign;
  std::vector<std::string> why(tree_.nodes.size());
  size_t gpus = 0;
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    if (!state_[i].gpu) continue;
    ++gpus;
    const uint64_t m = tree_.nodes[i].props.Get("drm_render_minor", 0);
    if (m >= 128 && m <= 255 && !taken[static_cast<size_t>(m)]) {
      taken[static_cast<size_t>(m)] = true;
      state_[i].minor = static_cast<uint32_t>(m);
    } else {
      why[i] = !tree_.nodes[i].props.Has("drm_render_minor") ? "missing"
               : m == 0                                      ? "0"
               : (m >= 128 && m <= 255)                      ? Dec(m) + " (a duplicate)"
                                                             : Dec(m) + " (outside 128..255)";
      reassign.push_back(i);
    }
  }
  if (gpus > kMaxGpuNodes) {
    return Fail("nodes", Dec(gpus) + " GPU nodes; render minors 128..255 allow at most 128");
  }
  uint32_t next = 128;
  for (size_t i : reassign) {
    while (taken[next]) ++next;
    taken[next] = true;
    state_[i].minor = next;
    RawNode& node = tree_.nodes[i];
    node.props.Set("drm_render_minor", next, "domain");
    Note(node.origin, "drm_render_minor " + why[i] + "; served " + Dec(next));
  }
  return 0;
}

uint64_t CpuMemoryGuess(uint64_t cores) {
  uint64_t bytes = cores * 4 * kGiB;
  if (bytes < 16 * kGiB) bytes = 16 * kGiB;
  if (bytes > 2048 * kGiB) bytes = 2048 * kGiB;
  return bytes;
}

void Normaliser::FillMemoryBanks() {
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    RawNode& node = tree_.nodes[i];
    const NodeState& st = state_[i];
    if (!node.mem_banks.empty()) continue;
    const uint64_t cores = node.props.Get("cpu_cores_count");
    if (!st.gpu && cores == 0) continue;  // memoryless node: nothing to invent
    RawEntry bank;
    bank.index = 0;
    bank.origin = node.origin + "/mem_banks/0";
    std::string how;
    if (st.gpu) {
      const FamilyDefaults& fam = st.asic.defaults;
      uint64_t size = node.props.Get("local_mem_size");
      how = "local_mem_size";
      if (size == 0 && st.apu && fam.vram_bytes > kApuCarveOut) {
        size = kApuCarveOut;
        how = "a typical APU carve-out";
      } else if (size == 0) {
        // A partition node (fewer XCCs than the device) gets its share.
        size = fam.vram_bytes;
        const uint64_t xcc = node.props.Get("num_xcc", 1);
        if (fam.device_xcc > 1 && xcc >= 1 && xcc < fam.device_xcc) {
          size = size / fam.device_xcc * xcc;
        }
        how = st.asic.known ? "the gfx_target_version " + Dec(st.gfx) + " family default"
                            : std::string("a generic ") + (st.apu ? "APU" : "dGPU") + " default";
      }
      const uint32_t width = fam.mem_width;
      const uint32_t clk = fam.mem_clk_max;
      bank.props.AppendRaw("heap_type " + Dec(kHeapFbPublic));
      bank.props.AppendRaw("size_in_bytes " + Dec(size));
      bank.props.AppendRaw("flags 0");
      bank.props.AppendRaw("width " + Dec(width));
      bank.props.AppendRaw("mem_clk_max " + Dec(clk));
      bank.has_used_memory = true;
      bank.used_memory = "0\n";
      Note(node.origin,
           "mem_banks missing; served a " + Dec(size >> 20) + " MiB VRAM bank (from " + how + ")");
    } else {
      const uint64_t size = CpuMemoryGuess(cores);
      bank.props.AppendRaw("heap_type " + Dec(kHeapSystem));
      bank.props.AppendRaw("size_in_bytes " + Dec(size));
      bank.props.AppendRaw("flags 0");
      bank.props.AppendRaw("width 64");
      bank.props.AppendRaw("mem_clk_max 3200");
      Note(node.origin, "mem_banks missing; served a " + Dec(size >> 30) +
                            " GiB system memory bank (4 GiB per core, 16 GiB..2 TiB)");
    }
    node.mem_banks.push_back(std::move(bank));
  }
}

std::string SiblingMap(const std::vector<bool>& bits) {
  std::string s;
  s.reserve(bits.size() * 2);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (i != 0) s.push_back(',');
    s.push_back(bits[i] ? '1' : '0');
  }
  return s;
}

size_t MapLength(uint64_t bits) {
  uint64_t len = (bits + 31) / 32 * 32;
  if (len < 32) len = 32;
  if (len > 256) len = 256;  // the thunk keeps 256 sibling entries
  return static_cast<size_t>(len);
}

void GenerateGpuCaches(const RawNode& node, const NodeState& st, std::vector<RawEntry>* out) {
  const PropText& p = node.props;
  const uint64_t cu_count = p.Get("simd_count") / p.Get("simd_per_cu", 1);
  uint64_t arrays = p.Get("array_count");
  uint64_t slots = p.Get("cu_per_simd_array");
  if (arrays == 0 || slots == 0) {
    arrays = 1;
    slots = cu_count == 0 ? 1 : cu_count;
  }
  uint64_t xcc = p.Get("num_xcc", 1);
  if (xcc == 0) xcc = 1;
  if (xcc > arrays) xcc = arrays;
  const uint64_t base = p.Get("simd_id_base");
  // Active CUs per shader array, packed from slot 0; the remainder goes to
  // the first arrays, as harvested parts spread their disabled CUs.
  std::vector<uint64_t> active(static_cast<size_t>(arrays));
  for (uint64_t sa = 0; sa < arrays; ++sa) {
    uint64_t a = cu_count / arrays + (sa < cu_count % arrays ? 1 : 0);
    active[static_cast<size_t>(sa)] = a > slots ? slots : a;
  }
  const size_t abs_len = MapLength(arrays * slots);

  auto emit = [&](const GpuCacheSpec& spec, uint64_t pid, const std::vector<bool>& map) {
    uint64_t size = spec.size_kb;
    const uint32_t device_xcc = st.asic.defaults.device_xcc;
    if (spec.scale_by_partition && device_xcc > 1) {
      const uint64_t node_xcc = p.Get("num_xcc", 1);
      if (node_xcc >= 1 && node_xcc < device_xcc) size = size * node_xcc / device_xcc;
    }
    RawEntry e;
    e.index = static_cast<uint32_t>(out->size());
    e.origin = node.origin + "/caches/" + Dec(e.index);
    e.props.AppendRaw("processor_id_low " + Dec(pid & 0xffffffffu));
    e.props.AppendRaw("level " + Dec(spec.level));
    e.props.AppendRaw("size " + Dec(size));
    e.props.AppendRaw("cache_line_size " + Dec(spec.line_size));
    e.props.AppendRaw("cache_lines_per_tag 0");
    e.props.AppendRaw("association 0");
    e.props.AppendRaw("latency 0");
    e.props.AppendRaw("type " +
                      Dec((spec.instruction ? kCacheInstruction : kCacheData) | kCacheHsaCu));
    e.props.AppendRaw("sibling_map " + SiblingMap(map));
    out->push_back(std::move(e));
  };

  for (size_t c = 0; c < st.asic.num_caches; ++c) {
    const GpuCacheSpec& spec = st.asic.caches[c];
    if (spec.cu_shared == kPerXcc || spec.cu_shared == kPerNode) {
      const uint64_t parts = spec.cu_shared == kPerXcc ? xcc : 1;
      for (uint64_t x = 0; x < parts; ++x) {
        const uint64_t sa_begin = arrays * x / parts, sa_end = arrays * (x + 1) / parts;
        std::vector<bool> map(abs_len, false);
        for (uint64_t sa = sa_begin; sa < sa_end; ++sa) {
          for (uint64_t k = 0; k < active[static_cast<size_t>(sa)]; ++k) {
            const uint64_t bit = sa * slots + k;
            if (bit < map.size()) map[static_cast<size_t>(bit)] = true;
          }
        }
        emit(spec, base + sa_begin * slots, map);
      }
      continue;
    }
    const uint64_t group = spec.cu_shared == kPerShaderArray ? slots : spec.cu_shared;
    for (uint64_t sa = 0; sa < arrays; ++sa) {
      for (uint64_t first = 0; first < active[static_cast<size_t>(sa)]; first += group) {
        const uint64_t left = active[static_cast<size_t>(sa)] - first;
        const uint64_t n = left < group ? left : group;
        std::vector<bool> map(MapLength(group), false);
        for (uint64_t k = 0; k < n && k < map.size(); ++k) map[static_cast<size_t>(k)] = true;
        emit(spec, base + sa * slots + first, map);
      }
    }
  }
}

void Normaliser::FillCaches() {
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    RawNode& node = tree_.nodes[i];
    if (!state_[i].gpu || !node.caches.empty()) continue;
    GenerateGpuCaches(node, state_[i], &node.caches);
    Note(node.origin, "caches missing; served " + Dec(node.caches.size()) + " from the " +
                          (state_[i].asic.known ? "gfx_target_version " + Dec(state_[i].gfx)
                                                : std::string("generic")) +
                          " cache table (type DATA|HSACU / INSTRUCTION|HSACU)");
  }
}

void Normaliser::FixLinks() {
  const uint64_t n = tree_.nodes.size();
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    RawNode& node = tree_.nodes[i];
    for (std::vector<RawEntry>* links : {&node.io_links, &node.p2p_links}) {
      const char* kind = links == &node.io_links ? "io_links" : "p2p_links";
      std::vector<RawEntry> kept;
      for (RawEntry& e : *links) {
        const uint64_t to = e.props.Get("node_to", UINT64_MAX);
        if (!e.props.Has("node_to") || to >= n || to == i) {
          Note(e.origin, "node_to " + (e.props.Has("node_to") ? Dec(to) : std::string("missing")) +
                             " names no other node; link not served");
          continue;
        }
        if (e.props.Get("node_from", UINT64_MAX) != i) {
          e.props.Set("node_from", i, "version_minor");
          Note(e.origin, "node_from corrected to " + Dec(i));
        }
        kept.push_back(std::move(e));
      }
      for (size_t k = 0; k < kept.size(); ++k) {
        if (kept[k].index != k) {
          Note(kept[k].origin, std::string("served as ") + kind + "/" + Dec(k));
          kept[k].index = static_cast<uint32_t>(k);
        }
      }
      *links = std::move(kept);
    }
    for (size_t k = 0; k < node.mem_banks.size(); ++k) {
      if (node.mem_banks[k].index != k) {
        Note(node.mem_banks[k].origin, "served as mem_banks/" + Dec(k));
        node.mem_banks[k].index = static_cast<uint32_t>(k);
      }
    }
    for (size_t k = 0; k < node.caches.size(); ++k) {
      if (node.caches[k].index != k) {
        Note(node.caches[k].origin, "served as caches/" + Dec(k));
        node.caches[k].index = static_cast<uint32_t>(k);
      }
    }
  }
}

void Normaliser::FixCounts() {
  // One node reporting p2p links makes the thunk expect the key everywhere:
  // its p2p count is carried over from the previous node when a key is absent.
  bool any_p2p = false;
  for (const RawNode& node : tree_.nodes) {
    any_p2p = any_p2p || node.props.Has("p2p_links_count") || !node.p2p_links.empty();
  }
  for (RawNode& node : tree_.nodes) {
    struct Count {
      const char* key;
      const char* after;
      size_t served;
    };
    std::vector<Count> counts = {{"mem_banks_count", "simd_count", node.mem_banks.size()},
                                 {"caches_count", "mem_banks_count", node.caches.size()},
                                 {"io_links_count", "caches_count", node.io_links.size()}};
    if (any_p2p) counts.push_back({"p2p_links_count", "io_links_count", node.p2p_links.size()});
    for (const Count& c : counts) {
      const bool had = node.props.Has(c.key);
      const uint64_t old = node.props.Get(c.key);
      if (node.props.Set(c.key, c.served, c.after)) {
        Note(node.origin, std::string(c.key) + " " + (had ? Dec(old) : std::string("missing")) +
                              "; served " + Dec(c.served) + " (entries present)");
      }
    }
  }
}

void Normaliser::FixFiles() {
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    RawNode& node = tree_.nodes[i];
    NodeState& st = state_[i];
    if (node.has_name) {
      st.name_text = node.name;
    } else if (st.gpu) {
      st.name_text = std::string(st.asic.sysfs_name) + "\n";
      Note(node.origin, std::string("name missing; served \"") + st.asic.sysfs_name + "\"");
    } else {
      st.name_text = "\n";
    }
  }
  std::string why;
  PropText sys;
  if (tree_.has_system_properties &&
      !(sys.Parse(tree_.system_properties, false, &why) && !sys.empty())) {
    Note("system_properties", "unreadable (" + (why.empty() ? std::string("empty") : why) +
                                  "); served platform_oem/id/rev 0");
    tree_.has_system_properties = false;
  }
  if (!tree_.has_system_properties) {
    tree_.system_properties = "platform_oem 0\nplatform_id 0\nplatform_rev 0\n";
    Note("system_properties", "missing; served platform_oem 0, platform_id 0, platform_rev 0");
  }
  uint64_t gen = 0;
  if (tree_.has_generation_id && !ParseDecimalFile(tree_.generation_id, &gen)) {
    Note("generation_id", "not a number; served 1");
    tree_.has_generation_id = false;
  }
  if (!tree_.has_generation_id) {
    tree_.generation_id = "1\n";
    Note("generation_id", "missing; served 1");
  }
}

void Normaliser::PlanHost(HostPlan* plan) {
  plan->vendor = tree_.hints.cpu_vendor;
  plan->model_name = tree_.hints.cpu_model_name;
  if (plan->vendor.empty()) {
    // Intel hosts link their sockets with QPI/UPI io_links (type 5).
    bool qpi = false;
    for (size_t i = 0; i < tree_.nodes.size(); ++i) {
      if (state_[i].gpu) continue;
      for (const RawEntry& e : tree_.nodes[i].io_links) {
        const uint64_t to = e.props.Get("node_to");
        if (e.props.Get("type") == kLinkQpi && to < state_.size() && !state_[static_cast<size_t>(to)].gpu) qpi = true;
      }
    }
    plan->vendor = qpi ? "GenuineIntel" : "AuthenticAMD";
  }
  struct Cpu {
    uint32_t node;
    uint64_t cores;
  };
  std::vector<Cpu> cpus;
  uint64_t sum = 0;
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    const uint64_t c = tree_.nodes[i].props.Get("cpu_cores_count");
    if (c == 0) continue;
    cpus.push_back({static_cast<uint32_t>(i), c});
    sum += c;
  }
  if (cpus.empty()) {
    cpus.push_back({0, 1});
    sum = 1;
    Note("nodes", "no node has CPU cores; serving one NUMA node 0 for the host view");
  }
  uint64_t total = options_.cpu_count != 0 ? options_.cpu_count : sum;
  if (total < cpus.size()) {
    Note("cpuinfo", "cpu_count " + Dec(total) + " raised to " + Dec(cpus.size()) +
                        " (every CPU node needs at least one CPU)");
    total = cpus.size();
  }
  if (total > kMaxCpus) {
    Note("cpuinfo", "cpu_count " + Dec(total) + " capped at " + Dec(kMaxCpus));
    total = kMaxCpus;
  }
  std::vector<uint64_t> share(cpus.size());
  if (total == sum) {
    for (size_t k = 0; k < cpus.size(); ++k) share[k] = cpus[k].cores;
  } else {
    uint64_t given = 0;
    for (size_t k = 0; k < cpus.size(); ++k) {
      share[k] = std::max<uint64_t>(1, total * cpus[k].cores / sum);
      given += share[k];
    }
    while (given > total) {
      size_t big = 0;
      for (size_t k = 1; k < share.size(); ++k) big = share[k] > share[big] ? k : big;
      --share[big];
      --given;
    }
    for (size_t k = 0; given < total; k = (k + 1) % share.size(), ++given) ++share[k];
    Note("cpuinfo", "serving " + Dec(total) + " CPUs for " + Dec(sum) + " cores in the topology");
  }
  uint32_t first = 0;
  for (size_t k = 0; k < cpus.size(); ++k) {
    const RawNode& node = tree_.nodes[cpus[k].node];
    CpuNodePlan n;
    n.numa_node = cpus[k].node;
    n.first_cpu = first;
    n.count = static_cast<uint32_t>(share[k]);
    n.apic_base = node.props.Get("cpu_core_id_base");
    n.socket = static_cast<uint32_t>(k);
    uint64_t mhz = node.props.Get("max_engine_clk_ccompute", 2000);
    n.mhz = static_cast<uint32_t>(mhz == 0 || mhz > 10000 ? 2000 : mhz);
    for (const RawEntry& b : node.mem_banks) {
      if (b.props.Get("heap_type") == kHeapSystem) n.mem_bytes += b.props.Get("size_in_bytes");
    }
    if (n.mem_bytes == 0) n.mem_bytes = CpuMemoryGuess(cpus[k].cores);
    first += n.count;
    plan->nodes.push_back(n);
  }
  plan->cpu_count = first;
  plan->amdgpu = params_;
  for (size_t i = 0; i < state_.size(); ++i) {
    if (state_[i].gpu) plan->render_minors.push_back(state_[i].minor);
  }
  ChooseCpuModel(plan);
}

void AddEntries(MapFileProvider* files, const std::string& node_dir, const char* sub,
                const std::vector<RawEntry>& entries) {
  const std::string dir = node_dir + "/" + sub;
  files->AddDir(dir);
  for (const RawEntry& e : entries) {
    const std::string d = dir + "/" + Dec(e.index);
    files->AddFile(d + "/properties", e.props.Render());
    if (e.has_used_memory) files->AddFile(d + "/used_memory", e.used_memory);
  }
}

void Normaliser::Serve(MapFileProvider* files) {
  const std::string root = kKfdTopology;
  files->AddFile(root + "/generation_id", tree_.generation_id);
  files->AddFile(root + "/system_properties", tree_.system_properties);
  files->AddDir(root + "/nodes");
  bool any_p2p = false;
  for (const RawNode& node : tree_.nodes) any_p2p = any_p2p || node.props.Has("p2p_links_count");
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    const RawNode& node = tree_.nodes[i];
    const std::string dir = root + "/nodes/" + Dec(i);
    files->AddFile(dir + "/properties", node.props.Render());
    files->AddFile(dir + "/gpu_id", state_[i].gpu_id_text);
    files->AddFile(dir + "/name", state_[i].name_text);
    AddEntries(files, dir, "mem_banks", node.mem_banks);
    AddEntries(files, dir, "caches", node.caches);
    AddEntries(files, dir, "io_links", node.io_links);
    if (any_p2p) AddEntries(files, dir, "p2p_links", node.p2p_links);
  }
  files->AddAlias("/sys/class/kfd/kfd", "/sys/devices/virtual/kfd/kfd");
  for (const char* r : {"/sys/devices/virtual/kfd", "/sys/class/kfd", "/sys/devices/system/node",
                        "/sys/devices/system/cpu", "/sys/module/amdgpu", "/proc/cpuinfo",
                        "/proc/modules", "/proc/cmdline", "/dev/kfd", "/dev/dri"}) {
    files->AddRoot(r);
  }
}

void Normaliser::Describe(BoardDesc* desc, uint64_t system_bytes) {
  desc->name = tree_.name;
  desc->kfd_major = 1;
  desc->kfd_minor = options_.kfd_minor;
  desc->amdgpu_params = params_;
  desc->node_count = static_cast<uint32_t>(tree_.nodes.size());
  uint64_t gtt = system_bytes / 2;
  if (gtt < 3 * kGiB) gtt = 3 * kGiB;
  for (size_t i = 0; i < tree_.nodes.size(); ++i) {
    const NodeState& st = state_[i];
    if (!st.gpu) continue;
    const PropText& p = tree_.nodes[i].props;
    auto u32 = [&p](const char* key, uint64_t fallback = 0) {
      return static_cast<uint32_t>(p.Get(key, fallback) & 0xffffffffu);
    };
    GpuDesc g;
    g.node_id = static_cast<uint32_t>(i);
    g.gpu_id = st.gpu_id;
    g.render_minor = st.minor;
    g.vendor_id = u32("vendor_id", 0x1002);
    g.device_id = u32("device_id");
    g.pci_rev = st.asic.defaults.pci_rev;  // no capture holds the PCI revision
    g.gfx_target_version = st.gfx;
    g.drm_family = st.asic.drm_family;
    g.is_apu = st.apu;
    for (const RawEntry& b : tree_.nodes[i].mem_banks) {
      const uint64_t heap = b.props.Get("heap_type");
      if (heap == kHeapFbPublic || heap == kHeapFbPrivate)
        g.vram_bytes += b.props.Get("size_in_bytes");
    }
    g.vram_visible_bytes = g.vram_bytes;
    g.gtt_bytes = gtt;
    g.simd_count = u32("simd_count");
    g.simd_per_cu = u32("simd_per_cu");
    g.cu_count = g.simd_per_cu != 0 ? g.simd_count / g.simd_per_cu : 0;
    g.num_xcc = u32("num_xcc", 1);
    g.array_count = u32("array_count");
    g.simd_arrays_per_engine = u32("simd_arrays_per_engine");
    g.cu_per_simd_array = u32("cu_per_simd_array");
    g.max_waves_per_simd = u32("max_waves_per_simd");
    g.wave_front_size = u32("wave_front_size", 64);
    g.lds_size_in_kb = u32("lds_size_in_kb", 64);
    g.num_sdma_engines = u32("num_sdma_engines", st.asic.defaults.sdma_engines);
    g.num_sdma_xgmi_engines = u32("num_sdma_xgmi_engines");
    g.num_sdma_queues_per_engine =
        u32("num_sdma_queues_per_engine", st.asic.defaults.sdma_queues_per_engine);
    g.num_cp_queues = u32("num_cp_queues");
    g.num_gws = u32("num_gws");
    g.location_id = u32("location_id");
    g.domain = u32("domain");
    g.hive_id = p.Get("hive_id");
    g.unique_id = p.Get("unique_id");
    g.max_engine_clk_fcompute = u32("max_engine_clk_fcompute");
    g.capability = u32("capability");
    g.capability2 = u32("capability2");
    g.debug_prop = u32("debug_prop");
    g.cwsr_size = u32("cwsr_size");
    g.ctl_stack_size = u32("ctl_stack_size");
    g.gb_addr_config = st.asic.gb_addr_config;
    g.noretry = params_.noretry == -1 ? NoretryDefault(st.gfx) : params_.noretry != 0;
    desc->gpus.push_back(g);
  }
}

int Normaliser::Run(Board* out) {
  std::string why;
  if (!ApplyAmdgpuParams(options_.amdgpu_params, &params_, &why)) {
    error_ = "amdgpu parameters: " + why;
    return EINVAL;
  }
  int rc = Classify();
  if (rc != 0) return rc;
  rc = AssignGpuIds();
  if (rc != 0) return rc;
  rc = AssignRenderMinors();
  if (rc != 0) return rc;
  FillMemoryBanks();
  FillCaches();
  FixLinks();
  FixCounts();
  FixFiles();
  for (const RawNode& node : tree_.nodes) {
    if (node.props.Render().size() > 4096) {
      return Fail(node.origin + "/properties", "longer than 4096 bytes once corrected");
    }
  }
  HostPlan plan;
  PlanHost(&plan);
  auto files = std::make_unique<MapFileProvider>();
  Serve(files.get());
  ServeHostFiles(plan, files.get());
  files->Finish();
  uint64_t system_bytes = 0;
  for (const CpuNodePlan& n : plan.nodes) system_bytes += n.mem_bytes;
  Board board;
  Describe(&board.desc, system_bytes);
  board.desc.cpu_count = plan.cpu_count;
  for (const CpuNodePlan& n : plan.nodes) board.desc.numa_nodes.push_back(n.numa_node);
  board.files = std::move(files);
  board.fill_report = std::move(report_);
  *out = std::move(board);
  return 0;
}

}  // namespace

int Normalise(RawTree tree, const LoadOptions& options, Board* out, std::string* error) {
  std::vector<std::string> report;
  std::string err;
  Normaliser n(&tree, options, &report, &err);
  const int rc = n.Run(out);
  if (rc != 0) *error = err;
  return rc;
}

}  // namespace topo

int LoadTreeBoard(const std::string& tree_dir, const LoadOptions& options, Board* out,
                  std::string* error) {
  topo::RawTree tree;
  std::string err;
  int rc = topo::ReadTreeDir(tree_dir, &tree, &err);
  if (rc == 0) rc = topo::Normalise(std::move(tree), options, out, &err);
  if (rc != 0 && error != nullptr) *error = err;
  return rc;
}

int LoadBuiltinBoard(const std::string& name, const LoadOptions& options, Board* out,
                     std::string* error) {
  topo::RawTree tree;
  if (topo::BuildBuiltinTree(name, &tree) != 0) {
    if (error != nullptr) *error = "builtin:" + name + ": no such built-in board";
    return ENOENT;
  }
  std::string err;
  const int rc = topo::Normalise(std::move(tree), options, out, &err);
  if (rc != 0 && error != nullptr) *error = err;
  return rc;
}

std::vector<std::string> BuiltinBoardNames() { return topo::BuiltinNames(); }

}  // namespace kfdsim
