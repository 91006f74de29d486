// Shared helpers of the events subsystem's source files (not part of its
// interface). Functions named *Locked expect the context's events_lock to
// be held; the others take what they need themselves.
#ifndef HKE_LIB_EVENTS_EVENTS_INTERNAL_H_
#define HKE_LIB_EVENTS_EVENTS_INTERNAL_H_

#include <cstdint>

#include "lib/context/context.h"
#include "lib/events/events.h"
#include "lib/kfd/encode.h"

namespace hke::events::internal {

inline constexpr const char* kArea = "events";
inline constexpr uint32_t kNil = 0xffffffffu;

// Signal and debug events have a slot in the signal page.
constexpr bool HasSlot(uint32_t type) {
  return type == HSA_EVENTTYPE_SIGNAL || type == HSA_EVENTTYPE_DEBUG_EVENT;
}

// Table ---------------------------------------------------------------------

// Brings the table to `epoch`: events of an earlier open (a forked child's
// inheritance) are forgotten without I/O, and so is their page.
void SyncEpochLocked(EventsState& st, uint32_t epoch);
// Takes a slot (fresh ones first, then the oldest freed), counts its
// generation up and marks it reserved. RESOURCE_EXHAUSTED, naming
// config::kMaxEvents, when every slot is taken.
Status TakeSlotLocked(Context& ctx, EventsState& st, uint32_t* out_slot);
// Returns a slot to the tail of the free list.
void ReleaseSlotLocked(EventsState& st, uint32_t slot);
// The live view of a slot.
inline HsaEvent* ViewOf(EventsState& st, uint32_t slot) {
  return &st.views[slot * kViews + st.slots.generation(slot) % kViews];
}
// The slot behind a handle: OK only when `event` is exactly the live view
// of a live slot of the current epoch. Reads no byte through `event`.
Status ResolveLocked(Context& ctx, EventsState& st, const HsaEvent* event, uint32_t* out_slot);

// Kernel calls ---------------------------------------------------------------

// DESTROY/SET/RESET_EVENT arguments. lib/kfd's encoders treat id 0 as
// reserved, which holds for kernels >= 5.18 only: for id 0 (older kernels,
// the simulator) the two-word argument is built here.
Status EncodeDestroy(uint32_t id, kfd::DestroyEventArgs* out);
Status EncodeSet(uint32_t id, kfd::SetEventArgs* out);
Status EncodeReset(uint32_t id, kfd::ResetEventArgs* out);
// DecodeCreateEvent, also accepting a signal event in slot 0 (same reason).
Status DecodeCreate(const kfd::CreateEventArgs& sent, const kfd::CreateEventArgs& reply,
                    kfd::CreateEventResult* out);
// CREATE_EVENT (with the page's BO handle, or 0), reply checked. A reply
// that fails the checks is destroyed again (best effort).
Status CreateKernelEvent(Context& ctx, uint32_t type, uint32_t node, bool auto_reset,
                         uint64_t page_handle, kfd::CreateEventResult* out);
// DESTROY_EVENT; a failure is reported through diagnostics and returned.
Status DestroyKernelEvent(Context& ctx, uint32_t id);
Status SetKernelEvent(Context& ctx, uint32_t id);

// Setup (page.cc) -------------------------------------------------------------

// Creates the kernel event of a CreateEvent that needs the per-open setup
// (first call of an open: VM, GPU list, KFD version; the signal page).
// Takes events_setup_lock. On success the page (when the event needs one)
// is recorded for `epoch`.
Status CreateWithSetup(Context& ctx, uint32_t epoch, uint32_t type, uint32_t node,
                       bool auto_reset, kfd::CreateEventResult* out);
// True when a CreateEvent of `type` in `epoch` must go through
// CreateWithSetup.
bool NeedsSetupLocked(const EventsState& st, uint32_t epoch, uint32_t type);
// True when signal events cannot get a page in this open (dGPU whose
// kernel still holds the page of an earlier open).
bool PageBlockedLocked(const EventsState& st, uint32_t epoch);
// User node of a gpu_id (0xffffffff when unknown).
uint32_t NodeOfGpuLocked(const EventsState& st, uint32_t gpu_id);

}  // namespace hke::events::internal

#endif  // HKE_LIB_EVENTS_EVENTS_INTERNAL_H_
