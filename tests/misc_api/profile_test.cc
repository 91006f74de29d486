// The SPM and PC-sampling entry points on the in-process simulator (the
// DKMS RLC_SPM and PC_SAMPLE ioctls): the arguments the kernel sees,
// the kernel's state machines and errnos, refusals before the ioctl with
// untouched outputs and a diagnostic, trace ids that are checked before any
// kernel id is used, and hostile replies rejected with a specific status.
#include <cerrno>
#include <cstring>
#include <vector>

#include "doctest/doctest.h"
#include "lib/core/config.h"
#include "lib/kfd/abi.h"
#include "tests/misc_api/support.h"

using hketest::SimBoard;
using misctest::GpuId;
using misctest::Poisoned;
namespace k = hke::kfd;

namespace {

// ---- tampers ----

struct SpmTamper {
  uint32_t bytes_copied = 0;
  bool set_bytes = false;
  uint32_t timeout = 0;
  bool set_timeout = false;
  bool loss = false;
  int result = 0;
};

int SpmTamperFn(void* user, uint32_t request, void* reply, size_t size, int result) {
  auto* t = static_cast<SpmTamper*>(user);
  if (request != k::kIocRlcSpm || size != sizeof(k::SpmArgs)) return result;
  auto* a = static_cast<k::SpmArgs*>(reply);
  if (a->op == k::kSpmOpSetDestBuf) {
    if (t->set_bytes) a->bytes_copied = t->bytes_copied;
    if (t->set_timeout) a->timeout = t->timeout;
    if (t->loss) a->has_data_loss = 1;
  }
  return t->result != 0 ? t->result : result;
}

struct PcsTamper {
  uint32_t op = 0;
  bool set_trace = false;
  uint32_t trace_id = 0;
  bool set_count = false;
  uint32_t count = 0;
  bool bad_method = false;  // corrupt the first capability record
};

int PcsTamperFn(void* user, uint32_t request, void* reply, size_t size, int result) {
  auto* t = static_cast<PcsTamper*>(user);
  if (request != k::kIocPcSample || size != sizeof(k::PcSampleArgs)) return result;
  auto* a = static_cast<k::PcSampleArgs*>(reply);
  if (a->op != t->op) return result;
  if (t->set_trace) a->trace_id = t->trace_id;
  if (t->set_count) a->num_sample_info = t->count;
  if (t->bad_method && a->sample_info_ptr != 0) {
    reinterpret_cast<k::PcSampleInfo*>(static_cast<uintptr_t>(a->sample_info_ptr))->method = 7;
  }
  return result;
}

HsaPcSamplingInfo HostTrap(uint64_t interval_us) {
  HsaPcSamplingInfo i{};
  i.value = interval_us;
  i.method = HSA_PC_SAMPLING_METHOD_KIND_HOSTTRAP_V1;
  i.units = HSA_PC_SAMPLING_UNIT_INTERVAL_MICROSECONDS;
  return i;
}

HsaPcSamplingInfo Stochastic(uint64_t cycles) {
  HsaPcSamplingInfo i{};
  i.value = cycles;
  i.method = HSA_PC_SAMPLING_METHOD_KIND_STOCHASTIC_V1;
  i.units = HSA_PC_SAMPLING_UNIT_INTERVAL_CYCLES;
  return i;
}

// The first node of the mi300x tree (gfx942) that is a GPU.
uint32_t Mi300Node() { return hketest::FirstGpuNode(); }

}  // namespace

// ================================================================== SPM

