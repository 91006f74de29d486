// Contract tests for lib/kfd/encode.h: validation, checked arithmetic,
// hostile replies, and "outputs untouched on failure" (every output is
// pre-filled with 0xA5 and compared byte for byte after a failing call).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "lib/kfd/encode.h"
#include "lib/kfd/ioctl_table.h"

namespace k = hke::kfd;
using hke::Status;

namespace {

// An output object filled with 0xA5, and a check that it still is.
template <typename T>
struct Poisoned {
  T v;
  Poisoned() { std::memset(static_cast<void*>(&v), 0xA5, sizeof(T)); }
  bool untouched() const {
    unsigned char ref[sizeof(T)];
    std::memset(ref, 0xA5, sizeof(T));
    return std::memcmp(&v, ref, sizeof(T)) == 0;
  }
};

bool IsApi(Status s, hke_api_code c) { return s.is_api(c); }

constexpr uint32_t kGpu = 0x1234;

k::AllocRequest GoodAlloc() {
  k::AllocRequest r{};
  r.gpu_id = kGpu;
  r.flags = k::kAllocMemVram | k::kAllocMemWritable;
  r.va_addr = 0x7f0000000000;
  r.size = 1 << 20;
  r.page_size = k::kDefaultPageSize;
  return r;
}

k::QueueRequest GoodQueue() {
  k::QueueRequest q{};
  q.gpu_id = kGpu;
  q.queue_type = k::kQueueTypeComputeAql;
  q.ring_base = 0x10000000;
  q.ring_size = 4096;
  q.percentage = 100;
  q.priority = 7;
  q.read_ptr = 0x20000000;
  q.write_ptr = 0x20000008;
  q.eop_addr = 0x30000000;
  q.eop_size = 4096;
  q.ctx_save_addr = 0x40000000;
  q.ctx_save_size = 0x10000;
  q.ctl_stack_size = 0x1000;
  return q;
}

}  // namespace

// ---------------------------------------------------------------------------
// GET_VERSION
// ---------------------------------------------------------------------------

TEST_CASE("version decoder accepts major 1 and refuses any other major") {
  k::KfdVersion v{};
  REQUIRE(k::DecodeGetVersion({1, 17}, &v).ok());
  CHECK(v.major == 1);
  CHECK(v.minor == 17);
  CHECK(k::KfdAtLeast(v, 13));
  CHECK_FALSE(k::KfdAtLeast(v, 19));

  for (uint32_t major : {0u, 2u, 0xFFFFFFFFu}) {
    Poisoned<k::KfdVersion> out;
    CHECK(IsApi(k::DecodeGetVersion({major, 11}, &out.v), HKE_STATUS_VERSION_MISMATCH));
    CHECK(out.untouched());
  }
}

// ---------------------------------------------------------------------------
// Apertures
// ---------------------------------------------------------------------------

namespace {

k::ProcessDeviceApertures Gfx9Apertures(uint32_t gpu_id) {
  k::ProcessDeviceApertures a{};
  a.gpu_id = gpu_id;
  a.lds_base = 0x1000000000000ull;
  a.lds_limit = 0x10000ffffffffull;
  a.scratch_base = 0x2000000000000ull;
  a.scratch_limit = 0x20000ffffffffull;
  a.gpuvm_base = 0x1000000ull;
  a.gpuvm_limit = 0x7fffffffffffull;
  return a;
}

}  // namespace

TEST_CASE("aperture request rejects a capacity without a buffer and vice versa") {
  k::GetProcessAperturesNewArgs a{};
  CHECK(k::EncodeGetProcessAperturesNew(0, 0, &a).ok());
  CHECK(a.num_of_nodes == 0);
  Poisoned<k::GetProcessAperturesNewArgs> out;
  CHECK(IsApi(k::EncodeGetProcessAperturesNew(0x1000, 0, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeGetProcessAperturesNew(0, 4, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeGetProcessAperturesNew(0x1000, k::kMaxApertureNodes + 1, &out.v),
              HKE_STATUS_OUT_OF_RANGE));
  CHECK(IsApi(k::EncodeGetProcessAperturesNew(UINT64_MAX - 100, 4, &out.v),
              HKE_STATUS_OVERFLOW));
  CHECK(out.untouched());
}

TEST_CASE("aperture decoder converts a well-formed gfx9 reply") {
  k::ProcessDeviceApertures entries[2] = {Gfx9Apertures(kGpu), Gfx9Apertures(kGpu + 1)};
  k::GetProcessAperturesNewArgs sent{};
  REQUIRE(k::EncodeGetProcessAperturesNew(0x5000, 2, &sent).ok());
  k::GetProcessAperturesNewArgs reply = sent;
  k::NodeApertures out[2];
  uint32_t n = 0;
  REQUIRE(k::DecodeGetProcessAperturesNew(sent, reply, entries, out, 2, &n).ok());
  CHECK(n == 2);
  CHECK(out[1].gpu_id == kGpu + 1);
  CHECK(out[0].scratch.base == 0x2000000000000ull);
  CHECK(out[0].gpuvm.limit == 0x7fffffffffffull);
}

TEST_CASE("aperture decoder treats hostile replies as PROTOCOL and publishes nothing") {
  k::GetProcessAperturesNewArgs sent{};
  REQUIRE(k::EncodeGetProcessAperturesNew(0x5000, 2, &sent).ok());

  struct Case {
    const char* what;
    void (*mutate)(k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures*);
  };
  const Case cases[] = {
      {"count larger than the buffer given",
       [](k::GetProcessAperturesNewArgs* r, k::ProcessDeviceApertures*) { r->num_of_nodes = 3; }},
      {"count far larger than the buffer",
       [](k::GetProcessAperturesNewArgs* r, k::ProcessDeviceApertures*) {
         r->num_of_nodes = 0xFFFFFFFFu;
       }},
      {"pointer changed",
       [](k::GetProcessAperturesNewArgs* r, k::ProcessDeviceApertures*) {
         r->kfd_process_device_apertures_ptr = 0x6000;
       }},
      {"gpuvm limit below base",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[1].gpuvm_limit = e[1].gpuvm_base - 1;
       }},
      {"lds limit below base",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[0].lds_limit = e[0].lds_base - 1;
       }},
      {"gpuvm beyond 57 bits",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[0].gpuvm_limit = 0xFFFFFFFFFFFFFFFFull;
       }},
      {"scratch base not on a 4 GiB boundary (non-canonical)",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[0].scratch_base += 0x1000;
       }},
      {"lds window wider than 4 GiB",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[0].lds_limit = e[0].lds_base + (1ull << 33);
       }},
      {"gpuvm not page granular",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[0].gpuvm_limit -= 1;
       }},
      {"lds overlapping gpuvm",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[0].lds_base = 0x100000000ull;
         e[0].lds_limit = 0x1ffffffffull;
       }},
      {"gpu_id zero",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) { e[1].gpu_id = 0; }},
      {"duplicate gpu_id",
       [](k::GetProcessAperturesNewArgs*, k::ProcessDeviceApertures* e) {
         e[1].gpu_id = e[0].gpu_id;
       }},
  };
  for (const Case& c : cases) {
    INFO(std::string(c.what));
    k::ProcessDeviceApertures entries[2] = {Gfx9Apertures(kGpu), Gfx9Apertures(kGpu + 1)};
    k::GetProcessAperturesNewArgs reply = sent;
    c.mutate(&reply, entries);
    Poisoned<k::NodeApertures[2]> out;
    Poisoned<uint32_t> count;
    CHECK(IsApi(k::DecodeGetProcessAperturesNew(sent, reply, entries, out.v, 2, &count.v),
                HKE_STATUS_PROTOCOL));
    CHECK(out.untouched());
    CHECK(count.untouched());
  }
}

