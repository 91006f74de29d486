// kfdsim DKMS profiling ioctls: RLC_SPM and PC_SAMPLE, with the driver's
// argument checks and errnos (platform/sim/core/profile.cc lists them).
#include <doctest/doctest.h>

#include <cstring>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

k::SpmArgs Spm(uint32_t op, uint32_t gpu_id) {
  k::SpmArgs a{};
  a.op = op;
  a.gpu_id = gpu_id;
  return a;
}

k::PcSampleArgs Pcs(uint32_t op, uint32_t gpu_id, uint32_t trace_id = 0) {
  k::PcSampleArgs a{};
  a.op = op;
  a.gpu_id = gpu_id;
  a.trace_id = trace_id;
  return a;
}

uint64_t Ptr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST_CASE("sim RLC_SPM: unknown gpu or op EINVAL, acquire once, set-dest and release need it") {
  Sim s(TwoGpuBoard());
  auto a = Spm(k::kSpmOpAcquire, 77);
  CHECK(s.Io(k::kIocRlcSpm, &a) == EINVAL);
  a = Spm(3, kGpuA);
  CHECK(s.Io(k::kIocRlcSpm, &a) == EINVAL);
  a = Spm(k::kSpmOpSetDestBuf, kGpuA);
  CHECK(s.Io(k::kIocRlcSpm, &a) == EINVAL);
  a = Spm(k::kSpmOpRelease, kGpuA);
  CHECK(s.Io(k::kIocRlcSpm, &a) == EINVAL);
  a = Spm(k::kSpmOpAcquire, kGpuA);
  CHECK(s.Io(k::kIocRlcSpm, &a) == 0);  // no ACQUIRE_VM needed
  CHECK(s.Io(k::kIocRlcSpm, &a) == EINVAL);
  a = Spm(k::kSpmOpAcquire, kGpuB);
  CHECK(s.Io(k::kIocRlcSpm, &a) == 0);
  a = Spm(k::kSpmOpRelease, kGpuA);
  CHECK(s.Io(k::kIocRlcSpm, &a) == 0);
  CHECK(s.Io(k::kIocRlcSpm, &a) == EINVAL);
}

TEST_CASE("sim RLC_SPM SET_DEST_BUF streams words into the previous buffer and reports them") {
  Sim s(TwoGpuBoard());
  auto a = Spm(k::kSpmOpAcquire, kGpuA);
  REQUIRE(s.Io(k::kIocRlcSpm, &a) == 0);
  uint32_t first[128], second[16];
  std::memset(first, 0xA5, sizeof(first));
  a = Spm(k::kSpmOpSetDestBuf, kGpuA);
  a.dest_buf = Ptr(first);
  a.buf_size = sizeof(first);
  a.timeout = 7;
  a.bytes_copied = 0xEE;
  REQUIRE(s.Io(k::kIocRlcSpm, &a) == 0);
  CHECK(a.bytes_copied == 0xEE);  // no previous buffer: left as sent
  CHECK(a.timeout == 7);
  a = Spm(k::kSpmOpSetDestBuf, kGpuA);
  a.dest_buf = Ptr(second);
  a.buf_size = sizeof(second);
  REQUIRE(s.Io(k::kIocRlcSpm, &a) == 0);  // timeout 0: one 256-byte period
  CHECK(a.bytes_copied == 256);
  CHECK(a.has_data_loss == 0);
  CHECK(first[0] == 0);
  CHECK(first[63] == 63);
  CHECK(first[64] == 0xA5A5A5A5u);
  a = Spm(k::kSpmOpSetDestBuf, kGpuA);
  a.timeout = 5;
  REQUIRE(s.Io(k::kIocRlcSpm, &a) == 0);  // a timeout fills the buffer; then stop
  CHECK(a.bytes_copied == sizeof(second));
  CHECK(a.timeout == 5);
  CHECK(second[0] == 64);
  CHECK(second[15] == 79);
  // A buffer that faults is data loss, not an ioctl failure.
  a = Spm(k::kSpmOpSetDestBuf, kGpuA);
  a.dest_buf = 0x10;
  a.buf_size = 64;
  REQUIRE(s.Io(k::kIocRlcSpm, &a) == 0);
  a = Spm(k::kSpmOpSetDestBuf, kGpuA);
  REQUIRE(s.Io(k::kIocRlcSpm, &a) == 0);
  CHECK(a.has_data_loss == 1);
}

