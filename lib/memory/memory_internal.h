// Shared helpers of the memory subsystem's source files (not part of its
// interface). Every function here expects the memory lock to be held.
#ifndef HKE_LIB_MEMORY_MEMORY_INTERNAL_H_
#define HKE_LIB_MEMORY_MEMORY_INTERNAL_H_

#include <cstdint>

#include "lib/context/context.h"
#include "lib/memory/memory.h"

namespace hke::memory::internal {

inline constexpr const char* kArea = "memory";
inline constexpr uint32_t kNoSlot = 0xffffffffu;
// Upstream's canonical user-space limit (47 bits).
inline constexpr uint64_t kCanonicalLimit = (1ull << 47) - 1;
inline constexpr uint64_t kHandleApertureSize = 1ull << 47;
inline constexpr uint64_t kScratchAlign = 64 * 1024;

// Slot table ------------------------------------------------------------

// Takes a free slot and initialises it (in_use, no GPU, empty sets).
// RESOURCE_EXHAUSTED naming config::kMaxVaObjects when the table is full.
Status TakeSlot(Context& ctx, MemoryState& m, uint32_t* out_slot);
void ReleaseSlot(MemoryState& m, uint32_t slot);
inline uint32_t SlotOf(const MemoryState& m, const MemObject* o) {
  return m.objects.IndexOf(o);
}

// Lookups (O(log n)) ----------------------------------------------------

// The object a call names by `addr` (upstream's exact lookup, fmm.c
// vm_find_object; `size` 0 when the call gives none):
//  1. registered user memory whose user range starts at `addr`: with a
//     size, the registration of exactly that size; without one, the only
//     registration starting there (none when several do);
//  2. else the object whose GPU VA starts at the page of `addr`: a userptr
//     BO when its user address has the same page offset (and the size
//     matches when given), so the GPU address Map returned names it; any
//     other object only when `addr` is its start.
// Scratch slices are not found here (FindOwnedAt).
MemObject* FindExact(MemoryState& m, uint64_t addr, uint64_t size = 0);
// The object whose VA range contains `addr`, else the registration of user
// memory around it that upstream's lookup picks (one starting at `addr`,
// else the nearest enclosing start).
MemObject* FindContaining(MemoryState& m, uint64_t addr);
// Library-owned objects (owned_index): the one starting at `addr`, the one
// containing it, the first overlapping [start, start+size) (nullptr: none).
MemObject* FindOwnedAt(MemoryState& m, uint64_t addr);
MemObject* FindOwnedContaining(MemoryState& m, uint64_t addr);
MemObject* FindOwnedOverlapping(MemoryState& m, uint64_t start, uint64_t size);
// INVALID_HANDLE, with a diagnostic naming `call` and the object's owner.
Status RefuseOwned(Context& ctx, const MemObject& o, const char* call);
// The lookup of an address-taking call made on behalf of `caller`:
// FindExact's object in *out, or NOT_FOUND (no diagnostic: the call's
// status for an unknown address is its own). An object of another owner,
// or when nothing else is found a library-owned object starting at `addr`
// (scratch backing), is refused (RefuseOwned).
Status FindForCall(Context& ctx, MemoryState& m, uint64_t addr, uint64_t size, Owner caller,
                   const char* call, MemObject** out);
// A range call (registration, SVM attributes) must not reach library-owned
// objects: INVALID_HANDLE (RefuseOwned) when one overlaps the range.
Status RefuseOwnedRange(Context& ctx, MemoryState& m, uint64_t start, uint64_t size,
                        const char* call);
// Inserts the object into the index its kind belongs to.
Status Index(Context& ctx, MemoryState& m, MemObject* o);
void Unindex(MemoryState& m, MemObject* o);
// The handle index (Index/Unindex maintain it; scratch BOs come and go with
// their mapping and use these directly).
void IndexHandle(MemoryState& m, MemObject* o);
void UnindexHandle(MemoryState& m, MemObject* o);
// True when a live object holds `handle`.
bool HandleHeld(const MemoryState& m, uint64_t handle);

// GPUs and nodes --------------------------------------------------------

// gpus[] index of a user node, kNoGpu for a CPU node, an unknown node or
// a node beyond the topology.
uint16_t GpuOfNode(const MemoryState& m, uint32_t node);
bool IsValidNode(const MemoryState& m, uint32_t node);
// Converts a node-id list into a GPU set; INVALID_ARGUMENT (with a
// diagnostic naming the node) for a node that is not a GPU.
Status NodesToGpus(Context& ctx, const MemoryState& m, const uint32_t* nodes, uint32_t n,
                   GpuSet* out);
void AllGpus(const MemoryState& m, GpuSet* out);

// VA ---------------------------------------------------------------------

struct VaRange {
  uint64_t va;
  uint64_t reserve_base;
  uint64_t reserve_size;
  VaSource source;
  bool cpu_view_dropped = false;  // DropCpuView already replaced the pages
};
// Arena (reserved-mode) objects: replaces the object's CPU pages with the
// PROT_NONE reservation again, before its BO is freed, so a failure leaves
// the object whole. Other sources: nothing to do.
Status DropCpuView(Context& ctx, const VaRange& r);
// Reserves `size` bytes of VA aligned to `align` (a power of two, at least
// a page) from `source`; `fixed` nonzero asks for exactly that address.
// The reservation is PROT_NONE for mmap-backed sources.
Status ReserveVa(Context& ctx, MemoryState& m, VaSource source, uint64_t size, uint64_t align,
                 uint64_t fixed, VaRange* out);
// ReserveVa for the object being built in `slot` (TakeSlot): on failure
// the slot is released, so the caller only returns the status.
Status ReserveVaForSlot(Context& ctx, MemoryState& m, uint32_t slot, VaSource source,
                        uint64_t size, uint64_t align, uint64_t fixed, VaRange* out);
// Records a reserved range in its object: VA, reservation and source.
void AdoptVa(MemObject* o, const VaRange& r);
// Releases a reservation; on failure the range is reported and kept out of
// use (see va.cc), and the status says so.
Status ReleaseVa(Context& ctx, MemoryState& m, const VaRange& r);
// The automatic alignment of an allocation of `size` bytes.
uint64_t AutoAlign(const MemoryState& m, uint64_t size, uint64_t requested);

// Kernel calls ----------------------------------------------------------

// ALLOC_MEMORY_OF_GPU with the reply checked.
Status AllocBo(Context& ctx, const MemoryState& m, uint16_t gpu, uint32_t kfd_flags, uint64_t va,
               uint64_t size, uint64_t userptr, uint64_t* out_handle, uint64_t* out_mmap_offset);
// FREE_MEMORY_OF_GPU; failures are reported as warnings and returned.
Status FreeBo(Context& ctx, uint64_t handle);
// MAP/UNMAP_MEMORY_TO_GPU of one BO on every GPU of `gpus` (one call,
// resumed after EINTR-style partial progress).
Status MapBo(Context& ctx, const MemoryState& m, uint64_t handle, const GpuSet& gpus);
// *out_claims_done (optional): the call failed on a malformed reply that
// still says every device was unmapped.
Status UnmapBo(Context& ctx, const MemoryState& m, uint64_t handle, const GpuSet& gpus,
               bool* out_claims_done = nullptr);

// Releases everything an object holds (GPU mappings, BO, CPU mapping, VA)
// and its slot. Errors are reported through diagnostics; the object is
// gone afterwards either way unless `keep_on_error` and an unmap failed.
Status DestroyObject(Context& ctx, MemoryState& m, MemObject* o, bool force = false);

// Scratch backing (scratch.cc) -------------------------------------------

// hsaKmtMapMemoryToGPU(Nodes) of [addr, addr+size) inside the scratch range
// `range`: one VRAM BO for exactly that slice, mapped to the range's GPU
// (`want`, when given, must name that GPU only). The same slice again
// gains a reference; a slice overlapping another, outside the range or
// not page aligned is INVALID_ARGUMENT. An APU's scratch is host memory:
// nothing to do.
Status MapScratchSlice(Context& ctx, MemoryState& m, const MemObject& range, uint64_t addr,
                       uint64_t size, const GpuSet* want);
// hsaKmtUnmapMemoryToGPU of the slice starting at `addr`: the last
// reference unmaps and frees its BO. NOT_FOUND when no slice starts there.
Status UnmapScratchSlice(Context& ctx, MemoryState& m, const MemObject& range, uint64_t addr);
// Releases every slice of `range` (before its VA goes); the first failure
// is returned and the slices that failed stay.
Status ReleaseScratchSlices(Context& ctx, MemoryState& m, const MemObject& range, bool force);

// The default mapping targets of an object (upstream's order): the
// registered set, else the owning GPU's peers, else every GPU.
void DefaultTargets(const MemoryState& m, const MemObject& o, GpuSet* out);

}  // namespace hke::memory::internal

#endif  // HKE_LIB_MEMORY_MEMORY_INTERNAL_H_
