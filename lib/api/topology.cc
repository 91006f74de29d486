// hsaKmtAcquireSystemProperties, hsaKmtReleaseSystemProperties and the
// hsaKmtGetNode*Properties getters, on the default context, and their
// hsakmtctx.h twins (hsaKmt<Name>Ctx), on the given context: one body per
// call, taking the context. Each context has its own snapshot.
//
// Acquire takes the snapshot on its first call after an open and caches it
// (later calls return the cached system properties without I/O); Release
// drops it. Around the sysfs snapshot (lib/topology) Acquire derives what
// upstream adds per GPU (below).
//
// Parse reuse (TopologyState in lib/context/context.h): Release and Close
// keep the sysfs parse (nodes, banks, caches, links, the CPU data from
// /proc/cpuinfo and the CPU cache directories). The next Acquire that takes
// a snapshot reads generation_id only; when it equals the parse's
// generation, the topology root is the same, and the render-node filter,
// re-run over the GPU nodes it saw in sysfs order, decides as it did, the
// parse is reused. Otherwise (or with HKE_CONFIG_REPARSE_TOPOLOGY) sysfs is
// read again. A parse that fails forgets the previous one; reading
// generation_id or re-running the filter fails Acquire as a re-parse
// would, and forgets the parse too; a failure after a good parse (a GFX
// override, the apertures) keeps it. Everything below is derived again on
// every Acquire, reused parse or not:
//  - node filtering: a GPU whose render node cannot be opened (ENOENT,
//    EPERM) is hidden; the opened nodes stay with the device state;
//  - DRM AMDGPU_INFO(DEV_INFO) on the render node: the PCI revision (for
//    the marketing name), the DRM family and the FUSION (integrated) flag;
//  - the marketing name, through the platform's marketing_name operation
//    (libdrm's amdgpu.ids); a pair the table does not list gets libdrm's
//    generic "AMD Radeon Graphics"; only for nodes without CPU cores, as
//    upstream 5.2.3;
//  - the apertures of GET_PROCESS_APERTURES_NEW, from which the getters
//    synthesise the LDS, SCRATCH and DEVICE_SVM banks (the shared SVM range
//    is upstream's: from the highest GPUVM base, 2 MiB aligned, to the
//    lowest canonical GPUVM limit), plus MMIO_REMAP once the memory
//    subsystem has mapped that page (GpuNodeInfo::mmio_base).
// Discovery-only contexts read sysfs only: every GPU is visible, and there
// are no apertures, DEV_INFO or marketing names.
// GFX version overrides (the context's gfx_overrides) fill OverrideEngineId
// of the GPU nodes they apply to; one that resolves to a malformed value on
// such a node fails Acquire with HSAKMT_STATUS_ERROR, as upstream fails on a
// malformed HSA_OVERRIDE_GFX_VERSION[_<node>].
//
// Status rules (upstream's): the getters check a NULL output first, then
// the open check (KERNEL_IO_CHANNEL_NOT_OPENED); Acquire checks open first;
// Release too, except in a forked child that has not reopened, where it
// drops the inherited snapshot and succeeds (upstream's answer).
// A Ctx call with a NULL or dead context is INVALID_PARAMETER before all.
// A node id without a snapshot or beyond NumNodes is INVALID_NODE_UNIT; a
// count above what the node has is INVALID_PARAMETER (also for memory
// banks, where upstream zero-fills the excess). Outputs are written only
// on success.
//
// Threading: the topology lock serialises Acquire, Release and the getters;
// device calls take the context lock inside it (never the other way round).
#include <cstddef>
#include <cstring>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/api/topology_access.h"
#include "lib/context/context.h"
#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/drm_abi.h"
#include "lib/kfd/encode.h"
#include "lib/memory/memory.h"
#include "lib/topology/gfx.h"
#include "lib/topology/keys.h"
#include "lib/topology/snapshot.h"

