// The object slot table, the two address indexes and the node <-> GPU
// translations of the memory subsystem.
#include "lib/core/text.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory {

void MemoryState::Construct() {
  initialized = false;
  epoch = 0;
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
  live_objects = 0;
  object_high_water = 0;
  free_object = internal::kNoSlot;
  va_index.Clear();
  handle_index.Clear();
  (void)user_index.Init(&nodes);
  num_node_lists = 0;
  for (GraphicsMetadata& g : metadata) g.in_use = false;
  xnack = -1;
  kept_base = kept_size = 0;
}

namespace internal {

Status TakeSlot(Context& ctx, MemoryState& m, uint32_t* out_slot) {
  uint32_t slot = kNoSlot;
  if (m.free_object != kNoSlot) {
    slot = m.free_object;
    m.free_object = m.objects[slot].next_free;
  } else if (m.object_high_water < kMaxObjects) {
    slot = m.object_high_water++;
  } else {
    FixedText<128> t;
    t.Append("all ").AppendU64(kMaxObjects).Append(
        " memory objects are in use (raise hke::config::kMaxVaObjects)");
    return ctx.diag().Error(Exhausted(), kArea, t.c_str());
  }
  MemObject& o = m.objects[slot];
  o = MemObject{};
  o.gpu = kNoGpu;
  o.index_node = kNil;
  o.user_index_node = kNil;
  o.indexed_handle = 0;
  o.next_free = kNoSlot;
  o.in_use = true;
  o.registered.Clear();
  o.mapped.Clear();
  ++m.live_objects;
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
  o.next_free = m.free_object;
  m.free_object = slot;
  --m.live_objects;
}

Status Index(Context& ctx, MemoryState& m, MemObject* o) {
  const uint32_t slot = SlotOf(m, o);
  Status s = m.va_index.Insert(o->va, o->size, slot);
  if (s.ok() && o->kind == ObjectKind::kUserptr) {
    const uint64_t page_start = o->userptr & ~(static_cast<uint64_t>(m.page_size) - 1);
    uint32_t user_node = kNil;
    s = m.user_index.Insert(page_start, o->size, slot, &user_node);
    if (!s.ok()) {
      (void)m.va_index.Erase(o->va);
    } else {
      o->user_index_node = user_node;
    }
  }
  if (!s.ok()) {
    if (s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED)) {
      return ctx.diag().Error(s, kArea,
                              "the memory index is full (raise hke::config::kMaxVaObjects)");
    }
    return ctx.diag().Error(s, kArea, "a memory object overlaps the address index");
  }
  o->index_node = 0;
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
  o->index_node = kNil;
  o->user_index_node = kNil;
}

MemObject* FindExact(MemoryState& m, uint64_t addr) {
  RangeBTree::Entry e{};
  if (m.va_index.FindExact(addr, &e)) return &m.objects[e.value];
  // Registered user memory by the address the caller registered (not
  // necessarily page aligned).
  const uint64_t page_start = addr & ~(static_cast<uint64_t>(m.page_size) - 1);
  uint32_t n = m.user_index.LowerBound(page_start, 0);
  while (n != kNil && m.user_index.node(n).start == page_start) {
    MemObject* o = &m.objects[m.user_index.node(n).value];
    if (o->userptr == addr) return o;
    n = m.user_index.Successor(n);
  }
  return nullptr;
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
  const uint32_t u = m.user_index.FindContaining(addr);
  return u != kNil ? &m.objects[m.user_index.node(u).value] : nullptr;
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
