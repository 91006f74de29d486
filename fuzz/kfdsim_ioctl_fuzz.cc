// Fuzzes the simulator's ioctl surface (kfdsim_ioctl) with arbitrary
// request codes and argument bytes, on /dev/kfd and the render nodes of the
// built-in board "datacenter-4gpu".
//
// One simulator is created per process. An input is a sequence of at most
// kMaxOps operations; each picks a descriptor (kfd, a render node, a closed
// or foreign one) or a non-ioctl event (process reset, event interrupt,
// exception injection), a request (a raw 32-bit value, a request of
// hke::kfd::IoctlTable() with its own size field, or such a request with
// one field bent), an argument pointer (the buffer, NULL or an unmapped
// page) and the argument bytes. Pointer fields are whatever the bytes say;
// optional patches put a pointer into a mapped scratch area, a real
// descriptor, a real gpu_id or a value from the previous reply into the
// argument or the scratch area, so coverage reaches past the first
// copy_from_user. The argument ends right at a PROT_NONE page and the
// scratch area is followed by one, so an over-long copy shows as EFAULT.
//
// Pointer firewall: the simulator really reads and writes the memory a
// valid pointer names (as the kernel would), libFuzzer learns real heap and
// stack addresses from compared values, and the sanitizer shadow maps most
// of the low address space. So before each call every pointer field the
// dispatched handler follows (PointerFields(), from the core's UserRead/
// UserWrite sites) that names a mapped page outside the harness's own
// region is made non-canonical (never mapped). Copies start at the pointer
// and stop at the first unmapped page, so nothing but the harness region
// can be touched.
//
// Per input the process state is dropped at the end (kfdsim_reset_process),
// so every input starts from a fresh simulated process and replays alone.
// WAIT_EVENTS never sleeps: for every request that reaches the WAIT_EVENTS
// handler the timeout field is forced to 0 (poll); the timed and infinite
// waits are covered by tests/sim_core/events_test.cc. Descriptors handed
// out by EXPORT_DMABUF and SMI_EVENTS (also those a short reply hides) are
// closed after the input: the descriptor table is compared before and after
// each such call, and whatever it added is closed once the process state is
// dropped. Other descriptors are never touched (libFuzzer and the sanitizer
// symbolizer open their own between inputs).
//
// HKE_FUZZ_TRACE=1 in the environment prints the simulator's trace line of
// every call (for replaying one input).
//
// Invariants (trap on violation): every call returns 0 or a positive errno
// below 4096; for untouched table requests on /dev/kfd that succeed:
// GET_VERSION says major 1; CREATE_QUEUE gives a known type, percentage
// <= 100, priority <= 15, a power-of-two ring >= 1024, a queue id < 1024, a
// DOORBELL mmap offset of the same gpu and, for SDMA_BY_ENG_ID, an engine
// the GPU has; ALLOC_MEMORY_OF_GPU gives a handle whose top half is the
// gpu_id; CREATE_EVENT gives slot == id < 4096 for signal/debug events and
// ids >= 4096 otherwise; WAIT_EVENTS reports COMPLETE or TIMEOUT; the
// simulator never holds more than 1024 queues.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bitset>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/ioc.h"
#include "lib/kfd/ioctl_table.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/sim.h"

namespace k = hke::kfd;
using hke::fuzz::Input;

namespace {

constexpr size_t kMaxOps = 32;
constexpr size_t kPage = 4096;
constexpr size_t kArgArea = 16384;     // >= the largest _IOC_SIZE (16383)
constexpr size_t kScratch = 2 * kPage;  // what patched pointers point into
constexpr size_t kPrevCap = 4096;       // bytes of the previous reply kept
constexpr int kMaxFdSweep = 1024;
constexpr uint8_t kWaitEventsNr = 0x0C;
constexpr size_t kWaitTimeoutOffset = 16;  // WaitEventsArgs::timeout

struct Harness {
  kfdsim_t* sim = nullptr;
  kfdsim::Simulator* core = nullptr;
  int kfd = -1;
  int render[8] = {};
  uint32_t gpu_ids[8] = {};
  size_t ngpus = 0;
  // Layout: [argument area][guard][scratch][guard]
  uint8_t* region = nullptr;
  uint8_t* arg_end = nullptr;  // first byte of the first guard page
  uint8_t* scratch = nullptr;
  uint8_t* bad_page = nullptr;
  const k::IoctlInfo* table = nullptr;
  size_t table_size = 0;
};

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "kfdsim_ioctl_fuzz: %s\n", what);
  std::abort();
}

