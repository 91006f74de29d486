// QueryPointerInfo, SetMemoryUserData, AvailableMemory, XNACK, the SVM
// attribute calls, dma-buf export, and the subsystem's introspection.
#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory_internal.h"

namespace hke::memory {

using namespace internal;

namespace {

// An interned node-id list for a GPU set; the array lives as long as the
// context. nullptr when the table is full (reported once per call).
const NodeList* NodeListFor(Context& ctx, MemoryState& m, const GpuSet& set) {
  for (uint32_t i = 0; i < m.num_node_lists; ++i) {
    if (m.node_lists[i].set == set) return &m.node_lists[i];
  }
  if (m.num_node_lists >= kMaxNodeLists) {
    (void)ctx.diag().Report(HKE_DIAG_WARNING, Exhausted(), kArea,
                            "too many distinct node sets for QueryPointerInfo lists");
    return nullptr;
  }
  NodeList& l = m.node_lists[m.num_node_lists++];
  l.set = set;
  l.count = 0;
  for (uint32_t g = 0; g < m.num_gpus; ++g) {
    if (set.Has(g)) l.nodes[l.count++] = m.gpus[g].node;
  }
  return &l;
}

HSA_POINTER_TYPE TypeOf(const MemObject& o) {
  switch (o.kind) {
    case ObjectKind::kUserptr: return HSA_POINTER_REGISTERED_USER;
    case ObjectKind::kVaOnly: return HSA_POINTER_RESERVED_ADDR;
    case ObjectKind::kDmabufImport:
      return o.ipc_import ? HSA_POINTER_REGISTERED_SHARED : HSA_POINTER_REGISTERED_GRAPHICS;
    default: return HSA_POINTER_ALLOCATED;
  }
}

Status GpuNode(Context& ctx, const MemoryState& m, uint32_t node, uint16_t* out) {
  const uint16_t g = GpuOfNode(m, node);
  if (g == kNoGpu) {
    FixedText<64> t;
    t.Append("node ").AppendU64(node).Append(" is not a GPU node");
    return ctx.diag().Error(InvalidNode(), kArea, t.c_str());
  }
  *out = g;
  return Status::Ok();
}

}  // namespace

Status EnsureVm(Context& ctx) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  // The fast path of every call after the bring-up: no lock (MemoryState::
  // ready_epoch).
  const uint32_t epoch = device::OpenEpoch(ctx);
  if (ctx.memory().ready_epoch.load(std::memory_order_acquire) == uint64_t{epoch} + 1) {
    return Status::Ok();
  }
  if (ctx.discovery_only()) {
    return ctx.diag().Error(FailedPrecondition(), kArea,
                            "a discovery-only context has no GPU memory");
  }
  return EnsureTopologyAndVm(ctx);
}

