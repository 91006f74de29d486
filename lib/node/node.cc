// Per-node driver calls; see node.h.
#include "lib/node/node.h"

#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/device/round_trip.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/encode.h"
#include "lib/memory/memory.h"
#include "lib/topology/acquire.h"
#include "lib/topology/keys.h"

namespace hke::node {

namespace {

constexpr const char* kArea = "node";
constexpr uint32_t kGfxKaveri = 70000;

Status KernelFailure(Context& ctx, const char* what, Status s) {
  return ctx.diag().Failed(s, kArea, what);
}

Status NotAGpu(Context& ctx, const char* call, uint32_t node) {
  FixedText<128> t;
  t.Append(call).Append(": node ").AppendU64(node).Append(" is a CPU node");
  return ctx.diag().Error(InvalidNode(), kArea, t.c_str());
}

uint64_t PageSize(Context& ctx) {
  size_t ps = 0;
  if (ctx.platform().PageSize(&ps).ok() && kfd::ValidPageSize(ps)) return ps;
  return kfd::kDefaultPageSize;
}

}  // namespace

Status Resolve(Context& ctx, uint32_t node, NodeTarget* out) {
  if (out == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  HKE_RETURN_IF_ERROR(memory::EnsureTopologyAndVm(ctx));
  NodeTarget n{};
  {
    const topology::Reader topo(ctx);
    if (!topo->acquired()) return FailedPrecondition();
    const topology::NodeRecord* r = topo->Node(node);
    if (r != nullptr && r->is_gpu()) {
      const topology::GpuNodeInfo* g = topo->Gpu(node);
      if (g == nullptr) {
        r = nullptr;  // a GPU the render-node filter hid
      } else {
        n.gpu_id = g->gpu_id;
        n.render_minor = g->render_minor;
        n.gfx_version = r->Get32(topology::kGfxTargetVersion);
        n.device_id = r->Get32(topology::kDeviceId);
      }
    }
    if (r == nullptr) {
      FixedText<96> m;
      m.Append("node ").AppendU64(node).Append(" is not in the topology");
      return ctx.diag().Error(InvalidNode(), kArea, m.c_str());
    }
  }
  *out = n;
  return Status::Ok();
}

Status GetClockCounters(Context& ctx, uint32_t node, HsaClockCounters* out) {
  if (out == nullptr) return InvalidArgument();
  NodeTarget n{};
  HKE_RETURN_IF_ERROR(Resolve(ctx, node, &n));
  const uint32_t samples = n.gpu_id != 0 ? kClockSamples : 1;
  kfd::ClockSample best{};
  uint64_t best_elapsed = UINT64_MAX;
  bool have = false;
  for (uint32_t i = 0; i < samples; ++i) {
    kfd::GetClockCountersArgs a{};
    HKE_RETURN_IF_ERROR(kfd::EncodeGetClockCounters(n.gpu_id, &a));
    uint64_t before = 0;
    uint64_t after = 0;
    const bool timed = ctx.platform().ClockNs(HKE_CLOCK_MONOTONIC_RAW, &before).ok();
    kfd::ClockSample sample{};
    HKE_RETURN_IF_ERROR(
        device::RoundTrip(ctx, kArea, "GET_CLOCK_COUNTERS", &a, kfd::DecodeGetClockCounters,
                          "GET_CLOCK_COUNTERS reply changed gpu_id, has no frequency or "
                          "gave a CPU node a GPU counter",
                          &sample));
    const bool timed_after = timed && ctx.platform().ClockNs(HKE_CLOCK_MONOTONIC_RAW, &after).ok();
    const uint64_t elapsed = timed_after && after >= before ? after - before : UINT64_MAX;
    if (!have || elapsed < best_elapsed) {
      best = sample;
      best_elapsed = elapsed;
      have = true;
    }
    if (!timed_after) break;  // no clock: one sample is all that can be judged
  }
  // GPU, CPU and system counters, then the system clock's frequency.
  *out = HsaClockCounters{best.gpu, best.cpu, best.system, best.frequency};
  return Status::Ok();
}

Status GetTileConfig(Context& ctx, uint32_t node, HsaGpuTileConfig* config) {
  if (config == nullptr) return InvalidArgument();
  const HsaGpuTileConfig in = *config;
  if ((in.NumTileConfigs != 0 && in.TileConfig == nullptr) ||
      (in.NumMacroTileConfigs != 0 && in.MacroTileConfig == nullptr)) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "GetTileConfig: a nonzero count names a NULL array");
  }
  NodeTarget n{};
  HKE_RETURN_IF_ERROR(Resolve(ctx, node, &n));
  if (n.gpu_id == 0) return NotAGpu(ctx, "GetTileConfig", node);
  kfd::TileConfigRequest req{};
  req.gpu_id = n.gpu_id;
  req.tile_capacity = in.NumTileConfigs;
  req.tile_config = in.NumTileConfigs != 0 ? reinterpret_cast<uintptr_t>(in.TileConfig) : 0;
  req.macro_capacity = in.NumMacroTileConfigs;
  req.macro_tile_config =
      in.NumMacroTileConfigs != 0 ? reinterpret_cast<uintptr_t>(in.MacroTileConfig) : 0;
  kfd::GetTileConfigArgs a{};
  const Status e = kfd::EncodeGetTileConfig(req, &a);
  if (!e.ok()) {
    return ctx.diag().Error(e, kArea,
                            "GetTileConfig: the counts are above 4096 or the arrays wrap the "
                            "address space");
  }
  kfd::TileConfigResult r{};
  HKE_RETURN_IF_ERROR(
      device::RoundTrip(ctx, kArea, "GET_TILE_CONFIG", &a, kfd::DecodeGetTileConfig,
                        "GET_TILE_CONFIG reported more entries than the arrays hold or "
                        "changed its pointers",
                        &r));
  // Success: the counts and the GPU's facts; the arrays were filled in place.
  config->NumTileConfigs = r.num_tile_configs;
  config->NumMacroTileConfigs = r.num_macro_tile_configs;
  config->GbAddrConfig = r.gb_addr_config;
  config->NumBanks = r.num_banks;
  config->NumRanks = r.num_ranks;
  return Status::Ok();
}

