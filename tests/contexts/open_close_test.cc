// Opening and closing KFD contexts beside the default one (hsakmtctx.h and
// hke_context_open/close): the CREATE_PROCESS handshake, its refusal on
// older kernels, the fixed secondary-context slots and what Close accepts.
#include <doctest/doctest.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmtctx.h"
#include "tests/contexts/secondaries.h"
#include "tests/support/sim_board.h"

namespace {

using hketest::SimBoard;

constexpr uint32_t kMinorWithCreateProcess = 19;

uint32_t SecondarySlots() {
  hke_capacities c{};
  hke_build_capacities(&c);
  return c.max_secondary_contexts;
}

// The descriptor numbers the simulator opened (`path`) and closed, in order.
std::vector<std::string> FdEvents(SimBoard& b, const std::string& path) {
  std::vector<std::string> out;
  for (const std::string& l : b.Trace()) {
    const size_t open = l.find(" open path=" + path + " ");
    if (open != std::string::npos && l.find("-> ok fd=") != std::string::npos) {
      out.push_back("open " + l.substr(l.find("fd=") + 3, l.find('\n') - l.find("fd=") - 3));
    }
    const size_t close = l.find(" close fd=");
    if (close != std::string::npos) {
      out.push_back("close " + l.substr(close + 10, l.find(' ', close + 10) - close - 10));
    }
  }
  return out;
}

TEST_CASE("a secondary context sends CREATE_PROCESS right after GET_VERSION on a descriptor of its own") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  HsaKFDContext* c = nullptr;
  REQUIRE(sec.TryOpen(&c) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(c != nullptr);
  CHECK(b.Ioctls() == std::vector<std::string>{"GET_VERSION", "CREATE_PROCESS"});
  CHECK(kfdsim_secondary_count(b.sim()) == 1);
  HsaKFDContext* primary = nullptr;
  REQUIRE(hsaKmtOpenKFDCtx(&primary) == HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
  CHECK(primary != c);
  CHECK(hsaKmtCloseKFDCtx() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(sec.Close(c) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_secondary_count(b.sim()) == 0);
  // The primary is still open and working.
  HsaVersionInfo v{};
  CHECK(hsaKmtGetVersion(&v) == HSAKMT_STATUS_SUCCESS);
  CHECK(v.KernelInterfaceMinorVersion == kMinorWithCreateProcess);
}

TEST_CASE("before KFD 1.19 a secondary context is NOT_SUPPORTED and leaves no descriptor or slot") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, 17);
  ctxtest::Secondaries sec;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  HsaKFDContext* const kUntouched = reinterpret_cast<HsaKFDContext*>(0x1234);
  for (uint32_t i = 0; i < SecondarySlots() + 1; ++i) {
    HsaKFDContext* c = kUntouched;
    CHECK(sec.TryOpen(&c) == HSAKMT_STATUS_NOT_SUPPORTED);
    CHECK(c == kUntouched);
  }
  CHECK(b.LastDiag().find("KFD 1.19") != std::string::npos);
  for (const std::string& name : b.Ioctls()) CHECK(name != "CREATE_PROCESS");
  // Every descriptor opened for the attempts was closed again.
  const std::vector<std::string> fds = FdEvents(b, "/dev/kfd");
  REQUIRE(fds.size() == 2 * (SecondarySlots() + 1));
  for (size_t i = 0; i + 1 < fds.size(); i += 2) {
    CHECK(fds[i].rfind("open ", 0) == 0);
    CHECK(fds[i + 1] == "close " + fds[i].substr(5));
  }
}

TEST_CASE("a kernel refusing CREATE_PROCESS (EINVAL, ENOTTY) is NOT_SUPPORTED; another errno is KERNEL_IO_CHANNEL_NOT_OPENED; nothing stays open") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  constexpr uint32_t kCreateProcessKey = 0x4B27;  // type 'K', nr 0x27
  const std::pair<int, HSAKMT_STATUS> cases[] = {
      {EINVAL, HSAKMT_STATUS_NOT_SUPPORTED},
      {ENOTTY, HSAKMT_STATUS_NOT_SUPPORTED},
      {ENOMEM, HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED},
  };
  for (const auto& one : cases) {
    // Named copies: clang rejects structured bindings captured by doctest's lambdas.
    const int error = one.first;
    const HSAKMT_STATUS status = one.second;
    CAPTURE(error);
    kfdsim_add_fault(b.sim(), kCreateProcessKey, error, 0, 1);
    HsaKFDContext* c = nullptr;
    CHECK(sec.TryOpen(&c) == status);
    CHECK(c == nullptr);
    CHECK(b.LastDiag().find("CREATE_PROCESS failed") != std::string::npos);
    CHECK(kfdsim_secondary_count(b.sim()) == 0);
  }
  // Every attempt's descriptor was closed again.
  const std::vector<std::string> fds = FdEvents(b, "/dev/kfd");
  REQUIRE(fds.size() == 6);
  for (size_t i = 0; i + 1 < fds.size(); i += 2) CHECK(fds[i + 1] == "close " + fds[i].substr(5));
  // The slots are all free: the next open works.
  HsaKFDContext* c = nullptr;
  CHECK(sec.TryOpen(&c) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("secondary contexts: every slot may be open at once, one more is OUT_OF_RESOURCES") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  REQUIRE(SecondarySlots() >= 1);
  std::vector<HsaKFDContext*> open;
  for (uint32_t i = 0; i < SecondarySlots(); ++i) {
    HsaKFDContext* c = nullptr;
    REQUIRE(sec.TryOpen(&c) == HSAKMT_STATUS_SUCCESS);
    for (HsaKFDContext* o : open) CHECK(o != c);
    open.push_back(c);
  }
  HsaKFDContext* extra = nullptr;
  CHECK(sec.TryOpen(&extra) == HSAKMT_STATUS_OUT_OF_RESOURCES);
  CHECK(extra == nullptr);
  CHECK(b.LastDiag().find("max_secondary_contexts") != std::string::npos);
  CHECK(kfdsim_secondary_count(b.sim()) == SecondarySlots());
  // Closing one frees its slot for the next open.
  REQUIRE(sec.Close(open.back()) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(sec.TryOpen(&extra) == HSAKMT_STATUS_SUCCESS);
  open.back() = extra;
  for (HsaKFDContext* c : open) CHECK(sec.Close(c) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_secondary_count(b.sim()) == 0);
}

TEST_CASE("CloseSecondaryKFDCtx takes only an open secondary slot: NULL, the primary, a closed one are refused") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  HsaKFDContext* primary = nullptr;
  REQUIRE(hsaKmtOpenKFDCtx(&primary) == HSAKMT_STATUS_SUCCESS);
  CHECK(primary == hke_context_kfd_ctx(hke_default_context()));
  CHECK(hsaKmtCloseSecondaryKFDCtx(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtCloseSecondaryKFDCtx(primary) == HSAKMT_STATUS_INVALID_PARAMETER);
  HsaKFDContext* c = nullptr;
  REQUIRE(sec.TryOpen(&c) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(sec.Close(c) == HSAKMT_STATUS_SUCCESS);
  // The close releases its references through the exclusive gate, not
  // with device calls made outside every gate (which would be refused).
  for (const std::string& d : b.Diags()) CHECK(d.find("outside the open gate") == std::string::npos);
  CHECK(sec.Close(c) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtOpenSecondaryKFDCtx(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtOpenKFDCtx(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  // The primary is what hsakmt.h's calls use: still open.
  HsaVersionInfo v{};
  CHECK(hsaKmtGetVersion(&v) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a caller-owned secondary context opens, counts references and closes through hke_context_*") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  std::vector<unsigned char> raw(hke_context_storage_size() + hke_context_storage_align());
  void* storage = raw.data() + (hke_context_storage_align() -
                                reinterpret_cast<uintptr_t>(raw.data()) % hke_context_storage_align());
  hke_config cfg{};
  cfg.struct_size = sizeof(cfg);
  cfg.platform = hke_sim_platform(b.sim());
  cfg.flags = HKE_CONFIG_SECONDARY_PROCESS;
  hke_context* ctx = nullptr;
  REQUIRE(hke_context_init(storage, hke_context_storage_size(), &cfg, &ctx) == HKE_OK);
  CHECK(reinterpret_cast<void*>(hke_context_kfd_ctx(ctx)) == reinterpret_cast<void*>(ctx));
  CHECK(hke_context_close(ctx) == hke_status_make(HKE_DOMAIN_API, HKE_STATUS_FAILED_PRECONDITION));
  int again = -1;
  REQUIRE(hke_context_open(ctx, &again) == HKE_OK);
  CHECK(again == 0);
  REQUIRE(hke_context_open(ctx, &again) == HKE_OK);
  CHECK(again == 1);
  CHECK(kfdsim_secondary_count(b.sim()) == 1);
  // The Ctx API runs on it; PMC traces excepted: the context-less
  // Start/Query/StopTrace could not find a caller-owned context's trace.
  HsaKFDContext* kctx = hke_context_kfd_ctx(ctx);
  HsaSystemProperties props{};
  REQUIRE(hsaKmtAcquireSystemPropertiesCtx(kctx, &props) == HSAKMT_STATUS_SUCCESS);
  CHECK(props.NumNodes > 1);
  HsaCounter counter{};
  HsaPmcTraceRoot root{};
  root.TraceId = 77;
  CHECK(hsaKmtPmcRegisterTraceCtx(kctx, 2, 1, &counter, &root) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(root.TraceId == 77);
  CHECK(hke_context_close(ctx) == HKE_OK);
  CHECK(kfdsim_secondary_count(b.sim()) == 1);  // one reference left
  CHECK(hke_context_close(ctx) == HKE_OK);
  CHECK(kfdsim_secondary_count(b.sim()) == 0);
  hke_context_deinit(ctx);
  CHECK(hke_context_open(ctx, nullptr) == hke_status_make(HKE_DOMAIN_API, HKE_STATUS_INVALID_ARGUMENT));
  CHECK(hke_context_open(nullptr, nullptr) == hke_status_make(HKE_DOMAIN_API, HKE_STATUS_INVALID_ARGUMENT));
}

TEST_CASE("the default context cannot be configured as a secondary one") {
  SimBoard b(nullptr, "datacenter-4gpu", 0, kMinorWithCreateProcess);
  ctxtest::Secondaries sec;
  hke_config cfg{};
  cfg.struct_size = sizeof(cfg);
  cfg.platform = hke_sim_platform(b.sim());
  cfg.flags = HKE_CONFIG_SECONDARY_PROCESS;
  CHECK(hke_default_context_configure(&cfg) ==
        hke_status_make(HKE_DOMAIN_API, HKE_STATUS_INVALID_ARGUMENT));
  // The board's configuration is still in place: the primary opens as usual.
  CHECK(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
}

}  // namespace