bool FdOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

Harness* Setup() {
  auto* h = new Harness;
  kfdsim_options o{};
  o.struct_size = sizeof(o);
  o.board_name = "datacenter-4gpu";
  char err[256] = {};
  if (kfdsim_create(&o, &h->sim, err, sizeof(err)) != 0) Die(err);
  h->core = kfdsim::Unwrap(h->sim);
  if (std::getenv("HKE_FUZZ_TRACE") != nullptr) {  // replaying an input: show every call
    kfdsim_set_trace(
        h->sim, [](void*, const char* line, size_t n) { std::fwrite(line, 1, n, stderr); }, nullptr);
  }
  if (kfdsim_open(h->sim, "/dev/kfd", O_RDWR | O_CLOEXEC, &h->kfd) != 0) Die("open /dev/kfd");
  for (const kfdsim::GpuDesc& g : h->core->desc().gpus) {
    if (h->ngpus == 8) break;
    const std::string path = "/dev/dri/renderD" + std::to_string(g.render_minor);
    if (kfdsim_open(h->sim, path.c_str(), O_RDWR | O_CLOEXEC, &h->render[h->ngpus]) != 0) {
      Die("open render node");
    }
    h->gpu_ids[h->ngpus++] = g.gpu_id;
  }
  if (h->ngpus == 0) Die("board has no GPU");
  const size_t total = kArgArea + kPage + kScratch + kPage;
  void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) Die("mmap");
  h->region = static_cast<uint8_t*>(m);
  h->arg_end = h->region + kArgArea;
  h->scratch = h->arg_end + kPage;
  h->bad_page = h->arg_end;
  if (mprotect(h->arg_end, kPage, PROT_NONE) != 0 ||
      mprotect(h->scratch + kScratch, kPage, PROT_NONE) != 0) {
    Die("mprotect");
  }
  h->table = k::IoctlTable(&h->table_size);
  return h;
}

using FdSet = std::bitset<kMaxFdSweep>;

FdSet OpenFds() {
  FdSet s;
  for (int fd = 0; fd < kMaxFdSweep; ++fd) s[static_cast<size_t>(fd)] = FdOpen(fd);
  return s;
}

uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Writes `width` bytes of `v` at `off` of buf[0..n) when they fit.
void Store(uint8_t* buf, size_t n, size_t off, uint64_t v, size_t width) {
  if (n < width) return;
  if (off > n - width) off = n - width;
  std::memcpy(buf + off, &v, width);
}

// True when the page holding `v` is mapped and is not part of the region.
bool Dangerous(const Harness& h, uint64_t v) {
  const uint64_t lo = reinterpret_cast<uintptr_t>(h.region);
  const uint64_t hi = lo + kArgArea + kPage + kScratch + kPage;
  if (v < kPage || v >= (1ull << 47) || (v >= lo && v < hi)) return false;
  void* page = reinterpret_cast<void*>(static_cast<uintptr_t>(v & ~uint64_t{kPage - 1}));
  return msync(page, kPage, MS_ASYNC) == 0 || errno != ENOMEM;
}