Status QueryPointer(Context& ctx, uint64_t addr, HsaPointerInfo* out) {
  if (out == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  MemObject* o = m.initialized ? FindContaining(m, addr) : nullptr;
  // Scratch ranges and MMIO pages are not reported (upstream's lookup does
  // not search those apertures either).
  if (o == nullptr || IsInternal(o->kind) || o->kind == ObjectKind::kScratch) {
    return NotFound();
  }
  HsaPointerInfo info{};
  info.Type = TypeOf(*o);
  // An address-only reservation has no memory: upstream reports it on node
  // 0 whatever node reserved it, and without a CPU address (below).
  info.Node = o->kind == ObjectKind::kVaOnly ? 0 : o->node;
  info.MemFlags.Value = o->mem_flags;
  info.UserData = reinterpret_cast<void*>(static_cast<uintptr_t>(o->user_data));
  if (o->kind == ObjectKind::kUserptr) {
    // The BO maps the user's pages at a GPU VA of its own, same offset.
    info.CPUAddress = reinterpret_cast<void*>(static_cast<uintptr_t>(o->userptr));
    info.GPUAddress = o->va + (o->userptr & (static_cast<uint64_t>(m.page_size) - 1));
    info.SizeInBytes = o->userptr_size;
  } else {
    HsaMemFlags f;
    f.Value = o->mem_flags;
    const bool cpu_view = o->kind != ObjectKind::kNoAddress && o->kind != ObjectKind::kVaOnly &&
                          o->va_source != VaSource::kHandleArena &&
                          (o->kind != ObjectKind::kDmabufImport || (o->ipc_import && f.ui32.HostAccess));
    info.CPUAddress = cpu_view ? reinterpret_cast<void*>(static_cast<uintptr_t>(o->va)) : nullptr;
    info.GPUAddress = o->va;
    info.SizeInBytes = o->size;
  }
  if (!o->registered.Empty()) {
    const NodeList* l = NodeListFor(ctx, m, o->registered);
    if (l != nullptr) {
      info.NRegisteredNodes = l->count;
      info.RegisteredNodes = l->nodes;
    }
  }
  if (!o->mapped.Empty()) {
    const NodeList* l = NodeListFor(ctx, m, o->mapped);
    if (l != nullptr) {
      info.NMappedNodes = l->count;
      info.MappedNodes = l->nodes;
    }
  }
  *out = info;
  return Status::Ok();
}

Status SetUserData(Context& ctx, uint64_t addr, uint64_t user_data) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  // Upstream matches the start of the object only.
  MemObject* o = nullptr;
  const Status found = FindForCall(ctx, m, addr, 0, Owner::kCaller, "SetMemoryUserData", &o);
  if (found.is_api(HKE_STATUS_NOT_FOUND)) {
    return ctx.diag().Error(NotFound(), kArea, "SetMemoryUserData: no object starts there");
  }
  HKE_RETURN_IF_ERROR(found);
  o->user_data = user_data;
  return Status::Ok();
}

Status Available(Context& ctx, uint32_t node, uint64_t* out_bytes) {
  if (out_bytes == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  if (device::KfdMinor(ctx) < kfd::kMinorAvailableMemory) {
    return ctx.diag().Error(Unsupported(), kArea, "AVAILABLE_MEMORY needs KFD 1.9");
  }
  uint32_t gpu_id = 0;
  {
    LockGuard lock(ctx.memory_lock());
    uint16_t g = kNoGpu;
    HKE_RETURN_IF_ERROR(GpuNode(ctx, ctx.memory(), node, &g));
    gpu_id = ctx.memory().gpus[g].gpu_id;
  }
  kfd::GetAvailableMemoryArgs sent{};
  HKE_RETURN_IF_ERROR(kfd::EncodeAvailableMemory(gpu_id, &sent));
  kfd::GetAvailableMemoryArgs reply = sent;
  Status s = device::Ioctl(ctx, &reply);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "AVAILABLE_MEMORY failed");
  uint64_t bytes = 0;
  s = kfd::DecodeAvailableMemory(sent, reply, &bytes);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "AVAILABLE_MEMORY reply is malformed");
  *out_bytes = bytes;
  return Status::Ok();
}

namespace {

Status Xnack(Context& ctx, int32_t value, int32_t* out) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  kfd::SetXnackModeArgs a{};
  a.xnack_enabled = value;
  Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) {
    if (s.is_errno(err::kEBUSY)) {
      return ctx.diag().Error(s, kArea, "XNACK mode cannot change while queues exist");
    }
    return ctx.diag().Error(s, kArea, "SET_XNACK_MODE failed");
  }
  if (a.xnack_enabled != 0 && a.xnack_enabled != 1) {
    return ctx.diag().Error(Protocol(), kArea, "SET_XNACK_MODE answered a mode other than 0 or 1");
  }
  if (out != nullptr) *out = a.xnack_enabled;
  return Status::Ok();
}

}  // namespace

Status SetXnack(Context& ctx, int32_t enable) { return Xnack(ctx, enable != 0 ? 1 : 0, nullptr); }

Status GetXnack(Context& ctx, int32_t* out_enable) {
  if (out_enable == nullptr) return InvalidArgument();
  int32_t v = 0;
  HKE_RETURN_IF_ERROR(Xnack(ctx, -1, &v));
  *out_enable = v;
  return Status::Ok();
}

