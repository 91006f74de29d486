// The default context behind the hsaKmt* API, and context teardown.
//
// The default context lives in static storage (.bss) and is initialised on
// first use, with the configuration given to hke_default_context_configure()
// or, failing that, with hke_default_platform() (the Linux table in
// libhsakmt.a unless a board port provides its own) and the GFX version
// overrides of hke_default_gfx_overrides() (libhsakmt.a's reads upstream's
// HSA_OVERRIDE_GFX_VERSION variables once, here; the core never calls
// getenv).
#include <atomic>
#include <cstddef>

#include "hsakmt/hsakmt_embedded.h"
#include "lib/context/context.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events.h"
#include "lib/memory/memory.h"
#include "lib/pmc/pmc.h"
#include "lib/queues/queues.h"

namespace {

alignas(hke_context) unsigned char g_storage[sizeof(hke_context)];
hke_context* g_default = nullptr;

// 0: not initialised, 1: being initialised by some thread, 2: ready.
std::atomic<int> g_state{0};

// The environment's overrides, filled by the one thread that initialises
// the default context (g_state == 1); the context copies them.
hke_gfx_override g_default_overrides[hke::topology::GfxOverrideTable::kMaxEntries];

// Configuration recorded by hke_default_context_configure() before first use.
hke_config g_pending{};
bool g_has_pending = false;

hke_status_t InitDefault(const hke_config& config) {
  hke_context* ctx = nullptr;
  hke_status_t s = hke_context_init(g_storage, sizeof(g_storage), &config, &ctx);
  if (s == HKE_OK) {
    ctx->impl.set_trace_tag(0);  // the default context's PMC trace ids (lib/pmc)
    g_default = ctx;
  }
  return s;
}

}  // namespace

extern "C" {

void hke_context_deinit(hke_context* context) {
  if (context == nullptr || !context->impl.valid()) return;
  hke::ExclusiveGate gate(context->impl);
  // Release memory objects through the device while it still works (not
  // in a forked child: there the kernel refuses the inherited descriptor).
  if (hke::device::CheckOpen(context->impl).ok()) {
    hke::queues::Teardown(context->impl);
    hke::events::Teardown(context->impl);
    (void)hke::memory::Teardown(context->impl);  // best effort: the context goes away
  }
  hke::pmc::Teardown(context->impl);  // perf descriptors are the process's, fork or not
  hke::queues::Forget(context->impl);
  hke::events::Forget(context->impl);
  hke::memory::Forget(context->impl);
  hke::device::ForceClose(context->impl);
  context->impl.Invalidate();
}

hke_context* hke_default_context(void) {
  int state = g_state.load(std::memory_order_acquire);
  if (state == 2) return g_default;
  int expected = 0;
  if (g_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    hke_config config{};
    if (g_has_pending) {
      config = g_pending;
    } else {
      config.struct_size = sizeof(config);
      config.platform = hke_default_platform();
      uint32_t count = 0;
      const uint32_t capacity = hke::topology::GfxOverrideTable::kMaxEntries;
      if (hke_default_gfx_overrides(g_default_overrides, capacity, &count) != HKE_OK ||
          count > capacity) {
        g_state.store(0, std::memory_order_release);
        return nullptr;
      }
      config.gfx_overrides = g_default_overrides;
      config.gfx_override_count = count;
      config.flags = hke_default_config_flags() &
                     (HKE_CONFIG_LEGACY_USERPTR | HKE_CONFIG_RESERVE_SVM);
    }
    if (InitDefault(config) != HKE_OK) {
      g_default = nullptr;
      g_state.store(0, std::memory_order_release);
      return nullptr;
    }
    g_state.store(2, std::memory_order_release);
    return g_default;
  }
  while (g_state.load(std::memory_order_acquire) == 1) {
  }
  return g_state.load(std::memory_order_acquire) == 2 ? g_default : nullptr;
}

hke_status_t hke_default_context_configure(const hke_config* caller_config) {
  hke_config normalized;
  hke::Status s = hke::NormalizeConfig(caller_config, &normalized);
  if (!s.ok()) return s.raw();
  if ((normalized.flags & HKE_CONFIG_SECONDARY_PROCESS) != 0) {
    // The default context is the process's primary KFD context.
    return hke::Diag(normalized.diag, normalized.diag_user)
        .Error(hke::InvalidArgument(), "context",
               "the default context cannot be a secondary one (HKE_CONFIG_SECONDARY_PROCESS)")
        .raw();
  }
  const hke_config* config = &normalized;
  int expected = 0;
  if (g_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    // Not yet initialised: remember the configuration and initialise now so
    // the caller sees errors immediately.
    g_pending = *config;
    g_has_pending = true;
    hke_status_t r = InitDefault(*config);
    g_state.store(r == HKE_OK ? 2 : 0, std::memory_order_release);
    return r;
  }
  while (g_state.load(std::memory_order_acquire) == 1) {
  }
  if (g_state.load(std::memory_order_acquire) != 2) return hke::FailedPrecondition().raw();
  hke_context* ctx = g_default;
  if (hke::device::Referenced(ctx->impl)) {
    return ctx->impl.diag()
        .Error(hke::FailedPrecondition(), "context",
               "the default context cannot be reconfigured while it is open")
        .raw();
  }
  // Closed: re-create it in place with the new configuration.
  hke_context_deinit(ctx);
  g_pending = *config;
  g_has_pending = true;
  return InitDefault(*config);
}

}  // extern "C"