// Offsets of the user pointers the handler `req` reaches on a kfd or
// render descriptor follows; the list ends at 0xFF. KFD dispatch is by nr
// when the type is 'K'; DRM dispatch is by nr alone.
const uint8_t* PointerFields(bool kfd, uint32_t req) {
  static const uint8_t kNone[] = {0xFF};
  static const uint8_t kAt0[] = {0, 0xFF};
  static const uint8_t kAt8[] = {8, 0xFF};
  static const uint8_t kAt0And8[] = {0, 8, 0xFF};
  static const uint8_t kDrmVersion[] = {24, 40, 56, 0xFF};
  const uint8_t nr = k::IocNr(req);
  if (!kfd) {
    if (nr == 0x00) return kDrmVersion;
    if (nr == 0x45) return kAt0;  // AMDGPU_INFO return_pointer
    return kNone;
  }
  if (k::IocType(req) != k::kKfdIocType) return kNone;
  switch (nr) {
    case 0x0C: return kAt0;      // WAIT_EVENTS events_ptr
    case 0x12: return kAt0And8;  // GET_TILE_CONFIG arrays
    case 0x14: return kAt0;      // GET_PROCESS_APERTURES_NEW array
    case 0x18:                   // MAP / UNMAP device_ids_array_ptr
    case 0x19:
    case 0x1A: return kAt8;      // SET_CU_MASK cu_mask_ptr
    default: return kNone;
  }
}