namespace {

bool IsLocationAttr(uint32_t type) {
  return type == kfd::kSvmAttrPreferredLoc || type == kfd::kSvmAttrPrefetchLoc ||
         type == kfd::kSvmAttrAccess || type == kfd::kSvmAttrAccessInPlace ||
         type == kfd::kSvmAttrNoAccess;
}
bool IsAccessAttr(uint32_t type) {
  return type == kfd::kSvmAttrAccess || type == kfd::kSvmAttrAccessInPlace ||
         type == kfd::kSvmAttrNoAccess;
}

// Node id -> KFD location: INVALID_NODEID is "undefined", the system node
// 0 (a CPU) is "sysmem", a GPU node its gpu_id. A CPU node in an ACCESS*
// attribute is INVALID_NODE_UNIT upstream (here INVALID_ARGUMENT).
Status NodeToLocation(Context& ctx, const MemoryState& m, uint32_t type, uint32_t node,
                      uint32_t* out) {
  if (node == 0xffffffffu) {
    *out = kfd::kSvmLocationUndefined;
    return Status::Ok();
  }
  const uint16_t g = GpuOfNode(m, node);
  if (g != kNoGpu) {
    *out = m.gpus[g].gpu_id;
    return Status::Ok();
  }
  if (!IsValidNode(m, node) || IsAccessAttr(type)) {
    return ctx.diag().Error(InvalidNode(), kArea, "an SVM attribute names a node that is not a GPU");
  }
  *out = kfd::kSvmLocationSysmem;
  return Status::Ok();
}

// False for a gpu_id this process does not see (a malformed reply).
bool LocationToNode(const MemoryState& m, uint32_t location, uint32_t* out_node) {
  if (location == kfd::kSvmLocationUndefined) {
    *out_node = 0xffffffffu;
    return true;
  }
  if (location == kfd::kSvmLocationSysmem) {
    *out_node = 0;
    return true;
  }
  for (uint32_t g = 0; g < m.num_gpus; ++g) {
    if (m.gpus[g].gpu_id == location) {
      *out_node = m.gpus[g].node;
      return true;
    }
  }
  return false;
}

Status SvmCall(Context& ctx, uint64_t start, uint64_t size, uint32_t nattr,
               HSA_SVM_ATTRIBUTE* attrs, uint32_t op) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (attrs == nullptr && nattr != 0) return InvalidArgument();
  if (nattr > kSvmAttrCapacity) {
    return ctx.diag().Error(Overflow(), kArea, "too many SVM attributes in one call");
  }
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  HKE_RETURN_IF_ERROR(RequirePrimary(ctx, kArea, "the SVM ioctl"));
  if (device::KfdMinor(ctx) < kfd::kMinorSvm) {
    return ctx.diag().Error(Unsupported(), kArea, "the SVM API needs KFD 1.5");
  }
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  if (op == kfd::kSvmOpSetAttr) HKE_RETURN_IF_ERROR(RefuseOwnedRange(ctx, m, start, size, "SVMSetAttr"));
  kfd::SvmAttribute* k = m.svm_attrs;
  for (uint32_t i = 0; i < nattr; ++i) {
    k[i].type = attrs[i].type;
    k[i].value = attrs[i].value;
    if (IsLocationAttr(attrs[i].type) && (op == kfd::kSvmOpSetAttr || IsAccessAttr(attrs[i].type))) {
      HKE_RETURN_IF_ERROR(NodeToLocation(ctx, m, attrs[i].type, attrs[i].value, &k[i].value));
    }
  }
  uint32_t request = 0;
  size_t bytes = 0;
  Status s = kfd::BuildSvmCommand(start, size, op, k, nattr, m.svm_buffer, sizeof(m.svm_buffer),
                                  &request, &bytes, m.page_size);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the SVM request is invalid");
  s = device::KfdIoctl(ctx, request, m.svm_buffer);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "the SVM ioctl failed");
  if (op == kfd::kSvmOpGetAttr) {
    s = kfd::DecodeSvmGetReply(m.svm_buffer, bytes, start, size, nattr, k, kSvmAttrCapacity);
    if (!s.ok()) return ctx.diag().Error(s, kArea, "the SVM GET_ATTR reply is malformed");
    // Translate everything first, then publish: a bad reply leaves the
    // caller's attributes as they were.
    for (uint32_t i = 0; i < nattr; ++i) {
      if (k[i].type != attrs[i].type &&
          !(IsAccessAttr(k[i].type) && IsAccessAttr(attrs[i].type))) {
        return ctx.diag().Error(Protocol(), kArea,
                                "the SVM GET_ATTR reply is malformed: another attribute type than asked");
      }
      if (IsLocationAttr(k[i].type) && !LocationToNode(m, k[i].value, &k[i].value)) {
        return ctx.diag().Error(Protocol(), kArea,
                                "the SVM GET_ATTR reply is malformed: a gpu_id this process does not see");
      }
    }
    for (uint32_t i = 0; i < nattr; ++i) {
      attrs[i].type = k[i].type;
      attrs[i].value = k[i].value;
    }
  }
  return Status::Ok();
}

}  // namespace

