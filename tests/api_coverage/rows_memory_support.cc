// Coverage rows: the memory API (allocation, registration, sharing, mapping,
// queries, SVM, XNACK).
#include <unistd.h>

#include <cstring>

#include "tests/api_coverage/coverage.h"

namespace covtest {
namespace {

constexpr uint64_t kSize = 1u << 16;

HsaPointerInfo Info(const void* p) {
  HsaPointerInfo i{};
  if (hsaKmtQueryPointerInfo(p, &i) != HSAKMT_STATUS_SUCCESS) i.Type = HSA_POINTER_UNKNOWN;
  return i;
}

// The first GPU's MMIO page (its MMIO_REMAP bank): a buffer the library owns.
void* MmioPage(Env& e) {
  const uint32_t node = e.Gpu();
  HsaNodeProperties p{};
  REQUIRE(hsaKmtGetNodeProperties(node, &p) == HSAKMT_STATUS_SUCCESS);
  HsaMemoryProperties banks[16] = {};
  REQUIRE(p.NumMemoryBanks <= 16);
  REQUIRE(hsaKmtGetNodeMemoryProperties(node, p.NumMemoryBanks, banks) == HSAKMT_STATUS_SUCCESS);
  for (uint32_t i = 0; i < p.NumMemoryBanks; ++i) {
    if (banks[i].HeapType == HSA_HEAPTYPE_MMIO_REMAP) {
      return reinterpret_cast<void*>(static_cast<uintptr_t>(banks[i].VirtualBaseAddress));
    }
  }
  FAIL("no MMIO_REMAP bank");
  return nullptr;
}

// An address the library has never heard of.
void* Unknown() {
  static int local;
  return &local;
}

HsaMemFlags VramFlags() {
  HsaMemFlags f = hketest::Flags();
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  return f;
}

// A dma-buf of a fresh VRAM buffer of Gpu(); the caller closes it.
int DmaBuf(Env& e) {
  void* p = e.Vram(kSize);
  int fd = -1;
  HSAuint64 off = 0;
  REQUIRE(hsaKmtExportDMABufHandle(p, kSize, &fd, &off) == HSAKMT_STATUS_SUCCESS);
  return fd;
}

Outcome ImportGraphics(Env& e, bool ext) {
  const int fd = DmaBuf(e);
  uint32_t node = e.Gpu();
  HsaGraphicsResourceInfo info{};
  HSA_REGISTER_MEM_FLAGS rf;
  rf.Value = 0;
  rf.ui32.requiresVAddr = 1;
  e.Mark();
  const HSAKMT_STATUS s =
      ext ? hsaKmtRegisterGraphicsHandleToNodesExt(static_cast<HSAuint64>(fd), &info, 1, &node, rf)
          : hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(fd), &info, 1, &node);
  close(fd);
  return e.Ok(s,
              e.Saw("IMPORT_DMABUF") && info.SizeInBytes == kSize && info.NodeId == node &&
                  Info(info.MemoryAddress).Type == HSA_POINTER_REGISTERED_GRAPHICS,
              "IMPORT_DMABUF; a REGISTERED_GRAPHICS range of the exporter's size");
}

// Shares a VRAM buffer and imports it again (to `nodes`, when given).
Outcome ImportShared(Env& e, bool to_nodes) {
  void* p = e.Vram(kSize);
  HsaSharedMemoryHandle h;
  REQUIRE(hsaKmtShareMemory(p, kSize, &h) == HSAKMT_STATUS_SUCCESS);
  uint32_t node = e.Gpu();
  void* q = nullptr;
  HSAuint64 size = 0;
  const HSAKMT_STATUS s = to_nodes ? hsaKmtRegisterSharedHandleToNodes(&h, &q, &size, 1, &node)
                                   : hsaKmtRegisterSharedHandle(&h, &q, &size);
  const HsaPointerInfo i = Info(q);
  return e.Ok(s,
              size == kSize && q != p && i.Type == HSA_POINTER_REGISTERED_SHARED &&
                  (!to_nodes || i.NRegisteredNodes == 1),
              "a REGISTERED_SHARED range of the same size");
}

// Registers host memory through `reg`. A dGPU with the SVM API (KFD >= 1.5,
// as here) registers user memory as an SVM range, as upstream does: one
// SVM ioctl, and no record for QueryPointerInfo.
template <typename Reg>
Outcome RegisterHost(Env& e, Reg reg) {
  e.Open();
  void* h = e.Host(kSize);
  e.Mark();
  const HSAKMT_STATUS s = reg(h);
  return e.Ok(s, e.Saw("SVM"), "an SVM SET_ATTR for the range");
}

// A VRAM buffer of Gpu() registered to Gpu() only.
void* RegisteredVram(Env& e) {
  void* p = e.Vram(kSize);
  uint32_t node = e.Gpu();
  REQUIRE(hsaKmtRegisterMemoryToNodes(p, kSize, 1, &node) == HSAKMT_STATUS_SUCCESS);
  return p;
}

HsaMemFlags HostFlags() {
  HsaMemFlags f = hketest::Flags();
  f.ui32.HostAccess = 1;
  return f;
}

// A call before hsaKmtOpenKFD: KERNEL_IO_CHANNEL_NOT_OPENED.
template <typename Call>
Outcome Closed(Env& e, Call call) {
  const HSAKMT_STATUS s = call(Unknown());
  return e.Expect(s, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED, e.Quiet(), "not opened");
}

// A mapped VRAM buffer of Gpu(), unmapped through `unmap`.
template <typename Unmap>
Outcome MapThenUnmap(Env& e, Unmap unmap) {
  void* p = e.Vram(kSize);
  REQUIRE(hsaKmtMapMemoryToGPU(p, kSize, nullptr) == HSAKMT_STATUS_SUCCESS);
  e.Mark();
  const HSAKMT_STATUS s = unmap(p);
  return e.Ok(s, e.Saw("UNMAP_MEMORY_FROM_GPU") && Info(p).NMappedNodes == 0,
              "UNMAP_MEMORY_FROM_GPU; no node maps it afterwards");
}

// A call on an address the library does not know: `want`, no ioctl.
template <typename Call>
Outcome OnUnknown(Env& e, HSAKMT_STATUS want, Call call) {
  e.Open();
  e.Mark();
  const HSAKMT_STATUS s = call(Unknown());
  return e.Expect(s, want, e.Quiet(), "an unknown address, no ioctl");
}

// An SVM range of host memory with Gpu() as its preferred location.
void* SvmRange(Env& e, uint64_t size) {
  void* h = e.Host(size);
  HSA_SVM_ATTRIBUTE a[] = {{HSA_SVM_ATTR_PREFERRED_LOC, e.Gpu()}, {HSA_SVM_ATTR_ACCESS, e.Gpu()}};
  e.Mark();
  REQUIRE(hsaKmtSVMSetAttr(h, size, 2, a) == HSAKMT_STATUS_SUCCESS);
  return h;
}

// NULL attributes with a count: INVALID_PARAMETER before any ioctl (after
// the open check, which comes first).
template <typename Call>
Outcome SvmNullAttrs(Env& e, Call call) {
  e.Open();
  void* h = e.Host(kSize);
  e.Mark();
  const HSAKMT_STATUS s = call(h, kSize, 1, nullptr);
  return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(), "NULL attributes, no ioctl");
}

}  // namespace