namespace hke::api {
namespace {

constexpr const char* kArea = "topology";
constexpr const char* kGenericMarketingName = "AMD Radeon Graphics";  // libdrm's fallback
constexpr uint64_t kHugePage = 2ull << 20;                  // SVM alignment
constexpr uint64_t kCanonicalLimit = (1ull << 47) - 1;      // x86-64 user space
constexpr uint64_t kReservedSvmLimit = (1ull << 40) - 1;    // upstream's reserved SVM cap
constexpr uint32_t kGfx9 = 0x090000;
constexpr uint32_t kKaveri = 0x070000;

using topology::NodeRecord;

bool Valid(const kfd::AddressRange& r) { return r.base != 0 && r.limit != 0 && r.base < r.limit; }

// The platform's marketing_name operation when the port's table has it.
using MarketingNameFn = int (*)(void*, uint32_t, uint32_t, char*, size_t);
MarketingNameFn MarketingNameOp(const Platform& platform) {
  const hke_platform& p = platform.raw();
  if (p.ops == nullptr) return nullptr;
  if (p.ops->struct_size <
      offsetof(hke_platform_ops, marketing_name) + sizeof(p.ops->marketing_name)) {
    return nullptr;
  }
  return p.ops->marketing_name;
}

// Render-node filter of the snapshot: a GPU is visible when its render node
// opens.
Status RenderFilter(Context& ctx, uint32_t minor, bool* keep) {
  if (minor == 0) {
    return ctx.diag().Error(Protocol(), kArea, "a GPU node has no drm_render_minor");
  }
  return device::OpenRenderNode(ctx, minor, keep);
}

// The filter Take runs (user: the Context): RenderFilter, recording each
// decision in TopologyState::decisions for the next Acquire to re-check.
Status RecordingRenderFilter(void* user, uint32_t sysfs_node, uint32_t gpu_id, uint32_t minor,
                             bool* keep) {
  auto* ctx = static_cast<Context*>(user);
  bool k = false;
  HKE_RETURN_IF_ERROR(RenderFilter(*ctx, minor, &k));
  TopologyState& t = ctx->topology();
  if (t.num_decisions < config::kMaxNodes) {
    TopologyFilterDecision& d = t.decisions[t.num_decisions++];
    d.sysfs_node = sysfs_node;
    d.gpu_id = gpu_id;
    d.render_minor = minor;
    d.keep = k;
  } else {
    t.decisions_overflow = true;  // cannot happen: one call per sysfs node at most
  }
  *keep = k;
  return Status::Ok();
}

// Start of each generation attempt: only the last attempt's decisions count.
void ForgetDecisions(void* user) {
  TopologyState& t = static_cast<Context*>(user)->topology();
  t.num_decisions = 0;
  t.decisions_overflow = false;
}

// FNV-1a of the topology root, to tell a parse of another root.
uint64_t RootHash(const char* root) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char* p = root; *p != '\0'; ++p) {
    h ^= static_cast<unsigned char>(*p);
    h *= 0x100000001b3ull;
  }
  return h;
}

uint32_t PackedGfx(const HsaNodeProperties& p) {
  return topology::PackGfxVersion(p.EngineId.ui32.Major, p.EngineId.ui32.Minor,
                                  p.EngineId.ui32.Stepping);
}

class Topology {
 public:
  explicit Topology(Context& ctx) : ctx_(ctx), t_(ctx.topology()) {}

  // The snapshot is current: taken in this open epoch.
  bool Current() const { return t_.acquired && t_.epoch == device::OpenEpoch(ctx_); }

  Status Take() {
    Drop();
    bool reuse = false;
    Status s = CheckReuse(&reuse);
    if (s.ok() && !reuse) s = Parse();
    if (s.ok()) {
      s = topology::CheckGfxOverrides(t_.snapshot, ctx_.gfx_overrides(), ctx_.diag());
      gfx_override_failed_ = !s.ok();
    }
    if (s.ok()) s = DeriveGpus();
    if (s.ok() && !ctx_.discovery_only()) s = ReadApertures();
    if (s.ok() && !ctx_.discovery_only()) BringUpVm();
    if (!s.ok()) {
      Drop();
      return s;
    }
    t_.epoch = device::OpenEpoch(ctx_);
    t_.acquired = true;
    return Status::Ok();
  }