TEST_CASE(
    "SPM: Acquire, SetDestBuffer and Release send RLC_SPM with the node's gpu_id and report the "
    "bytes streamed into the previous buffer") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  const uint32_t gpu_id = GpuId(node);
  b.ClearTrace();
  REQUIRE(hsaKmtSPMAcquire(node) == HSAKMT_STATUS_SUCCESS);

  alignas(64) static uint8_t first[1024];
  alignas(64) static uint8_t second[512];
  std::memset(first, 0xA5, sizeof(first));
  std::memset(second, 0xA5, sizeof(second));
  HSAuint32 timeout = 50, copied = 0xA5A5A5A5u;
  bool loss = true;
  // No previous buffer: nothing copied, the timeout comes back unchanged.
  REQUIRE(hsaKmtSPMSetDestBuffer(node, sizeof(first), &timeout, &copied, first, &loss) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(copied == 0);
  CHECK_FALSE(loss);
  CHECK(timeout == 50);
  // Timeout 0: the previous buffer gets one 256-byte period.
  timeout = 0;
  REQUIRE(hsaKmtSPMSetDestBuffer(node, sizeof(second), &timeout, &copied, second, &loss) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(copied == 256);
  CHECK_FALSE(loss);
  uint32_t w[64];
  std::memcpy(w, first, sizeof(w));
  for (uint32_t i = 0; i < 64; ++i) CHECK(w[i] == i);
  CHECK(first[256] == 0xA5);
  // A timeout and no new buffer: the previous one is filled, streaming stops.
  timeout = 100;
  REQUIRE(hsaKmtSPMSetDestBuffer(node, 4096, &timeout, &copied, nullptr, &loss) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(copied == sizeof(second));
  CHECK(timeout == 100);
  std::memcpy(w, second, 4);
  CHECK(w[0] == 64);
  REQUIRE(hsaKmtSPMRelease(node) == HSAKMT_STATUS_SUCCESS);

  const auto args = b.Args("RLC_SPM");
  REQUIRE(args.size() == 5);
  const uint32_t ops[] = {k::kSpmOpAcquire, k::kSpmOpSetDestBuf, k::kSpmOpSetDestBuf,
                          k::kSpmOpSetDestBuf, k::kSpmOpRelease};
  for (size_t i = 0; i < 5; ++i) {
    const auto spm = SimBoard::As<k::SpmArgs>(args[i]);
    CHECK(spm.op == ops[i]);
    CHECK(spm.gpu_id == gpu_id);
  }
  const auto set_first = SimBoard::As<k::SpmArgs>(args[1]);
  CHECK(set_first.dest_buf == reinterpret_cast<uintptr_t>(first));
  CHECK(set_first.buf_size == sizeof(first));
  CHECK(set_first.timeout == 50);
  // Without a buffer the size is not sent.
  const auto set_none = SimBoard::As<k::SpmArgs>(args[3]);
  CHECK(set_none.dest_buf == 0);
  CHECK(set_none.buf_size == 0);
}

TEST_CASE(
    "SPM: a second Acquire, Release without Acquire and SetDestBuffer without Acquire are the "
    "kernel's EINVAL (INVALID_PARAMETER), outputs untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  CHECK(hsaKmtSPMRelease(node) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("RLC_SPM RELEASE failed: EINVAL") != std::string::npos);
  alignas(64) static uint8_t buf[256];
  Poisoned<HSAuint32> timeout, copied;
  Poisoned<bool> loss;
  CHECK(hsaKmtSPMSetDestBuffer(node, sizeof(buf), &timeout.v, &copied.v, buf, &loss.v) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(timeout.untouched());
  CHECK(copied.untouched());
  CHECK(loss.untouched());
  REQUIRE(hsaKmtSPMAcquire(node) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSPMAcquire(node) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("RLC_SPM ACQUIRE failed: EINVAL") != std::string::npos);
  // Each GPU has its own SPM.
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSPMAcquire(node + 1) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSPMRelease(node) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSPMRelease(node + 1) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "SPM: NULL outputs, bad buffer sizes, CPU and unknown nodes and a closed device are refused "
    "before any ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  alignas(64) static uint8_t buf[256];
  HSAuint32 t = 0, c = 0;
  bool l = false;
  CHECK(hsaKmtSPMAcquire(0) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(hsaKmtSPMSetDestBuffer(0, 256, &t, &c, buf, &l) ==
        HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  REQUIRE(hsaKmtSPMAcquire(node) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  CHECK(hsaKmtSPMSetDestBuffer(node, 256, nullptr, &c, buf, &l) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSPMSetDestBuffer(node, 256, &t, nullptr, buf, &l) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSPMSetDestBuffer(node, 256, &t, &c, buf, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  Poisoned<HSAuint32> timeout, copied;
  Poisoned<bool> loss;
  for (uint32_t size : {0u, 16u, 100u}) {
    CHECK(hsaKmtSPMSetDestBuffer(node, size, &timeout.v, &copied.v, buf, &loss.v) ==
          HSAKMT_STATUS_INVALID_PARAMETER);
    CHECK(b.LastDiag().find("multiple of 32") != std::string::npos);
  }
  CHECK(timeout.untouched());
  CHECK(copied.untouched());
  CHECK(loss.untouched());
  CHECK(hsaKmtSPMAcquire(hketest::FirstCpuNode()) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(b.LastDiag().find("is a CPU node") != std::string::npos);
  CHECK(hsaKmtSPMRelease(1000) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(b.Args("RLC_SPM").empty());
}

TEST_CASE(
    "SPM: a reply claiming more bytes than the previous buffer holds, or a grown timeout, is "
    "KERNEL_COMMUNICATION_ERROR with outputs untouched; data loss is reported") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  REQUIRE(hsaKmtSPMAcquire(node) == HSAKMT_STATUS_SUCCESS);
  alignas(64) static uint8_t buf[256];
  SpmTamper tamper;
  kfdsim_set_tamper(b.sim(), &SpmTamperFn, &tamper);
  Poisoned<HSAuint32> timeout, copied;
  Poisoned<bool> loss;
  // No previous buffer: any byte count is a lie.
  tamper.set_bytes = true;
  tamper.bytes_copied = 32;
  timeout.v = 10;
  CHECK(hsaKmtSPMSetDestBuffer(node, sizeof(buf), &timeout.v, &copied.v, buf, &loss.v) ==
        HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(timeout.v == 10);
  CHECK(copied.untouched());
  CHECK(loss.untouched());
  CHECK(b.LastDiag().find("32 bytes copied into a buffer of 0") != std::string::npos);
  // The kernel holds `buf` now: 257 bytes do not fit in it.
  tamper.bytes_copied = 257;
  CHECK(hsaKmtSPMSetDestBuffer(node, sizeof(buf), &timeout.v, &copied.v, buf, &loss.v) ==
        HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  tamper.set_bytes = false;
  tamper.set_timeout = true;
  tamper.timeout = 11;
  CHECK(hsaKmtSPMSetDestBuffer(node, sizeof(buf), &timeout.v, &copied.v, buf, &loss.v) ==
        HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(timeout.v == 10);
  CHECK(copied.untouched());
  tamper.set_timeout = false;
  tamper.loss = true;
  REQUIRE(hsaKmtSPMSetDestBuffer(node, sizeof(buf), &timeout.v, &copied.v, buf, &loss.v) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(loss.v);
  CHECK(copied.v == sizeof(buf));
  // A kernel without the DKMS ioctl.
  tamper.loss = false;
  tamper.result = ENOTTY;
  CHECK(hsaKmtSPMRelease(node) == HSAKMT_STATUS_NOT_SUPPORTED);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  // (The simulated kernel did release it; only its answer was replaced.)
  CHECK(hsaKmtSPMAcquire(node) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSPMRelease(node) == HSAKMT_STATUS_SUCCESS);
}

// ========================================================== PC sampling

TEST_CASE("PcSamplingSupport: SUCCESS from KFD 1.16 on, NOT_SUPPORTED before, closed checked") {
  {
    SimBoard b(nullptr, "datacenter-4gpu");
    CHECK(hsaKmtPcSamplingSupport() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtPcSamplingSupport() == HSAKMT_STATUS_SUCCESS);
  }
  {
    SimBoard b(nullptr, "datacenter-4gpu", 0, 15);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtPcSamplingSupport() == HSAKMT_STATUS_NOT_SUPPORTED);
    CHECK(b.LastDiag().find("KFD 1.16") != std::string::npos);
    Poisoned<HSAuint32> size;
    CHECK(hsaKmtPcSamplingQueryCapabilities(hketest::FirstGpuNode(), nullptr, 0, &size.v) ==
          HSAKMT_STATUS_NOT_SUPPORTED);
    CHECK(size.untouched());
    CHECK(b.Args("PC_SAMPLE").empty());
  }
}

TEST_CASE(
    "QueryCapabilities on gfx90a: the count alone, then the host-trap record; the kernel sees "
    "the node's gpu_id and the capacity") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  b.ClearTrace();
  HSAuint32 size = 0;
  REQUIRE(hsaKmtPcSamplingQueryCapabilities(node, nullptr, 0, &size) == HSAKMT_STATUS_SUCCESS);
  CHECK(size == 1);
  HsaPcSamplingInfo infos[4];
  std::memset(infos, 0xA5, sizeof(infos));
  REQUIRE(hsaKmtPcSamplingQueryCapabilities(node, infos, 4, &size) == HSAKMT_STATUS_SUCCESS);
  CHECK(size == 1);
  CHECK(infos[0].method == HSA_PC_SAMPLING_METHOD_KIND_HOSTTRAP_V1);
  CHECK(infos[0].units == HSA_PC_SAMPLING_UNIT_INTERVAL_MICROSECONDS);
  CHECK(infos[0].value_min == 1);
  CHECK(infos[0].value_max == ~0ull);
  const auto* rest = reinterpret_cast<const uint8_t*>(&infos[1]);
  for (size_t i = 0; i < sizeof(HsaPcSamplingInfo); ++i) CHECK(rest[i] == 0xA5);
  const auto args = b.Args("PC_SAMPLE");
  REQUIRE(args.size() == 2);
  const auto count = SimBoard::As<k::PcSampleArgs>(args[0]);
  CHECK(count.sample_info_ptr == 0);
  CHECK(count.num_sample_info == 0);
  CHECK(SimBoard::As<k::PcSampleArgs>(args[1]).num_sample_info == 4);
  for (const auto& a : args) {
    const auto pcs = SimBoard::As<k::PcSampleArgs>(a);
    CHECK(pcs.op == k::kPcsOpQueryCapabilities);
    CHECK(pcs.gpu_id == GpuId(node));
    CHECK(pcs.flags == 0);  // upstream's query
  }
}

TEST_CASE(
    "QueryCapabilities on gfx942 with room for one record is BUFFER_TOO_SMALL with the count "
    "needed, the buffer untouched") {
  SimBoard b("mi300x-8gpu-cpx", nullptr);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = Mi300Node();
  Poisoned<HsaPcSamplingInfo> one;
  HSAuint32 size = 0;
  CHECK(hsaKmtPcSamplingQueryCapabilities(node, &one.v, 1, &size) ==
        HSAKMT_STATUS_BUFFER_TOO_SMALL);
  CHECK(size == 2);
  CHECK(one.untouched());
  CHECK(b.LastDiag().find("need 2 records") != std::string::npos);
  HsaPcSamplingInfo two[2];
  REQUIRE(hsaKmtPcSamplingQueryCapabilities(node, two, 2, &size) == HSAKMT_STATUS_SUCCESS);
  CHECK(two[0].method == HSA_PC_SAMPLING_METHOD_KIND_HOSTTRAP_V1);
  CHECK(two[1].method == HSA_PC_SAMPLING_METHOD_KIND_STOCHASTIC_V1);
  CHECK(two[1].value_min == 256);
  CHECK(two[1].flags == k::kPcsFlagPowerOf2);
}

TEST_CASE(
    "QueryCapabilities while sessions run reports the running configurations (the kernel steps "
    "its pointer past the stochastic record)") {
  SimBoard b("mi300x-8gpu-cpx", nullptr);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = Mi300Node();
  HsaPcSamplingInfo host = HostTrap(250), stoch = Stochastic(1024);
  HsaPcSamplingTraceId a = 0, s = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &host, &a) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPcSamplingCreate(node, &stoch, &s) == HSAKMT_STATUS_SUCCESS);
  HsaPcSamplingInfo got[2];
  HSAuint32 size = 0;
  REQUIRE(hsaKmtPcSamplingQueryCapabilities(node, got, 2, &size) == HSAKMT_STATUS_SUCCESS);
  CHECK(size == 2);
  CHECK(got[0].value == 1024);
  CHECK(got[0].method == HSA_PC_SAMPLING_METHOD_KIND_STOCHASTIC_V1);
  // The host-trap record went to where the kernel's stepped pointer pointed.
  CHECK(got[1].value == 250);
  CHECK(hsaKmtPcSamplingDestroy(node, a) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPcSamplingDestroy(node, s) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "QueryCapabilities: NULL size, CPU node, and a GPU without PC sampling (EOPNOTSUPP) leave the "
    "size untouched") {
  SimBoard b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  CHECK(hsaKmtPcSamplingQueryCapabilities(node, nullptr, 0, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  Poisoned<HSAuint32> size;
  CHECK(hsaKmtPcSamplingQueryCapabilities(hketest::FirstCpuNode(), nullptr, 0, &size.v) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtPcSamplingQueryCapabilities(node, nullptr, 0, &size.v) ==
        HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(size.untouched());
  CHECK(b.LastDiag().find("EOPNOTSUPP") != std::string::npos);
  HsaPcSamplingInfo info = HostTrap(100);
  Poisoned<HsaPcSamplingTraceId> id;
  CHECK(hsaKmtPcSamplingCreate(node, &info, &id.v) == HSAKMT_STATUS_ERROR);
  CHECK(id.untouched());
}

TEST_CASE(
    "QueryCapabilities: a reply counting more than 64 records, or a record with an unknown "
    "method, is KERNEL_COMMUNICATION_ERROR with outputs untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  PcsTamper tamper;
  tamper.op = k::kPcsOpQueryCapabilities;
  tamper.set_count = true;
  tamper.count = 65;
  kfdsim_set_tamper(b.sim(), &PcsTamperFn, &tamper);
  Poisoned<HSAuint32> size;
  CHECK(hsaKmtPcSamplingQueryCapabilities(node, nullptr, 0, &size.v) ==
        HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(size.untouched());
  tamper.set_count = false;
  tamper.bad_method = true;
  Poisoned<HsaPcSamplingInfo> info;
  CHECK(hsaKmtPcSamplingQueryCapabilities(node, &info.v, 1, &size.v) ==
        HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(info.untouched());
  CHECK(size.untouched());
  CHECK(b.LastDiag().find("unknown method") != std::string::npos);
  // A count above what the kernel wrote: the unwritten record is refused.
  tamper.bad_method = false;
  tamper.set_count = true;
  tamper.count = 2;
  HsaPcSamplingInfo four[4];
  std::memset(four, 0xA5, sizeof(four));
  CHECK(hsaKmtPcSamplingQueryCapabilities(node, four, 4, &size.v) ==
        HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(size.untouched());
  const auto* bytes = reinterpret_cast<const uint8_t*>(four);
  for (size_t i = 0; i < sizeof(four); ++i) CHECK(bytes[i] == 0xA5);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
}

TEST_CASE(
    "Create, Start, Stop, Destroy: the caller's id is the library's, the kernel sees its own "
    "trace id, and the state machine answers as the driver does") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  const uint32_t gpu_id = GpuId(node);
  b.ClearTrace();
  HsaPcSamplingInfo info = HostTrap(500);
  HsaPcSamplingTraceId id = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &info, &id) == HSAKMT_STATUS_SUCCESS);
  CHECK(id != 0);
  CHECK(id != 1);  // not the kernel's id
  CHECK(hsaKmtPcSamplingStop(node, id) == HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
  REQUIRE(hsaKmtPcSamplingStart(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPcSamplingStart(node, id) == HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
  REQUIRE(hsaKmtPcSamplingStop(node, id) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPcSamplingStart(node, id) == HSAKMT_STATUS_SUCCESS);
  // Destroy of a started session stops it first.
  REQUIRE(hsaKmtPcSamplingDestroy(node, id) == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("PC_SAMPLE");
  REQUIRE(args.size() == 8);
  const uint32_t ops[] = {k::kPcsOpCreate, k::kPcsOpStop,  k::kPcsOpStart, k::kPcsOpStart,
                          k::kPcsOpStop,   k::kPcsOpStart, k::kPcsOpStop,  k::kPcsOpDestroy};
  for (size_t i = 0; i < 8; ++i) {
    const auto pcs = SimBoard::As<k::PcSampleArgs>(args[i]);
    CHECK(pcs.op == ops[i]);
    CHECK(pcs.gpu_id == gpu_id);
    CHECK(pcs.trace_id == (i == 0 ? 0u : 1u));
  }
  CHECK(SimBoard::As<k::PcSampleArgs>(args[0]).num_sample_info == 1);
  const auto create_out = b.Args("PC_SAMPLE", "out=");
  REQUIRE(!create_out.empty());
  CHECK(SimBoard::As<k::PcSampleArgs>(create_out[0]).trace_id == 1);
  // The id is stale now: refused without an ioctl.
  b.ClearTrace();
  CHECK(hsaKmtPcSamplingStart(node, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPcSamplingDestroy(node, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(b.Args("PC_SAMPLE").empty());
  // A new session reuses the slot with a new generation.
  HsaPcSamplingTraceId again = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &info, &again) == HSAKMT_STATUS_SUCCESS);
  CHECK(again != id);
  CHECK(hsaKmtPcSamplingDestroy(node, again) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "Trace ids that are 0, kernel-like, forged, or of another node are INVALID_HANDLE and never "
    "reach the kernel") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  HsaPcSamplingInfo info = HostTrap(100);
  HsaPcSamplingTraceId id = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &info, &id) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  for (HsaPcSamplingTraceId bad :
       {0u, 1u, 2u, id ^ 0x100u, id ^ 0x1u, id & 0x7FFFFFFFu, 0xFFFFFFFFu}) {
    CAPTURE(bad);
    CHECK(hsaKmtPcSamplingStart(node, bad) == HSAKMT_STATUS_INVALID_HANDLE);
    CHECK(hsaKmtPcSamplingStop(node, bad) == HSAKMT_STATUS_INVALID_HANDLE);
    CHECK(hsaKmtPcSamplingDestroy(node, bad) == HSAKMT_STATUS_INVALID_HANDLE);
  }
  CHECK(hsaKmtPcSamplingStart(node + 1, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(b.LastDiag().find("belongs to node") != std::string::npos);
  // ~0u is a node like any other (no wildcard).
  CHECK(hsaKmtPcSamplingStart(0xFFFFFFFFu, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPcSamplingStop(0xFFFFFFFFu, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPcSamplingDestroy(0xFFFFFFFFu, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(b.Args("PC_SAMPLE").empty());
  CHECK(hsaKmtPcSamplingDestroy(node, id) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("Create: NULL arguments, an unsupported configuration and a conflicting one") {
  SimBoard b("mi300x-8gpu-cpx", nullptr);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = Mi300Node();
  HsaPcSamplingInfo info = HostTrap(100);
  HsaPcSamplingTraceId id = 0;
  CHECK(hsaKmtPcSamplingCreate(node, nullptr, &id) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtPcSamplingCreate(node, &info, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  Poisoned<HsaPcSamplingTraceId> out;
  // Stochastic intervals are powers of two: the kernel's EINVAL.
  HsaPcSamplingInfo odd = Stochastic(1000);
  CHECK(hsaKmtPcSamplingCreate(node, &odd, &out.v) == HSAKMT_STATUS_INVALID_PARAMETER);
  // Below the minimum: EOPNOTSUPP, which upstream reports as ERROR.
  HsaPcSamplingInfo tiny = Stochastic(128);
  CHECK(hsaKmtPcSamplingCreate(node, &tiny, &out.v) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("EOPNOTSUPP") != std::string::npos);
  CHECK(out.untouched());
  // A second, different host-trap configuration: EEXIST, and the running
  // configuration comes back in the caller's record.
  REQUIRE(hsaKmtPcSamplingCreate(node, &info, &id) == HSAKMT_STATUS_SUCCESS);
  HsaPcSamplingInfo other = HostTrap(700);
  CHECK(hsaKmtPcSamplingCreate(node, &other, &out.v) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("EEXIST") != std::string::npos);
  CHECK(other.value == 100);
  CHECK(out.untouched());
  // The same configuration joins the running one.
  HsaPcSamplingInfo same = HostTrap(100);
  HsaPcSamplingTraceId second = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &same, &second) == HSAKMT_STATUS_SUCCESS);
  CHECK(second != id);
  CHECK(hsaKmtPcSamplingDestroy(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPcSamplingDestroy(node, second) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "Create: a trace id of 0, above 0x7FFFFFFF or already live is KERNEL_COMMUNICATION_ERROR, "
    "the caller's id untouched and the slot free again") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  HsaPcSamplingInfo info = HostTrap(100);
  HsaPcSamplingTraceId live = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &info, &live) == HSAKMT_STATUS_SUCCESS);
  PcsTamper tamper;
  tamper.op = k::kPcsOpCreate;
  tamper.set_trace = true;
  kfdsim_set_tamper(b.sim(), &PcsTamperFn, &tamper);
  for (uint32_t forged : {0u, 0x80000000u, 0xFFFFFFFFu, 1u /* live's kernel id */}) {
    CAPTURE(forged);
    tamper.trace_id = forged;
    Poisoned<HsaPcSamplingTraceId> id;
    CHECK(hsaKmtPcSamplingCreate(node, &info, &id.v) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
    CHECK(id.untouched());
  }
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  // Every slot but the live one is still free.
  std::vector<HsaPcSamplingTraceId> ids;
  for (uint32_t i = 1; i < hke::config::kMaxPcSamplingTraces; ++i) {
    HsaPcSamplingTraceId id = 0;
    REQUIRE(hsaKmtPcSamplingCreate(node, &info, &id) == HSAKMT_STATUS_SUCCESS);
    ids.push_back(id);
  }
  for (HsaPcSamplingTraceId id : ids) CHECK(hsaKmtPcSamplingDestroy(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPcSamplingDestroy(node, live) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("Create beyond the context's sessions is OUT_OF_RESOURCES before any ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  HsaPcSamplingInfo info = HostTrap(100);
  std::vector<HsaPcSamplingTraceId> ids;
  for (uint32_t i = 0; i < hke::config::kMaxPcSamplingTraces; ++i) {
    HsaPcSamplingTraceId id = 0;
    REQUIRE(hsaKmtPcSamplingCreate(node, &info, &id) == HSAKMT_STATUS_SUCCESS);
    ids.push_back(id);
  }
  b.ClearTrace();
  Poisoned<HsaPcSamplingTraceId> out;
  CHECK(hsaKmtPcSamplingCreate(node, &info, &out.v) == HSAKMT_STATUS_OUT_OF_RESOURCES);
  CHECK(out.untouched());
  CHECK(b.Args("PC_SAMPLE").empty());
  CHECK(b.LastDiag().find("sessions of the context are in use") != std::string::npos);
  for (HsaPcSamplingTraceId id : ids) CHECK(hsaKmtPcSamplingDestroy(node, id) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("A refused DESTROY keeps the session; ids of an earlier open are INVALID_HANDLE") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  HsaPcSamplingInfo info = HostTrap(100);
  HsaPcSamplingTraceId id = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &info, &id) == HSAKMT_STATUS_SUCCESS);
  kfdsim_add_fault(b.sim(), k::kIocPcSample, EIO, 1, 1);
  CHECK(hsaKmtPcSamplingDestroy(node, id) == HSAKMT_STATUS_ERROR);
  CHECK(hsaKmtPcSamplingStart(node, id) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPcSamplingStop(node, id) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  CHECK(hsaKmtPcSamplingStop(node, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(b.Args("PC_SAMPLE").empty());
  HsaPcSamplingTraceId fresh = 0;
  REQUIRE(hsaKmtPcSamplingCreate(node, &info, &fresh) == HSAKMT_STATUS_SUCCESS);
  CHECK(fresh != id);
  CHECK(hsaKmtPcSamplingDestroy(node, fresh) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("QueryCapabilities and Create while the debugger traps the process are UNAVAILABLE") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = hketest::FirstGpuNode();
  int r_debug = 0;
  REQUIRE(hsaKmtRuntimeEnable(&r_debug, false) == HSAKMT_STATUS_SUCCESS);
  void* rinfo = nullptr;
  HSAuint32 rsize = 0;
  REQUIRE(hsaKmtDbgEnable(&rinfo, &rsize) == HSAKMT_STATUS_SUCCESS);
  Poisoned<HSAuint32> size;
  CHECK(hsaKmtPcSamplingQueryCapabilities(node, nullptr, 0, &size.v) == HSAKMT_STATUS_UNAVAILABLE);
  CHECK(size.untouched());
  HsaPcSamplingInfo info = HostTrap(100);
  Poisoned<HsaPcSamplingTraceId> id;
  CHECK(hsaKmtPcSamplingCreate(node, &info, &id.v) == HSAKMT_STATUS_UNAVAILABLE);
  CHECK(id.untouched());
  REQUIRE(hsaKmtDbgDisable() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPcSamplingQueryCapabilities(node, nullptr, 0, &size.v) == HSAKMT_STATUS_SUCCESS);
  CHECK(size.v == 1);
}
