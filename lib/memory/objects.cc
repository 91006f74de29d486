// The object slot table, the address indexes (GPU VA, user ranges,
// library-owned objects), the lookups every call makes through them, the
// owner check, and the node <-> GPU translations of the memory subsystem.
#include "lib/core/text.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory {

void MemoryState::Construct() {
  initialized = false;
  epoch = 0;
  ready_epoch.store(0, std::memory_order_release);
  dgpu = false;
  svm_api = false;
  reserved_mode = false;
  page_size = 4096;
  align_order_max = 9;
  svm_base = svm_limit = 0;
  handle_base = handle_size = 0;
  handle_reserved = false;
  num_gpus = 0;
  num_nodes = 0;
  objects.Reset();
  va_index.Clear();
  handle_index.Clear();
  (void)user_index.Init(&nodes);
  (void)owned_index.Init(&nodes);
  num_node_lists = 0;
  for (GraphicsMetadata& g : metadata) g.in_use = false;
  xnack = -1;
  kept_base = kept_size = 0;
}

const char* OwnerName(Owner o) {
  switch (o) {
    case Owner::kCaller: return "the caller";
    case Owner::kEvents: return "the events page";
    case Owner::kQueues: return "a queue's buffers or doorbells";
    case Owner::kVm: return "a GPU's MMIO page";
    case Owner::kScratch: return "scratch backing";
  }
  return "the library";
}

namespace internal {

Status TakeSlot(Context& ctx, MemoryState& m, uint32_t* out_slot) {
  uint32_t slot = kNoSlot;
  if (!m.objects.Allocate(&slot)) {
    FixedText<128> t;
    t.Append("all ").AppendU64(kMaxObjects).Append(
        " memory objects are in use (raise hke::config::kMaxVaObjects)");
    return ctx.diag().Error(Exhausted(), kArea, t.c_str());
  }
  m.objects.Publish(slot);
  MemObject& o = m.objects[slot];
  o = MemObject{};
  o.gpu = kNoGpu;
  o.index_node = kNil;
  o.user_index_node = kNil;
  o.owned_index_node = kNil;
  o.owner = Owner::kCaller;
  o.indexed_handle = 0;
  o.in_use = true;
  o.registered.Clear();
  o.mapped.Clear();
  *out_slot = slot;
  return Status::Ok();
}

void ReleaseSlot(MemoryState& m, uint32_t slot) {
  MemObject& o = m.objects[slot];
  if (o.metadata != 0) {  // a graphics import's metadata goes with it
    m.metadata[o.metadata - 1].in_use = false;
    o.metadata = 0;
  }
  o.in_use = false;
  m.objects.Free(slot);
}

Status Index(Context& ctx, MemoryState& m, MemObject* o) {
  const uint32_t slot = SlotOf(m, o);
  // A scratch slice lies inside its range's VA: only owned_index has it.
  const bool in_va = o->kind != ObjectKind::kScratchSlice;
  Status s = in_va ? m.va_index.Insert(o->va, o->size, slot) : Status::Ok();
  bool va_done = s.ok() && in_va;
  if (s.ok() && o->kind == ObjectKind::kUserptr) {
    uint32_t user_node = kNil;
    s = m.user_index.Insert(o->userptr, o->userptr_size, slot, &user_node);
    if (s.ok()) o->user_index_node = user_node;
  }
  if (s.ok() && o->owner != Owner::kCaller) {
    uint32_t owned_node = kNil;
    s = m.owned_index.Insert(o->va, o->size, slot, &owned_node);
    if (s.ok()) o->owned_index_node = owned_node;
  }
  if (!s.ok()) {
    if (va_done) (void)m.va_index.Erase(o->va);
    if (o->user_index_node != kNil) (void)m.user_index.Erase(o->user_index_node);
    o->user_index_node = kNil;
    if (s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED)) {
      return ctx.diag().Error(s, kArea,
                              "the memory index is full (raise hke::config::kMaxVaObjects)");
    }
    return ctx.diag().Error(s, kArea, "a memory object overlaps the address index");
  }
  o->index_node = in_va ? 0 : kNil;
  if (o->handle != 0) IndexHandle(m, o);
  return Status::Ok();
}

void IndexHandle(MemoryState& m, MemObject* o) {
  if (o->indexed_handle != 0 || o->handle == 0) return;
  if (m.handle_index.Insert(o->handle, 1, SlotOf(m, o)).ok()) o->indexed_handle = o->handle;
}

void UnindexHandle(MemoryState& m, MemObject* o) {
  if (o->indexed_handle == 0) return;
  (void)m.handle_index.Erase(o->indexed_handle);
  o->indexed_handle = 0;
}

bool HandleHeld(const MemoryState& m, uint64_t handle) {
  return handle != 0 && m.handle_index.FindExact(handle, nullptr);
}

void Unindex(MemoryState& m, MemObject* o) {
  UnindexHandle(m, o);
  if (o->index_node != kNil) (void)m.va_index.Erase(o->va);
  if (o->user_index_node != kNil) (void)m.user_index.Erase(o->user_index_node);
  if (o->owned_index_node != kNil) (void)m.owned_index.Erase(o->owned_index_node);
  o->index_node = kNil;
  o->user_index_node = kNil;
  o->owned_index_node = kNil;
}

