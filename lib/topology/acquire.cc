// Acquisition of a context's topology; see acquire.h.
#include "lib/topology/acquire.h"

#include <cstddef>
#include <cstring>

#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/drm_abi.h"
#include "lib/kfd/encode.h"
#include "lib/topology/gfx.h"
#include "lib/topology/keys.h"

namespace hke::topology {
namespace {


constexpr const char* kArea = "topology";
constexpr const char* kGenericMarketingName = "AMD Radeon Graphics";  // libdrm's fallback
constexpr uint64_t kHugePage = 2ull << 20;                  // SVM alignment
constexpr uint64_t kCanonicalLimit = (1ull << 47) - 1;      // x86-64 user space
constexpr uint64_t kReservedSvmLimit = (1ull << 40) - 1;    // upstream's reserved SVM cap
constexpr uint32_t kGfx9 = 0x090000;
constexpr uint32_t kKaveri = 0x070000;


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

}  // namespace

Status Acquisition::Take() {
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
  if (!s.ok()) {
    Drop();
    return s;
  }
  t_.epoch = device::OpenEpoch(ctx_);
  t_.acquired = true;
  return Status::Ok();
}

void Acquisition::Drop() {
  if (!ReuseAllowed()) ForgetParse();
  t_.acquired = false;
  t_.num_gpus = 0;
  t_.dgpu = false;
  t_.svm_valid = false;
  t_.svm_base = t_.svm_limit = 0;
}

bool Acquisition::Svm(uint64_t* out_base, uint64_t* out_limit) const {
  *out_base = t_.svm_valid ? t_.svm_base : 0;
  *out_limit = t_.svm_valid ? t_.svm_limit : 0;
  return t_.svm_valid;
}

const GpuNodeInfo* Acquisition::Gpu(uint32_t node) const {
  if (node >= config::kMaxNodes || t_.gpu_of_node[node] == TopologyState::kNoGpu) return nullptr;
  return &t_.gpus[t_.gpu_of_node[node]];
}

uint32_t Acquisition::SyntheticBanks(uint32_t node, const HsaNodeProperties& props,
                                     HsaMemoryProperties* out, uint32_t capacity) const {
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

Status Acquisition::NodeProperties(uint32_t node, HsaNodeProperties* out) const {
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

void Acquisition::ForgetParse() {
  t_.parse_reusable = false;
  t_.num_decisions = 0;
  t_.decisions_overflow = false;
  t_.snapshot.Reset();
}

Status Acquisition::Parse() {
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

Status Acquisition::CheckReuse(bool* out) {
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

Status Acquisition::DeriveGpus() {
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

void Acquisition::QueryDrm(const NodeRecord& r, GpuNodeInfo* g) {
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

Status Acquisition::ReadApertures() {
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
  if (!s.ok()) return ctx_.diag().Failed(s, kArea, "GET_PROCESS_APERTURES_NEW");
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

}  // namespace hke::topology