void Firewall(const Harness& h, bool kfd, uint32_t req, uint8_t* arg, size_t n) {
  for (const uint8_t* f = PointerFields(kfd, req); *f != 0xFF; ++f) {
    if (*f >= n) continue;
    // A short argument leaves the pointer's high bytes zero in the kernel copy.
    const size_t have = n - *f < 8 ? n - *f : 8;
    uint64_t v = 0;
    std::memcpy(&v, arg + *f, have);
    if (!Dangerous(h, v)) continue;
    if (have == 8) {
      Store(arg, n, *f, v | (1ull << 62), 8);
    } else {
      std::memset(arg + *f, 0, have);
    }
  }
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

const kfdsim::GpuDesc* GpuById(const Harness& h, uint32_t gpu_id) {
  for (const kfdsim::GpuDesc& g : h.core->desc().gpus) {
    if (g.gpu_id == gpu_id) return &g;
  }
  return nullptr;
}

// Post-conditions of a successful, unmodified table request on /dev/kfd.
void CheckReply(const Harness& h, uint32_t request, const uint8_t* arg) {
  if (request == k::kIocGetVersion) {
    k::GetVersionArgs a;
    std::memcpy(&a, arg, sizeof(a));
    HKE_FUZZ_ASSERT(a.major_version == 1);
  } else if (request == k::kIocCreateQueue) {
    k::CreateQueueArgs a;
    std::memcpy(&a, arg, sizeof(a));
    HKE_FUZZ_ASSERT(a.queue_type <= k::kQueueTypeLast);
    HKE_FUZZ_ASSERT((a.queue_percentage & 0xFF) <= k::kMaxQueuePercentage);
    HKE_FUZZ_ASSERT(a.queue_priority <= k::kMaxQueuePriority);
    HKE_FUZZ_ASSERT(IsPowerOfTwo(a.ring_size) && a.ring_size >= k::kMinQueueRingSize);
    HKE_FUZZ_ASSERT(a.queue_id < 1024);
    HKE_FUZZ_ASSERT((a.doorbell_offset >> k::kMmapTypeShift) == k::kMmapTypeDoorbell);
    HKE_FUZZ_ASSERT(((a.doorbell_offset & k::kMmapGpuIdMask) >> k::kMmapGpuIdShift) ==
                    (a.gpu_id & 0xFFFFu));
    const kfdsim::GpuDesc* g = GpuById(h, a.gpu_id);
    HKE_FUZZ_ASSERT(g != nullptr);
    if (a.queue_type == k::kQueueTypeSdmaByEngId) {
      HKE_FUZZ_ASSERT(uint64_t{a.sdma_engine_id} <
                      uint64_t{g->num_sdma_engines} + g->num_sdma_xgmi_engines);
    }
  } else if (request == k::kIocAllocMemoryOfGpu) {
    k::AllocMemoryOfGpuArgs a;
    std::memcpy(&a, arg, sizeof(a));
    HKE_FUZZ_ASSERT(GpuById(h, a.gpu_id) != nullptr);
    HKE_FUZZ_ASSERT((a.handle >> 32) == a.gpu_id);
  } else if (request == k::kIocCreateEvent) {
    k::CreateEventArgs a;
    std::memcpy(&a, arg, sizeof(a));
    if (a.event_type == k::kEventSignal || a.event_type == k::kEventDebugEvent) {
      HKE_FUZZ_ASSERT(a.event_id == a.event_slot_index && a.event_id < k::kSignalEventLimit);
      HKE_FUZZ_ASSERT(a.event_trigger_data == a.event_id);
    } else {
      HKE_FUZZ_ASSERT(a.event_id >= k::kSignalEventLimit);
    }
  } else if (request == k::kIocWaitEvents) {
    k::WaitEventsArgs a;
    std::memcpy(&a, arg, sizeof(a));
    HKE_FUZZ_ASSERT(a.wait_result == k::kWaitResultComplete ||
                    a.wait_result == k::kWaitResultTimeout);
  }
}

// Picks the request: raw, a table entry, or a table entry with one field bent.
uint32_t PickRequest(const Harness& h, Input& in, uint8_t mode, bool* from_table) {
  *from_table = false;
  if ((mode & 3) == 0) return in.U32();
  const k::IoctlInfo& e = h.table[in.U8() % h.table_size];
  uint32_t req = e.request;
  if (e.variable_size) {  // SVM: base size plus a whole number of attributes
    const uint32_t size = e.size + 8u * (in.U8() % 64u);
    req = k::IocWithSize(req, size);
  }
  if ((mode & 3) != 3) {
    *from_table = !e.variable_size;
    return req;
  }
  switch (in.U8() % 4) {
    case 0: return k::IocWithSize(req, in.Get<uint16_t>() & k::kIocMaxSize);
    case 1: return (req & ~(3u << k::kIocDirShift)) | (uint32_t{in.U8() & 3u} << k::kIocDirShift);
    case 2: return (req & ~(0xFFu << k::kIocTypeShift)) | (uint32_t{in.U8()} << k::kIocTypeShift);
    default: return req ^ (uint32_t{in.U8()} << k::kIocNrShift);
  }
}

// Applies up to three patches to the argument (or the scratch area).
void Patch(const Harness& h, Input& in, uint8_t* arg, size_t n, const uint8_t* prev,
           size_t prev_len) {
  const uint32_t count = in.U8() % 4u;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t kind = in.U8();
    const bool to_scratch = (kind & 0x80) != 0;
    uint8_t* buf = to_scratch ? h.scratch : arg;
    const size_t len = to_scratch ? kScratch : n;
    const size_t off = in.Get<uint16_t>() % (len == 0 ? 1 : len);
    const uint32_t what = (kind & 0x7Fu) % 6u;
    switch (what) {
      case 0:  // a pointer into the scratch area
        Store(buf, len, off, reinterpret_cast<uintptr_t>(h.scratch + in.Get<uint16_t>() % kScratch),
              8);
        break;
      case 1: {  // a real simulated descriptor
        const uint8_t which = in.U8();
        const int fd = which % (h.ngpus + 1) == 0 ? h.kfd : h.render[which % (h.ngpus + 1) - 1];
        Store(buf, len, off, static_cast<uint32_t>(fd), 4);
        break;
      }
      case 2:  // a real gpu_id
        Store(buf, len, off, h.gpu_ids[in.U8() % h.ngpus], 4);
        break;
      case 3:  // 8 or 4 bytes of the previous reply (handles, ids, offsets)
      case 4: {
        const size_t width = what == 3 ? 8 : 4;
        if (prev_len >= width) {
          const size_t at = in.Get<uint16_t>() % (prev_len - width + 1);
          Store(buf, len, off, width == 8 ? Load64(prev + at) : Load32(prev + at), width);
        }
        break;
      }
      default: {  // raw input bytes
        const size_t want = in.U8();
        const size_t room = len - (off < len ? off : len);
        size_t take = want < room ? want : room;
        if (take > in.remaining()) take = in.remaining();
        if (take != 0) std::memcpy(buf + off, in.rest(), take);
        for (size_t j = 0; j < take; ++j) in.U8();
        break;
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness* const h = Setup();
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  std::memset(h->scratch, 0, kScratch);
  static uint8_t prev[kPrevCap];
  size_t prev_len = 0;
  FdSet added;  // descriptors that calls returning descriptors created

  for (size_t op = 0; op < kMaxOps && in.remaining() != 0; ++op) {
    const uint8_t sel = in.U8();
    if (sel >= 0xF2 && sel <= 0xF5) {  // events outside the ioctl surface
      if (sel == 0xF2) {
        kfdsim_reset_process(h->sim);
      } else if (sel == 0xF3) {
        kfdsim_signal_interrupt(h->sim);
      } else if (sel == 0xF4) {
        const uint32_t gpu = in.Bool() ? h->gpu_ids[in.U8() % h->ngpus] : in.U32();
        const uint64_t va = in.U64();
        const uint32_t flags = in.U8() & 0xF;
        const int r = kfdsim_inject_memory_exception(h->sim, gpu, va, flags, in.U32());
        HKE_FUZZ_ASSERT(r == 0 || r == EINVAL);
      } else {
        const uint32_t gpu = in.Bool() ? h->gpu_ids[in.U8() % h->ngpus] : in.U32();
        const int r = kfdsim_inject_hw_exception(h->sim, gpu, in.U8() & 1, in.U8() & 1, in.Bool());
        HKE_FUZZ_ASSERT(r == 0 || r == EINVAL);
      }
      continue;
    }
    int fd;
    if (sel == 0xF0) {
      fd = -1;
    } else if (sel == 0xF1) {
      fd = 0;  // a descriptor the simulator does not own
    } else {
      const size_t which = sel % (h->ngpus + 1);
      fd = which == 0 ? h->kfd : h->render[which - 1];
    }

    const uint8_t mode = in.U8();
    bool from_table = false;
    const uint32_t req = PickRequest(*h, in, mode, &from_table);
    const size_t n = k::IocSize(req);
    uint8_t* const arg = h->arg_end - n;
    std::memset(arg, 0, n);
    size_t fill = in.Get<uint16_t>();
    if (fill > n) fill = n;
    if (fill > in.remaining()) fill = in.remaining();
    if (fill != 0) std::memcpy(arg, in.rest(), fill);
    for (size_t j = 0; j < fill; ++j) in.U8();
    Patch(*h, in, arg, n, prev, prev_len);

    const bool to_kfd = fd == h->kfd;
    if (to_kfd && k::IocType(req) == k::kKfdIocType && k::IocNr(req) == kWaitEventsNr) {
      for (size_t j = kWaitTimeoutOffset; j < kWaitTimeoutOffset + 4 && j < n; ++j) arg[j] = 0;
    }

    Firewall(*h, to_kfd, req, arg, n);
    void* ptr = arg;
    const uint32_t arg_kind = (mode >> 2) & 7u;
    if (arg_kind == 0) ptr = nullptr;
    if (arg_kind == 1) ptr = h->bad_page;

    // SMI_EVENTS and EXPORT_DMABUF hand the caller a new descriptor.
    const bool gives_fd = to_kfd && (k::IocNr(req) == 0x1F || k::IocNr(req) == 0x24);
    FdSet before;
    if (gives_fd) before = OpenFds();
    const int r = kfdsim_ioctl(h->sim, fd, req, ptr);
    HKE_FUZZ_ASSERT(r >= 0 && r < 4096);
    if (gives_fd) added |= OpenFds() & ~before;
    if (r == 0 && to_kfd && from_table && ptr == arg) CheckReply(*h, req, arg);
    HKE_FUZZ_ASSERT(h->core->QueueCount() <= 1024);

    prev_len = n < kPrevCap ? n : kPrevCap;
    if (ptr == arg) std::memcpy(prev, arg, prev_len);
    else prev_len = 0;
  }

  kfdsim_reset_process(h->sim);
  if (added.any()) {
    for (int fd = 0; fd < kMaxFdSweep; ++fd) {
      if (added[static_cast<size_t>(fd)] && FdOpen(fd)) close(fd);
    }
  }
  return 0;
}
