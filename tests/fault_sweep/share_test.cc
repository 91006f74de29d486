// Fault sweep: dma-buf export + graphics import (map, unmap, deregister),
// and IPC share handles (share, import, deregister).
#include <unistd.h>

#include <cstring>

#include "doctest/doctest.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

constexpr uint64_t kSize = 1 << 20;

// A host-visible VRAM buffer made in arrange and freed in cleanup.
class Shared : public sweep::Body {
 public:
  void Arrange(Run& r) override {
    HsaMemFlags f = sweep::Flags();
    f.ui32.NonPaged = 1;
    f.ui32.HostAccess = 1;
    r.Require("hsaKmtAllocMemory", hsaKmtAllocMemory(r.gpu_node(0), kSize, f, &p_));
    if (p_ != nullptr) std::memset(p_, 0x42, kSize);
  }
  void Cleanup(Run& r) override {
    if (p_ != nullptr) r.Require("hsaKmtFreeMemory", hsaKmtFreeMemory(p_, kSize));
  }

 protected:
  void* p_ = nullptr;
};

class DmabufImport : public Shared {
 public:
  void Act(Run& r) override {
    if (p_ == nullptr) return;
    int fd = -1;
    HSAuint64 off = 0;
    if (r.Step("hsaKmtExportDMABufHandle",
               [&] { return hsaKmtExportDMABufHandle(p_, kSize, &fd, &off); },
               {{&fd, sizeof(fd)}, {&off, sizeof(off)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    HSAuint32 nodes[] = {r.gpu_node(0), r.gpu_node(1)};
    HsaGraphicsResourceInfo info;
    if (r.Step("hsaKmtRegisterGraphicsHandleToNodes",
               [&] {
                 return hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(fd), &info, 2,
                                                            nodes);
               },
               {{&info, sizeof(info)}}) == HSAKMT_STATUS_SUCCESS) {
      void* q = info.MemoryAddress;
      if (r.Step("hsaKmtMapMemoryToGPU", [&] {
            return hsaKmtMapMemoryToGPU(q, info.SizeInBytes, nullptr);
          }) == HSAKMT_STATUS_SUCCESS) {
        r.MustRecover("hsaKmtUnmapMemoryToGPU", [&] { return hsaKmtUnmapMemoryToGPU(q); });
      }
      r.MustRecover("hsaKmtDeregisterMemory", [&] { return hsaKmtDeregisterMemory(q); });
    }
    ::close(fd);  // the exported descriptor belongs to the caller
  }
};

class IpcImport : public Shared {
 public:
  void Act(Run& r) override {
    if (p_ == nullptr) return;
    HsaSharedMemoryHandle h;
    if (r.Step("hsaKmtShareMemory", [&] { return hsaKmtShareMemory(p_, kSize, &h); },
               {{&h, sizeof(h)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    void* q = nullptr;
    HSAuint64 size = 0;
    if (r.Step("hsaKmtRegisterSharedHandle",
               [&] { return hsaKmtRegisterSharedHandle(&h, &q, &size); },
               {{&q, sizeof(q)}, {&size, sizeof(size)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    if (static_cast<unsigned char*>(q)[4096] != 0x42) r.Violation("the import shows other pages");
    r.MustRecover("hsaKmtDeregisterMemory", [&] { return hsaKmtDeregisterMemory(q); });
  }
};

}  // namespace

TEST_CASE(
    "fault sweep: ExportDMABufHandle + RegisterGraphicsHandleToNodes/Map/Unmap/Deregister leave no "
    "fd, slot, VA or BO behind") {
  sweep::Scenario s;
  s.name = "dma-buf export + graphics import";
  s.make = [] { return std::make_unique<DmabufImport>(); };
  sweep::Report(s, sweep::Sweep(s));
}

TEST_CASE(
    "fault sweep: ShareMemory + RegisterSharedHandle/Deregister leave no slot, VA, mapping or BO "
    "behind") {
  sweep::Scenario s;
  s.name = "IPC share + import";
  s.make = [] { return std::make_unique<IpcImport>(); };
  sweep::Report(s, sweep::Sweep(s));
}
