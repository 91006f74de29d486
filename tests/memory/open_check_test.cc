// Every memory call checks that the KFD is open before it looks at its
// inputs (hsakmt.h's convention): with the device closed, before the first
// open and after the last close, each answers KERNEL_IO_CHANNEL_NOT_OPENED
// whatever it is given, NULL addresses included (only a NULL output comes
// first: INVALID_PARAMETER).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/memory/support.h"

using memtest::Flags;
using memtest::SimBoard;

namespace {

std::vector<std::pair<const char*, std::function<HSAKMT_STATUS()>>> Calls() {
  static HSAuint64 u64;
  static int fd;
  static HsaSharedMemoryHandle share;
  static HsaPointerInfo info;
  static HsaGraphicsResourceInfo gfx;
  static HSAint32 mode;
  static void* out;
  static HSA_SVM_ATTRIBUTE attr;
  static HSAuint32 node = 2;
  return {
      {"UnmapMemoryToGPU(NULL)", [] { return hsaKmtUnmapMemoryToGPU(nullptr); }},
      {"UnmapGraphicHandle(0)", [] { return hsaKmtUnmapGraphicHandle(0, 0, 0); }},
      {"MapMemoryToGPU(NULL)", [] { return hsaKmtMapMemoryToGPU(nullptr, 4096, &u64); }},
      {"MapMemoryToGPUNodes(NULL, no nodes)",
       [] { return hsaKmtMapMemoryToGPUNodes(nullptr, 4096, &u64, HsaMemMapFlags{}, 0, nullptr); }},
      {"FreeMemory(NULL)", [] { return hsaKmtFreeMemory(nullptr, 4096); }},
      {"DeregisterMemory(NULL)", [] { return hsaKmtDeregisterMemory(nullptr); }},
      {"RegisterMemory(NULL, 0)", [] { return hsaKmtRegisterMemory(nullptr, 0); }},
      {"RegisterMemoryToNodes(no nodes)",
       [] { return hsaKmtRegisterMemoryToNodes(&u64, 8, 0, nullptr); }},
      {"RegisterMemoryWithFlags(no HostAccess)",
       [] { return hsaKmtRegisterMemoryWithFlags(&u64, 8, Flags()); }},
      {"SetMemoryUserData(NULL)", [] { return hsaKmtSetMemoryUserData(nullptr, nullptr); }},
      {"QueryPointerInfo(NULL)", [] { return hsaKmtQueryPointerInfo(nullptr, &info); }},
      {"ShareMemory(NULL)", [] { return hsaKmtShareMemory(nullptr, 0, &share); }},
      {"RegisterSharedHandle(forged)",
       [] { return hsaKmtRegisterSharedHandle(&share, &out, &u64); }},
      {"ExportDMABufHandle(size 0)", [] { return hsaKmtExportDMABufHandle(&u64, 0, &fd, &u64); }},
      {"RegisterGraphicsHandleToNodes(bad fd, NULL nodes)",
       [] { return hsaKmtRegisterGraphicsHandleToNodes(~0ull, &gfx, 1, nullptr); }},
      {"SVMSetAttr(NULL attrs)", [] { return hsaKmtSVMSetAttr(nullptr, 0, 1, nullptr); }},
      {"SVMGetAttr(NULL attrs)", [] { return hsaKmtSVMGetAttr(nullptr, 0, 1, nullptr); }},
      {"SVMSetAttr(too many)", [] { return hsaKmtSVMSetAttr(&u64, 4096, 100000, &attr); }},
      {"AllocMemory(size 0)", [] { return hsaKmtAllocMemory(0, 0, Flags(), &out); }},
      {"AvailableMemory(bad node)", [] { return hsaKmtAvailableMemory(999, &u64); }},
      {"SetXNACKMode", [] { return hsaKmtSetXNACKMode(1); }},
      {"GetXNACKMode", [] { return hsaKmtGetXNACKMode(&mode); }},
      {"RegisterMemoryToNodes(node)",
       [] { return hsaKmtRegisterMemoryToNodes(&u64, 8, 1, &node); }},
  };
}

}  // namespace

TEST_CASE(
    "every memory call checks the open state first: closed, each is KERNEL_IO_CHANNEL_NOT_OPENED "
    "whatever its inputs") {
  struct Mode {
    const char* board;
    uint32_t flags;
  };
  for (const Mode& mode : {Mode{"apu-embedded", 0}, Mode{"datacenter-4gpu", 0},
                           Mode{"datacenter-4gpu", HKE_CONFIG_LEGACY_USERPTR}}) {
    INFO(mode.board << " flags " << mode.flags);
    SimBoard b(nullptr, mode.board, mode.flags);
    for (int round = 0; round < 2; ++round) {
      const char* when = round == 0 ? "before the first open" : "after the last close";
      INFO(when);
      if (round == 1) {
        REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
        HsaSystemProperties sys;
        REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
        REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
      }
      b.ClearTrace();
      for (const auto& entry : Calls()) {
        const auto& name = entry.first;  // a named copy: clang-14 lambdas cannot capture bindings
        const auto& call = entry.second;
        INFO(name);
        CHECK(call() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
      }
      CHECK(b.Ioctls().empty());
    }
    // A NULL output still comes first.
    CHECK(hsaKmtQueryPointerInfo(nullptr, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(hsaKmtGetXNACKMode(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  }
}