  // Stops serving the snapshot (Release, a failed Acquire). The parse stays
  // for reuse unless the configuration turns reuse off.
  void Drop() {
    if (!ReuseAllowed()) ForgetParse();
    t_.acquired = false;
    t_.num_gpus = 0;
    t_.dgpu = false;
    t_.svm_valid = false;
    t_.svm_base = t_.svm_limit = 0;
  }

  // The last Take failed on a malformed GFX version override.
  bool gfx_override_failed() const { return gfx_override_failed_; }

  const GpuNodeInfo* Gpu(uint32_t node) const {
    if (node >= config::kMaxNodes || t_.gpu_of_node[node] == TopologyState::kNoGpu) return nullptr;
    return &t_.gpus[t_.gpu_of_node[node]];
  }

  // Synthetic banks of a GPU node, in upstream's order; returns how many
  // were written to out[0..capacity) (all are counted when out is null).
  uint32_t SyntheticBanks(uint32_t node, const HsaNodeProperties& props, HsaMemoryProperties* out,
                          uint32_t capacity) const {
    const GpuNodeInfo* g = Gpu(node);
    if (g == nullptr) return 0;
    uint32_t n = 0;
    auto add = [&](HSA_HEAPTYPE type, uint64_t base, uint64_t size) {
      if (out != nullptr && n < capacity) {
        HsaMemoryProperties m;
        std::memset(&m, 0, sizeof(m));
        m.HeapType = type;
        m.SizeInBytes = size;
        m.VirtualBaseAddress = base;
        out[n] = m;
      }
      ++n;
    };
    if (g->has_apertures && Valid(g->lds)) {
      add(HSA_HEAPTYPE_GPU_LDS, g->lds.base, static_cast<uint64_t>(props.LDSSizeInKB) * 1024u);
    }
    if (g->has_apertures && PackedGfx(props) == kKaveri && props.LocalMemSize > 0 &&
        Valid(g->gpuvm) && g->gpuvm.limit > kCanonicalLimit) {
      add(HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE, g->gpuvm.base, props.LocalMemSize);
    }
    if (g->has_apertures && Valid(g->scratch)) {
      add(HSA_HEAPTYPE_GPU_SCRATCH, g->scratch.base, g->scratch.limit - g->scratch.base + 1);
    }
    if (t_.svm_valid && (t_.dgpu || PackedGfx(props) >= kGfx9)) {
      add(HSA_HEAPTYPE_DEVICE_SVM, t_.svm_base, t_.svm_limit - t_.svm_base + 1);
    }
    if (g->mmio_base != 0) {
      size_t page = 4096;
      (void)ctx_.platform().PageSize(&page);
      add(HSA_HEAPTYPE_MMIO_REMAP, g->mmio_base, page);
    }
    return n;
  }

  // Node properties with the API layer's additions.
  Status NodeProperties(uint32_t node, HsaNodeProperties* out) const {
    HsaNodeProperties p;
    HKE_RETURN_IF_ERROR(
        t_.snapshot.FillNodeProperties(node, &p, ctx_.gfx_overrides().Resolve(node)));
    const GpuNodeInfo* g = Gpu(node);
    if (g != nullptr) {
      if (g->has_dev_info) {
        p.FamilyID = g->drm_family;
        p.Integrated = g->integrated ? 1 : 0;
      }
      if (g->has_marketing_name && p.NumCPUCores == 0) {
        size_t i = 0;
        for (; i + 1 < HSA_PUBLIC_NAME_SIZE && g->marketing_name[i] != '\0'; ++i) {
          p.MarketingName[i] = static_cast<unsigned char>(g->marketing_name[i]);
        }
        p.MarketingName[i] = 0;
      }
      p.NumMemoryBanks += SyntheticBanks(node, p, nullptr, 0);
    }
    *out = p;
    return Status::Ok();
  }

 private:
  bool ReuseAllowed() const { return (ctx_.config().flags & HKE_CONFIG_REPARSE_TOPOLOGY) == 0; }

