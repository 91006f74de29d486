// The memory subsystem of a context: the GPU virtual address space
// (apertures, VA reservations, the KFD VM of every GPU) and the lifecycle of
// every memory object (allocate, register, map, unmap, free, query, share).
//
// Model (upstream's fmm.c/memory.c semantics, with fixed-capacity storage):
//  - VM bring-up (InitVm) runs once per open epoch, right after the
//    topology snapshot gave the visible GPUs and the process apertures:
//    ACQUIRE_VM on each GPU's render fd, SET_MEMORY_POLICY (default
//    coherent, the whole SVM range as the alternate aperture), then the
//    MMIO_REMAP page of each GPU (ALLOC, mmap of /dev/kfd, MAP). The last
//    hsaKmtCloseKFD releases every object and the MMIO pages (Teardown);
//    a fork child forgets the state without any I/O.
//  - Every memory object lives in a slot of a fixed table (MemoryState::
//    objects) and is indexed by its GPU VA range in a B+tree (disjoint
//    ranges); registered user memory (userptr BOs, which get a GPU VA of
//    their own, as upstream) is also indexed by its exact user range in an
//    AVL tree that allows overlaps; objects the library owns are indexed
//    once more in a third tree (owned_index), which also holds the backing
//    slices of scratch ranges (their VA lies inside the range's, so they
//    are not in the VA index). Exact and containing lookups are O(log n);
//    nothing walks a list.
//  - VA comes from one of three sources: the kernel's mmap (PROT_NONE
//    NORESERVE reservations, upstream's default "mmap mode" for GPUs whose
//    GPUVM reaches 2^47); a VaArena over the shared SVM range (reserved
//    mode: HSA_RESERVE_SVM / hke_config flag, or GPUs with a narrower
//    GPUVM); and a VaArena over the handle-only aperture above 2^47 (VRAM
//    allocated with NoAddress; never CPU-visible).
//  - Owners: an object belongs to the hsaKmt* caller or to the subsystem
//    of the library that made it (the events page, a queue's buffers, the
//    MMIO pages, doorbells, scratch backing). A call reaches only objects
//    of the owner it names: the API names the caller, so an address of a
//    library-owned object is refused (INVALID_HANDLE, with a diagnostic)
//    by every call that takes one; QueryPointerInfo still reports it.
//
// Ownership: the state is part of the Context (no heap). BO handles, CPU
// mappings and VA reservations recorded here are owned by the context and
// released by Free/Deregister/Teardown.
//
// Threading: every public function takes the context's memory lock itself
// (memory_lock; lock order topology_lock -> memory_lock -> lock). The lock
// is held across the kernel calls of one operation, so operations are
// serialised per context.
#ifndef HKE_LIB_MEMORY_MEMORY_H_
#define HKE_LIB_MEMORY_MEMORY_H_

#include <atomic>
#include <cstdint>

#include "hsakmt/hsakmttypes.h"
#include "lib/core/config.h"
#include "lib/core/slot_table.h"
#include "lib/core/status.h"
#include "lib/kfd/encode.h"
#include "lib/memory/numa.h"
#include "lib/memory/range_btree.h"
#include "lib/memory/range_tree.h"
#include "lib/memory/va_arena.h"

namespace hke {
class Context;
}

namespace hke::memory {

// A set of GPUs by index into MemoryState::gpus.
struct GpuSet {
  static constexpr uint32_t kWords = (config::kMaxGpus + 63) / 64;
  uint64_t bits[kWords];

