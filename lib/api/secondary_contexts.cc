// hsaKmtOpenSecondaryKFDCtx / hsaKmtCloseSecondaryKFDCtx: secondary KFD
// contexts in fixed slots.
//
// Each slot is storage for one whole hke_context (config::
// kMaxSecondaryContexts of them, in .bss, touched lazily like the default
// context's). This file is an archive member of its own, so a static link
// that never calls these two functions carries no slot.
//
// A secondary context is configured as the default context is (platform,
// diagnostics, flags, GFX version overrides) plus HKE_CONFIG_SECONDARY_
// PROCESS, and opened once: its /dev/kfd descriptor becomes a kfd_process
// of its own (lib/device/kfd_device.cc). Closing it releases everything it
// holds and frees the slot.
//
// Threading: a slot changes hands with an atomic state (free -> busy ->
// open -> busy -> free), so concurrent opens never share a slot and a
// context is closed once. Calls still running on a context while another
// thread closes it are the caller's error (as with any freed object).
#include <atomic>
#include <cstdint>

#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/lifecycle.h"
#include "lib/core/config.h"
#include "lib/core/errno.h"
#include "lib/device/kfd_device.h"

namespace {

enum : int { kFree = 0, kBusy = 1, kOpen = 2 };

struct Slot {
  alignas(hke_context) unsigned char storage[sizeof(hke_context)];
  std::atomic<int> state{kFree};
};

Slot g_slots[hke::config::kMaxSecondaryContexts];

constexpr const char* kArea = "context";

// Status of a failed open, as upstream's secondary open reports it: a
// kernel without CREATE_PROCESS (too old, or refusing it with EINVAL or
// ENOTTY: UNSUPPORTED from lib/device) is NOT_SUPPORTED; a descriptor that
// cannot be opened is KERNEL_IO_CHANNEL_NOT_OPENED; the rest maps as usual.
HSAKMT_STATUS OpenFailure(hke::Status s) {
  if (s.is_api(HKE_STATUS_UNSUPPORTED)) return HSAKMT_STATUS_NOT_SUPPORTED;
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  return hke::api::ToHsakmt(s);
}

// Opens a secondary context in the claimed (kBusy) slot; on failure the
// slot holds nothing that needs cleaning up.
HSAKMT_STATUS OpenInSlot(Slot& slot, hke::Context& primary, hke_context** out) {
  hke_config config = primary.config();
  // A secondary context is a kfd_process of its own: it needs /dev/kfd even
  // when the default context only inspects the topology.
  config.flags = (config.flags | HKE_CONFIG_SECONDARY_PROCESS) & ~HKE_CONFIG_DISCOVERY_ONLY;
  hke_context* c = nullptr;
  const hke_status_t init = hke_context_init(slot.storage, sizeof(slot.storage), &config, &c);
  if (init != HKE_OK) return hke::api::ToHsakmt(hke::Status(init));
  c->impl.InheritGfxOverrides(primary);
  c->impl.set_trace_tag(static_cast<uint8_t>(1 + (&slot - g_slots)));
  bool already = false;
  const hke::Status s = hke::api::OpenReference(c->impl, &already);
  if (!s.ok()) {
    hke_context_deinit(c);
    return OpenFailure(s);
  }
  *out = c;
  return HSAKMT_STATUS_SUCCESS;
}

// The open slot of PMC trace tag `tag` (lib/api/lifecycle.h).
hke::Context* SlotOfTag(uint32_t tag) {
  if (tag == 0 || tag > hke::config::kMaxSecondaryContexts) return nullptr;
  Slot& slot = g_slots[tag - 1];
  if (slot.state.load(std::memory_order_acquire) != kOpen) return nullptr;
  return &reinterpret_cast<hke_context*>(slot.storage)->impl;
}

}  // namespace

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenSecondaryKFDCtx(HsaKFDContext** pCtx) {
  if (pCtx == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* primary = hke::api::Default();
  if (primary == nullptr) return HSAKMT_STATUS_ERROR;
  hke::api::InstallSecondaryOfTag(&SlotOfTag);
  for (Slot& slot : g_slots) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kBusy, std::memory_order_acq_rel)) continue;
    hke_context* c = nullptr;
    const HSAKMT_STATUS r = OpenInSlot(slot, *primary, &c);
    if (r != HSAKMT_STATUS_SUCCESS) {
      slot.state.store(kFree, std::memory_order_release);
      return r;
    }
    slot.state.store(kOpen, std::memory_order_release);
    *pCtx = hke_context_kfd_ctx(c);
    return HSAKMT_STATUS_SUCCESS;
  }
  (void)primary->diag().Error(hke::Exhausted(), kArea,
                              "every secondary-context slot is open "
                              "(hke_capacities.max_secondary_contexts)");
  return HSAKMT_STATUS_OUT_OF_RESOURCES;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCloseSecondaryKFDCtx(HsaKFDContext* ctx) {
  if (ctx == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  for (Slot& slot : g_slots) {
    // A slot's handle is its storage, whose address never changes (so a
    // handle kept after its context closed names whatever the slot holds
    // next: as with any freed object, do not use it).
    if (reinterpret_cast<HsaKFDContext*>(slot.storage) != ctx ||
        slot.state.load(std::memory_order_acquire) != kOpen) {
      continue;
    }
    int expected = kOpen;
    if (!slot.state.compare_exchange_strong(expected, kBusy, std::memory_order_acq_rel)) {
      return HSAKMT_STATUS_INVALID_PARAMETER;  // another thread is closing it
    }
    hke_context* const held = reinterpret_cast<hke_context*>(slot.storage);
    hke::Context& c = held->impl;
    // Every reference (hke_context_open may have added some): the last one
    // tears the context down. A kernel refusal keeps it open, to retry.
    // (Referenced, not CheckOpen: no open gate is held here, and each
    // CloseReference takes it exclusively.)
    hke::Status s = hke::Status::Ok();
    while (s.ok() && hke::device::Referenced(c)) s = hke::api::CloseReference(c);
    if (!s.ok() && hke::device::Referenced(c)) {
      slot.state.store(kOpen, std::memory_order_release);
      return hke::api::ToHsakmt(s);
    }
    hke_context_deinit(held);
    slot.state.store(kFree, std::memory_order_release);
    return HSAKMT_STATUS_SUCCESS;
  }
  return HSAKMT_STATUS_INVALID_PARAMETER;
}

}  // extern "C"