  void ForgetParse() {
    t_.parse_reusable = false;
    t_.num_decisions = 0;
    t_.decisions_overflow = false;
    t_.snapshot.Reset();
  }

  // Reads the whole sysfs topology into the snapshot, recording the render
  // filter's decisions; the parse is reusable only once it succeeded.
  Status Parse() {
    ForgetParse();
    topology::NodeFilter filter;
    if (!ctx_.discovery_only()) {
      filter.fn = &RecordingRenderFilter;
      filter.user = &ctx_;
      filter.begin_attempt = &ForgetDecisions;
    }
    const Status s = topology::TakeSnapshot(ctx_, filter, &t_.snapshot);
    if (!s.ok()) {
      ForgetParse();
      return s;
    }
    t_.parse_root_hash = RootHash(ctx_.topology_root());
    t_.parse_reusable = ReuseAllowed() && !t_.decisions_overflow;
    return Status::Ok();
  }

  // Whether the kept parse describes the tree now, for this open device:
  // same root, same generation_id, same render-filter decisions (the
  // filter opens the render nodes again, as a parse would). *out false
  // means "parse again". A failure to read generation_id or of the filter
  // is returned as a parse would return it, and forgets the parse.
  Status CheckReuse(bool* out) {
    *out = false;
    if (!ReuseAllowed() || !ctx_.valid() || !t_.parse_reusable || !t_.snapshot.valid() ||
        t_.decisions_overflow) {
      return Status::Ok();
    }
    const char* root = ctx_.topology_root();
    if (RootHash(root) != t_.parse_root_hash) return Status::Ok();
    uint32_t generation = 0;
    Status s = t_.snapshot.ReadGeneration(ctx_.platform(), ctx_.diag(), root, &generation);
    if (!s.ok()) {
      ForgetParse();
      return s;
    }
    if (generation != t_.snapshot.generation()) return Status::Ok();
    if (!ctx_.discovery_only()) {
      for (uint32_t i = 0; i < t_.num_decisions; ++i) {
        const TopologyFilterDecision& d = t_.decisions[i];
        bool keep = false;
        s = RenderFilter(ctx_, d.render_minor, &keep);
        if (!s.ok()) {
          ForgetParse();
          return s;
        }
        if (keep != d.keep) return Status::Ok();
      }
    }
    *out = true;
    return Status::Ok();
  }

  Status DeriveGpus() {
    const topology::Snapshot& snap = t_.snapshot;
    for (uint32_t u = 0; u < config::kMaxNodes; ++u) t_.gpu_of_node[u] = TopologyState::kNoGpu;
    for (uint32_t u = 0; u < snap.num_nodes(); ++u) {
      const NodeRecord& r = *snap.node(u);
      if (r.Get32(topology::kCpuCoresCount) == 0 && r.Get32(topology::kSimdCount) != 0) {
        t_.dgpu = true;
      }
      if (!r.is_gpu()) continue;
      if (t_.num_gpus >= config::kMaxGpus) {
        FixedText<128> m;
        m.Append("more than ").AppendU64(config::kMaxGpus);
        m.Append(" visible GPU nodes (raise hke::config::kMaxGpus)");
        return ctx_.diag().Error(Exhausted(), kArea, m.c_str());
      }
      GpuNodeInfo& g = t_.gpus[t_.num_gpus];
      g = GpuNodeInfo{};
      g.gpu_id = r.gpu_id;
      g.user_node = u;
      g.render_minor = r.Get32(topology::kDrmRenderMinor);
      t_.gpu_of_node[u] = static_cast<uint16_t>(t_.num_gpus++);
      if (!ctx_.discovery_only()) QueryDrm(r, &g);
    }
    return Status::Ok();
  }