  void Clear() {
    for (uint32_t i = 0; i < kWords; ++i) bits[i] = 0;
  }
  bool Has(uint32_t g) const { return (bits[g / 64] >> (g % 64)) & 1u; }
  void Add(uint32_t g) { bits[g / 64] |= 1ull << (g % 64); }
  void Remove(uint32_t g) { bits[g / 64] &= ~(1ull << (g % 64)); }
  bool Empty() const {
    for (uint32_t i = 0; i < kWords; ++i) {
      if (bits[i] != 0) return false;
    }
    return true;
  }
  uint32_t Count() const {
    uint32_t n = 0;
    for (uint32_t i = 0; i < kWords; ++i) n += static_cast<uint32_t>(__builtin_popcountll(bits[i]));
    return n;
  }
  bool operator==(const GpuSet& o) const {
    for (uint32_t i = 0; i < kWords; ++i) {
      if (bits[i] != o.bits[i]) return false;
    }
    return true;
  }
  bool SubsetOf(const GpuSet& o) const {
    for (uint32_t i = 0; i < kWords; ++i) {
      if ((bits[i] & ~o.bits[i]) != 0) return false;
    }
    return true;
  }
};

// Who owns a memory object, and on whose behalf a call runs (see the file
// comment). kCaller is every hsaKmt* call; the others are the library's
// subsystems.
enum class Owner : uint8_t {
  kCaller,
  kEvents,   // the events page (dGPU)
  kQueues,   // a queue's page, EOP buffer and CWSR area; doorbell BOs
  kVm,       // the MMIO_REMAP pages
  kScratch,  // the backing slices of scratch ranges
};
// What a diagnostic calls an owner's objects.
const char* OwnerName(Owner o);

// What a memory object is; decides which resources Free releases.
enum class ObjectKind : uint8_t {
  kDevice,      // VRAM BO, CPU-mapped from the render node at its VA
  kHostGtt,     // GTT BO (non-paged system memory)
  kHostPaged,   // anonymous pages at the VA + a userptr BO over them
  kHostCpu,     // APU system memory: anonymous pages, no BO
  kVaOnly,      // OnlyAddress: a VA reservation without backing
  kNoAddress,   // NoAddress VRAM: a BO in the handle aperture, no CPU view
  kUserptr,     // registered user memory (userptr BO, indexed by user address)
  kScratch,     // a node's scratch range (VA; its backing is in slices)
  kScratchSlice,  // one mapped slice of a scratch range: a VRAM BO inside its VA
  kMmio,        // the MMIO_REMAP page of a GPU (internal)
  kDoorbell,    // a GPU's doorbell slice as a DOORBELL BO (queues; internal)
  kDmabufImport,  // imported graphics / IPC buffer
};

// Objects QueryPointerInfo does not report (the library's own mappings of
// device pages, scratch backing).
inline bool IsInternal(ObjectKind k) {
  return k == ObjectKind::kMmio || k == ObjectKind::kDoorbell || k == ObjectKind::kScratchSlice;
}

// Where an object's VA came from.
enum class VaSource : uint8_t { kNone, kMmap, kSvmArena, kSvmCoherentArena, kHandleArena };

// One memory object. Slots are initialised when taken, never at context
// construction (the table may be tens of megabytes of untouched storage).
struct MemObject {
  uint64_t va;            // start of the object as the GPU sees it
  uint64_t size;          // VA bytes at va (doubled for AQL queue memory)
  uint64_t request_size;  // bytes the caller asked for
  uint64_t reserve_base;  // the VA reservation holding the object (guards included)
  uint64_t reserve_size;
  uint64_t userptr;       // kUserptr: the caller's address (not page aligned)
  uint64_t userptr_size;  // kUserptr: the caller's size
  uint64_t handle;        // KFD BO handle; 0 when there is no BO
  uint64_t user_data;     // hsaKmtSetMemoryUserData
  uint64_t mmap_offset;   // render-node offset of the BO (kDevice, kHostGtt)
  uint64_t indexed_handle; // the handle entered in handle_index (0: none)
  uint32_t mem_flags;     // HsaMemFlags.Value as allocated
  uint32_t node;          // owner node (user id)
  uint32_t register_count;
  uint32_t map_count;
  uint32_t index_node;    // 0 while in va_index (keyed by va), kNil otherwise
  uint32_t user_index_node;  // kUserptr: node in user_index
  uint32_t owned_index_node; // owner != kCaller: node in owned_index
  uint16_t gpu;           // index of the GPU that owns the BO (kNoGpu for none)
  uint16_t metadata;      // kDmabufImport: 1 + its MemoryState::metadata slot, 0: none
  ObjectKind kind;
  VaSource va_source;
  bool registered_explicitly;  // RegisterMemoryToNodes gave the node set
  bool ipc_import;             // kDmabufImport from an IPC share handle
  bool kernel_owned;           // the kernel keeps the BO (events page): no UNMAP/FREE
  Owner owner;
  // The slot is taken: the object table's own state (SlotTable::IsUsed,
  // which lib/ reads), mirrored here for readers that see only the objects
  // (the fault sweep's ledger); hke_memory_check verifies they agree.
  bool in_use;
  GpuSet registered;      // GPUs the object may be mapped to
  GpuSet mapped;          // GPUs it is mapped to now
};

inline constexpr uint16_t kNoGpu = 0xffff;

// VM state of one GPU, captured from the topology at InitVm.
struct GpuVm {
  uint32_t gpu_id;
  uint32_t node;          // user node id
  uint32_t render_minor;
  int render_fd;          // borrowed from device::DeviceState; valid while open
  uint32_t device_id;
  uint32_t gfx_major;     // from the node's gfx target version
  bool vm_acquired;
  bool svm_api;           // the node reports SVMAPISupported
  kfd::AddressRange lds;
  kfd::AddressRange scratch;
  kfd::AddressRange gpuvm;
  uint64_t mmio_va;       // 0: not mapped
  uint64_t mmio_handle;
  uint32_t mmio_object;   // slot of the MMIO object
  GpuSet peers;           // GPUs that may map this GPU's VRAM (IO links)
};

// The storage sizes of the subsystem (lib/core/config.h).
inline constexpr uint32_t kMaxObjects = config::kMaxVaObjects;
inline constexpr SlotTable::Policy kObjectTablePolicy{SlotTable::Reuse::kFreedFirstLifo,
                                                      0xffffffffu, false};
// AVL range-tree nodes: one per registered user range (user_index) or
// library-owned object (owned_index; no object is both), plus the free
// ranges of the arenas (two nodes each; all arenas together hold at most
// objects + 3 free ranges).
inline constexpr uint32_t kRangeNodes = 3 * config::kMaxVaObjects + 16;
// Distinct node-id lists QueryPointerInfo can hand out (interned by GPU
// set; the arrays stay valid for the context's lifetime).
#if defined(HKE_CONFIG_SMALL_BOARD)
inline constexpr uint32_t kMaxNodeLists = 8;
#else
inline constexpr uint32_t kMaxNodeLists = 256;
#endif

// Attributes one SVM call may carry.
#if defined(HKE_CONFIG_SMALL_BOARD)
inline constexpr uint32_t kSvmAttrCapacity = 64;
#else
inline constexpr uint32_t kSvmAttrCapacity = kfd::kSvmMaxAttributes;
#endif

// The metadata blob of a graphics import (GET_DMABUF_INFO), kept from the
// import to its deregistration: HsaGraphicsResourceInfo::Metadata points at
// `bytes`. 256 bytes is the most amdgpu keeps (GEM_METADATA's data[64]).
inline constexpr uint32_t kGraphicsMetadataBytes = 256;
struct GraphicsMetadata {
  alignas(8) unsigned char bytes[kGraphicsMetadataBytes];
  uint32_t size;
  bool in_use;
};

struct NodeList {
  GpuSet set;
  uint32_t count;
  HSAuint32 nodes[config::kMaxGpus];
};

struct MemoryState {
  // Lifecycle.
  bool initialized;       // InitVm done for `epoch`
  uint32_t epoch;
  // `epoch` + 1 (64-bit: it never wraps to 0) while `initialized`, else 0:
  // written under the memory lock
  // (release), read without it by EnsureVm's fast path (acquire), which
  // runs inside a shared hold of the open gate, so no close or reopen can
  // change the answer while the caller uses it.
  std::atomic<uint64_t> ready_epoch;
  bool dgpu;              // upstream's is_dgpu
  bool svm_api;           // register/map through the SVM ioctl
  bool reserved_mode;     // SVM VA from the arenas instead of mmap
  uint32_t page_size;
  uint32_t align_order_max;  // largest automatic alignment = page << order
  uint64_t svm_base, svm_limit;       // inclusive limit; 0/0 without SVM
  uint64_t handle_base, handle_size;  // the handle-only aperture
  bool handle_reserved;  // 32-bit: the aperture is a PROT_NONE window we mapped
  // GPUs.
  uint32_t num_gpus;
  GpuVm gpus[config::kMaxGpus];
  uint32_t num_nodes;
  uint16_t gpu_of_node[config::kMaxNodes];
  NumaPlacement numa;  // where paged system memory is bound (numa.h)
  // Objects and indexes. The object table (lib/core/slot_table.h) reuses
  // the most recently freed slot first, so the touched part stays small;
  // objects are named by their addresses (the indexes below), so
  // generations and pins are not used.
  FixedSlotTable<MemObject, kMaxObjects> objects{kObjectTablePolicy};
  // objects.high_water(): slots [0, high_water) have been initialised.
  const uint32_t& object_high_water = objects.high_water_counter();
  FixedRangeNodePool<kRangeNodes> nodes;
  // Every object by [va, va+size) (GPU VA; disjoint): a B+tree of 640-byte
  // nodes, depth 4 at 10^5 objects, so QueryPointerInfo stays near flat.
  FixedRangeBTree<RangeBTreeNodesFor(kMaxObjects)> va_index;
  RangeTree user_index;  // userptr objects by [userptr, userptr + userptr_size) (may overlap)
  // Library-owned objects by [va, va+size) (disjoint): the scratch slices,
  // found by nothing else, and what the range calls (SVM attributes,
  // registration) must not reach.
  RangeTree owned_index;
  // KFD handles held by live objects (key: the handle, size 1), so a reply
  // naming a BO the library already holds is refused, never freed.
  FixedRangeBTree<RangeBTreeNodesFor(kMaxObjects)> handle_index;
  VaArena svm_arena;           // reserved mode: coarse-grain (default) aperture
  VaArena svm_coherent_arena;  // reserved mode: fine-grain (alternate) aperture
  VaArena handle_arena;
  // QueryPointerInfo node lists.
  uint32_t num_node_lists;
  NodeList node_lists[kMaxNodeLists];
  // Graphics-import metadata (share.cc); a slot is owned by the object
  // whose `metadata` names it.
  GraphicsMetadata metadata[config::kMaxGraphicsMetadata];
  // XNACK as last set (-1: never set).
  int32_t xnack;
  // The reservation of a BO the kernel keeps after the library let go of it
  // (the dGPU events page: the KFD frees it only with the process), held
  // PROT_NONE so no later object of this process gets its GPU VA, across
  // closes and reopens; released at context teardown (Forget). Survives
  // ResetStorage. 0/0: none. The KFD takes one events page per process, so
  // one range is all there can be.
  uint64_t kept_base, kept_size;
  // SVM request scratch (under the memory lock).
  kfd::SvmAttribute svm_attrs[kSvmAttrCapacity];
  alignas(8) unsigned char svm_buffer[sizeof(kfd::SvmArgs) +
                                      kSvmAttrCapacity * sizeof(kfd::SvmAttribute)];

