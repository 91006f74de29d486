// Test fixture for the kfdsim packet engines: a simulator behind the C
// handle (so the engine C API is reachable), with helpers that do what a
// thunk does before it writes packets: ACQUIRE_VM, GTT/VRAM/userptr BOs
// mapped to the GPU and to the CPU, the user event page and signal events,
// queues and their doorbells. Every helper REQUIREs success.
#ifndef HKE_TESTS_SIM_ENGINES_ENGINE_FIXTURE_H_
#define HKE_TESTS_SIM_ENGINES_ENGINE_FIXTURE_H_

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "lib/kfd/abi.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/sim.h"
#include "tests/sim_core/sim_fixture.h"

namespace engtest {

namespace k = hke::kfd;
using simtest::kGpuA;
using simtest::kGpuB;

struct Buf {
  uint64_t handle = 0;
  uint64_t va = 0;       // GPU VA
  uint8_t* cpu = nullptr;  // CPU mapping (aliases the GPU's view)
  uint64_t size = 0;
  bool host = false;     // userptr: cpu points at anonymous memory we own

  template <typename T>
  T* at(uint64_t off) const {
    return reinterpret_cast<T*>(cpu + off);
  }
};

struct QueueRef {
  uint32_t id = 0;
  uint32_t gpu_id = 0;
  volatile uint64_t* doorbell = nullptr;  // SOC15: 64-bit doorbells
  uint64_t doorbell_offset = 0;           // byte offset in the process doorbell slice
};

class Engines {
 public:
  explicit Engines(kfdsim::Board board, uint32_t mode = KFDSIM_ENGINES_MANUAL)
      : h_(kfdsim::WrapBoard(std::move(board))) {
    REQUIRE(h_ != nullptr);
    sim = kfdsim::Unwrap(h_);
    REQUIRE(kfdsim_set_engine_mode(h_, mode) == 0);
    REQUIRE(sim->Open("/dev/kfd", O_RDWR | O_CLOEXEC, &kfd) == 0);
    for (const auto& g : sim->desc().gpus) {
      int fd = -1;
      REQUIRE(sim->Open(("/dev/dri/renderD" + std::to_string(g.render_minor)).c_str(),
                        O_RDWR | O_CLOEXEC, &fd) == 0);
      render_[g.gpu_id] = fd;
    }
    AcquireAll();
  }
  // ACQUIRE_VM on every GPU (again after a process reset, which also
  // forgets the event page and the doorbell mappings' queues).
  void AcquireAll() {
    for (const auto& [gpu_id, fd] : render_) {
      k::AcquireVmArgs a{};
      a.drm_fd = static_cast<uint32_t>(fd);
      a.gpu_id = gpu_id;
      REQUIRE(Io(k::kIocAcquireVm, &a) == 0);
    }
    events_page_ = Buf();
    doorbells_.clear();  // a reset made a new doorbell page
  }
  ~Engines() {
    kfdsim_destroy(h_);
    close(kfd);
    for (auto& [id, fd] : render_) {
      (void)id;
      close(fd);
    }
    for (auto& [p, n] : host_) munmap(p, n);
  }
  Engines(const Engines&) = delete;
  Engines& operator=(const Engines&) = delete;

  kfdsim_t* handle() { return h_; }

  template <typename T>
  int Io(uint32_t request, T* arg) {
    return sim->Ioctl(kfd, request, arg);
  }

  // A VRAM or GTT BO at a fresh VA, mapped to `gpu_id` and to the CPU.
  Buf Alloc(uint32_t gpu_id, uint64_t size, uint32_t domain = k::kAllocMemGtt) {
    Buf b;
    b.size = size;
    b.va = NextVa(size);
    k::AllocMemoryOfGpuArgs a{};
    a.va_addr = b.va;
    a.size = size;
    a.gpu_id = gpu_id;
    a.flags = domain | k::kAllocMemWritable | k::kAllocMemPublic;
    REQUIRE(Io(k::kIocAllocMemoryOfGpu, &a) == 0);
    b.handle = a.handle;
    void* p = nullptr;
    REQUIRE(sim->Mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, render_[gpu_id],
                      a.mmap_offset, &p) == 0);
    host_[p] = size;  // unmapped at the end like the user's own mappings
    b.cpu = static_cast<uint8_t*>(p);
    Map(b.handle, gpu_id);
    return b;
  }