MemObject* FindExact(MemoryState& m, uint64_t addr, uint64_t size) {
  // 1. Registered user memory by the address the caller registered.
  uint32_t n = m.user_index.LowerBound(addr, size);
  if (n != kNil && m.user_index.node(n).start == addr) {
    const RangeNode& u = m.user_index.node(n);
    if (size != 0) {
      if (u.size == size) return &m.objects[u.value];
    } else {
      const uint32_t next = m.user_index.Successor(n);
      if (next == kNil || m.user_index.node(next).start != addr) return &m.objects[u.value];
    }
  }
  // 2. The object at the page's GPU VA.
  const uint64_t page_mask = static_cast<uint64_t>(m.page_size) - 1;
  RangeBTree::Entry e{};
  if (!m.va_index.FindExact(addr & ~page_mask, &e)) return nullptr;
  MemObject* o = &m.objects[e.value];
  if (o->kind == ObjectKind::kUserptr) {
    const bool offset_ok = (o->userptr & page_mask) == (addr & page_mask);
    return offset_ok && (size == 0 || size == o->userptr_size) ? o : nullptr;
  }
  return o->va == addr ? o : nullptr;
}

MemObject* FindContaining(MemoryState& m, uint64_t addr) {
  // The index entry of an object is (va, size, slot) (Index; the invariant
  // checker holds the two equal), so containment is checked against the
  // object, whose line the caller reads anyway, and the lookup never reads
  // the index's sizes (RangeBTree::FindAtOrBelow).
  uint64_t start = 0;
  uint32_t slot = 0;
  if (m.va_index.FindAtOrBelow(addr, &start, &slot)) {
    MemObject* o = &m.objects[slot];
    if (addr - start < RangeExtent(o->size)) return o;
  }
  const uint32_t u = m.user_index.FindNearestContaining(addr);
  return u != kNil ? &m.objects[m.user_index.node(u).value] : nullptr;
}

MemObject* FindOwnedAt(MemoryState& m, uint64_t addr) {
  const uint32_t n = m.owned_index.LowerBound(addr, 0);
  if (n == kNil || m.owned_index.node(n).start != addr) return nullptr;
  return &m.objects[m.owned_index.node(n).value];
}

MemObject* FindOwnedContaining(MemoryState& m, uint64_t addr) {
  // Owned ranges are disjoint: only the last one starting at or before
  // addr can contain it.
  const uint32_t n = m.owned_index.FindAtOrBelow(addr);
  if (n == kNil) return nullptr;
  const RangeNode& r = m.owned_index.node(n);
  return addr - r.start < r.size ? &m.objects[r.value] : nullptr;
}

MemObject* FindOwnedOverlapping(MemoryState& m, uint64_t start, uint64_t size) {
  if (size == 0) return nullptr;
  const uint64_t last = size - 1 > UINT64_MAX - start ? UINT64_MAX : start + (size - 1);
  // Disjoint ranges: the last one starting at or before the range's last
  // byte overlaps it exactly when it ends after the range's start (any
  // earlier one ends before that one starts).
  const uint32_t n = m.owned_index.FindAtOrBelow(last);
  if (n == kNil) return nullptr;
  const RangeNode& r = m.owned_index.node(n);
  return RangeEnd(r.start, r.size) > start ? &m.objects[r.value] : nullptr;
}

Status RefuseOwned(Context& ctx, const MemObject& o, const char* call) {
  FixedText<192> t;
  t.Append(call).Append(": the buffer at that address belongs to the library (")
      .Append(OwnerName(o.owner))
      .Append("); only the library maps, changes or releases it");
  return ctx.diag().Error(InvalidHandle(), kArea, t.c_str());
}

Status FindForCall(Context& ctx, MemoryState& m, uint64_t addr, uint64_t size, Owner caller,
                   const char* call, MemObject** out) {
  MemObject* o = m.initialized ? FindExact(m, addr, size) : nullptr;
  if (o == nullptr && m.initialized) {
    MemObject* owned = FindOwnedAt(m, addr);
    if (owned != nullptr && owned->owner != caller) return RefuseOwned(ctx, *owned, call);
  }
  if (o == nullptr) return NotFound();
  if (o->owner != caller) return RefuseOwned(ctx, *o, call);
  *out = o;
  return Status::Ok();
}

Status RefuseOwnedRange(Context& ctx, MemoryState& m, uint64_t start, uint64_t size,
                        const char* call) {
  const MemObject* o = m.initialized ? FindOwnedOverlapping(m, start, size) : nullptr;
  return o != nullptr ? RefuseOwned(ctx, *o, call) : Status::Ok();
}

uint16_t GpuOfNode(const MemoryState& m, uint32_t node) {
  if (node >= m.num_nodes) return kNoGpu;
  return m.gpu_of_node[node];
}

bool IsValidNode(const MemoryState& m, uint32_t node) { return node < m.num_nodes; }

Status NodesToGpus(Context& ctx, const MemoryState& m, const uint32_t* nodes, uint32_t n,
                   GpuSet* out) {
  GpuSet set;
  set.Clear();
  for (uint32_t i = 0; i < n; ++i) {
    const uint16_t g = GpuOfNode(m, nodes[i]);
    if (g == kNoGpu) {
      FixedText<96> t;
      t.Append("node ").AppendU64(nodes[i]).Append(" is not a GPU node of this process");
      return ctx.diag().Error(InvalidNode(), kArea, t.c_str());
    }
    set.Add(g);
  }
  *out = set;
  return Status::Ok();
}

void AllGpus(const MemoryState& m, GpuSet* out) {
  out->Clear();
  for (uint32_t g = 0; g < m.num_gpus; ++g) out->Add(g);
}

void DefaultTargets(const MemoryState& m, const MemObject& o, GpuSet* out) {
  if (!o.registered.Empty()) {
    *out = o.registered;
    return;
  }
  if (o.gpu != kNoGpu && o.kind != ObjectKind::kUserptr) {
    *out = m.gpus[o.gpu].peers;
    return;
  }
  AllGpus(m, out);
}

}  // namespace internal
}  // namespace hke::memory