  // DEV_INFO and the marketing name. Failures leave the fields unset, as
  // upstream leaves an empty name when libdrm cannot initialise.
  void QueryDrm(const NodeRecord& r, GpuNodeInfo* g) {
    int fd = -1;
    if (!device::RenderNodeFd(ctx_, g->render_minor, &fd).ok()) return;
    kfd::drm::AmdgpuInfoDevice dev;
    std::memset(&dev, 0, sizeof(dev));
    kfd::drm::AmdgpuInfo req;
    std::memset(&req, 0, sizeof(req));
    req.return_pointer = reinterpret_cast<uintptr_t>(&dev);
    req.return_size = sizeof(dev);
    req.query = kfd::drm::kAmdgpuInfoDevInfo;
    const Status s = ctx_.platform().Ioctl(fd, kfd::drm::kIocAmdgpuInfo, &req);
    if (!s.ok()) {
      (void)ctx_.diag().Report(HKE_DIAG_WARNING, s, kArea,
                               "AMDGPU_INFO(DEV_INFO) failed: no marketing name for this GPU");
      return;
    }
    if (dev.device_id != r.Get32(topology::kDeviceId)) {
      // A reply about another device: publish none of it.
      (void)ctx_.diag().Report(HKE_DIAG_WARNING, Protocol(), kArea,
                               "AMDGPU_INFO(DEV_INFO) describes another device; ignored");
      return;
    }
    g->has_dev_info = true;
    g->pci_rev = dev.pci_rev;
    g->drm_family = dev.family;
    g->integrated = (dev.ids_flags & kfd::drm::kAmdgpuIdsFlagsFusion) != 0;

    const MarketingNameFn fn = MarketingNameOp(ctx_.platform());
    if (fn == nullptr) return;
    // GPUs of one model (device id and revision) share the name: the table
    // is looked up once per pair and Acquire (8 GPUs in CPX mode are 64).
    const uint32_t device_id = r.Get32(topology::kDeviceId);
    for (uint32_t k = 0; k < t_.num_gpus; ++k) {
      const GpuNodeInfo& o = t_.gpus[k];
      if (&o == g || !o.has_marketing_name || o.pci_rev != dev.pci_rev) continue;
      const NodeRecord* on = t_.snapshot.node(o.user_node);
      if (on == nullptr || on->Get32(topology::kDeviceId) != device_id) continue;
      std::memcpy(g->marketing_name, o.marketing_name, sizeof(g->marketing_name));
      g->has_marketing_name = true;
      return;
    }
    char name[HSA_PUBLIC_NAME_SIZE] = {};
    const int rc = fn(ctx_.platform().raw().self, device_id, dev.pci_rev, name, sizeof(name));
    name[sizeof(name) - 1] = '\0';
    if (rc == err::kENOENT) {
      std::memcpy(g->marketing_name, kGenericMarketingName, std::strlen(kGenericMarketingName) + 1);
    } else if (rc == 0) {
      std::memcpy(g->marketing_name, name, sizeof(name));
    } else {
      (void)ctx_.diag().Report(HKE_DIAG_WARNING, Status::Errno(rc), kArea,
                               "the marketing-name table cannot be read");
      return;
    }
    g->has_marketing_name = true;
  }

  // The memory subsystem's VM (ACQUIRE_VM, memory policy, MMIO pages) comes
  // up with the first snapshot of an open epoch; the MMIO_REMAP bank then
  // names each GPU's mapped page. A VM that cannot come up (e.g. another
  // context of this process bound the GPUs: EBUSY) does not fail the
  // topology: it is reported, the banks lack MMIO_REMAP, and memory calls
  // retry the bring-up and return its status.
  void BringUpVm() {
    const Status s = memory::InitVmLocked(ctx_);
    if (!s.ok()) {
      (void)ctx_.diag().Report(HKE_DIAG_WARNING, s, kArea,
                               "the GPU VM could not be set up; memory calls will fail");
      return;
    }
    for (uint32_t k = 0; k < t_.num_gpus; ++k) {
      t_.gpus[k].mmio_base = memory::MmioBase(ctx_, t_.gpus[k].gpu_id);
    }
  }

