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
  return static_cast<uint32_t>(o - m.objects);
}

// Lookups (O(log n)) ----------------------------------------------------

// The object whose VA range starts exactly at `addr` (va index), else the
// userptr object whose registered user range starts at `addr`.
MemObject* FindExact(MemoryState& m, uint64_t addr);
// The object whose VA range contains `addr`, else a userptr object whose
// user range contains it.
MemObject* FindContaining(MemoryState& m, uint64_t addr);
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

// The default mapping targets of an object (upstream's order): the
// registered set, else the owning GPU's peers, else every GPU.
void DefaultTargets(const MemoryState& m, const MemObject& o, GpuSet* out);

}  // namespace hke::memory::internal

#endif  // HKE_LIB_MEMORY_MEMORY_INTERNAL_H_