TEST_CASE("sim PC_SAMPLE needs KFD 1.16; capabilities per GPU; ENOSPC carries the count") {
  {
    Sim old(TwoGpuBoard(15));
    auto a = Pcs(k::kPcsOpQueryCapabilities, kGpuA);
    CHECK(old.Io(k::kIocPcSample, &a) == ENOTTY);
  }
  Sim s(TwoGpuBoard());
  auto a = Pcs(k::kPcsOpQueryCapabilities, kGpuB);  // gfx1030: none
  CHECK(s.Io(k::kIocPcSample, &a) == EOPNOTSUPP);
  a = Pcs(k::kPcsOpQueryCapabilities, 77);
  CHECK(s.Io(k::kIocPcSample, &a) == EINVAL);
  a = Pcs(5, kGpuA);
  CHECK(s.Io(k::kIocPcSample, &a) == EINVAL);
  a = Pcs(k::kPcsOpQueryCapabilities, kGpuA);
  REQUIRE(s.Io(k::kIocPcSample, &a) == 0);
  CHECK(a.num_sample_info == 1);
  CHECK(a.reserved == ((1u << 16) | 1u));
  k::PcSampleInfo info[2]{};
  a.sample_info_ptr = Ptr(info);
  a.num_sample_info = 2;
  REQUIRE(s.Io(k::kIocPcSample, &a) == 0);
  CHECK(info[0].method == k::kPcsMethodHostTrap);
  CHECK(info[0].interval_min == 1);
  a.sample_info_ptr = 0x10;
  CHECK(s.Io(k::kIocPcSample, &a) == EFAULT);
}

TEST_CASE("sim PC_SAMPLE sessions: create checks the format, ids per GPU, the state machine") {
  Sim s(TwoGpuBoard());
  k::PcSampleInfo want{100, 0, 0, 0, k::kPcsMethodHostTrap, k::kPcsTypeTimeUs};
  auto a = Pcs(k::kPcsOpCreate, kGpuA);
  a.sample_info_ptr = Ptr(&want);
  a.num_sample_info = 2;
  CHECK(s.Io(k::kIocPcSample, &a) == EINVAL);
  a.num_sample_info = 1;
  want.method = k::kPcsMethodStochastic;
  CHECK(s.Io(k::kIocPcSample, &a) == EOPNOTSUPP);  // gfx90a: host trap only
  want.method = k::kPcsMethodHostTrap;
  REQUIRE(s.Io(k::kIocPcSample, &a) == 0);
  const uint32_t id = a.trace_id;
  CHECK(id == 1);
  k::PcSampleInfo other = want;
  other.interval = 200;
  a = Pcs(k::kPcsOpCreate, kGpuA);
  a.sample_info_ptr = Ptr(&other);
  a.num_sample_info = 1;
  CHECK(s.Io(k::kIocPcSample, &a) == EEXIST);
  CHECK(other.interval == 100);
  a = Pcs(k::kPcsOpStart, kGpuA, id + 1);
  CHECK(s.Io(k::kIocPcSample, &a) == EINVAL);
  a = Pcs(k::kPcsOpStart, kGpuB, id);  // ids are per GPU
  CHECK(s.Io(k::kIocPcSample, &a) == EINVAL);
  a = Pcs(k::kPcsOpStop, kGpuA, id);
  CHECK(s.Io(k::kIocPcSample, &a) == EALREADY);
  a = Pcs(k::kPcsOpStart, kGpuA, id);
  CHECK(s.Io(k::kIocPcSample, &a) == 0);
  CHECK(s.Io(k::kIocPcSample, &a) == EALREADY);
  a = Pcs(k::kPcsOpDestroy, kGpuA, id);
  CHECK(s.Io(k::kIocPcSample, &a) == EBUSY);
  a = Pcs(k::kPcsOpStop, kGpuA, id);
  CHECK(s.Io(k::kIocPcSample, &a) == 0);
  a = Pcs(k::kPcsOpDestroy, kGpuA, id);
  CHECK(s.Io(k::kIocPcSample, &a) == 0);
  CHECK(s.Io(k::kIocPcSample, &a) == EINVAL);
  // The configuration is free again; ids keep counting.
  a = Pcs(k::kPcsOpCreate, kGpuA);
  a.sample_info_ptr = Ptr(&other);
  a.num_sample_info = 1;
  other.interval = 200;
  REQUIRE(s.Io(k::kIocPcSample, &a) == 0);
  CHECK(a.trace_id == 2);
}

}  // namespace