  Status ReadApertures() {
    if (t_.num_gpus == 0) return Status::Ok();
    uint32_t capacity = t_.snapshot.num_sysfs_nodes();
    if (capacity > config::kMaxGpus) capacity = config::kMaxGpus;
    if (capacity < t_.num_gpus) capacity = t_.num_gpus;
    kfd::GetProcessAperturesNewArgs sent;
    HKE_RETURN_IF_ERROR(kfd::EncodeGetProcessAperturesNew(
        reinterpret_cast<uintptr_t>(&t_.raw_apertures[0]), capacity, &sent));
    std::memset(t_.raw_apertures, 0, sizeof(t_.raw_apertures));
    kfd::GetProcessAperturesNewArgs reply = sent;
    Status s = device::Ioctl(ctx_, &reply);
    if (!s.ok()) {
      FixedText<128> m;
      m.Append("GET_PROCESS_APERTURES_NEW failed: ").Append(StatusName(s));
      return ctx_.diag().Error(s, kArea, m.c_str());
    }
    uint32_t n = 0;
    s = kfd::DecodeGetProcessAperturesNew(sent, reply, t_.raw_apertures, t_.apertures,
                                          config::kMaxGpus, &n);
    if (!s.ok()) {
      return ctx_.diag().Error(s, kArea, "GET_PROCESS_APERTURES_NEW reply is malformed");
    }

    // Upstream's shared SVM range over the visible GPUs with a canonical
    // GPUVM aperture, in reply order.
    uint64_t svm_base = 0, svm_limit = 0;
    bool big_pages = false;
    for (uint32_t i = 0; i < n; ++i) {
      const kfd::NodeApertures& a = t_.apertures[i];
      GpuNodeInfo* g = nullptr;
      for (uint32_t k = 0; k < t_.num_gpus; ++k) {
        if (t_.gpus[k].gpu_id == a.gpu_id) g = &t_.gpus[k];
      }
      if (g == nullptr) continue;  // a GPU hidden from this process
      g->has_apertures = true;
      g->lds = a.lds;
      g->scratch = a.scratch;
      g->gpuvm = a.gpuvm;
      if (a.gpuvm.limit <= kCanonicalLimit) {
        if (a.gpuvm.base > svm_base) svm_base = a.gpuvm.base;
        if (a.gpuvm.limit < svm_limit || svm_limit == 0) svm_limit = a.gpuvm.limit;
        const uint32_t did = t_.snapshot.node(g->user_node)->Get32(topology::kDeviceId);
        // Tonga and Carrizo need 32 KiB GPUVM alignment: upstream then
        // reserves the SVM range instead of sharing the mmap space.
        if ((did >= 0x6920 && did <= 0x6939) || (did >= 0x9870 && did <= 0x9877)) big_pages = true;
      }
    }
    // Every GPU this process sees must have been described.
    for (uint32_t k = 0; k < t_.num_gpus; ++k) {
      if (!t_.gpus[k].has_apertures) {
        FixedText<128> m;
        m.Append("GET_PROCESS_APERTURES_NEW reply is malformed: gpu_id ")
            .AppendU64(t_.gpus[k].gpu_id)
            .Append(" has no apertures");
        return ctx_.diag().Error(Protocol(), kArea, m.c_str());
      }
    }
    if (svm_limit == 0) return Status::Ok();
    uint64_t base = 0;
    if (!CheckedAlignUp(svm_base, kHugePage, &base)) return Status::Ok();
    uint64_t limit = ((svm_limit + 1) & ~(kHugePage - 1)) - 1;
    if (limit < kCanonicalLimit || big_pages) {
      // Upstream reserves address space here and reports wherever the
      // reservation landed; the range it may use is reported instead.
      if (limit > kReservedSvmLimit) limit = kReservedSvmLimit;
    }
    if (base == 0 || base >= limit) return Status::Ok();
    t_.svm_base = base;
    t_.svm_limit = limit;
    t_.svm_valid = true;
    return Status::Ok();
  }

  Context& ctx_;
  TopologyState& t_;
  bool gfx_override_failed_ = false;
};