Status SetTrapHandler(Context& ctx, uint32_t node, uint64_t tba, uint64_t tma) {
  NodeTarget n{};
  HKE_RETURN_IF_ERROR(Resolve(ctx, node, &n));
  if (n.gpu_id == 0) return NotAGpu(ctx, "SetTrapHandler", node);
  kfd::SetTrapHandlerArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodeSetTrapHandler(n.gpu_id, tba, tma, &a));
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return KernelFailure(ctx, "SET_TRAP_HANDLER", s);
  return Status::Ok();
}

Status SetMemoryPolicy(Context& ctx, uint32_t node, uint32_t default_policy,
                       uint32_t alternate_policy, uint64_t alternate_base,
                       uint64_t alternate_size) {
  NodeTarget n{};
  HKE_RETURN_IF_ERROR(Resolve(ctx, node, &n));
  if (n.gpu_id == 0 || n.gfx_version != kGfxKaveri) {
    return ctx.diag().Error(NotImplemented(), kArea,
                            "SetMemoryPolicy applies to Kaveri (gfx700) nodes only; later GPUs "
                            "get their alternate aperture from the library");
  }
  // HSA_CACHING_CACHED maps to the kernel's COHERENT, NONCACHED to
  // NONCOHERENT; anything else is refused by the encoder.
  const auto to_kfd = [](uint32_t p) -> uint32_t {
    if (p == HSA_CACHING_CACHED) return kfd::kCachePolicyCoherent;
    if (p == HSA_CACHING_NONCACHED) return kfd::kCachePolicyNonCoherent;
    return 0xffffffffu;
  };
  kfd::MemoryPolicyRequest req{};
  req.gpu_id = n.gpu_id;
  req.default_policy = to_kfd(default_policy);
  req.alternate_policy = to_kfd(alternate_policy);
  req.alternate_base = alternate_base;
  req.alternate_size = alternate_size;
  req.page_size = PageSize(ctx);
  kfd::SetMemoryPolicyArgs a{};
  const Status e = kfd::EncodeSetMemoryPolicy(req, &a);
  if (!e.ok()) {
    return ctx.diag().Error(e, kArea,
                            "SetMemoryPolicy: policies must be CACHED or NONCACHED and the "
                            "alternate range page aligned");
  }
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return KernelFailure(ctx, "SET_MEMORY_POLICY", s);
  return Status::Ok();
}

Status GetAmdgpuDeviceHandle(Context& ctx, uint32_t node, void** out_handle) {
  if (out_handle == nullptr) return InvalidArgument();
  NodeTarget n{};
  HKE_RETURN_IF_ERROR(Resolve(ctx, node, &n));
  if (n.gpu_id == 0) return NotAGpu(ctx, "GetAMDGPUDeviceHandle", node);
  void* h = nullptr;
  const Status s = device::AmdgpuDevice(ctx, n.render_minor, &h);
  if (s.is_api(HKE_STATUS_UNSUPPORTED)) {
    return ctx.diag().Error(s, kArea,
                            "GetAMDGPUDeviceHandle: the platform has no libdrm devices (built "
                            "without libdrm, or a simulator)");
  }
  if (!s.ok()) {
    FixedText<128> t;
    t.Append("GetAMDGPUDeviceHandle: no libdrm device for renderD")
        .AppendU64(n.render_minor)
        .Append(": ")
        .Append(StatusName(s));
    return ctx.diag().Error(s, kArea, t.c_str());
  }
  *out_handle = h;
  return Status::Ok();
}

}  // namespace hke::node