Status SvmSetAttr(Context& ctx, uint64_t start, uint64_t size, uint32_t nattr,
                  const HSA_SVM_ATTRIBUTE* attrs) {
  return SvmCall(ctx, start, size, nattr, const_cast<HSA_SVM_ATTRIBUTE*>(attrs),
                 kfd::kSvmOpSetAttr);
}

Status SvmGetAttr(Context& ctx, uint64_t start, uint64_t size, uint32_t nattr,
                  HSA_SVM_ATTRIBUTE* attrs) {
  return SvmCall(ctx, start, size, nattr, attrs, kfd::kSvmOpGetAttr);
}

Status ExportDmabuf(Context& ctx, uint64_t addr, uint64_t size, uint64_t flags, int* out_fd,
                    uint64_t* out_offset) {
  if (out_fd == nullptr || out_offset == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (size == 0) return InvalidArgument();
  if (flags != 0) return ctx.diag().Error(InvalidArgument(), kArea, "no dma-buf flags are defined");
  HKE_RETURN_IF_ERROR(EnsureVm(ctx));
  if (device::KfdMinor(ctx) < kfd::kMinorExportDmabuf) {
    return ctx.diag().Error(Unsupported(), kArea, "EXPORT_DMABUF needs KFD 1.12");
  }
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  MemObject* o = FindContaining(m, addr);
  // Scratch backing lies inside the caller's scratch range.
  if (o != nullptr && o->kind == ObjectKind::kScratch) {
    if (MemObject* slice = FindOwnedContaining(m, addr)) o = slice;
  }
  if (o != nullptr && o->owner != Owner::kCaller) return RefuseOwned(ctx, *o, "ExportDMABufHandle");
  if (o == nullptr || o->handle == 0 || IsInternal(o->kind)) {
    return ctx.diag().Error(NotFound(), kArea, "ExportDMABufHandle: no buffer at that address");
  }
  const uint64_t base = o->kind == ObjectKind::kUserptr ? o->userptr : o->va;
  const uint64_t limit = o->kind == ObjectKind::kUserptr ? o->userptr_size : o->size;
  uint64_t end = 0;
  if (addr < base || !CheckedAdd(addr - base, size, &end) || end > limit) {
    return ctx.diag().Error(OutOfRange(), kArea, "the range crosses the end of the buffer");
  }
  kfd::ExportDmabufArgs a{};
  a.handle = o->handle;
  a.flags = 02000000;  // O_CLOEXEC (the kernel takes open(2) flags)
  Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Error(s, kArea, "EXPORT_DMABUF failed");
  if (static_cast<int32_t>(a.dmabuf_fd) < 0) {
    return ctx.diag().Error(Protocol(), kArea, "EXPORT_DMABUF returned a negative descriptor");
  }
  *out_fd = static_cast<int>(a.dmabuf_fd);
  *out_offset = addr - o->va;
  return Status::Ok();
}

Status MarkKernelOwned(Context& ctx, uint64_t addr) {
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  MemObject* o = m.initialized ? FindExact(m, addr) : nullptr;
  if (o == nullptr || o->handle == 0) return NotFound();
  o->kernel_owned = true;
  return Status::Ok();
}

Status BufferHandle(Context& ctx, uint64_t addr, uint64_t* out_handle, uint32_t* out_gpu_id) {
  if (out_handle == nullptr || out_gpu_id == nullptr) return InvalidArgument();
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  MemObject* o = m.initialized ? FindExact(m, addr) : nullptr;
  if (o == nullptr || o->handle == 0 || o->gpu == kNoGpu) return NotFound();
  *out_handle = o->handle;
  *out_gpu_id = m.gpus[o->gpu].gpu_id;
  return Status::Ok();
}

Status GetStats(Context& ctx, Stats* out) {
  return ReadLocked(ctx.memory_lock(), out, [&m = ctx.memory()] {
    Stats s{};
    s.live_objects = m.objects.live();
    s.object_capacity = kMaxObjects;
    s.range_nodes_used = m.nodes.used();
    s.range_nodes_capacity = m.nodes.capacity();
    s.handle_free_bytes = m.handle_arena.initialized() ? m.handle_arena.FreeBytes() : 0;
    return s;
  });
}

Status CheckInvariants(Context& ctx) {
  LockGuard lock(ctx.memory_lock());
  MemoryState& m = ctx.memory();
  const char* why = nullptr;
  Status s = m.va_index.CheckInvariants(&why);
  if (s.ok()) s = m.user_index.CheckInvariants(&why);
  if (s.ok()) s = m.owned_index.CheckInvariants(&why);
  if (s.ok() && m.handle_arena.initialized()) s = m.handle_arena.CheckInvariants(&why);
  if (s.ok() && m.svm_arena.initialized()) s = m.svm_arena.CheckInvariants(&why);
  if (s.ok() && m.svm_coherent_arena.initialized()) s = m.svm_coherent_arena.CheckInvariants(&why);
  if (!s.ok()) return ctx.diag().Error(s, kArea, why != nullptr ? why : "index invariant");
  // Every live object is in each index its kind and owner call for, once,
  // and every index entry names a live object whose key matches.
  uint32_t live = 0, users = 0, owned = 0, slices = 0;
  for (uint32_t i = 0; i < m.objects.high_water(); ++i) {
    const MemObject& o = m.objects[i];
    if (o.in_use != m.objects.IsUsed(i)) {
      return ctx.diag().Error(Status::Api(HKE_STATUS_INTERNAL), kArea,
                              "an object's in_use disagrees with the object table");
    }
    if (!m.objects.IsUsed(i)) continue;
    ++live;
    const bool user = o.kind == ObjectKind::kUserptr;
    const bool slice = o.kind == ObjectKind::kScratchSlice;
    const bool lib = o.owner != Owner::kCaller;
    users += user ? 1 : 0;
    owned += lib ? 1 : 0;
    slices += slice ? 1 : 0;
    if ((o.index_node == kNil) != slice || user != (o.user_index_node != kNil) ||
        lib != (o.owned_index_node != kNil)) {
      return ctx.diag().Error(Status::Api(HKE_STATUS_INTERNAL), kArea, "an object is not indexed");
    }
    RangeBTree::Entry e{};
    const bool va_ok = slice || (m.va_index.FindExact(o.va, &e) && e.value == i && e.size == o.size);
    const RangeNode* u = user ? &m.user_index.node(o.user_index_node) : nullptr;
    const RangeNode* w = lib ? &m.owned_index.node(o.owned_index_node) : nullptr;
    if (!va_ok || (u != nullptr && (u->value != i || u->start != o.userptr || u->size != o.userptr_size)) ||
        (w != nullptr && (w->value != i || w->start != o.va || w->size != o.size))) {
      return ctx.diag().Error(Status::Api(HKE_STATUS_INTERNAL), kArea,
                              "an index entry names another object or range");
    }
  }
  if (live != m.objects.live() || live - slices != m.va_index.count() ||
      users != m.user_index.count() || owned != m.owned_index.count()) {
    return ctx.diag().Error(Status::Api(HKE_STATUS_INTERNAL), kArea,
                            "the object count disagrees with the indexes");
  }
  return Status::Ok();
}

}  // namespace hke::memory