// The open check of `ctx`; KERNEL_IO_CHANNEL_NOT_OPENED when there is no
// context.
HSAKMT_STATUS OpenCheck(Context* ctx) {
  if (ctx == nullptr) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  const Status s = device::CheckOpen(*ctx);
  if (!s.ok()) return ToHsakmt(s);
  return HSAKMT_STATUS_SUCCESS;
}

// The node check of every getter (topology lock held): a current snapshot
// and a node id inside it.
HSAKMT_STATUS NodeCheck(const Topology& topo, Context& ctx, uint32_t node) {
  if (!topo.Current()) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  if (node >= ctx.topology().snapshot.num_nodes()) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  return HSAKMT_STATUS_SUCCESS;
}

// The shared start of every node getter: a non-null output, an open
// device, the topology lock of `ctx`, a current snapshot and a node inside
// it; then `fill(topology, context)` runs with the lock held.
template <typename Fill>
HSAKMT_STATUS WithNode(Context* ctx, const void* output, uint32_t node, Fill fill) {
  if (output == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  HSAKMT_STATUS r = OpenCheck(ctx);
  if (r != HSAKMT_STATUS_SUCCESS) return r;
  LockGuard g(ctx->topology_lock());
  Topology topo(*ctx);
  r = NodeCheck(topo, *ctx, node);
  if (r != HSAKMT_STATUS_SUCCESS) return r;
  return fill(topo, *ctx);
}

// The bodies: `ctx` is the context the call runs on, nullptr when there is
// none.

HSAKMT_STATUS AcquireSystemProperties(Context* ctx, HsaSystemProperties* SystemProperties) {
  HSAKMT_STATUS r = OpenCheck(ctx);
  if (r != HSAKMT_STATUS_SUCCESS) return r;
  if (SystemProperties == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  LockGuard g(ctx->topology_lock());
  Topology topo(*ctx);
  if (!topo.Current()) {
    const Status s = topo.Take();
    // A malformed override is upstream's HSAKMT_STATUS_ERROR.
    if (!s.ok() && topo.gfx_override_failed()) return HSAKMT_STATUS_ERROR;
    if (!s.ok()) return ToHsakmt(s);
  }
  return ToHsakmt(ctx->topology().snapshot.FillSystemProperties(SystemProperties));
}

HSAKMT_STATUS ReleaseSystemProperties(Context* ctx) {
  if (ctx == nullptr) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  const Status s = device::CheckOpen(*ctx);
  // A forked child releases the snapshot it inherited with SUCCESS, as
  // upstream does: dropping it is local, nothing reaches the kernel.
  if (!s.ok() && !s.is_api(HKE_STATUS_FORKED_CHILD)) return ToHsakmt(s);
  LockGuard g(ctx->topology_lock());
  Topology(*ctx).Drop();
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS GetNodeProperties(Context* ctx, HSAuint32 NodeId,
                                HsaNodeProperties* NodeProperties) {
  return WithNode(ctx, NodeProperties, NodeId, [&](Topology& topo, Context&) {
    return ToHsakmt(topo.NodeProperties(NodeId, NodeProperties));
  });
}

HSAKMT_STATUS GetNodeMemoryProperties(Context* ctx, HSAuint32 NodeId, HSAuint32 NumBanks,
                                      HsaMemoryProperties* MemoryProperties) {
  return WithNode(ctx, MemoryProperties, NodeId, [&](Topology& topo, Context& c) {
    HsaNodeProperties props;
    Status s = topo.NodeProperties(NodeId, &props);
    if (!s.ok()) return ToHsakmt(s);
    if (NumBanks > props.NumMemoryBanks) return HSAKMT_STATUS_INVALID_PARAMETER;
    uint32_t filled = 0;
    s = c.topology().snapshot.FillMemoryProperties(NodeId, NumBanks, MemoryProperties, &filled);
    if (!s.ok()) return ToHsakmt(s);
    (void)topo.SyntheticBanks(NodeId, props, MemoryProperties + filled, NumBanks - filled);
    return HSAKMT_STATUS_SUCCESS;
  });
}

HSAKMT_STATUS GetNodeCacheProperties(Context* ctx, HSAuint32 NodeId, HSAuint32 /*ProcessorId*/,
                                     HSAuint32 NumCaches, HsaCacheProperties* CacheProperties) {
  return WithNode(ctx, CacheProperties, NodeId, [&](Topology&, Context& c) {
    return ToHsakmt(c.topology().snapshot.FillCacheProperties(NodeId, NumCaches, CacheProperties));
  });
}

HSAKMT_STATUS GetNodeIoLinkProperties(Context* ctx, HSAuint32 NodeId, HSAuint32 NumIoLinks,
                                      HsaIoLinkProperties* IoLinkProperties) {
  return WithNode(ctx, IoLinkProperties, NodeId, [&](Topology&, Context& c) {
    return ToHsakmt(
        c.topology().snapshot.FillIoLinkProperties(NodeId, NumIoLinks, IoLinkProperties));
  });
}

}  // namespace
}  // namespace hke::api

using hke::api::Default;
using hke::api::OnCtx;
using hke::api::OnDefault;

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemProperties(HsaSystemProperties* SystemProperties) {
  return OnDefault(hke::api::AcquireSystemProperties, SystemProperties);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemPropertiesCtx(HsaKFDContext* ctx,
                                                         HsaSystemProperties* SystemProperties) {
  return OnCtx(ctx, hke::api::AcquireSystemProperties, SystemProperties);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemProperties(void) {
  return OnDefault(hke::api::ReleaseSystemProperties);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemPropertiesCtx(HsaKFDContext* ctx) {
  return OnCtx(ctx, hke::api::ReleaseSystemProperties);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeProperties(HSAuint32 NodeId,
                                                HsaNodeProperties* NodeProperties) {
  return OnDefault(hke::api::GetNodeProperties, NodeId, NodeProperties);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodePropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                   HsaNodeProperties* NodeProperties) {
  return OnCtx(ctx, hke::api::GetNodeProperties, NodeId, NodeProperties);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryProperties(HSAuint32 NodeId, HSAuint32 NumBanks,
                                                      HsaMemoryProperties* MemoryProperties) {
  return OnDefault(hke::api::GetNodeMemoryProperties, NodeId, NumBanks, MemoryProperties);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryPropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                         HSAuint32 NumBanks,
                                                         HsaMemoryProperties* MemoryProperties) {
  return OnCtx(ctx, hke::api::GetNodeMemoryProperties, NodeId, NumBanks, MemoryProperties);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCacheProperties(HSAuint32 NodeId, HSAuint32 ProcessorId,
                                                     HSAuint32 NumCaches,
                                                     HsaCacheProperties* CacheProperties) {
  return OnDefault(hke::api::GetNodeCacheProperties, NodeId, ProcessorId, NumCaches,
                                          CacheProperties);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCachePropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                        HSAuint32 ProcessorId, HSAuint32 NumCaches,
                                                        HsaCacheProperties* CacheProperties) {
  return OnCtx(ctx, hke::api::GetNodeCacheProperties, NodeId, ProcessorId, NumCaches,
               CacheProperties);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkProperties(HSAuint32 NodeId, HSAuint32 NumIoLinks,
                                                      HsaIoLinkProperties* IoLinkProperties) {
  return OnDefault(hke::api::GetNodeIoLinkProperties, NodeId, NumIoLinks, IoLinkProperties);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkPropertiesCtx(HsaKFDContext* ctx, HSAuint32 NodeId,
                                                         HSAuint32 NumIoLinks,
                                                         HsaIoLinkProperties* IoLinkProperties) {
  return OnCtx(ctx, hke::api::GetNodeIoLinkProperties, NodeId, NumIoLinks, IoLinkProperties);
}

}  // extern "C"

namespace hke::api {

Status EnsureTopologyAndVm(Context& ctx) {
  LockGuard g(ctx.topology_lock());
  Topology topo(ctx);
  if (!topo.Current()) return topo.Take();
  return memory::InitVmLocked(ctx);
}

}  // namespace hke::api