  // Prepares the state for a context; touches only the small members.
  void Construct();
};

// Lifecycle ---------------------------------------------------------------

// Brings the VM up for the current open epoch if it is not (reads the
// topology snapshot's GPUs and apertures). Called with the topology lock
// held, after a topology Take (AfterTopologyTaken) and by
// EnsureTopologyAndVm.
Status InitVmLocked(Context& ctx);
// What follows a successful topology::Acquisition::Take of a context that
// is not discovery-only (topology lock held): the VM comes up with the
// first snapshot of an open epoch, and each GPU's MMIO_REMAP bank then
// names its mapped page. A VM that cannot come up (e.g. another context of
// this process bound the GPUs: EBUSY) does not fail the topology: it is
// reported as a warning, the banks lack MMIO_REMAP, and memory calls retry
// the bring-up and return its status.
void AfterTopologyTaken(Context& ctx);
// Takes the topology lock, takes the topology if it is not current (as
// hsaKmtAcquireSystemProperties would; the snapshot stays acquired), and
// brings the VM up. Called without the topology and memory locks held, by
// every call that needs the GPUs' VM (memory, events, queues, node, debug).
Status EnsureTopologyAndVm(Context& ctx);
// The device open check, then EnsureTopologyAndVm unless the VM of this
// open epoch is up already.
Status EnsureVm(Context& ctx);
// Releases every object, the MMIO pages and the reservations (last close).
// An object the kernel refuses to free stays tracked and the first such
// failure is returned (the caller keeps the device open so a later close
// can retry); kernel-owned objects only lose their CPU view.
Status Teardown(Context& ctx);
// Forgets every object without kernel I/O (fork child, context teardown);
// unmaps the kept range (MemoryState::kept_base).
void Forget(Context& ctx);

// A GPU's doorbell slice of `size` bytes (a page multiple) as a DOORBELL
// BO: VA reserved, ALLOC(DOORBELL), /dev/kfd mapped over the VA at the
// reply's offset, mapped to the GPU and its peers (upstream's dGPU path).
// *out_va only on success; a failure leaves nothing behind. INVALID_NODE
// for an unknown gpu_id. Released by FreeDoorbell (NOT_FOUND for any other
// address). It belongs to the queues (Owner::kQueues): the API's address
// calls refuse it and QueryPointerInfo does not report it.
Status MapDoorbell(Context& ctx, uint32_t gpu_id, uint64_t size, uint64_t* out_va);
Status FreeDoorbell(Context& ctx, uint64_t va);
// The MMIO page of a GPU, for the topology's MMIO_REMAP bank (0: none).
uint64_t MmioBase(Context& ctx, uint32_t gpu_id);

// Facts of the VM fixed at its bring-up, read under the memory lock, for
// the modules above (queues): the page size the VM was brought up with and
// upstream's is_dgpu. Zero/false before the bring-up.
struct VmFacts {
  uint32_t page_size;
  bool dgpu;
};
VmFacts Facts(Context& ctx);
// The gpu_id of the GPU behind user node `node` in the VM (taken under the
// memory lock); 0 for CPU nodes, GPUs the topology hid and unknown nodes.
uint32_t GpuIdOfNode(Context& ctx, uint32_t node);

// Operations ---------------------------------------------------------------

// Every call below that takes an address reaches only objects of `caller`
// (the hsaKmt* API: Owner::kCaller): an object of another owner is
// INVALID_HANDLE with a diagnostic naming it, before any kernel call.
struct AllocArgs {
  uint32_t node;
  uint64_t size;
  uint64_t align;     // 0: automatic
  uint32_t flags;     // HsaMemFlags.Value
  uint64_t address;   // FixedAddress: the requested VA
  Owner owner;        // who the object belongs to (kCaller for the API)
  // System memory that belongs to the GPU node `place_node` (the queue
  // buffers, allocated on node 0): on a dGPU its BO is created on that GPU
  // instead of the first one, and paged memory is bound near it instead of
  // near `node` (numa.h).
  bool place_near;
  uint32_t place_node;
};
Status Alloc(Context& ctx, const AllocArgs& args, uint64_t* out_addr);
Status Free(Context& ctx, uint64_t addr, Owner caller = Owner::kCaller);

// nodes == nullptr: the default set (registered GPUs, else peers, else all).
// An address inside a scratch range maps the slice [addr, addr+size) of
// its backing (scratch.cc). *out_alternate_va: the GPU address of
// registered user memory (its userptr BO's VA, or the user address itself
// in SVM mode, with the page offset), else 0.
Status Map(Context& ctx, uint64_t addr, uint64_t size, const uint32_t* nodes, uint32_t num_nodes,
           uint64_t* out_alternate_va, Owner caller = Owner::kCaller);
Status Unmap(Context& ctx, uint64_t addr, Owner caller = Owner::kCaller);

struct RegisterArgs {
  uint64_t addr;
  uint64_t size;
  const uint32_t* nodes;  // nullptr: every GPU
  uint32_t num_nodes;
  bool has_flags;         // RegisterMemoryWithFlags
  uint32_t flags;         // HsaMemFlags.Value
};
Status Register(Context& ctx, const RegisterArgs& args);
Status Deregister(Context& ctx, uint64_t addr);

Status QueryPointer(Context& ctx, uint64_t addr, HsaPointerInfo* out);
Status SetUserData(Context& ctx, uint64_t addr, uint64_t user_data);
Status Available(Context& ctx, uint32_t node, uint64_t* out_bytes);

Status SetXnack(Context& ctx, int32_t enable);
Status GetXnack(Context& ctx, int32_t* out_enable);
Status SvmSetAttr(Context& ctx, uint64_t start, uint64_t size, uint32_t nattr,
                  const HSA_SVM_ATTRIBUTE* attrs);
Status SvmGetAttr(Context& ctx, uint64_t start, uint64_t size, uint32_t nattr,
                  HSA_SVM_ATTRIBUTE* attrs);

// Marks the object starting at `addr` as owned by the kernel from now on
// (the events page once CREATE_EVENT took it: the KFD frees it only with
// the process). Free/Teardown then drop it without UNMAP or FREE.
Status MarkKernelOwned(Context& ctx, uint64_t addr);

// The KFD handle and owning gpu_id of the object starting at `addr` (for
// subsystems that pass BOs to the kernel, e.g. the events page).
Status BufferHandle(Context& ctx, uint64_t addr, uint64_t* out_handle, uint32_t* out_gpu_id);

Status ExportDmabuf(Context& ctx, uint64_t addr, uint64_t size, uint64_t flags, int* out_fd,
                    uint64_t* out_offset);

struct GraphicsArgs {
  uint64_t dmabuf_fd;
  const uint32_t* nodes;  // nullptr: none given
  uint32_t num_nodes;
  bool requires_va;       // HSA_REGISTER_MEM_FLAGS.requiresVAddr
};
Status RegisterGraphics(Context& ctx, const GraphicsArgs& args, HsaGraphicsResourceInfo* out);
Status ShareMemory(Context& ctx, uint64_t addr, uint64_t size, HsaSharedMemoryHandle* out);
Status RegisterShared(Context& ctx, const HsaSharedMemoryHandle* handle, const uint32_t* nodes,
                      uint32_t num_nodes, uint64_t* out_addr, uint64_t* out_size);

// Introspection --------------------------------------------------------------

struct Stats {
  uint32_t live_objects;
  uint32_t object_capacity;
  uint32_t range_nodes_used;
  uint32_t range_nodes_capacity;
  uint64_t handle_free_bytes;
};
Status GetStats(Context& ctx, Stats* out);
// Checks every index and arena (debug builds, tests, fuzzing).
Status CheckInvariants(Context& ctx);

}  // namespace hke::memory

#endif  // HKE_LIB_MEMORY_MEMORY_H_