TEST_CASE("aperture decoder reports a too-small output array") {
  k::ProcessDeviceApertures entries[2] = {Gfx9Apertures(kGpu), Gfx9Apertures(kGpu + 1)};
  k::GetProcessAperturesNewArgs sent{};
  REQUIRE(k::EncodeGetProcessAperturesNew(0x5000, 2, &sent).ok());
  Poisoned<k::NodeApertures[2]> out;
  Poisoned<uint32_t> count;
  CHECK(IsApi(k::DecodeGetProcessAperturesNew(sent, sent, entries, out.v, 1, &count.v),
              HKE_STATUS_BUFFER_TOO_SMALL));
  CHECK(out.untouched());
  CHECK(count.untouched());
}

TEST_CASE("aperture count decoder refuses zero and counts above the caller's limit") {
  uint32_t n = 0;
  CHECK(k::DecodeApertureCount({0, 3, 0}, 8, &n).ok());
  CHECK(n == 3);
  Poisoned<uint32_t> out;
  CHECK(IsApi(k::DecodeApertureCount({0, 0, 0}, 8, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(IsApi(k::DecodeApertureCount({0, 9, 0}, 8, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());
}

// ---------------------------------------------------------------------------
// ALLOC_MEMORY_OF_GPU
// ---------------------------------------------------------------------------

TEST_CASE("alloc encoder builds the request for a valid VRAM allocation") {
  k::AllocMemoryOfGpuArgs a{};
  REQUIRE(k::EncodeAllocMemoryOfGpu(GoodAlloc(), &a).ok());
  CHECK(a.gpu_id == kGpu);
  CHECK(a.size == (1u << 20));
  CHECK(a.flags == (k::kAllocMemVram | k::kAllocMemWritable));
  CHECK(a.mmap_offset == 0);
  CHECK(a.handle == 0);
}

TEST_CASE("alloc encoder rejects sizes and flag combinations the kernel rejects") {
  struct Case {
    const char* what;
    void (*mutate)(k::AllocRequest*);
    hke_api_code expect;
  };
  const Case cases[] = {
      {"size 0", [](k::AllocRequest* r) { r->size = 0; }, HKE_STATUS_INVALID_ARGUMENT},
      {"size not a page multiple", [](k::AllocRequest* r) { r->size = 4097; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"va not aligned", [](k::AllocRequest* r) { r->va_addr += 8; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"va + size wraps",
       [](k::AllocRequest* r) {
         r->va_addr = 0xFFFFFFFFFFFFF000ull;
         r->size = 0x2000;
       },
       HKE_STATUS_OVERFLOW},
      {"gpu_id 0", [](k::AllocRequest* r) { r->gpu_id = 0; }, HKE_STATUS_INVALID_ARGUMENT},
      {"no domain bit", [](k::AllocRequest* r) { r->flags = k::kAllocMemWritable; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"two domain bits", [](k::AllocRequest* r) { r->flags = k::kAllocMemVram | k::kAllocMemGtt; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"unknown flag bit", [](k::AllocRequest* r) { r->flags |= 1u << 20; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"userptr without address", [](k::AllocRequest* r) { r->flags = k::kAllocMemUserptr; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"address without userptr", [](k::AllocRequest* r) { r->userptr = 0x1000; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"userptr range wraps",
       [](k::AllocRequest* r) {
         r->flags = k::kAllocMemUserptr;
         r->userptr = 0xFFFFFFFFFFF00000ull;
       },
       HKE_STATUS_OVERFLOW},
      {"mmio remap of more than one page",
       [](k::AllocRequest* r) {
         r->flags = k::kAllocMemMmioRemap;
         r->size = 8192;
       },
       HKE_STATUS_INVALID_ARGUMENT},
      {"mmio remap with 64K kernel pages",
       [](k::AllocRequest* r) {
         r->flags = k::kAllocMemMmioRemap;
         r->size = 65536;
         r->page_size = 65536;
       },
       HKE_STATUS_INVALID_ARGUMENT},
      {"contiguous outside VRAM",
       [](k::AllocRequest* r) { r->flags = k::kAllocMemGtt | k::kAllocMemContiguous; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"page size not a power of two", [](k::AllocRequest* r) { r->page_size = 6000; },
       HKE_STATUS_INVALID_ARGUMENT},
  };
  for (const Case& c : cases) {
    INFO(std::string(c.what));
    k::AllocRequest r = GoodAlloc();
    c.mutate(&r);
    Poisoned<k::AllocMemoryOfGpuArgs> out;
    CHECK(IsApi(k::EncodeAllocMemoryOfGpu(r, &out.v), c.expect));
    CHECK(out.untouched());
  }
}

TEST_CASE("alloc decoder requires the handle's gpu_id to match the request") {
  k::AllocMemoryOfGpuArgs sent{};
  REQUIRE(k::EncodeAllocMemoryOfGpu(GoodAlloc(), &sent).ok());
  k::AllocMemoryOfGpuArgs reply = sent;
  reply.handle = (uint64_t{kGpu} << 32) | 5;
  reply.mmap_offset = 0x100000;
  k::AllocResult r{};
  REQUIRE(k::DecodeAllocMemoryOfGpu(sent, reply, &r).ok());
  CHECK(r.handle == reply.handle);
  CHECK(k::HandleGpuId(r.handle) == kGpu);

  Poisoned<k::AllocResult> out;
  reply.handle = (uint64_t{kGpu + 1} << 32) | 5;
  CHECK(IsApi(k::DecodeAllocMemoryOfGpu(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  reply.handle = (uint64_t{kGpu} << 32) | 5;
  reply.mmap_offset = 0x100001;  // a DRM offset is page aligned
  CHECK(IsApi(k::DecodeAllocMemoryOfGpu(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());
}

TEST_CASE("alloc decoder requires an MMIO mmap offset of the same gpu for MMIO_REMAP") {
  k::AllocRequest req = GoodAlloc();
  req.flags = k::kAllocMemMmioRemap | k::kAllocMemWritable;
  req.size = 4096;
  k::AllocMemoryOfGpuArgs sent{};
  REQUIRE(k::EncodeAllocMemoryOfGpu(req, &sent).ok());
  k::AllocMemoryOfGpuArgs reply = sent;
  reply.handle = uint64_t{kGpu} << 32;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeMmio, kGpu, 0}, &reply.mmap_offset).ok());
  k::AllocResult r{};
  CHECK(k::DecodeAllocMemoryOfGpu(sent, reply, &r).ok());

  Poisoned<k::AllocResult> out;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeMmio, kGpu + 1, 0}, &reply.mmap_offset).ok());
  CHECK(IsApi(k::DecodeAllocMemoryOfGpu(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeDoorbell, kGpu, 0}, &reply.mmap_offset).ok());
  CHECK(IsApi(k::DecodeAllocMemoryOfGpu(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());
}

// ---------------------------------------------------------------------------
// MAP / UNMAP
// ---------------------------------------------------------------------------

TEST_CASE("map encoder rejects zero devices and a resume point past the end") {
  k::MapRequest r{uint64_t{kGpu} << 32 | 1, 0x9000, 3, 0};
  k::MapMemoryToGpuArgs a{};
  REQUIRE(k::EncodeMapMemoryToGpu(r, &a).ok());
  CHECK(a.n_devices == 3);
  CHECK(a.n_success == 0);

  Poisoned<k::MapMemoryToGpuArgs> out;
  Poisoned<k::UnmapMemoryFromGpuArgs> uout;
  k::MapRequest bad = r;
  bad.n_devices = 0;
  CHECK(IsApi(k::EncodeMapMemoryToGpu(bad, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeUnmapMemoryFromGpu(bad, &uout.v), HKE_STATUS_INVALID_ARGUMENT));
  bad = r;
  bad.already_done = 4;
  CHECK(IsApi(k::EncodeMapMemoryToGpu(bad, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  bad = r;
  bad.n_devices = k::kMaxMapDevices + 1;
  CHECK(IsApi(k::EncodeMapMemoryToGpu(bad, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  bad = r;
  bad.device_ids = UINT64_MAX - 4;
  CHECK(IsApi(k::EncodeMapMemoryToGpu(bad, &out.v), HKE_STATUS_OVERFLOW));
  bad = r;
  bad.handle = 0;
  CHECK(IsApi(k::EncodeUnmapMemoryFromGpu(bad, &uout.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out.untouched());
  CHECK(uout.untouched());
}

TEST_CASE("map progress decoder accepts partial progress and refuses impossible counts") {
  k::MapMemoryToGpuArgs sent{};
  REQUIRE(k::EncodeMapMemoryToGpu({uint64_t{kGpu} << 32 | 1, 0x9000, 4, 1}, &sent).ok());
  k::MapMemoryToGpuArgs reply = sent;
  reply.n_success = 3;
  uint32_t done = 0;
  REQUIRE(k::DecodeMapProgress(sent, reply, false, &done).ok());
  CHECK(done == 3);

  Poisoned<uint32_t> out;
  reply.n_success = 5;  // more than n_devices
  CHECK(IsApi(k::DecodeMapProgress(sent, reply, false, &out.v), HKE_STATUS_PROTOCOL));
  reply.n_success = 0;  // went backwards
  CHECK(IsApi(k::DecodeMapProgress(sent, reply, false, &out.v), HKE_STATUS_PROTOCOL));
  reply.n_success = 3;  // success must mean all done
  CHECK(IsApi(k::DecodeMapProgress(sent, reply, true, &out.v), HKE_STATUS_PROTOCOL));
  reply.n_devices = 9;
  reply.n_success = 4;
  CHECK(IsApi(k::DecodeMapProgress(sent, reply, true, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());

  k::UnmapMemoryFromGpuArgs usent{};
  REQUIRE(k::EncodeUnmapMemoryFromGpu({uint64_t{kGpu} << 32 | 1, 0x9000, 2, 0}, &usent).ok());
  k::UnmapMemoryFromGpuArgs ureply = usent;
  ureply.n_success = 2;
  REQUIRE(k::DecodeUnmapProgress(usent, ureply, true, &done).ok());
  CHECK(done == 2);
}

// ---------------------------------------------------------------------------
// Queues
// ---------------------------------------------------------------------------

TEST_CASE("create-queue encoder builds a valid AQL queue request") {
  k::CreateQueueArgs a{};
  REQUIRE(k::EncodeCreateQueue(GoodQueue(), &a).ok());
  CHECK(a.queue_type == k::kQueueTypeComputeAql);
  CHECK(a.ring_size == 4096);
  CHECK(a.ctl_stack_size == 0x1000);
  CHECK(a.doorbell_offset == 0);
  CHECK(a.queue_id == 0);
}

TEST_CASE("create-queue encoder rejects what the kernel rejects or would misuse") {
  struct Case {
    const char* what;
    void (*mutate)(k::QueueRequest*);
    hke_api_code expect;
  };
  const Case cases[] = {
      {"ring size not a power of two", [](k::QueueRequest* q) { q->ring_size = 3000; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"ring size below the kernel's clamp", [](k::QueueRequest* q) { q->ring_size = 512; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"ring size 0", [](k::QueueRequest* q) { q->ring_size = 0; }, HKE_STATUS_INVALID_ARGUMENT},
      {"percentage 101", [](k::QueueRequest* q) { q->percentage = 101; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"percentage bits above the XCC byte", [](k::QueueRequest* q) { q->percentage = 1u << 16; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"priority 16", [](k::QueueRequest* q) { q->priority = 16; }, HKE_STATUS_INVALID_ARGUMENT},
      {"unknown queue type", [](k::QueueRequest* q) { q->queue_type = 5; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"gpu_id 0", [](k::QueueRequest* q) { q->gpu_id = 0; }, HKE_STATUS_INVALID_ARGUMENT},
      {"ring wraps",
       [](k::QueueRequest* q) { q->ring_base = 0xFFFFFFFFFFFFF000ull; },
       HKE_STATUS_OVERFLOW},
      {"eop address without size", [](k::QueueRequest* q) { q->eop_size = 0; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"control stack larger than the save area",
       [](k::QueueRequest* q) { q->ctl_stack_size = q->ctx_save_size + 1; },
       HKE_STATUS_INVALID_ARGUMENT},
      {"unaligned read pointer", [](k::QueueRequest* q) { q->read_ptr += 2; },
       HKE_STATUS_INVALID_ARGUMENT},
  };
  for (const Case& c : cases) {
    INFO(std::string(c.what));
    k::QueueRequest q = GoodQueue();
    c.mutate(&q);
    Poisoned<k::CreateQueueArgs> out;
    CHECK(IsApi(k::EncodeCreateQueue(q, &out.v), c.expect));
    CHECK(out.untouched());
  }
  // Bits 8-15 carry the PM4 target XCC and are allowed.
  k::QueueRequest q = GoodQueue();
  q.percentage = (3u << 8) | 50;
  k::CreateQueueArgs a{};
  CHECK(k::EncodeCreateQueue(q, &a).ok());
  q = GoodQueue();
  q.queue_type = k::kQueueTypeSdmaByEngId;
  q.sdma_engine_id = 2;
  CHECK(k::EncodeCreateQueue(q, &a).ok());
  // Other types carry the engine id as given (the kernel ignores it; the
  // runtime passes -1), as upstream sends it.
  q = GoodQueue();
  q.sdma_engine_id = 0xFFFFFFFFu;
  REQUIRE(k::EncodeCreateQueue(q, &a).ok());
  CHECK(a.sdma_engine_id == 0xFFFFFFFFu);
}

TEST_CASE("create-queue decoder requires a doorbell offset of the same gpu") {
  k::CreateQueueArgs sent{};
  REQUIRE(k::EncodeCreateQueue(GoodQueue(), &sent).ok());
  k::CreateQueueArgs reply = sent;
  reply.queue_id = 3;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeDoorbell, kGpu, 0x18}, &reply.doorbell_offset).ok());
  k::CreateQueueResult r{};
  REQUIRE(k::DecodeCreateQueue(sent, reply, &r).ok());
  CHECK(r.queue_id == 3);

  Poisoned<k::CreateQueueResult> out;
  k::CreateQueueArgs bad = reply;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeDoorbell, kGpu + 1, 0}, &bad.doorbell_offset).ok());
  CHECK(IsApi(k::DecodeCreateQueue(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  bad = reply;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeMmio, kGpu, 0}, &bad.doorbell_offset).ok());
  CHECK(IsApi(k::DecodeCreateQueue(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  bad = reply;
  bad.queue_id = k::kMaxQueuesPerProcess;
  CHECK(IsApi(k::DecodeCreateQueue(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  bad = reply;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeDoorbell, kGpu, 1u << 20}, &bad.doorbell_offset).ok());
  CHECK(IsApi(k::DecodeCreateQueue(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());
}

TEST_CASE("update-queue encoder allows disabling at any percentage and rejects bad rings") {
  k::UpdateQueueArgs a{};
  CHECK(k::EncodeUpdateQueue({3, 0, 0, 0, 0}, &a).ok());
  // A NULL ring disables the queue whatever the percentage (the kernel's
  // reading; a conformance suite disables with percentage 100).
  REQUIRE(k::EncodeUpdateQueue({3, 0, 0, 100, 7}, &a).ok());
  CHECK(a.ring_base_address == 0);
  CHECK(a.ring_size == 0);
  CHECK(a.queue_percentage == 100);
  CHECK(a.queue_priority == 7);
  CHECK(k::EncodeUpdateQueue({3, 0x10000, 1024, 100, 15}, &a).ok());
  Poisoned<k::UpdateQueueArgs> out;
  CHECK(IsApi(k::EncodeUpdateQueue({3, 0x10000, 1000, 100, 15}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeUpdateQueue({3, 0x10000, 1024, 100, 16}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  // No ring, but a size: ambiguous, refused.
  CHECK(IsApi(k::EncodeUpdateQueue({3, 0, 4096, 50, 0}, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out.untouched());
}

TEST_CASE("CU mask encoder needs a nonzero multiple of 32 bits up to 1024") {
  k::SetCuMaskArgs a{};
  REQUIRE(k::EncodeSetCuMask(1, 0x1000, 64, &a).ok());
  CHECK(a.num_cu_mask == 64);
  CHECK(k::EncodeSetCuMask(1, 0x1000, 1024, &a).ok());
  Poisoned<k::SetCuMaskArgs> out;
  CHECK(IsApi(k::EncodeSetCuMask(1, 0x1000, 0, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeSetCuMask(1, 0x1000, 33, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeSetCuMask(1, 0x1000, 1056, &out.v), HKE_STATUS_OUT_OF_RANGE));
  CHECK(IsApi(k::EncodeSetCuMask(1, 0, 32, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out.untouched());
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

TEST_CASE("create-event codec checks slot indices and id ranges") {
  k::CreateEventArgs sent{};
  REQUIRE(k::EncodeCreateEvent({k::kEventSignal, true, 0, 0}, &sent).ok());
  CHECK(sent.auto_reset == 1);
  k::CreateEventArgs reply = sent;
  reply.event_id = 7;
  reply.event_slot_index = 7;
  reply.event_trigger_data = 7;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeEvents, 0, 0}, &reply.event_page_offset).ok());
  k::CreateEventResult r{};
  REQUIRE(k::DecodeCreateEvent(sent, reply, &r).ok());
  CHECK(r.slot_index == 7);

  Poisoned<k::CreateEventResult> out;
  k::CreateEventArgs bad = reply;
  bad.event_slot_index = bad.event_id = bad.event_trigger_data = 4096;
  CHECK(IsApi(k::DecodeCreateEvent(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  bad = reply;
  bad.event_slot_index = 0;  // slot 0 with another id
  CHECK(IsApi(k::DecodeCreateEvent(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  bad = reply;
  bad.event_id = 8;
  CHECK(IsApi(k::DecodeCreateEvent(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  bad = reply;
  bad.event_page_offset = 0x1000;
  CHECK(IsApi(k::DecodeCreateEvent(sent, bad, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());

  // A memory event takes an id above the signal range and has no slot.
  k::CreateEventArgs msent{};
  REQUIRE(k::EncodeCreateEvent({k::kEventMemory, false, 0, 0}, &msent).ok());
  k::CreateEventArgs mreply = msent;
  mreply.event_id = 0x40000000;
  CHECK(k::DecodeCreateEvent(msent, mreply, &r).ok());
  mreply.event_id = 12;
  CHECK(IsApi(k::DecodeCreateEvent(msent, mreply, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());

  Poisoned<k::CreateEventArgs> eout;
  CHECK(IsApi(k::EncodeCreateEvent({9, false, 0, 0}, &eout.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(eout.untouched());
}

TEST_CASE("wait encoder caps the event count and the decoder checks the result") {
  k::WaitEventsArgs a{};
  REQUIRE(k::EncodeWaitEvents(0x8000, 4096, true, 100, &a).ok());
  CHECK(a.num_events == 4096);
  CHECK(a.wait_for_all == 1);
  Poisoned<k::WaitEventsArgs> out;
  CHECK(IsApi(k::EncodeWaitEvents(0x8000, 0, false, 0, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeWaitEvents(0x8000, 4097, false, 0, &out.v), HKE_STATUS_OUT_OF_RANGE));
  CHECK(IsApi(k::EncodeWaitEvents(0, 1, false, 0, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeWaitEvents(UINT64_MAX - 50, 2, false, 0, &out.v), HKE_STATUS_OVERFLOW));
  CHECK(out.untouched());

  k::WaitEventsArgs reply = a;
  reply.wait_result = k::kWaitResultTimeout;
  reply.timeout = 40;
  k::WaitResult w{};
  REQUIRE(k::DecodeWaitEvents(a, reply, &w).ok());
  CHECK(w.result == k::kWaitResultTimeout);
  CHECK(w.remaining_ms == 40);
  Poisoned<k::WaitResult> wout;
  reply.wait_result = 3;
  CHECK(IsApi(k::DecodeWaitEvents(a, reply, &wout.v), HKE_STATUS_PROTOCOL));
  reply.wait_result = 0;
  reply.timeout = 101;
  CHECK(IsApi(k::DecodeWaitEvents(a, reply, &wout.v), HKE_STATUS_PROTOCOL));
  CHECK(wout.untouched());
}

TEST_CASE("event id encoders accept id 0, which kernels before 5.18 give the first signal event") {
  k::SetEventArgs s{};
  k::ResetEventArgs r{};
  k::DestroyEventArgs d{};
  s.event_id = r.event_id = d.event_id = 77;
  REQUIRE(k::EncodeSetEvent(0, &s).ok());
  REQUIRE(k::EncodeResetEvent(0, &r).ok());
  REQUIRE(k::EncodeDestroyEvent(0, &d).ok());
  CHECK(s.event_id == 0);
  CHECK(r.event_id == 0);
  CHECK(d.event_id == 0);
  k::SetEventArgs ok{};
  REQUIRE(k::EncodeSetEvent(5, &ok).ok());
  CHECK(ok.event_id == 5);
  // A signal event in slot 0 decodes (id, slot and trigger data all 0).
  k::CreateEventArgs sent{};
  REQUIRE(k::EncodeCreateEvent({k::kEventSignal, false, 0, 0}, &sent).ok());
  k::CreateEventArgs reply = sent;
  reply.event_id = reply.event_slot_index = reply.event_trigger_data = 0;
  reply.event_page_offset = static_cast<uint64_t>(k::kMmapTypeEvents) << k::kMmapTypeShift;
  k::CreateEventResult res{};
  res.slot_index = 9;
  REQUIRE(k::DecodeCreateEvent(sent, reply, &res).ok());
  CHECK(res.slot_index == 0);
}

// ---------------------------------------------------------------------------
// SVM
// ---------------------------------------------------------------------------

TEST_CASE("SVM builder emits a size field equal to the bytes written") {
  const k::SvmAttribute attrs[2] = {{k::kSvmAttrAccess, kGpu},
                                    {k::kSvmAttrSetFlags, k::kSvmFlagCoherent}};
  unsigned char buf[64];
  uint32_t req = 0;
  size_t bytes = 0;
  REQUIRE(k::BuildSvmCommand(0x10000, 0x4000, k::kSvmOpSetAttr, attrs, 2, buf, sizeof(buf), &req,
                             &bytes)
              .ok());
  CHECK(bytes == 40);
  CHECK(k::IocSize(req) == 40);
  CHECK(k::IocNr(req) == 0x20);
  CHECK(k::IocDir(req) == k::kIocReadWrite);
  CHECK(std::string(k::RequestName(req)) == "AMDKFD_IOC_SVM");
  k::SvmArgs head{};
  std::memcpy(&head, buf, sizeof(head));
  CHECK(head.start_addr == 0x10000);
  CHECK(head.nattr == 2);
  CHECK(std::memcmp(buf + 24, attrs, 16) == 0);
}

TEST_CASE("SVM builder accepts 2044 attributes and rejects 2045 (14-bit size field)") {
  std::vector<k::SvmAttribute> attrs(2045, k::SvmAttribute{k::kSvmAttrAccess, kGpu});
  std::vector<unsigned char> buf(24 + 8 * 2045);
  uint32_t req = 0;
  size_t bytes = 0;
  REQUIRE(k::BuildSvmCommand(0x10000, 0x1000, k::kSvmOpGetAttr, attrs.data(), 2044, buf.data(),
                             buf.size(), &req, &bytes)
              .ok());
  CHECK(bytes == 16376);
  CHECK(k::IocSize(req) == 16376);
  CHECK(k::IocDir(req) == k::kIocReadWrite);

  Poisoned<uint32_t> oreq;
  Poisoned<size_t> obytes;
  std::vector<unsigned char> before = buf;
  CHECK(IsApi(k::BuildSvmCommand(0x10000, 0x1000, k::kSvmOpGetAttr, attrs.data(), 2045,
                                 buf.data(), buf.size(), &oreq.v, &obytes.v),
              HKE_STATUS_OVERFLOW));
  CHECK(IsApi(k::BuildSvmCommand(0x10000, 0x1000, k::kSvmOpGetAttr, attrs.data(), 0xFFFFFFFFu,
                                 buf.data(), buf.size(), &oreq.v, &obytes.v),
              HKE_STATUS_OVERFLOW));
  CHECK(oreq.untouched());
  CHECK(obytes.untouched());
  CHECK(buf == before);

  size_t n = 0;
  CHECK(k::SvmCommandBytes(2044, &n).ok());
  CHECK(n == 16376);
  CHECK(IsApi(k::SvmCommandBytes(2045, &n), HKE_STATUS_OVERFLOW));
}

TEST_CASE("SVM builder validates range, op, attributes and buffer capacity") {
  const k::SvmAttribute good[1] = {{k::kSvmAttrGranularity, 0xFF}};
  struct Case {
    const char* what;
    uint64_t start, size;
    uint32_t op;
    k::SvmAttribute attr;
    size_t capacity;
    hke_api_code expect;
  };
  const Case cases[] = {
      {"start 0", 0, 0x1000, 0, good[0], 64, HKE_STATUS_INVALID_ARGUMENT},
      {"size 0", 0x1000, 0, 0, good[0], 64, HKE_STATUS_INVALID_ARGUMENT},
      {"unaligned start", 0x1008, 0x1000, 0, good[0], 64, HKE_STATUS_INVALID_ARGUMENT},
      {"unaligned size", 0x1000, 0x1800, 0, good[0], 64, HKE_STATUS_INVALID_ARGUMENT},
      {"range wraps", 0xFFFFFFFFFFFFF000ull, 0x2000, 0, good[0], 64, HKE_STATUS_OVERFLOW},
      {"unknown op", 0x1000, 0x1000, 2, good[0], 64, HKE_STATUS_INVALID_ARGUMENT},
      {"unknown attribute", 0x1000, 0x1000, 0, {8, 0}, 64, HKE_STATUS_INVALID_ARGUMENT},
      {"unknown flag bit", 0x1000, 0x1000, 0, {k::kSvmAttrSetFlags, 0x100}, 64,
       HKE_STATUS_INVALID_ARGUMENT},
      {"buffer one byte short", 0x1000, 0x1000, 0, good[0], 31, HKE_STATUS_BUFFER_TOO_SMALL},
  };
  for (const Case& c : cases) {
    INFO(std::string(c.what));
    Poisoned<unsigned char[64]> buf;
    Poisoned<uint32_t> req;
    Poisoned<size_t> bytes;
    CHECK(IsApi(k::BuildSvmCommand(c.start, c.size, c.op, &c.attr, 1, buf.v, c.capacity, &req.v,
                                   &bytes.v),
                c.expect));
    CHECK(buf.untouched());
    CHECK(req.untouched());
    CHECK(bytes.untouched());
  }
  // With 64 KiB kernel pages a 4 KiB-aligned range is refused.
  unsigned char buf[64];
  uint32_t req = 0;
  size_t bytes = 0;
  CHECK(IsApi(k::BuildSvmCommand(0x11000, 0x10000, 0, good, 1, buf, sizeof(buf), &req, &bytes,
                                 65536),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(k::BuildSvmCommand(0x10000, 0x10000, 0, good, 1, buf, sizeof(buf), &req, &bytes, 65536)
            .ok());
}

TEST_CASE("SVM get-reply decoder reads attributes back and rejects a changed head") {
  const k::SvmAttribute q[2] = {{k::kSvmAttrAccess, kGpu}, {k::kSvmAttrPreferredLoc, 0}};
  unsigned char buf[40];
  uint32_t req = 0;
  size_t bytes = 0;
  REQUIRE(
      k::BuildSvmCommand(0x10000, 0x1000, k::kSvmOpGetAttr, q, 2, buf, sizeof(buf), &req, &bytes)
          .ok());
  // The kernel rewrites the access attribute type to report the access.
  k::SvmAttribute answer{k::kSvmAttrAccessInPlace, kGpu};
  std::memcpy(buf + 24, &answer, sizeof(answer));
  k::SvmAttribute out[2];
  REQUIRE(k::DecodeSvmGetReply(buf, bytes, 0x10000, 0x1000, 2, out, 2).ok());
  CHECK(out[0].type == k::kSvmAttrAccessInPlace);

  Poisoned<k::SvmAttribute[2]> pout;
  unsigned char bad[40];
  std::memcpy(bad, buf, sizeof(bad));
  uint32_t nattr = 3;
  std::memcpy(bad + 20, &nattr, 4);
  CHECK(IsApi(k::DecodeSvmGetReply(bad, bytes, 0x10000, 0x1000, 2, pout.v, 2),
              HKE_STATUS_PROTOCOL));
  std::memcpy(bad, buf, sizeof(bad));
  k::SvmAttribute junk{99, 0};
  std::memcpy(bad + 32, &junk, sizeof(junk));
  CHECK(IsApi(k::DecodeSvmGetReply(bad, bytes, 0x10000, 0x1000, 2, pout.v, 2),
              HKE_STATUS_PROTOCOL));
  CHECK(IsApi(k::DecodeSvmGetReply(buf, bytes, 0x10000, 0x1000, 2, pout.v, 1),
              HKE_STATUS_BUFFER_TOO_SMALL));
  CHECK(pout.untouched());
}

// ---------------------------------------------------------------------------
// mmap offsets
// ---------------------------------------------------------------------------

TEST_CASE("mmap offsets place type in bits 63-62 and gpu_id in bits 61-46") {
  uint64_t off = 0;
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeDoorbell, 0xBEEF, 0x1008}, &off).ok());
  CHECK(off == ((3ull << 62) | (0xBEEFull << 46) | 0x1008));
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeEvents, 0, 0}, &off).ok());
  CHECK(off == (2ull << 62));
  REQUIRE(k::EncodeMmapOffset({k::kMmapTypeMmio, 0xFFFF, 0}, &off).ok());
  CHECK(off == (0xFFFFull << 46));
  k::MmapOffset m{};
  REQUIRE(k::DecodeMmapOffset((1ull << 62) | (7ull << 46) | 0x2000, &m).ok());
  CHECK(m.type == k::kMmapTypeReservedMem);
  CHECK(m.gpu_id == 7);
  CHECK(m.value == 0x2000);

  Poisoned<uint64_t> out;
  CHECK(IsApi(k::EncodeMmapOffset({4, 1, 0}, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeMmapOffset({k::kMmapTypeDoorbell, 0x10000, 0}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeMmapOffset({k::kMmapTypeDoorbell, 1, 1ull << 46}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeMmapOffset({k::kMmapTypeEvents, 1, 0}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeMmapOffset({k::kMmapTypeMmio, 1, 8}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out.untouched());
  Poisoned<k::MmapOffset> mout;
  CHECK(IsApi(k::DecodeMmapOffset((2ull << 62) | (1ull << 46), &mout.v), HKE_STATUS_PROTOCOL));
  CHECK(mout.untouched());
}

// ---------------------------------------------------------------------------
// Tile config, available memory
// ---------------------------------------------------------------------------

TEST_CASE("tile-config decoder refuses counts above the capacities sent") {
  k::GetTileConfigArgs sent{};
  REQUIRE(k::EncodeGetTileConfig({kGpu, 0x1000, 32, 0x2000, 16}, &sent).ok());
  k::GetTileConfigArgs reply = sent;
  reply.num_tile_configs = 26;
  reply.num_macro_tile_configs = 16;
  reply.num_banks = 16;
  k::TileConfigResult r{};
  REQUIRE(k::DecodeGetTileConfig(sent, reply, &r).ok());
  CHECK(r.num_tile_configs == 26);
  CHECK(r.num_banks == 16);
  Poisoned<k::TileConfigResult> out;
  reply.num_macro_tile_configs = 17;
  CHECK(IsApi(k::DecodeGetTileConfig(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());
  Poisoned<k::GetTileConfigArgs> eout;
  CHECK(IsApi(k::EncodeGetTileConfig({kGpu, 0, 32, 0x2000, 16}, &eout.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeGetTileConfig({kGpu, UINT64_MAX - 8, 32, 0, 0}, &eout.v),
              HKE_STATUS_OVERFLOW));
  CHECK(eout.untouched());
}

TEST_CASE("available-memory codec requires the same gpu in the reply") {
  k::GetAvailableMemoryArgs sent{};
  REQUIRE(k::EncodeAvailableMemory(kGpu, &sent).ok());
  k::GetAvailableMemoryArgs reply = sent;
  reply.available = 1ull << 34;
  uint64_t bytes = 0;
  REQUIRE(k::DecodeAvailableMemory(sent, reply, &bytes).ok());
  CHECK(bytes == (1ull << 34));
  Poisoned<uint64_t> out;
  reply.gpu_id = 1;
  CHECK(IsApi(k::DecodeAvailableMemory(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  Poisoned<k::GetAvailableMemoryArgs> eout;
  CHECK(IsApi(k::EncodeAvailableMemory(0, &eout.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out.untouched());
  CHECK(eout.untouched());
}

// ---------------------------------------------------------------------------
// Debugger
// ---------------------------------------------------------------------------

TEST_CASE("snapshot buffer size is computed without 32-bit wrap-around") {
  size_t bytes = 0;
  REQUIRE(k::SnapshotBufferBytes(120, 4, &bytes).ok());
  CHECK(bytes == 480);
  // Upstream computes 120 * UINT32_MAX in 32 bits (wraps to ~4 GiB - 120).
  Poisoned<size_t> out;
  const Status s = k::SnapshotBufferBytes(120, 0xFFFFFFFFu, &out.v);
  if (sizeof(size_t) == 4) {
    CHECK(IsApi(s, HKE_STATUS_OVERFLOW));
    CHECK(out.untouched());
  } else {
    REQUIRE(s.ok());
    CHECK(out.v == size_t{120} * size_t{0xFFFFFFFFu});
  }
  // 0x10000 * 0x10000 wraps to 0 in 32 bits.
  Poisoned<size_t> out2;
  const Status s2 = k::SnapshotBufferBytes(0x10000, 0x10000, &out2.v);
  if (sizeof(size_t) == 4) {
    CHECK(IsApi(s2, HKE_STATUS_OVERFLOW));
    CHECK(out2.untouched());
  } else {
    CHECK(s2.ok());
  }
}

TEST_CASE("snapshot encoders check the buffer against count times entry size") {
  k::DbgTrapArgs a{};
  REQUIRE(k::EncodeDeviceSnapshot(42, 0, 0x1000, 2 * 120, 2, &a).ok());
  CHECK(a.op == k::kDbgTrapGetDeviceSnapshot);
  CHECK(a.device_snapshot.entry_size == 120);
  CHECK(a.device_snapshot.num_devices == 2);
  REQUIRE(k::EncodeQueueSnapshot(42, 0, 0, 0, 0, &a).ok());
  CHECK(a.op == k::kDbgTrapGetQueueSnapshot);
  CHECK(a.queue_snapshot.entry_size == 64);

  Poisoned<k::DbgTrapArgs> out;
  CHECK(IsApi(k::EncodeDeviceSnapshot(42, 0, 0x1000, 239, 2, &out.v),
              HKE_STATUS_BUFFER_TOO_SMALL));
  CHECK(IsApi(k::EncodeQueueSnapshot(42, 0, 0x1000, 64, 0, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeQueueSnapshot(42, 0, UINT64_MAX - 63, 128, 2, &out.v),
              HKE_STATUS_OVERFLOW));
  CHECK(out.untouched());
}

TEST_CASE("snapshot decoder clamps to the capacity and refuses a larger entry size") {
  k::DbgTrapArgs sent{};
  REQUIRE(k::EncodeQueueSnapshot(42, 0, 0x1000, 4 * 64, 4, &sent).ok());
  k::DbgTrapArgs reply = sent;
  reply.queue_snapshot.num_queues = 9;
  reply.queue_snapshot.entry_size = 56;
  k::SnapshotResult r{};
  REQUIRE(k::DecodeSnapshot(sent, reply, &r).ok());
  CHECK(r.available == 9);
  CHECK(r.filled == 4);
  CHECK(r.entry_size == 56);
  Poisoned<k::SnapshotResult> out;
  reply.queue_snapshot.entry_size = 65;
  CHECK(IsApi(k::DecodeSnapshot(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  reply.queue_snapshot.entry_size = 0;
  CHECK(IsApi(k::DecodeSnapshot(sent, reply, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());
}

TEST_CASE("runtime-enable codec accepts known modes only") {
  k::RuntimeEnableArgs a{};
  REQUIRE(k::EncodeRuntimeEnable(0x1234, k::kRuntimeEnableModeEnable |
                                             k::kRuntimeEnableModeTtmpSave, &a)
              .ok());
  CHECK(k::EncodeRuntimeEnable(0, 0, &a).ok());
  Poisoned<k::RuntimeEnableArgs> out;
  CHECK(IsApi(k::EncodeRuntimeEnable(0, 4, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeRuntimeEnable(0, k::kRuntimeEnableModeTtmpSave, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out.untouched());
  REQUIRE(k::EncodeRuntimeEnable(0x1234, k::kRuntimeEnableModeEnable, &a).ok());
  k::RuntimeEnableArgs reply = a;
  reply.capabilities_mask = k::kRuntimeEnableCapsSupportsCoreDump;
  uint32_t caps = 0;
  REQUIRE(k::DecodeRuntimeEnable(a, reply, &caps).ok());
  CHECK(caps == k::kRuntimeEnableCapsSupportsCoreDump);
}

// ---------------------------------------------------------------------------
// PC sampling and SPM
// ---------------------------------------------------------------------------

TEST_CASE("PC-sample codec checks per-op arguments and the trace id") {
  k::PcSampleArgs a{};
  REQUIRE(k::EncodePcSample({k::kPcsOpQueryCapabilities, kGpu, 0x1000, 4, 0, 0}, &a).ok());
  CHECK(k::EncodePcSample({k::kPcsOpQueryCapabilities, kGpu, 0, 0, 0, 0}, &a).ok());
  REQUIRE(k::EncodePcSample({k::kPcsOpCreate, kGpu, 0x1000, 1, 0, 0}, &a).ok());
  k::PcSampleArgs reply = a;
  reply.trace_id = 3;
  uint32_t v = 0;
  REQUIRE(k::DecodePcSample(a, reply, &v).ok());
  CHECK(v == 3);

  Poisoned<uint32_t> vout;
  reply.trace_id = 0;
  CHECK(IsApi(k::DecodePcSample(a, reply, &vout.v), HKE_STATUS_PROTOCOL));
  // The kernel's ids are positive ints.
  reply.trace_id = k::kMaxPcSampleTraceId + 1;
  CHECK(IsApi(k::DecodePcSample(a, reply, &vout.v), HKE_STATUS_PROTOCOL));
  reply.trace_id = k::kMaxPcSampleTraceId;
  CHECK(k::DecodePcSample(a, reply, &v).ok());
  // Only a QUERY reply may step its pointer, and by exactly one record.
  reply.sample_info_ptr += sizeof(k::PcSampleInfo);
  CHECK(IsApi(k::DecodePcSample(a, reply, &vout.v), HKE_STATUS_PROTOCOL));
  CHECK(vout.untouched());
  k::PcSampleArgs q{};
  REQUIRE(k::EncodePcSample({k::kPcsOpQueryCapabilities, kGpu, 0x1000, 4, 0, 0}, &q).ok());
  k::PcSampleArgs qreply = q;
  qreply.num_sample_info = 2;
  qreply.sample_info_ptr = 0x1000 + sizeof(k::PcSampleInfo);
  REQUIRE(k::DecodePcSample(q, qreply, &v).ok());
  CHECK(v == 2);
  qreply.sample_info_ptr = 0x1000 + 2 * sizeof(k::PcSampleInfo);
  CHECK(IsApi(k::DecodePcSample(q, qreply, &vout.v), HKE_STATUS_PROTOCOL));
  qreply.num_sample_info = k::kMaxPcSampleInfos + 1;
  qreply.sample_info_ptr = 0x1000;
  CHECK(IsApi(k::DecodePcSample(q, qreply, &vout.v), HKE_STATUS_PROTOCOL));
  CHECK(vout.untouched());

  Poisoned<k::PcSampleArgs> out;
  CHECK(IsApi(k::EncodePcSample({k::kPcsOpCreate, kGpu, 0x1000, 2, 0, 0}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodePcSample({k::kPcsOpStart, kGpu, 0, 0, 0, 0}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodePcSample({5, kGpu, 0, 0, 1, 0}, &out.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodePcSample({k::kPcsOpQueryCapabilities, kGpu, 0x1000, 4, 0, 2}, &out.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out.untouched());

  k::PcSampleInfo info{100, 10, 1000, 0, k::kPcsMethodStochastic, k::kPcsTypeClockCycles};
  k::PcSampleInfo decoded{};
  CHECK(k::DecodePcSampleInfo(info, &decoded).ok());
  Poisoned<k::PcSampleInfo> iout;
  info.interval_min = 2000;
  CHECK(IsApi(k::DecodePcSampleInfo(info, &iout.v), HKE_STATUS_PROTOCOL));
  info.interval_min = 10;
  info.method = 0;
  CHECK(IsApi(k::DecodePcSampleInfo(info, &iout.v), HKE_STATUS_PROTOCOL));
  CHECK(iout.untouched());
}

TEST_CASE("SPM codec bounds bytes_copied by the previous buffer") {
  k::SpmArgs a{};
  REQUIRE(k::EncodeRlcSpm({k::kSpmOpSetDestBuf, kGpu, 0x100000, 4096, 100}, &a).ok());
  k::SpmArgs reply = a;
  reply.bytes_copied = 2048;
  reply.timeout = 20;
  k::SpmResult r{};
  REQUIRE(k::DecodeRlcSpm(a, reply, 2048, &r).ok());
  CHECK(r.bytes_copied == 2048);
  CHECK(r.remaining_ms == 20);
  Poisoned<k::SpmResult> out;
  CHECK(IsApi(k::DecodeRlcSpm(a, reply, 1024, &out.v), HKE_STATUS_PROTOCOL));
  reply.timeout = 101;
  CHECK(IsApi(k::DecodeRlcSpm(a, reply, 4096, &out.v), HKE_STATUS_PROTOCOL));
  CHECK(out.untouched());

  Poisoned<k::SpmArgs> eout;
  CHECK(IsApi(k::EncodeRlcSpm({k::kSpmOpSetDestBuf, kGpu, 0x100000, 16, 0}, &eout.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeRlcSpm({k::kSpmOpAcquire, kGpu, 0x100000, 0, 0}, &eout.v),
              HKE_STATUS_INVALID_ARGUMENT));
  CHECK(IsApi(k::EncodeRlcSpm({3, kGpu, 0, 0, 0}, &eout.v), HKE_STATUS_INVALID_ARGUMENT));
  CHECK(eout.untouched());
  CHECK(k::EncodeRlcSpm({k::kSpmOpSetDestBuf, kGpu, 0, 0, 0}, &a).ok());
}