  // System memory registered as a USERPTR BO (GPU VA == host address).
  Buf Userptr(uint32_t gpu_id, uint64_t size) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    host_[p] = size;
    Buf b;
    b.size = size;
    b.cpu = static_cast<uint8_t*>(p);
    b.va = reinterpret_cast<uintptr_t>(p);
    b.host = true;
    k::AllocMemoryOfGpuArgs a{};
    a.va_addr = b.va;
    a.size = size;
    a.gpu_id = gpu_id;
    a.mmap_offset = b.va;
    a.flags = k::kAllocMemUserptr | k::kAllocMemWritable;
    REQUIRE(Io(k::kIocAllocMemoryOfGpu, &a) == 0);
    b.handle = a.handle;
    Map(b.handle, gpu_id);
    return b;
  }

  // The process doorbell slice of `owner_gpu_id` as a DOORBELL BO (8 KiB of
  // 64-bit SOC15 doorbells) at a fresh VA, mapped to `mapped_gpu_id`: what a
  // thunk allocates so that the GPU can ring doorbells.
  Buf DoorbellBo(uint32_t owner_gpu_id, uint32_t mapped_gpu_id) {
    Buf b;
    b.size = 8192;
    b.va = NextVa(b.size);
    k::AllocMemoryOfGpuArgs a{};
    a.va_addr = b.va;
    a.size = b.size;
    a.gpu_id = owner_gpu_id;
    a.flags = k::kAllocMemDoorbell | k::kAllocMemWritable;
    REQUIRE(Io(k::kIocAllocMemoryOfGpu, &a) == 0);
    b.handle = a.handle;
    Map(b.handle, mapped_gpu_id);
    return b;
  }

  void Map(uint64_t handle, uint32_t gpu_id) {
    k::MapMemoryToGpuArgs m{};
    m.handle = handle;
    m.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu_id);
    m.n_devices = 1;
    REQUIRE(Io(k::kIocMapMemoryToGpu, &m) == 0);
  }

  // A signal event; the first one installs a user event page (a GTT BO of
  // 4096 slots mapped to `gpu_id`, like a dGPU thunk does).
  uint32_t SignalEvent(uint32_t gpu_id, bool auto_reset = true) {
    k::CreateEventArgs e{};
    if (events_page_.va == 0) {
      events_page_ = Alloc(gpu_id, 4096 * 8);
      e.event_page_offset = events_page_.handle;
    }
    e.event_type = k::kEventSignal;
    e.auto_reset = auto_reset ? 1 : 0;
    REQUIRE(Io(k::kIocCreateEvent, &e) == 0);
    return e.event_id;
  }
  // GPU VA of an event's slot in the event page.
  const Buf& event_page() const { return events_page_; }
  uint64_t SlotVa(uint32_t event_id) const { return events_page_.va + 8ull * event_id; }
  uint64_t Slot(uint32_t event_id) const {
    return __atomic_load_n(events_page_.at<uint64_t>(8ull * event_id), __ATOMIC_ACQUIRE);
  }

  uint32_t MemoryEvent() {
    k::CreateEventArgs e{};
    e.event_type = k::kEventMemory;
    REQUIRE(Io(k::kIocCreateEvent, &e) == 0);
    return e.event_id;
  }

  // WAIT_EVENTS on one event; returns the wait result (0 complete, 1 timeout).
  uint32_t Wait(uint32_t event_id, uint32_t timeout_ms, k::EventData* out = nullptr) {
    k::EventData d{};
    d.event_id = event_id;
    k::WaitEventsArgs w{};
    w.events_ptr = reinterpret_cast<uintptr_t>(&d);
    w.num_events = 1;
    w.timeout = timeout_ms;
    REQUIRE(Io(k::kIocWaitEvents, &w) == 0);
    if (out != nullptr) *out = d;
    return w.wait_result;
  }

  // The node's queue sizes (what CREATE_QUEUE's buffer checks compare with).
  kfdsim::KernelQueueSizes Sizes(uint32_t gpu_id) const {
    for (const auto& g : sim->desc().gpus) {
      if (g.gpu_id == gpu_id) return kfdsim::ComputeKernelQueueSizes(g, 4096);
    }
    FAIL("no such GPU");
    return {};
  }

  // A CWSR area of the node's size (host memory, USERPTR) for a compute queue.
  Buf CwsrArea(uint32_t gpu_id) {
    const kfdsim::KernelQueueSizes n = Sizes(gpu_id);
    uint64_t xcc = 1;
    for (const auto& g : sim->desc().gpus) xcc = g.gpu_id == gpu_id && g.num_xcc > 1 ? g.num_xcc : xcc;
    return Userptr(gpu_id, (uint64_t{n.cwsr_size} + n.debug_memory_size) * xcc);
  }

  // Compute queues get the node's EOP buffer, control stack size and a CWSR
  // area (CwsrArea unless `ctx_save` names one), as a thunk gives them: the
  // kernel's buffer checks (KFD 1.17) refuse anything else.
  QueueRef CreateQueue(uint32_t gpu_id, uint32_t type, const Buf& ring, uint32_t ring_size,
                       uint64_t rptr_va, uint64_t wptr_va, uint64_t ctx_save = 0) {
    k::CreateQueueArgs q{};
    q.ring_base_address = ring.va;
    q.ring_size = ring_size;
    q.gpu_id = gpu_id;
    q.queue_type = type;
    q.queue_percentage = 100;
    q.queue_priority = 7;
    q.read_pointer_address = rptr_va;
    q.write_pointer_address = wptr_va;
    if (type == k::kQueueTypeCompute || type == k::kQueueTypeComputeAql) {
      const kfdsim::KernelQueueSizes n = Sizes(gpu_id);
      if (ctx_save == 0) ctx_save = CwsrArea(gpu_id).va;
      q.ctx_save_restore_address = ctx_save;
      q.ctx_save_restore_size = n.cwsr_size;
      q.ctl_stack_size = n.ctl_stack_size;
      if (n.eop_buffer_size != 0) {
        q.eop_buffer_address = Alloc(gpu_id, n.eop_buffer_size).va;
        q.eop_buffer_size = n.eop_buffer_size;
      }
    } else {
      // SDMA queues: no CWSR area is checked, but a given one carries the
      // queue-error header the engines report through.
      q.ctx_save_restore_address = ctx_save;
    }
    REQUIRE(Io(k::kIocCreateQueue, &q) == 0);
    QueueRef r;
    r.id = q.queue_id;
    r.gpu_id = gpu_id;
    auto& page = doorbells_[gpu_id];
    if (page == nullptr) {
      void* p = nullptr;
      REQUIRE(sim->Mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, kfd,
                        q.doorbell_offset & ~0x1FFFull, &p) == 0);
      host_[p] = 8192;
      page = static_cast<uint8_t*>(p);
    }
    r.doorbell_offset = q.doorbell_offset & 0x1FFF;
    r.doorbell = reinterpret_cast<volatile uint64_t*>(page + r.doorbell_offset);
    return r;
  }

  // UPDATE_QUEUE: a new ring (0 and size 0 disable the queue), percentage
  // and priority 7.
  int UpdateQueue(uint32_t id, uint64_t ring_va, uint32_t ring_size, uint32_t percentage) {
    k::UpdateQueueArgs u{};
    u.queue_id = id;
    u.ring_base_address = ring_va;
    u.ring_size = ring_size;
    u.queue_percentage = percentage;
    u.queue_priority = 7;
    return Io(k::kIocUpdateQueue, &u);
  }

  int DestroyQueue(uint32_t id) {
    k::DestroyQueueArgs d{};
    d.queue_id = id;
    return Io(k::kIocDestroyQueue, &d);
  }

  static void Ring(const QueueRef& q, uint64_t value) {
    __atomic_store_n(const_cast<uint64_t*>(q.doorbell), value, __ATOMIC_RELEASE);
  }

  uint64_t Step() {
    uint64_t n = 0;
    REQUIRE(kfdsim_step_queues(h_, &n) == 0);
    return n;
  }

  kfdsim_queue_info Status(uint32_t id, std::string* reason = nullptr) {
    kfdsim_queue_info info{};
    info.struct_size = sizeof(info);
    char buf[256] = {};
    REQUIRE(kfdsim_queue_status(h_, id, &info, buf, sizeof(buf)) == 0);
    if (reason != nullptr) *reason = buf;
    return info;
  }

  kfdsim::Simulator* sim = nullptr;
  int kfd = -1;

 private:
  uint64_t NextVa(uint64_t size) {
    const uint64_t va = next_va_;
    next_va_ += (size + 0xFFFFull) & ~0xFFFFull;
    next_va_ += 0x10000;  // a hole between BOs: running off one faults
    return va;
  }

  kfdsim_t* h_ = nullptr;
  std::map<uint32_t, int> render_;
  std::map<uint32_t, uint8_t*> doorbells_;
  std::map<void*, uint64_t> host_;
  Buf events_page_;
  // Queue addresses must pass the kernel's user-range check: below 4 GiB
  // on 32-bit targets.
  uint64_t next_va_ = sizeof(void*) == 4 ? 0x40000000ull : 0x7f0000000000ull;
};

// Appends dwords to a ring at a monotonic byte offset, wrapping modulo the
// ring size (packets may straddle the end, as the engines must handle).
struct RingWriter {
  uint8_t* base = nullptr;
  uint64_t size = 0;
  uint64_t wptr = 0;  // bytes

  void Put(uint32_t dw) {
    std::memcpy(base + (wptr % size), &dw, 4);
    wptr += 4;
  }
  void Put(std::initializer_list<uint32_t> dws) {
    for (uint32_t d : dws) Put(d);
  }
};

inline uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

}  // namespace engtest

#endif  // HKE_TESTS_SIM_ENGINES_ENGINE_FIXTURE_H_