void AddMemoryRows(std::vector<Row>* rows) {
  const std::vector<Row> r = {
      {"hsaKmtAllocMemory", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         void* p = nullptr;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtAllocMemory(n, kSize, VramFlags(), &p);
         return e.Ok(s, p != nullptr && e.Saw("ALLOC_MEMORY_OF_GPU") &&
                            Info(p).Type == HSA_POINTER_ALLOCATED,
                     "ALLOC_MEMORY_OF_GPU; an ALLOCATED pointer");
       },
       [](Env& e) {
         const uint32_t n = e.NumNodes();
         Poisoned<void*> p;
         const HSAKMT_STATUS s = hsaKmtAllocMemory(n, kSize, VramFlags(), &p.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, p.untouched(),
                         "a node outside the topology, address untouched");
       }},
      {"hsaKmtAllocMemoryAlign", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         void* p = nullptr;
         const HSAKMT_STATUS s = hsaKmtAllocMemoryAlign(n, kSize, 1u << 21, VramFlags(), &p);
         return e.Ok(s, p != nullptr && reinterpret_cast<uintptr_t>(p) % (1u << 21) == 0,
                     "2 MiB aligned");
       },
       [](Env& e) {
         const uint32_t n = e.Gpu();
         Poisoned<void*> p;
         const HSAKMT_STATUS s = hsaKmtAllocMemoryAlign(n, kSize, 3 * 4096, VramFlags(), &p.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, p.untouched(),
                         "an alignment that is not a power of two, address untouched");
       }},
      {"hsaKmtFreeMemory", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtFreeMemory(p, kSize);
         return e.Ok(s, e.Saw("FREE_MEMORY_OF_GPU") && Info(p).Type == HSA_POINTER_UNKNOWN,
                     "FREE_MEMORY_OF_GPU; the pointer is unknown afterwards");
       },
       [](Env& e) {
         return OnUnknown(e, HSAKMT_STATUS_INVALID_PARAMETER,
                          [](void* p) { return hsaKmtFreeMemory(p, kSize); });
       }},
      {"hsaKmtAvailableMemory", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         HSAuint64 avail = 0;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtAvailableMemory(n, &avail);
         return e.Ok(s, avail > 0 && e.Saw("AVAILABLE_MEMORY"), "AVAILABLE_MEMORY, nonzero");
       },
       [](Env& e) {
         const uint32_t cpu = e.Cpu();
         Poisoned<HSAuint64> avail;
         const HSAKMT_STATUS s = hsaKmtAvailableMemory(cpu, &avail.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, avail.untouched(), "CPU node");
       }},
      {"hsaKmtRegisterMemory", Kind::kReal,
       [](Env& e) { return RegisterHost(e, [](void* h) { return hsaKmtRegisterMemory(h, kSize); }); },
       [](Env& e) {
         e.Open();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtRegisterMemory(e.Host(kSize), 0);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(), "size 0, no ioctl");
       }},
      // On the library's own allocation registration records the node set.
      {"hsaKmtRegisterMemoryToNodes", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         uint32_t node = e.Gpu2();
         const HSAKMT_STATUS s = hsaKmtRegisterMemoryToNodes(p, kSize, 1, &node);
         return e.Ok(s, Info(p).NRegisteredNodes == 1, "QueryPointerInfo: one registered node");
       },
       [](Env& e) {
         e.Open();
         const HSAKMT_STATUS s = hsaKmtRegisterMemoryToNodes(e.Host(kSize), kSize, 1, nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, true, "NULL node array");
       }},
      {"hsaKmtRegisterMemoryWithFlags", Kind::kReal,
       [](Env& e) {
         return RegisterHost(e, [](void* h) { return hsaKmtRegisterMemoryWithFlags(h, kSize, HostFlags()); });
       },
       [](Env& e) {
         e.Open();
         HsaMemFlags f = HostFlags();
         f.ui32.NonPaged = 1;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtRegisterMemoryWithFlags(e.Host(kSize), kSize, f);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER,
                         e.Quiet() && e.DiagHas("HostAccess and paged"), "NonPaged, no ioctl");
       }},
      {"hsaKmtRegisterGraphicsHandleToNodes", Kind::kReal,
       [](Env& e) { return ImportGraphics(e, false); },
       [](Env& e) {
         const int fd = DmaBuf(e);
         Poisoned<HsaGraphicsResourceInfo> info;
         const HSAKMT_STATUS s =
             hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(fd) + 1000, &info.v, 0, nullptr);
         close(fd);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, info.untouched(),
                         "not a dma-buf (the kernel's EINVAL), info untouched");
       }},
      {"hsaKmtRegisterGraphicsHandleToNodesExt", Kind::kReal,
       [](Env& e) { return ImportGraphics(e, true); },
       [](Env& e) {
         const int fd = DmaBuf(e);
         HSA_REGISTER_MEM_FLAGS rf;
         rf.Value = 0;
         e.Mark();
         const HSAKMT_STATUS s =
             hsaKmtRegisterGraphicsHandleToNodesExt(static_cast<HSAuint64>(fd), nullptr, 0, nullptr, rf);
         close(fd);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(), "NULL info, no ioctl");
       }},
      {"hsaKmtExportDMABufHandle", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         int fd = -1;
         HSAuint64 off = 1;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtExportDMABufHandle(p, kSize, &fd, &off);
         const bool seen = e.Saw("EXPORT_DMABUF") && fd >= 0 && off == 0;
         if (fd >= 0) close(fd);
         return e.Ok(s, seen, "EXPORT_DMABUF; a descriptor, offset 0");
       },
       [](Env& e) {
         e.Open();
         Poisoned<int> fd;
         Poisoned<HSAuint64> off;
         const HSAKMT_STATUS s = hsaKmtExportDMABufHandle(Unknown(), 4, &fd.v, &off.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, fd.untouched() && off.untouched(),
                         "an unknown address, outputs untouched");
       }},
      {"hsaKmtShareMemory", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         HsaSharedMemoryHandle h;
         std::memset(h, 0, sizeof(h));
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtShareMemory(p, kSize, &h);
         bool filled = false;
         for (HSAuint32 w : h) filled |= w != 0;
         return e.Ok(s, filled && !e.Quiet(), "a handle from the kernel");
       },
       [](Env& e) {
         e.Open();
         Poisoned<HsaSharedMemoryHandle> h;
         const HSAKMT_STATUS s = hsaKmtShareMemory(Unknown(), 4, &h.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, h.untouched(),
                         "an unknown address, handle untouched");
       }},
      {"hsaKmtRegisterSharedHandle", Kind::kReal, [](Env& e) { return ImportShared(e, false); },
       [](Env& e) {
         e.Open();
         HsaSharedMemoryHandle forged;
         std::memset(forged, 0, sizeof(forged));
         Poisoned<void*> q;
         Poisoned<HSAuint64> size;
         const HSAKMT_STATUS s = hsaKmtRegisterSharedHandle(&forged, &q.v, &size.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, q.untouched() && size.untouched(),
                         "a forged handle, outputs untouched");
       }},
      {"hsaKmtRegisterSharedHandleToNodes", Kind::kReal,
       [](Env& e) { return ImportShared(e, true); },
       [](Env& e) {
         e.Open();
         HsaSharedMemoryHandle h;
         std::memset(h, 0, sizeof(h));
         HSAuint64 size = 0;
         uint32_t node = e.Gpu();
         const HSAKMT_STATUS s = hsaKmtRegisterSharedHandleToNodes(&h, nullptr, &size, 1, &node);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, size == 0, "NULL MemoryAddress");
       }},
      {"hsaKmtDeregisterMemory", Kind::kReal,
       [](Env& e) {
         void* p = RegisteredVram(e);
         const HSAKMT_STATUS s = hsaKmtDeregisterMemory(p);
         return e.Ok(s, Info(p).NRegisteredNodes == 0, "no registered node afterwards");
       },
       [](Env& e) {
         void* mmio = MmioPage(e);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtDeregisterMemory(mmio);
         return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE,
                         e.Quiet() && e.DiagHas("belongs to the library"),
                         "the library's MMIO page: refused, no ioctl");
       }},
      {"hsaKmtMapMemoryToGPU", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtMapMemoryToGPU(p, kSize, nullptr);
         return e.Ok(s, e.Saw("MAP_MEMORY_TO_GPU") && Info(p).NMappedNodes != 0,
                     "MAP_MEMORY_TO_GPU; mapped afterwards");
       },
       [](Env& e) {
         e.Open();
         Poisoned<HSAuint64> alt;
         const HSAKMT_STATUS s = hsaKmtMapMemoryToGPU(nullptr, kSize, &alt.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, alt.untouched(), "NULL address");
       }},
      {"hsaKmtMapMemoryToGPUNodes", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         uint32_t nodes[] = {e.Gpu(), e.Gpu2()};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtMapMemoryToGPUNodes(p, kSize, nullptr, HsaMemMapFlags{}, 2, nodes);
         return e.Ok(s, e.Saw("MAP_MEMORY_TO_GPU") && Info(p).NMappedNodes == 2,
                     "MAP_MEMORY_TO_GPU; mapped on the two nodes");
       },
       [](Env& e) {
         void* p = e.Vram(kSize);
         uint32_t node = e.Gpu();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtMapMemoryToGPUNodes(p, kSize, nullptr, HsaMemMapFlags{}, 0, &node);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(), "no nodes, no ioctl");
       }},
      {"hsaKmtUnmapMemoryToGPU", Kind::kReal,
       [](Env& e) { return MapThenUnmap(e, hsaKmtUnmapMemoryToGPU); },
       // An unknown address is SUCCESS with the SVM API (SVM ranges keep no
       // record, lib/memory/map.cc), so the error path is the closed device.
       [](Env& e) { return Closed(e, hsaKmtUnmapMemoryToGPU); }},
      {"hsaKmtUnmapGraphicHandle", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         return MapThenUnmap(e, [n](void* p) {
           return hsaKmtUnmapGraphicHandle(n, reinterpret_cast<uintptr_t>(p), kSize);
         });
       },
       [](Env& e) {
         return Closed(e, [](void* p) {
           return hsaKmtUnmapGraphicHandle(0, reinterpret_cast<uintptr_t>(p), kSize);
         });
       }},
      {"hsaKmtQueryPointerInfo", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         HsaPointerInfo i{};
         const HSAKMT_STATUS s = hsaKmtQueryPointerInfo(p, &i);
         return e.Ok(s,
                     i.Type == HSA_POINTER_ALLOCATED && i.SizeInBytes == kSize &&
                         i.Node == e.Gpu() && i.CPUAddress == p,
                     "ALLOCATED, its size, node and CPU address");
       },
       [](Env& e) {
         e.Open();
         HsaPointerInfo i;
         std::memset(&i, 0xA5, sizeof(i));
         const HSAKMT_STATUS s = hsaKmtQueryPointerInfo(Unknown(), &i);
         return e.Expect(s, HSAKMT_STATUS_ERROR, i.Type == HSA_POINTER_UNKNOWN,
                         "upstream's answer for an unknown pointer: ERROR and Type UNKNOWN");
       }},
      {"hsaKmtSetMemoryUserData", Kind::kReal,
       [](Env& e) {
         void* p = e.Vram(kSize);
         static int marker;
         const HSAKMT_STATUS s = hsaKmtSetMemoryUserData(p, &marker);
         return e.Ok(s, Info(p).UserData == &marker, "QueryPointerInfo returns the user data");
       },
       [](Env& e) {
         return OnUnknown(e, HSAKMT_STATUS_ERROR,
                          [](void* p) { return hsaKmtSetMemoryUserData(p, p); });
       }},
      {"hsaKmtSVMSetAttr", Kind::kReal,
       [](Env& e) {
         e.Open();
         void* h = e.Host(kSize);
         HSA_SVM_ATTRIBUTE a[] = {{HSA_SVM_ATTR_PREFERRED_LOC, e.Gpu()}};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSVMSetAttr(h, kSize, 1, a);
         return e.Ok(s, e.Saw("SVM"), "the SVM ioctl");
       },
       [](Env& e) { return SvmNullAttrs(e, hsaKmtSVMSetAttr); }},
      {"hsaKmtSVMGetAttr", Kind::kReal,
       [](Env& e) {
         void* h = SvmRange(e, kSize);
         HSA_SVM_ATTRIBUTE a[] = {{HSA_SVM_ATTR_PREFERRED_LOC, 0}};
         const HSAKMT_STATUS s = hsaKmtSVMGetAttr(h, kSize, 1, a);
         return e.Ok(s, a[0].value == e.Gpu(), "the preferred location set before, as a node id");
       },
       [](Env& e) { return SvmNullAttrs(e, hsaKmtSVMGetAttr); }},
      {"hsaKmtSetXNACKMode", Kind::kReal,
       [](Env& e) {
         e.Open();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetXNACKMode(1);
         HSAint32 mode = -1;
         return e.Ok(s,
                     e.Saw("SET_XNACK_MODE") && hsaKmtGetXNACKMode(&mode) == HSAKMT_STATUS_SUCCESS &&
                         mode == 1,
                     "SET_XNACK_MODE; GetXNACKMode reads 1 back");
       },
       [](Env& e) { return Closed(e, [](void*) { return hsaKmtSetXNACKMode(1); }); }},
      {"hsaKmtGetXNACKMode", Kind::kReal,
       [](Env& e) {
         e.Open();
         HSAint32 mode = -1;
         const HSAKMT_STATUS s = hsaKmtGetXNACKMode(&mode);
         return e.Ok(s, mode == 0 || mode == 1, "0 or 1");
       },
       [](Env& e) {
         e.Open();
         const HSAKMT_STATUS s = hsaKmtGetXNACKMode(nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, true, "NULL output");
       }},
  };
  rows->insert(rows->end(), r.begin(), r.end());
}

}  // namespace covtest
