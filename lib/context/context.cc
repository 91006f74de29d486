#include "lib/context/context.h"

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <new>

#include "lib/core/config.h"
#include "lib/core/text.h"

namespace hke {

namespace {
constexpr const char* kDefaultTopologyRoot = "/sys/devices/virtual/kfd/kfd/topology";
}

Context::Context(const hke_config& config, const Platform& platform)
    : magic_(kMagic), config_(config), platform_(platform), diag_(config.diag, config.diag_user) {
  gfx_overrides_.Assign(config.gfx_overrides, config.gfx_override_count);
  config_.gfx_overrides = nullptr;  // the caller's array need not outlive init
  config_.gfx_override_count = 0;
  memory_.Construct();
  for (Mutex* m : {&lock_, &topology_lock_, &memory_lock_, &events_setup_lock_, &events_lock_,
                   &queues_lock_, &debug_lock_, &profile_lock_, &pmc_lock_}) {
    m->Init(platform.raw());
  }
}

void Context::Invalidate() {
  magic_ = 0;
  for (Mutex* m : {&lock_, &topology_lock_, &memory_lock_, &events_setup_lock_, &events_lock_,
                   &queues_lock_, &debug_lock_, &profile_lock_, &pmc_lock_}) {
    m->Destroy();
  }
}

ExclusiveGate::ExclusiveGate(Context& ctx) : ctx_(ctx) {
  // The process id only tells a fork child's stale holds apart (open_gate.h);
  // without one the gate is taken as it is.
  int32_t pid = 0;
  if (!ctx.platform().ProcessId(&pid).ok()) pid = 0;
  ctx.open_gate().EnterExclusive(pid);
}

const char* Context::topology_root() const {
  return config_.topology_root != nullptr ? config_.topology_root : kDefaultTopologyRoot;
}

Status NormalizeConfig(const hke_config* config, hke_config* out) {
  if (config == nullptr || out == nullptr) return InvalidArgument();
  // The first layout of hke_config ended with `flags`; fields appended since
  // are zero (their defaults) for a caller compiled against an older header.
  constexpr size_t kFirstLayoutSize = offsetof(hke_config, flags) + sizeof(uint32_t);
  if (config->struct_size < kFirstLayoutSize) {
    // Only the diag fields of the first layout may be trusted here.
    Diag diag(config->diag, config->diag_user);
    return diag.Error(InvalidArgument(), "context",
                      "hke_config.struct_size is smaller than any hke_config layout");
  }
  hke_config c;
  std::memset(&c, 0, sizeof(c));
  const size_t n = config->struct_size < sizeof(c) ? config->struct_size : sizeof(c);
  std::memcpy(&c, config, n);
  c.struct_size = sizeof(c);
  HKE_RETURN_IF_ERROR(ValidateConfig(&c));
  *out = c;
  return Status::Ok();
}

Status ValidateConfig(const hke_config* config) {
  if (config == nullptr) return InvalidArgument();
  Diag diag(config->diag, config->diag_user);
  if (config->struct_size != sizeof(hke_config)) {
    return diag.Error(InvalidArgument(), "context",
                      "hke_config.struct_size is not this library's (use NormalizeConfig)");
  }
  constexpr uint32_t kKnownFlags = HKE_CONFIG_DISCOVERY_ONLY | HKE_CONFIG_REPARSE_TOPOLOGY |
                                   HKE_CONFIG_RESERVE_SVM | HKE_CONFIG_LEGACY_USERPTR |
                                   HKE_CONFIG_SECONDARY_PROCESS;
  if ((config->flags & ~kKnownFlags) != 0) {
    return diag.Error(InvalidArgument(), "context", "hke_config.flags has unknown bits");
  }
  if ((config->flags & HKE_CONFIG_SECONDARY_PROCESS) != 0 &&
      (config->flags & HKE_CONFIG_DISCOVERY_ONLY) != 0) {
    return diag.Error(InvalidArgument(), "context",
                      "a secondary context is a kfd_process: it cannot be discovery-only");
  }
  if (!Platform::Valid(config->platform)) {
    return diag.Error(InvalidArgument(), "context",
                      "platform table lacks open/close/ioctl/read_file or has another ABI version");
  }
  return topology::GfxOverrideTable::Validate(config->gfx_overrides, config->gfx_override_count,
                                              diag);
}

Status RequirePrimary(Context& ctx, const char* area, const char* what) {
  if (!ctx.secondary()) return Status::Ok();
  FixedText<160> m;
  m.Append(what).Append(" is served to the primary KFD context only (this is a secondary one)");
  return ctx.diag().Error(Unsupported(), area, m.c_str());
}

}  // namespace hke

extern "C" {

const char* hke_build_configuration(void) { return hke::config::kName; }

void hke_build_capacities(hke_capacities* out) {
  if (out == nullptr) return;
  hke_capacities c;
  c.max_nodes = hke::config::kMaxNodes;
  c.max_gpus = hke::config::kMaxGpus;
  c.max_mem_banks_per_node = hke::config::kMaxMemBanksPerNode;
  c.max_caches_per_node = hke::config::kMaxCachesPerNode;
  c.max_links_per_node = hke::config::kMaxLinksPerNode;
  c.max_events = hke::config::kMaxEvents;
  c.max_queues = hke::config::kMaxQueues;
  c.max_va_objects = hke::config::kMaxVaObjects;
  c.max_mem_banks_total = hke::config::kMaxMemBanksTotal;
  c.max_caches_total = hke::config::kMaxCachesTotal;
  c.max_links_total = hke::config::kMaxLinksTotal;
  c.max_secondary_contexts = hke::config::kMaxSecondaryContexts;
  *out = c;
}

size_t hke_context_storage_size(void) { return sizeof(hke_context); }
size_t hke_context_storage_align(void) { return alignof(hke_context); }

hke_status_t hke_context_init(void* storage, size_t storage_size, const hke_config* config,
                              hke_context** out_context) {
  if (storage == nullptr || out_context == nullptr) return hke::InvalidArgument().raw();
  hke_config normalized;
  hke::Status s = hke::NormalizeConfig(config, &normalized);
  if (!s.ok()) return s.raw();
  config = &normalized;
  hke::Diag diag(config->diag, config->diag_user);
  if (storage_size < sizeof(hke_context)) {
    return diag.Error(hke::BufferTooSmall(), "context",
                      "context storage is smaller than hke_context_storage_size()")
        .raw();
  }
  if (reinterpret_cast<uintptr_t>(storage) % alignof(hke_context) != 0) {
    return diag.Error(hke::InvalidArgument(), "context",
                      "context storage is not aligned to hke_context_storage_align()")
        .raw();
  }
  hke::Platform platform(config->platform, config->max_ioctl_retries);
  hke_context* ctx = new (storage) hke_context{hke::Context(*config, platform)};
  *out_context = ctx;
  return HKE_OK;
}

}  // extern "C"
