// The fault-injection sweep harness (see sweep.h for the model and
// README.md for how to read a failure).
#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "doctest/doctest.h"
#include "hsakmt/hsakmt_linux.h"
#include "lib/context/context.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/ioctl_table.h"
#include "lib/memory/memory.h"
#include "platform/sim/board.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "tests/fault_sweep/sweep.h"
#include "tests/support/sim_board.h"

namespace sweep {

namespace {

using hke::memory::MemObject;
using hke::memory::MemoryState;
using hke::memory::ObjectKind;
using hke::memory::VaSource;

uint64_t Page() {
  static const uint64_t p = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return p;
}

uint64_t RoundUp(uint64_t v) { return (v + Page() - 1) & ~(Page() - 1); }

std::string Hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof(b), "0x%" PRIx64, v);
  return b;
}

std::string ErrnoName(int e) {
  return hke_status_name(hke_status_make(HKE_DOMAIN_ERRNO, static_cast<uint32_t>(e)));
}

const char* OpName(uint32_t op) {
  const char* n = hke_faults_op_name(op);
  return n != nullptr ? n : "?";
}

const char* HsaName(HSAKMT_STATUS s) {
  switch (s) {
    case HSAKMT_STATUS_SUCCESS:
      return "SUCCESS";
    case HSAKMT_STATUS_ERROR:
      return "ERROR";
    case HSAKMT_STATUS_DRIVER_MISMATCH:
      return "DRIVER_MISMATCH";
    case HSAKMT_STATUS_INVALID_PARAMETER:
      return "INVALID_PARAMETER";
    case HSAKMT_STATUS_INVALID_HANDLE:
      return "INVALID_HANDLE";
    case HSAKMT_STATUS_INVALID_NODE_UNIT:
      return "INVALID_NODE_UNIT";
    case HSAKMT_STATUS_NO_MEMORY:
      return "NO_MEMORY";
    case HSAKMT_STATUS_BUFFER_TOO_SMALL:
      return "BUFFER_TOO_SMALL";
    case HSAKMT_STATUS_NOT_IMPLEMENTED:
      return "NOT_IMPLEMENTED";
    case HSAKMT_STATUS_NOT_SUPPORTED:
      return "NOT_SUPPORTED";
    case HSAKMT_STATUS_UNAVAILABLE:
      return "UNAVAILABLE";
    case HSAKMT_STATUS_OUT_OF_RESOURCES:
      return "OUT_OF_RESOURCES";
    case HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED:
      return "KERNEL_IO_CHANNEL_NOT_OPENED";
    case HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR:
      return "KERNEL_COMMUNICATION_ERROR";
    case HSAKMT_STATUS_KERNEL_ALREADY_OPENED:
      return "KERNEL_ALREADY_OPENED";
    case HSAKMT_STATUS_HSAMMU_UNAVAILABLE:
      return "HSAMMU_UNAVAILABLE";
    case HSAKMT_STATUS_WAIT_FAILURE:
      return "WAIT_FAILURE";
    case HSAKMT_STATUS_WAIT_TIMEOUT:
      return "WAIT_TIMEOUT";
    case HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED:
      return "MEMORY_ALREADY_REGISTERED";
    case HSAKMT_STATUS_MEMORY_NOT_REGISTERED:
      return "MEMORY_NOT_REGISTERED";
    case HSAKMT_STATUS_MEMORY_ALIGNMENT:
      return "MEMORY_ALIGNMENT";
    default:
      return "status?";
  }
}

std::string StatusText(HSAKMT_STATUS s) {
  return std::string(HsaName(s)) + "(" + std::to_string(static_cast<int>(s)) + ")";
}

// ---- process-wide views -------------------------------------------------

// Descriptors of this process (/proc/self/fd, without the listing's own).
std::map<int, std::string> ProcFds() {
  std::map<int, std::string> out;
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return out;
  const int self = dirfd(d);
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd == self) continue;
    char target[512] = {};
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    out[fd] = n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string("?");
  }
  closedir(d);
  return out;
}

struct MapsLine {
  uint64_t start, end;
  std::string perms;
  std::string path;
  std::string text;
};

std::vector<MapsLine> ProcMaps() {
  std::vector<MapsLine> out;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    MapsLine m{};
    m.text = line;
    unsigned long long s = 0, e = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s", &s, &e, perms) != 3) continue;
    m.start = s;
    m.end = e;
    m.perms = perms;
    // The path is the sixth field (may contain spaces, e.g. "(deleted)").
    size_t pos = 0;
    for (int field = 0; field < 5 && pos != std::string::npos; ++field) {
      pos = line.find(' ', pos);
      if (pos != std::string::npos) pos = line.find_first_not_of(' ', pos);
    }
    if (pos != std::string::npos) m.path = line.substr(pos);
    out.push_back(m);
  }
  return out;
}

bool Overlaps(const RangeSet& set, uint64_t s, uint64_t e) {
  for (const auto& r : set.ranges()) {
    if (r.first < e && s < r.second) return true;
  }
  return false;
}

// ---- simulators ------------------------------------------------------------

// Loading a board (generating its sysfs files) costs more than the rest of
// a run, so each board is loaded once per process and every run wraps it
// in a FRESH simulator (new kernel state: process, devices, BOs, VM) that
// reads the same immutable files through this forwarder.
//
// The simulator is built without RTTI and this file with it, so UBSan's
// vptr check cannot recognise the loader's provider: the calls into it
// are exempt from that one check.
#if defined(__clang__) || defined(__GNUC__)
#define HKE_SWEEP_NO_VPTR_CHECK __attribute__((no_sanitize("vptr")))
#else
#define HKE_SWEEP_NO_VPTR_CHECK
#endif

class SharedFiles : public kfdsim::FileProvider {
 public:
  explicit SharedFiles(const kfdsim::FileProvider* f) : f_(f) {}
  HKE_SWEEP_NO_VPTR_CHECK int Kind(const std::string& path, kfdsim::FileKind* out) const override {
    return f_->Kind(path, out);
  }
  HKE_SWEEP_NO_VPTR_CHECK int Read(const std::string& path, std::string* out) const override {
    return f_->Read(path, out);
  }
  HKE_SWEEP_NO_VPTR_CHECK int List(const std::string& path,
                                   std::vector<kfdsim::DirEntry>* out) const override {
    return f_->List(path, out);
  }
  HKE_SWEEP_NO_VPTR_CHECK bool Owns(const std::string& path) const override {
    return f_->Owns(path);
  }

 private:
  const kfdsim::FileProvider* f_;
};

// A fresh simulator on board `name` (built-in), or nullptr with *error.
// The loaded boards live until the process exits (never destroyed, so no
// destructor of the loader's provider runs from this file).
kfdsim_t* NewSimulator(const std::string& name, uint32_t cpu_count, std::string* error) {
  static auto* boards = new std::map<std::string, kfdsim::Board*>();
  const std::string key = name + "/" + std::to_string(cpu_count);
  auto it = boards->find(key);
  if (it == boards->end()) {
    auto* b = new kfdsim::Board();
    kfdsim::LoadOptions load;
    load.cpu_count = cpu_count;
    if (kfdsim::LoadBuiltinBoard(name, load, b, error) != 0) {
      delete b;  // nothing loaded: no provider to destroy
      return nullptr;
    }
    it = boards->emplace(key, b).first;
  }
  kfdsim::Board copy;
  copy.desc = it->second->desc;
  copy.files = std::make_unique<SharedFiles>(it->second->files.get());
  kfdsim_t* sim = kfdsim::WrapBoard(std::move(copy));
  if (sim == nullptr) *error = "WrapBoard failed";
  return sim;
}

// ---- the ledger ---------------------------------------------------------

// A platform decorator recording every call and the resources the library
// holds through it. It sits above the faults decorator, so it sees the
// injected failures too; a resource is counted only when the call
// succeeded, except close, which releases the descriptor whatever it
// returns (platform contract). Not thread-safe (the sweep is sequential).
class Ledger {
 public:
  explicit Ledger(hke_platform inner) : inner_(inner) {
    ops_ = hke_platform_ops{};
    ops_.struct_size = sizeof(ops_);
    ops_.abi_version = HKE_PLATFORM_ABI_VERSION;
    const hke_platform_ops& in = *inner_.ops;
    ops_.open = &Open;
    ops_.close = &Close;
    ops_.ioctl = &Ioctl;
    ops_.read_file = &ReadFile;
    if (in.mmap != nullptr) ops_.mmap = &Mmap;
    if (in.munmap != nullptr) ops_.munmap = &Munmap;
    if (in.madvise != nullptr) ops_.madvise = &Madvise;
    if (in.list_dir != nullptr) ops_.list_dir = &ListDir;
    if (in.clock_ns != nullptr) ops_.clock_ns = &ClockNs;
    if (in.cpu_count != nullptr) ops_.cpu_count = &CpuCount;
    if (in.process_id != nullptr) ops_.process_id = &ProcessId;
    if (in.read_fd != nullptr) ops_.read_fd = &ReadFd;
    if (in.page_size != nullptr) ops_.page_size = &PageSize;
    if (in.marketing_name != nullptr) ops_.marketing_name = &MarketingName;
    if (in.mem_policy != nullptr) ops_.mem_policy = &MemPolicy;
  }
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  hke_platform platform() { return hke_platform{&ops_, this}; }

  bool recording = false;          // append calls to `calls` (during act)
  std::vector<Call> calls;         // the calls of act, in order
  std::map<int, std::string> fds;  // descriptors the library holds: path
  RangeSet mapped;                 // address ranges the library holds mapped
  RangeSet abandoned;              // munmap refused: still mapped, let go
  RangeSet ever;                   // every range the library mapped in this run

 private:
  static Ledger* L(void* self) { return static_cast<Ledger*>(self); }
  const hke_platform_ops& In() const { return *inner_.ops; }
  void* InSelf() const { return inner_.self; }
  void Note(Call c) {
    if (recording) calls.push_back(std::move(c));
  }

  static int Open(void* self, const char* path, uint32_t flags, int* out_fd) {
    Ledger* l = L(self);
    const int r = l->In().open(l->InSelf(), path, flags, out_fd);
    if (r == 0) l->fds[*out_fd] = path != nullptr ? path : "?";
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_OPEN;
      c.result = r;
      c.flags = flags;
      c.path = path != nullptr ? path : "(null)";
      if (r == 0) c.fd = *out_fd;
      l->Note(c);
    }
    return r;
  }
  static int Close(void* self, int fd) {
    Ledger* l = L(self);
    const int r = l->In().close(l->InSelf(), fd);
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_CLOSE;
      c.result = r;
      c.fd = fd;
      auto it = l->fds.find(fd);
      if (it != l->fds.end()) c.path = it->second;
      l->Note(c);
    }
    l->fds.erase(fd);  // released even when close fails
    return r;
  }
  static int Ioctl(void* self, int fd, uint32_t request, void* arg) {
    Ledger* l = L(self);
    const int r = l->In().ioctl(l->InSelf(), fd, request, arg);
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_IOCTL;
      c.result = r;
      c.fd = fd;
      c.request = request;
      l->Note(c);
    }
    return r;
  }
  static int Mmap(void* self, void* addr, size_t length, uint32_t prot, uint32_t flags, int fd,
                  uint64_t offset, void** out_addr) {
    Ledger* l = L(self);
    const int r = l->In().mmap(l->InSelf(), addr, length, prot, flags, fd, offset, out_addr);
    uint64_t a = reinterpret_cast<uintptr_t>(addr);
    if (r == 0) {
      a = reinterpret_cast<uintptr_t>(*out_addr);
      const uint64_t e = a + RoundUp(length);
      l->mapped.Add(a, e);
      l->abandoned.Remove(a, e);
      l->ever.Add(a, e);
    }
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_MMAP;
      c.result = r;
      c.fd = fd;
      c.addr = a;
      c.len = length;
      c.prot = prot;
      c.flags = flags;
      l->Note(c);
    }
    return r;
  }
  static int Munmap(void* self, void* addr, size_t length) {
    Ledger* l = L(self);
    const int r = l->In().munmap(l->InSelf(), addr, length);
    const uint64_t a = reinterpret_cast<uintptr_t>(addr);
    const uint64_t e = a + RoundUp(length);
    if (r == 0) {
      l->mapped.Remove(a, e);
      l->abandoned.Remove(a, e);
    } else {
      // Still mapped, but the library lets go of it: accounted apart, so
      // the sweep can accept exactly this range as left over.
      l->mapped.Remove(a, e);
      l->abandoned.Add(a, e);
    }
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_MUNMAP;
      c.result = r;
      c.addr = a;
      c.len = length;
      l->Note(c);
    }
    return r;
  }
  static int Madvise(void* self, void* addr, size_t length, uint32_t advice) {
    Ledger* l = L(self);
    const int r = l->In().madvise(l->InSelf(), addr, length, advice);
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_MADVISE;
      c.result = r;
      c.addr = reinterpret_cast<uintptr_t>(addr);
      c.len = length;
      c.flags = advice;
      l->Note(c);
    }
    return r;
  }
  static int ReadFile(void* self, const char* path, char* buf, size_t cap, size_t* out_len) {
    Ledger* l = L(self);
    const int r = l->In().read_file(l->InSelf(), path, buf, cap, out_len);
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_READ_FILE;
      c.result = r;
      c.path = path != nullptr ? path : "(null)";
      l->Note(c);
    }
    return r;
  }
  static int ListDir(void* self, const char* path, hke_dirent_fn fn, void* user) {
    Ledger* l = L(self);
    const int r = l->In().list_dir(l->InSelf(), path, fn, user);
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_LIST_DIR;
      c.result = r;
      c.path = path != nullptr ? path : "(null)";
      l->Note(c);
    }
    return r;
  }
  static void Simple(Ledger* l, uint32_t op, int r, int fd = -1) {
    if (!l->recording) return;
    Call c;
    c.op = op;
    c.result = r;
    c.fd = fd;
    l->Note(c);
  }
  static int ClockNs(void* self, uint32_t clock, uint64_t* out) {
    Ledger* l = L(self);
    const int r = l->In().clock_ns(l->InSelf(), clock, out);
    Simple(l, HKE_FAULTS_OP_CLOCK_NS, r);
    return r;
  }
  static int CpuCount(void* self, uint32_t* out) {
    Ledger* l = L(self);
    const int r = l->In().cpu_count(l->InSelf(), out);
    Simple(l, HKE_FAULTS_OP_CPU_COUNT, r);
    return r;
  }
  static int ProcessId(void* self, int32_t* out) {
    Ledger* l = L(self);
    const int r = l->In().process_id(l->InSelf(), out);
    Simple(l, HKE_FAULTS_OP_PROCESS_ID, r);
    return r;
  }
  static int ReadFd(void* self, int fd, void* buf, size_t cap, size_t* out_len) {
    Ledger* l = L(self);
    const int r = l->In().read_fd(l->InSelf(), fd, buf, cap, out_len);
    Simple(l, HKE_FAULTS_OP_READ_FD, r, fd);
    return r;
  }
  static int PageSize(void* self, size_t* out) {
    Ledger* l = L(self);
    const int r = l->In().page_size(l->InSelf(), out);
    Simple(l, HKE_FAULTS_OP_PAGE_SIZE, r);
    return r;
  }
  static int MemPolicy(void* self, void* addr, size_t length, uint32_t mode, uint32_t node) {
    Ledger* l = L(self);
    const int r = l->In().mem_policy(l->InSelf(), addr, length, mode, node);
    if (l->recording) {
      Call c;
      c.op = HKE_FAULTS_OP_MEM_POLICY;
      c.result = r;
      c.addr = reinterpret_cast<uintptr_t>(addr);
      c.len = length;
      c.flags = mode;
      l->Note(c);
    }
    return r;
  }
  static int MarketingName(void* self, uint32_t id, uint32_t rev, char* buf, size_t cap) {
    Ledger* l = L(self);
    return l->In().marketing_name(l->InSelf(), id, rev, buf, cap);
  }

  hke_platform inner_;
  hke_platform_ops ops_;
};

// The hex field `field` ("in=" / "out=") of a simulator trace line read as
// the ABI structure `T`: false unless the field holds exactly its bytes.
template <typename T>
bool TraceAs(const std::string& line, const char* field, T* out) {
  return hketest::SimBoard::TryAs(hketest::SimBoard::FieldBytes(line, field), out);
}

// ---- tolerated failures ---------------------------------------------------

struct Tolerance {
  const char* reason;
  bool needs_diag;  // the library must have explained the degradation
  // The failure leaves memory objects with the library until the last
  // close (the after-cleanup slot check accepts them; the end-of-run checks
  // after CloseKFD still require everything released).
  bool keeps_objects = false;
};

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool IsRequest(const Call& c, const char* name) {
  const char* n = hke::kfd::RequestName(c.request);
  return n != nullptr && std::strcmp(n, name) == 0;
}

// A step that returned SUCCESS although call `c` failed with `f.error`
// (and was not retried away) is acceptable only in these cases. Each one
// is documented behaviour; the reason says where.
bool Tolerated(const Call& c, const Fault& f, const std::string& api, Tolerance* out) {
  (void)f;
  // The platform contract (hsakmt_platform.h) releases a descriptor even
  // when close fails, and the library never retries a close: there is
  // nothing left to undo, and the descriptor checks still apply.
  if (c.op == HKE_FAULTS_OP_CLOSE) {
    *out = {"close releases the descriptor even when it reports an error", false};
    return true;
  }
  // MADV_DONTFORK only keeps GPU-visible pages out of fork children; the
  // memory works without it (alloc.cc ignores the result, as upstream).
  if (c.op == HKE_FAULTS_OP_MADVISE) {
    *out = {"DONTFORK advice is best effort", false};
    return true;
  }
  // A refused munmap cannot be undone by the caller either: the library
  // reports it and forgets the range (va.cc ReleaseVa). The ledger keeps
  // the range apart and the end-of-run checks accept exactly that range.
  if (c.op == HKE_FAULTS_OP_MUNMAP) {
    *out = {"a refused munmap leaves that range mapped; reported as a warning", true};
    return true;
  }
  // Upstream hides a GPU whose render node the process may not open
  // (kfd_device.h OpenRenderNode: ENOENT, EPERM); the topology then has one
  // GPU fewer, which the follow-up and holdings checks see.
  if (c.op == HKE_FAULTS_OP_OPEN && StartsWith(c.path, "/dev/dri/renderD") &&
      (f.error == ENOENT || f.error == EPERM)) {
    *out = {"a render node that cannot be opened hides its GPU (upstream)", false};
    return true;
  }
  // A NUMA policy the platform refuses leaves paged system memory unbound
  // (memory/numa.h: a warning; EPERM and ENOSYS also end binding for the
  // open). Only NoSubstitute turns a refusal other than EPERM/ENOSYS into
  // a failed allocation (tests/memory/numa_test.cc checks which).
  if (c.op == HKE_FAULTS_OP_MEM_POLICY) {
    *out = {"a refused NUMA policy leaves the pages unbound (warning)", true};
    return true;
  }
  // The host's NUMA directory is read at the first binding of an open: a
  // missing one is a host without NUMA (nothing to bind); another failure
  // binds without knowing the nodes, with a warning (memory/numa.cc Probe).
  if (c.op == HKE_FAULTS_OP_LIST_DIR && c.path == "/sys/devices/system/node" &&
      api != "hsaKmtAcquireSystemProperties") {
    *out = {f.error == ENOENT ? "no NUMA directory: a host without NUMA"
                              : "the NUMA nodes cannot be listed: binding is attempted (warning)",
            f.error != ENOENT};
    return true;
  }
  // Without a process id the library detects a fork by EBADF alone
  // (kfd_device.cc ProcessChanged).
  if (c.op == HKE_FAULTS_OP_PROCESS_ID) {
    *out = {"fork detection falls back to EBADF without a process id", false};
    return true;
  }
  if (api == "hsaKmtAcquireSystemProperties") {
    // The GPU VM comes up inside Acquire; a VM or MMIO page that cannot be
    // set up does not fail the topology (api/topology.cc BringUpVm,
    // memory/vm.cc SetUpMmio): the banks lack MMIO_REMAP and memory calls
    // retry the bring-up. These calls happen only in that bring-up.
    const bool vm_ioctl =
        c.op == HKE_FAULTS_OP_IOCTL &&
        (IsRequest(c, "AMDKFD_IOC_ACQUIRE_VM") || IsRequest(c, "AMDKFD_IOC_SET_MEMORY_POLICY") ||
         IsRequest(c, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU") ||
         IsRequest(c, "AMDKFD_IOC_MAP_MEMORY_TO_GPU") ||
         IsRequest(c, "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU") ||
         IsRequest(c, "AMDKFD_IOC_FREE_MEMORY_OF_GPU"));
    if (vm_ioctl || c.op == HKE_FAULTS_OP_MMAP || c.op == HKE_FAULTS_OP_PAGE_SIZE) {
      *out = {"the GPU VM / MMIO page is optional for the topology (warning)", true};
      return true;
    }
    // DEV_INFO only adds the PCI revision, the DRM family and the
    // marketing name; upstream leaves them empty when libdrm fails
    // (api/topology.cc QueryDrm, with a warning).
    if (c.op == HKE_FAULTS_OP_IOCTL && IsRequest(c, "DRM_IOCTL_AMDGPU_INFO")) {
      *out = {"DEV_INFO (PCI revision, family, marketing name) is optional (warning)", true};
      return true;
    }
    // nodes/<n>/name is read with Missing::kAllowed: older kernels do not
    // have it (topology/snapshot.cc ReadNode). Only a missing file is fine.
    if (c.op == HKE_FAULTS_OP_READ_FILE && f.error == ENOENT &&
        StartsWith(c.path, "/sys/devices/virtual/kfd/kfd/topology/nodes/") && c.path.size() > 5 &&
        c.path.compare(c.path.size() - 5, 5, "/name") == 0) {
      *out = {"a node's name file is optional (older kernels lack it)", false};
      return true;
    }
    // CPU model names (/proc/cpuinfo) and CPU caches (the CPU directories
    // of sysfs) are derived data: upstream and this library keep the
    // topology without them. A MISSING file or directory is documented as
    // no error (README, "a CPU node without CPU cache directories"); any
    // other failure (EIO) drops data the system has, so it must at least
    // be reported.
    if (c.op == HKE_FAULTS_OP_CPU_COUNT || c.op == HKE_FAULTS_OP_READ_FD ||
        StartsWith(c.path, "/proc/cpuinfo") || StartsWith(c.path, "/sys/devices/system/cpu") ||
        StartsWith(c.path, "/sys/devices/system/node")) {
      const bool missing =
          f.error == ENOENT && c.op != HKE_FAULTS_OP_READ_FD && c.op != HKE_FAULTS_OP_CPU_COUNT;
      *out = {missing ? "a missing CPU cache/cpuinfo file is no error (README)"
                      : "CPU names and CPU caches are derived data; losing them needs a warning",
              !missing};
      return true;
    }
  }
  // The getters size the MMIO_REMAP bank with the platform page size and
  // fall back to 4096 when it cannot be read; an MMIO page exists only with
  // 4 KiB pages (memory/vm.cc SetUpMmio), so the fallback is exact.
  if (c.op == HKE_FAULTS_OP_PAGE_SIZE && StartsWith(api, "hsaKmtGetNode")) {
    *out = {"the MMIO bank's size falls back to 4096, the only size an MMIO page has", false};
    return true;
  }
  // DestroyQueue after the kernel destroyed the queue (DESTROY_QUEUE
  // succeeded): a queue buffer or a doorbell mapping that cannot be
  // released stays with the memory subsystem until the last close
  // (queues.cc FreeBuffers, with a warning); the queue itself is gone, so
  // the call reports success, as upstream's does.
  if (api == "hsaKmtDestroyQueue" &&
      (c.op == HKE_FAULTS_OP_MUNMAP ||
       (c.op == HKE_FAULTS_OP_IOCTL && (IsRequest(c, "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU") ||
                                        IsRequest(c, "AMDKFD_IOC_FREE_MEMORY_OF_GPU"))))) {
    *out = {"a destroyed queue's buffer that cannot be freed stays until the last close (warning)",
            true, true};
    return true;
  }
  // The last CloseKFD cannot fail (upstream): it releases what it can and
  // closes the device. What it could not release is caught by the
  // descriptor, mapping and BO checks, not by its status.
  if (api == "hsaKmtCloseKFD") {
    *out = {"CloseKFD always closes the device; leftovers are checked separately", true};
    return true;
  }
  return false;
}

}  // namespace

// ---- RangeSet -------------------------------------------------------------

void RangeSet::Add(uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto it = r_.upper_bound(start);
  if (it != r_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= start) {
      start = prev->first;
      if (prev->second > end) end = prev->second;
      it = r_.erase(prev);
    }
  }
  while (it != r_.end() && it->first <= end) {
    if (it->second > end) end = it->second;
    it = r_.erase(it);
  }
  r_[start] = end;
}

void RangeSet::Remove(uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto it = r_.upper_bound(start);
  if (it != r_.begin()) --it;
  while (it != r_.end() && it->first < end) {
    const uint64_t s = it->first, e = it->second;
    if (e <= start) {
      ++it;
      continue;
    }
    it = r_.erase(it);
    if (s < start) r_[s] = start;
    if (e > end) r_[end] = e;
  }
}

uint64_t RangeSet::Bytes() const {
  uint64_t n = 0;
  for (const auto& r : r_) n += r.second - r.first;
  return n;
}

std::string RangeSet::Describe(size_t max) const {
  if (r_.empty()) return "none";
  std::string s;
  size_t i = 0;
  for (const auto& r : r_) {
    if (i == max) {
      s += ", ... (" + std::to_string(r_.size()) + " ranges)";
      break;
    }
    if (i != 0) s += ", ";
    s +=
        "[" + Hex(r.first) + "-" + Hex(r.second) + ") " + std::to_string(r.second - r.first) + " B";
    ++i;
  }
  return s;
}

// ---- descriptions -----------------------------------------------------------

std::string Call::Describe() const {
  std::string s = OpName(op);
  switch (op) {
    case HKE_FAULTS_OP_IOCTL: {
      const char* n = hke::kfd::RequestName(request);
      s += " ";
      s += n != nullptr ? n : Hex(request);
      break;
    }
    case HKE_FAULTS_OP_OPEN:
    case HKE_FAULTS_OP_READ_FILE:
    case HKE_FAULTS_OP_LIST_DIR:
      s += " " + path;
      break;
    case HKE_FAULTS_OP_CLOSE:
      s += " fd " + std::to_string(fd) + (path.empty() ? "" : " (" + path + ")");
      break;
    case HKE_FAULTS_OP_MMAP:
      s += fd < 0 ? " anon" : " fd " + std::to_string(fd);
      s += prot == HKE_PROT_NONE ? " PROT_NONE" : " PROT_RW";
      if (flags & (HKE_MAP_FIXED | HKE_MAP_FIXED_NOREPLACE)) s += " FIXED";
      s += " len=" + std::to_string(len);
      break;
    case HKE_FAULTS_OP_MUNMAP:
    case HKE_FAULTS_OP_MADVISE:
    case HKE_FAULTS_OP_MEM_POLICY:
      s += " len=" + std::to_string(len);
      break;
    default:
      break;
  }
  return s;
}

std::string Fault::Describe() const {
  std::string s =
      std::string(OpName(op)) + " call " + std::to_string(k) + " <- " + ErrnoName(error);
  if (persistent) s += " (and its " + std::to_string(kIoctlRetries) + " retries)";
  return s;
}

std::vector<Fault> FaultsFor(const Call& c, uint64_t k) {
  std::vector<int> errs;
  bool persistent_eintr = false;
  switch (c.op) {
    case HKE_FAULTS_OP_OPEN:
      errs = {EACCES, ENOENT};
      break;
    case HKE_FAULTS_OP_CLOSE:
      errs = {EIO};
      break;
    case HKE_FAULTS_OP_IOCTL:
      errs = {ENOMEM, EINVAL, EFAULT, EBUSY, EINTR};
      persistent_eintr = true;
      break;
    case HKE_FAULTS_OP_MMAP:
      errs = {ENOMEM};
      break;
    case HKE_FAULTS_OP_MUNMAP:
      errs = {ENOMEM};
      break;
    case HKE_FAULTS_OP_MADVISE:
      errs = {EINVAL};
      break;
    case HKE_FAULTS_OP_READ_FILE:
    case HKE_FAULTS_OP_LIST_DIR:
      errs = {ENOENT, EIO};
      break;
    case HKE_FAULTS_OP_MEM_POLICY:
      // mbind's: seccomp, no NUMA, a node without memory, no kernel memory.
      errs = {EPERM, ENOSYS, EINVAL, ENOMEM};
      break;
    default:
      errs = {EIO};
      break;  // read_fd, clock_ns, cpu_count, process_id, page_size
  }
  std::vector<Fault> out;
  for (int e : errs) out.push_back(Fault{c.op, k, e, false});
  if (persistent_eintr) out.push_back(Fault{c.op, k, EINTR, true});
  return out;
}

// ---- one run ------------------------------------------------------------------

struct Run::Impl {
  const Scenario* scenario = nullptr;
  const Fault* fault = nullptr;  // nullptr: the counting run
  kfdsim_t* sim = nullptr;
  std::unique_ptr<Ledger> ledger;
  hke_faults faults{};
  std::vector<Diag> diags;
  std::set<uint64_t> bos;              // live kernel BOs, from the simulator's trace
  std::set<uint64_t> kernel_page_bos;  // event pages the kernel took (never freed)
  std::vector<std::string> bo_anomalies;
  std::vector<StepRecord> steps;
  std::vector<std::string> violations;
  std::string phase = "setup";
  int failing_step = -1;  // index in steps of the step the fault hit
  std::string outcome;    // "failed", "retried", "tolerated: <reason>", "succeeded"
  bool kept_objects = false;  // a tolerated failure left objects until the last close
  Call failed_call;       // the injected call (valid when failing_step >= 0)
  uint64_t calls[HKE_FAULTS_OP_COUNT] = {};

  static void OnTrace(void* user, const char* line, size_t length) {
    auto* self = static_cast<Impl*>(user);
    const std::string l(line, length);
    if (l.find(" ioctl ") == std::string::npos || l.find("-> ok") == std::string::npos) return;
    namespace k = hke::kfd;
    // A block that is not its structure's size would hide a BO: an anomaly.
    auto read = [&](const char* field, auto* a) {
      if (TraceAs(l, field, a)) return true;
      self->bo_anomalies.push_back("unreadable trace block: " + l);
      return false;
    };
    if (l.find(" name=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU ") != std::string::npos) {
      k::AllocMemoryOfGpuArgs a{};
      if (read("out=", &a)) self->bos.insert(a.handle);
    } else if (l.find(" name=AMDKFD_IOC_IMPORT_DMABUF ") != std::string::npos) {
      k::ImportDmabufArgs a{};
      if (read("out=", &a)) self->bos.insert(a.handle);
    } else if (l.find(" name=AMDKFD_IOC_IPC_IMPORT_HANDLE ") != std::string::npos) {
      k::IpcImportHandleArgs a{};
      if (read("out=", &a)) self->bos.insert(a.handle);
    } else if (l.find(" name=AMDKFD_IOC_CREATE_EVENT ") != std::string::npos) {
      // A dGPU's signal page: once CREATE_EVENT accepted it, the kernel
      // keeps the BO until the process exits (events.h), so it may outlive
      // the library's object.
      k::CreateEventArgs a{};
      if (read("in=", &a) && a.event_page_offset != 0) {
        self->kernel_page_bos.insert(a.event_page_offset);
      }
    } else if (l.find(" name=AMDKFD_IOC_FREE_MEMORY_OF_GPU ") != std::string::npos) {
      k::FreeMemoryOfGpuArgs a{};
      if (read("in=", &a) && self->bos.erase(a.handle) == 0) {
        self->bo_anomalies.push_back("FREE of unknown handle " + Hex(a.handle));
      }
    }
  }

  static void OnDiag(void* user, const hke_diag_record* r) {
    auto* self = static_cast<Impl*>(user);
    std::string t = std::string(r->area != nullptr ? r->area : "?") + ": " +
                    (r->message != nullptr ? r->message : "");
    if (r->status != HKE_OK) t += std::string(" (") + hke_status_name(r->status) + ")";
    if (r->path != nullptr) t += std::string(" [") + r->path + "]";
    static const char* kLevels[] = {"error", "warning", "info", "debug"};
    t = std::string(r->level < 4 ? kLevels[r->level] : "?") + " " + t;
    self->diags.push_back(Diag{r->level, t});
  }

  hke::Context& Ctx() { return hke_default_context()->impl; }

  std::string DiagsText(size_t from, size_t to, size_t max = 8) const {
    std::string s;
    if (to > diags.size()) to = diags.size();
    if (to - from > max) {
      s += "... ";
      from = to - max;
    }
    for (size_t i = from; i < to; ++i) {
      if (!s.empty() && s != "... ") s += " | ";
      s += diags[i].text;
    }
    return s.empty() ? "none" : s;
  }

  // One self-contained line: scenario, fault, the call it hit, the step
  // it hit and its status, where the symptom was seen, the diagnostics.
  void Violation(const std::string& what, size_t diag_from = SIZE_MAX) {
    constexpr size_t kMaxPerRun = 12;
    if (violations.size() > kMaxPerRun) return;
    std::string s = "[" + scenario->name + "] ";
    if (fault == nullptr) {
      s += "reference run (no fault)";
    } else {
      s += fault->Describe();
      if (failing_step >= 0) {
        const StepRecord& st = steps[static_cast<size_t>(failing_step)];
        s += " = " + failed_call.Describe() + ", in " + st.api + " -> " + StatusText(st.status);
      } else {
        s += " (not hit by any step)";
      }
    }
    s += "; " + phase + ": " + what;
    size_t from = diag_from;
    if (from == SIZE_MAX) {
      from = failing_step >= 0 ? steps[static_cast<size_t>(failing_step)].first_diag : 0;
    }
    s += "; diagnostics: " + DiagsText(from, diags.size());
    if (violations.size() == kMaxPerRun)
      s = "[" + scenario->name + "] (further violations of this run suppressed)";
    violations.push_back(s);
  }

  // The library's view of what it holds must be what the platform and the
  // kernel hold: descriptors, mapped ranges, kernel BOs.
  // A discrepancy is reported at the first checkpoint that sees it; later
  // checkpoints leave the reported items out, so one leak is one line.
  std::set<int> fd_reported;
  RangeSet map_reported;
  RangeSet map_leaked;  // the leaked part of map_reported (unmapped at the end of the run)
  std::set<uint64_t> bo_reported;

  void CheckHoldings(const char* when) {
    hke::Context& ctx = Ctx();
    // Descriptors.
    std::set<int> lib_fds;
    {
      const hke::device::DeviceState& d = ctx.device();
      if (d.kfd_fd >= 0) lib_fds.insert(d.kfd_fd);
      for (uint32_t i = 0; i < d.num_render; ++i) lib_fds.insert(d.render[i].fd);
    }
    std::string leaked, lost;
    for (const auto& f : ledger->fds) {
      if (lib_fds.count(f.first) == 0 && fd_reported.insert(f.first).second) {
        leaked += std::to_string(f.first) + ":" + f.second + " ";
      }
    }
    for (int fd : lib_fds) {
      if (ledger->fds.count(fd) == 0 && fd_reported.insert(fd).second)
        lost += std::to_string(fd) + " ";
    }
    if (!leaked.empty()) {
      Violation(
          std::string("descriptor leak: open through the platform, not held by the library: ") +
          leaked);
    }
    if (!lost.empty()) {
      Violation("descriptor loss: held by the library, not open through the platform: " + lost);
    }
    // Mappings: exactly the reservations of the live objects (and the
    // reserved SVM range in reserved mode, and the range of a BO the kernel
    // keeps, held PROT_NONE across closes).
    const MemoryState& m = ctx.memory();
    RangeSet expect;
    std::set<uint64_t> lib_bos;
    if (m.reserved_mode && m.svm_limit != 0) expect.Add(m.svm_base, m.svm_limit + 1);
    if (m.kept_size != 0) expect.Add(m.kept_base, m.kept_base + m.kept_size);
    // 32-bit hosts: the handle aperture is a PROT_NONE window the library maps.
    if (m.handle_reserved) expect.Add(m.handle_base, m.handle_base + m.handle_size);
    for (uint32_t i = 0; i < m.object_high_water; ++i) {
      const MemObject& o = m.objects[i];
      if (!o.in_use) continue;
      if (o.va_source == VaSource::kMmap)
        expect.Add(o.reserve_base, o.reserve_base + o.reserve_size);
      if (o.handle != 0) lib_bos.insert(o.handle);
    }
    RangeSet extra = ledger->mapped;
    for (const auto& r : expect.ranges()) extra.Remove(r.first, r.second);
    for (const auto& r : map_reported.ranges()) extra.Remove(r.first, r.second);
    RangeSet missing = expect;
    for (const auto& r : ledger->mapped.ranges()) missing.Remove(r.first, r.second);
    for (const auto& r : map_reported.ranges()) missing.Remove(r.first, r.second);
    if (!extra.Empty()) {
      Violation("mapping leak: mapped through the platform, no live object's: " + extra.Describe());
      for (const auto& r : extra.ranges()) {
        map_reported.Add(r.first, r.second);
        map_leaked.Add(r.first, r.second);
      }
    }
    if (!missing.Empty()) {
      Violation("mapping loss: a live object's range is not mapped: " + missing.Describe());
      for (const auto& r : missing.ranges()) map_reported.Add(r.first, r.second);
    }
    // Kernel BOs.
    std::string bo_leaked, bo_lost;
    for (uint64_t h : bos) {
      if (lib_bos.count(h) == 0 && kernel_page_bos.count(h) == 0 && bo_reported.insert(h).second) {
        bo_leaked += Hex(h) + " ";
      }
    }
    for (uint64_t h : lib_bos) {
      if (bos.count(h) == 0 && bo_reported.insert(h).second) bo_lost += Hex(h) + " ";
    }
    if (!bo_leaked.empty()) {
      Violation("kernel BO leak: alive in the kernel, held by no live object: " + bo_leaked);
    }
    if (!bo_lost.empty()) {
      Violation("kernel BO loss: a live object names a BO the kernel does not have: " + bo_lost);
    }
    for (const std::string& a : bo_anomalies) Violation(a);
    bo_anomalies.clear();
    (void)when;
  }

  // After cleanup only the MMIO pages may remain, one per GPU whose page
  // is set up; the range nodes are the objects' index nodes plus the two
  // nodes of the (entirely free) handle aperture.
  void CheckMemoryState(const hke_memory_stats& after_prepare) {
    hke_memory_stats st{};
    st.struct_size = sizeof(st);
    if (hke_memory_stats_get(hke_default_context(), &st) != HKE_OK) {
      Violation("hke_memory_stats_get failed");
      return;
    }
    const MemoryState& m = Ctx().memory();
    // The events subsystem's signal page is a memory object the context
    // keeps from the first CreateEvent of an open to the last close.
    const uint64_t page_va = Ctx().events().page_va;
    // The queues subsystem keeps a node's DOORBELL BO from its first queue
    // to the last close.
    std::set<uint64_t> doorbells;
    for (const auto& d : Ctx().queues().doorbells) {
      if (d.bo && d.va != 0) doorbells.insert(d.va);
    }
    uint32_t mmio = 0, page = 0;
    std::string others;
    for (uint32_t i = 0; i < m.object_high_water; ++i) {
      const MemObject& o = m.objects[i];
      if (!o.in_use) continue;
      if (o.kind == ObjectKind::kMmio) {
        ++mmio;
      } else if (page_va != 0 && o.va == page_va && page == 0) {
        ++page;
      } else if (o.kind == ObjectKind::kDoorbell && doorbells.erase(o.va) == 1) {
        // one object per recorded doorbell mapping
      } else if (kept_objects && !hke::memory::IsInternal(o.kind)) {
        // left by a tolerated failure (Tolerance::keeps_objects)
      } else {
        others += "slot " + std::to_string(i) + " kind " +
                  std::to_string(static_cast<int>(o.kind)) + " va " + Hex(o.va) + " size " +
                  std::to_string(o.size) + "; ";
      }
    }
    if (!others.empty()) Violation("arena slot leak: objects left after cleanup: " + others);
    uint32_t mmio_gpus = 0;
    if (m.initialized) {
      for (uint32_t g = 0; g < m.num_gpus; ++g) mmio_gpus += m.gpus[g].mmio_va != 0 ? 1 : 0;
    }
    if (mmio != mmio_gpus) {
      Violation("MMIO objects " + std::to_string(mmio) + " but " + std::to_string(mmio_gpus) +
                " GPUs have an MMIO page");
    }
    const uint64_t handle_full = Ctx().memory().handle_size;
    if (st.handle_aperture_free != 0 && st.handle_aperture_free != handle_full) {
      Violation("handle aperture not entirely free after cleanup: " +
                std::to_string(st.handle_aperture_free) + " B free");
    }
    // The range-node pool holds the user_index (one node per registered
    // user range; va_index is a B+tree with its own storage), the
    // owned_index (one node per library-owned object: the MMIO pages, the
    // events page, doorbells) and the arenas' free ranges: in mmap mode
    // only the handle aperture's (two nodes for its one free range);
    // reserved mode adds the SVM arenas, whose nodes the comparison with
    // after-prepare below covers.
    const uint32_t expect_nodes = m.user_index.count() + m.owned_index.count() +
                                  (st.handle_aperture_free != 0 ? 2u : 0u);
    if (m.va_index.count() != st.live_objects) {
      Violation("va_index holds " + std::to_string(m.va_index.count()) + " entries for " +
                std::to_string(st.live_objects) + " objects");
    }
    if (!m.reserved_mode && st.range_nodes_used != expect_nodes) {
      Violation("range node leak: " + std::to_string(st.range_nodes_used) + " nodes used, " +
                std::to_string(expect_nodes) + " expected for " + std::to_string(st.live_objects) +
                " objects");
    }
    // (The events page, as every library-owned object, holds one range
    // node in owned_index.)
    if (!scenario->changes_vm && (st.live_objects - page != after_prepare.live_objects ||
                                  st.range_nodes_used - page != after_prepare.range_nodes_used ||
                                  st.handle_aperture_free != after_prepare.handle_aperture_free)) {
      Violation("memory stats after cleanup differ from after prepare: objects " +
                std::to_string(after_prepare.live_objects) + " -> " +
                std::to_string(st.live_objects) + ", range nodes " +
                std::to_string(after_prepare.range_nodes_used) + " -> " +
                std::to_string(st.range_nodes_used));
    }
    const size_t d = diags.size();
    if (hke_memory_check(hke_default_context()) != HKE_OK) {
      Violation("hke_memory_check failed", d);
    }
  }
};

void Body::Prepare(Run& r) {
  r.Require("hsaKmtOpenKFD", hsaKmtOpenKFD());
  HsaSystemProperties sys;
  r.Require("hsaKmtAcquireSystemProperties", hsaKmtAcquireSystemProperties(&sys));
  r.FindNodes();
}

void Run::FindNodes() {
  HsaSystemProperties sys{};
  gpu_nodes_.clear();
  const HSAKMT_STATUS a = hsaKmtAcquireSystemProperties(&sys);
  Require("hsaKmtAcquireSystemProperties", a);
  bool cpu = false;
  for (uint32_t n = 0; a == HSAKMT_STATUS_SUCCESS && n < sys.NumNodes; ++n) {
    HsaNodeProperties p{};
    const HSAKMT_STATUS g = hsaKmtGetNodeProperties(n, &p);
    Require("hsaKmtGetNodeProperties", g);
    if (g != HSAKMT_STATUS_SUCCESS) break;
    if (p.KFDGpuID != 0) {
      gpu_nodes_.push_back(n);
    } else if (!cpu) {
      cpu_node_ = n;
      cpu = true;
    }
  }
  if (gpu_nodes_.empty()) {
    Violation("no GPU node");
    gpu_nodes_.push_back(0);
  }
}

HSAKMT_STATUS Run::Step(const char* api, const std::function<HSAKMT_STATUS()>& fn,
                        std::vector<Out> outs) {
  Impl& I = *impl_;
  for (const Out& o : outs) std::memset(o.p, 0xa5, o.n);
  StepRecord rec;
  rec.api = api;
  rec.first_diag = I.diags.size();
  const uint64_t before = hke_faults_injected(&I.faults);
  const HSAKMT_STATUS st = fn();
  rec.status = st;
  rec.injected = hke_faults_injected(&I.faults) != before && before == 0;
  rec.end_diag = I.diags.size();
  I.steps.push_back(rec);
  const size_t index = I.steps.size() - 1;
  if (rec.injected && I.failing_step < 0) {
    I.failing_step = static_cast<int>(index);
    // The injected call is call k of its operation during act.
    uint64_t seen = 0;
    for (const Call& c : I.ledger->calls) {
      if (c.op == I.fault->op && ++seen == I.fault->k) {
        I.failed_call = c;
        break;
      }
    }
  }
  if (st != HSAKMT_STATUS_SUCCESS) {
    for (const Out& o : outs) {
      const auto* b = static_cast<const unsigned char*>(o.p);
      for (size_t i = 0; i < o.n; ++i) {
        if (b[i] != 0xa5) {
          I.Violation(std::string(api) + " returned " + StatusText(st) +
                      " but wrote its output (byte " + std::to_string(i) + " of " +
                      std::to_string(o.n) + ")");
          break;
        }
      }
    }
  }
  if (rec.injected && I.fault != nullptr) {
    const bool retried_away = I.fault->error == EINTR && !I.fault->persistent;
    I.outcome = st == HSAKMT_STATUS_SUCCESS ? "succeeded" : "failed";
    if (retried_away) {
      // Checked against the reference after act (every step must match).
      I.outcome = "retried";
    } else if (st == HSAKMT_STATUS_SUCCESS) {
      Tolerance t{};
      if (Tolerated(I.failed_call, *I.fault, api, &t)) {
        I.outcome = std::string("tolerated: ") + t.reason;
        I.kept_objects = I.kept_objects || t.keeps_objects;
      }
      if (!Tolerated(I.failed_call, *I.fault, api, &t)) {
        I.Violation(std::string(api) + " returned SUCCESS although " + I.failed_call.Describe() +
                    " failed with " + ErrnoName(I.fault->error));
      } else if (t.needs_diag) {
        bool explained = false;
        for (size_t i = rec.first_diag; i < rec.end_diag; ++i) {
          explained = explained || I.diags[i].level <= HKE_DIAG_WARNING;
        }
        if (!explained) {
          I.Violation(std::string(api) + " tolerated the failure (" + t.reason +
                      ") but reported no warning or error diagnostic");
        }
      }
    } else {
      bool explained = false;
      for (size_t i = rec.first_diag; i < rec.end_diag; ++i) {
        explained = explained || I.diags[i].level <= HKE_DIAG_WARNING;
      }
      if (!explained) {
        I.Violation(std::string(api) + " returned " + StatusText(st) +
                    " without any error or warning diagnostic");
      }
    }
  }
  return st;
}

HSAKMT_STATUS Run::MustRecover(const char* api, const std::function<HSAKMT_STATUS()>& fn) {
  HSAKMT_STATUS st = Step(api, fn);
  if (st == HSAKMT_STATUS_SUCCESS) return st;
  const std::string again = std::string(api) + " (retry)";
  st = Step(again.c_str(), fn);
  if (st != HSAKMT_STATUS_SUCCESS) {
    impl_->Violation(again + " returned " + StatusText(st) +
                     ": a single fault left the object unreleasable");
  }
  return st;
}

void Run::Require(const char* api, HSAKMT_STATUS got) {
  if (got == HSAKMT_STATUS_SUCCESS) return;
  impl_->Violation(std::string(api) + " returned " + StatusText(got) + " (must succeed here)",
                   impl_->diags.size() > 6 ? impl_->diags.size() - 6 : 0);
}

void Run::Violation(const std::string& what) { impl_->Violation(what); }

hke_platform Run::platform() { return impl_->ledger->platform(); }

namespace {

struct RunOutput {
  std::string line;  // one line for the sweep log
  std::string outcome;
  std::vector<std::string> violations;
  std::vector<StepRecord> steps;
  std::vector<Call> calls;  // act's calls
  uint64_t counts[HKE_FAULTS_OP_COUNT] = {};
};

hke_status_t ConfigureIdle() {
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = hke_linux_platform();
  return hke_default_context_configure(&c);
}

// One run of `s` on a fresh simulator; `fault` nullptr counts.
RunOutput RunOnce(const Scenario& s, const Fault* fault, const std::vector<StepRecord>* reference) {
  RunOutput out;
  Run::Impl I;
  I.scenario = &s;
  I.fault = fault;
  Run run(&I);

  const std::map<int, std::string> fds_before = ProcFds();

  std::string error;
  I.sim = NewSimulator(s.board, s.cpu_count, &error);
  if (I.sim == nullptr) {
    I.Violation("cannot create the simulator: " + error);
    out.violations = I.violations;
    return out;
  }
  kfdsim_set_trace(I.sim, &Run::Impl::OnTrace, &I);
  // library -> ledger -> faults -> simulator: the ledger sees injected
  // failures as the library does.
  if (hke_faults_init(&I.faults, hke_sim_platform(I.sim)) != 0) {
    I.Violation("hke_faults_init failed");
  }
  I.ledger = std::make_unique<Ledger>(hke_faults_platform(&I.faults));
  Ledger* top = I.ledger.get();
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = top->platform();
  c.diag = &Run::Impl::OnDiag;
  c.diag_user = &I;
  c.flags = s.flags;
  c.max_ioctl_retries = kIoctlRetries;
  if (hke_default_context_configure(&c) != HKE_OK) I.Violation("configure failed");

  std::unique_ptr<Body> body = s.make();
  I.phase = "prepare";
  body->Prepare(run);
  hke_memory_stats after_prepare{};
  after_prepare.struct_size = sizeof(after_prepare);
  (void)hke_memory_stats_get(hke_default_context(), &after_prepare);
  I.phase = "arrange";
  body->Arrange(run);

  // act, with the fault armed.
  hke_faults_reset_counters(&I.faults);
  if (fault != nullptr) {
    const uint32_t n = fault->persistent ? kIoctlRetries + 1 : 1;
    for (uint32_t i = 0; i < n; ++i) {
      hke_faults_rule rule{};
      rule.op = fault->op;
      rule.when = HKE_FAULTS_WHEN_NTH;
      rule.nth = fault->k + i;
      rule.error = fault->error;
      if (hke_faults_add_rule(&I.faults, &rule) != 0) I.Violation("hke_faults_add_rule failed");
    }
  }
  I.phase = "act";
  top->recording = true;
  body->Act(run);
  top->recording = false;
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) {
    out.counts[op] = hke_faults_calls(&I.faults, op);
  }
  const uint64_t injected = hke_faults_injected(&I.faults);
  hke_faults_clear_rules(&I.faults);
  if (fault != nullptr && injected == 0) {
    I.Violation("the fault never fired: act made fewer calls than in the counting run");
  }
  if (fault != nullptr && injected != 0 && I.failing_step < 0) {
    I.Violation("the fault fired outside any step");
  }
  if (fault != nullptr && fault->error == EINTR && !fault->persistent && reference != nullptr) {
    // One EINTR is retried by the library: act must go exactly as without it.
    bool same = reference->size() == I.steps.size();
    for (size_t i = 0; same && i < I.steps.size(); ++i) {
      same = (*reference)[i].api == I.steps[i].api && (*reference)[i].status == I.steps[i].status;
    }
    if (!same) {
      std::string s2 = "a single EINTR was not retried away: steps ";
      for (const StepRecord& st : I.steps) s2 += st.api + "->" + HsaName(st.status) + " ";
      I.Violation(s2);
    }
  }
  I.phase = "after act";
  I.CheckHoldings("after act");

  I.phase = "cleanup";
  body->Cleanup(run);
  I.phase = "after cleanup";
  I.CheckHoldings("after cleanup");
  I.CheckMemoryState(after_prepare);

  // The context must still work: open (if act left it closed), acquire,
  // allocate, map, unmap, free, release, close. Stops at the first failure,
  // which is reported with the follow-up's diagnostics.
  I.phase = "follow-up";
  {
    const size_t d = I.diags.size();
    hke::Context& ctx = I.Ctx();
    std::string failed;
    auto step = [&](const char* api, HSAKMT_STATUS st) {
      if (failed.empty() && st != HSAKMT_STATUS_SUCCESS) {
        failed = std::string(api) + " returned " + StatusText(st);
      }
      return failed.empty();
    };
    if (ctx.device().open_count == 0) step("hsaKmtOpenKFD", hsaKmtOpenKFD());
    HsaSystemProperties sys{};
    if (failed.empty()) step("hsaKmtAcquireSystemProperties", hsaKmtAcquireSystemProperties(&sys));
    uint32_t gpu = UINT32_MAX;
    for (uint32_t n = 0; failed.empty() && n < sys.NumNodes && gpu == UINT32_MAX; ++n) {
      HsaNodeProperties props{};
      if (step("hsaKmtGetNodeProperties", hsaKmtGetNodeProperties(n, &props)) &&
          props.KFDGpuID != 0) {
        gpu = n;
      }
    }
    if (failed.empty() && gpu == UINT32_MAX) failed = "the topology shows no GPU";
    HsaMemFlags f = Flags();
    f.ui32.NonPaged = 1;
    f.ui32.HostAccess = 1;
    void* p = nullptr;
    const uint64_t size = 64 * 1024;
    if (failed.empty() && step("hsaKmtAllocMemory", hsaKmtAllocMemory(gpu, size, f, &p))) {
      std::memset(p, 0x5a, size);
      step("hsaKmtMapMemoryToGPU", hsaKmtMapMemoryToGPU(p, size, nullptr));
      if (failed.empty()) step("hsaKmtUnmapMemoryToGPU", hsaKmtUnmapMemoryToGPU(p));
      const HSAKMT_STATUS fr = hsaKmtFreeMemory(p, size);
      step("hsaKmtFreeMemory", fr);
    }
    if (failed.empty() && hke_memory_check(hke_default_context()) != HKE_OK) {
      failed = "hke_memory_check failed";
    }
    if (failed.empty()) step("hsaKmtReleaseSystemProperties", hsaKmtReleaseSystemProperties());
    if (failed.empty()) I.CheckHoldings("after the follow-up");
    // Close whatever the follow-up found, also after a failed step: a
    // context left open here would carry its objects into the next run and
    // turn one violation into a cascade.
    for (int i = 0; i < 16 && ctx.device().open_count > 0; ++i) {
      step("hsaKmtCloseKFD", hsaKmtCloseKFD());
    }
    if (!failed.empty()) {
      I.Violation("the context is not usable after the fault: " + failed, d);
    }
  }

  // After the last close: no mapping, no BO; only the render nodes stay
  // open (kfd_device.h: they outlive hsaKmtCloseKFD by design), and the
  // range of an events page the kernel keeps stays reserved (memory.h
  // kept_base).
  I.phase = "after the last close";
  I.CheckHoldings("after the last close");
  {
    RangeSet left = top->mapped;
    for (const auto& r : I.map_reported.ranges()) left.Remove(r.first, r.second);
    const hke::memory::MemoryState& kept = I.Ctx().memory();
    if (kept.kept_size != 0) left.Remove(kept.kept_base, kept.kept_base + kept.kept_size);
    if (!left.Empty()) {
      I.Violation("mapping leak: still mapped after the last close: " + left.Describe());
      for (const auto& r : left.ranges()) I.map_leaked.Add(r.first, r.second);
    }
    std::string h;
    for (uint64_t b : I.bos) {
      if (I.bo_reported.count(b) == 0 && I.kernel_page_bos.count(b) == 0) h += Hex(b) + " ";
    }
    if (!h.empty()) I.Violation("kernel BO leak: not freed after the last close: " + h);
  }
  {
    hke_memory_stats st{};
    st.struct_size = sizeof(st);
    (void)hke_memory_stats_get(hke_default_context(), &st);
    if (st.live_objects != 0 || st.range_nodes_used != 0) {
      I.Violation(
          "objects or range nodes left after the last close: " + std::to_string(st.live_objects) +
          " objects, " + std::to_string(st.range_nodes_used) + " nodes");
    }
  }

  // Context teardown closes the render nodes. A context the follow-up
  // could not close (reported above) is torn down by force, so the next
  // run starts clean.
  I.phase = "after context teardown";
  if (I.Ctx().device().open_count != 0) hke_context_deinit(hke_default_context());
  if (ConfigureIdle() != HKE_OK) I.Violation("reconfiguring the default context failed");
  if (!top->fds.empty()) {
    std::string l;
    for (const auto& f : top->fds) l += std::to_string(f.first) + ":" + f.second + " ";
    I.Violation("descriptor leak: open after the context's teardown: " + l);
  }
  const RangeSet abandoned = top->abandoned;
  const RangeSet ever = top->ever;
  kfdsim_destroy(I.sim);
  I.sim = nullptr;

  I.phase = "after the simulator's destruction";
  const std::map<int, std::string> fds_after = ProcFds();
  if (fds_after.size() != fds_before.size()) {
    std::string l;
    for (const auto& f : fds_after) {
      if (fds_before.count(f.first) == 0) l += std::to_string(f.first) + ":" + f.second + " ";
    }
    I.Violation("process descriptor count " + std::to_string(fds_before.size()) + " -> " +
                std::to_string(fds_after.size()) + " (new: " + l + ")");
  }
  for (const MapsLine& m : ProcMaps()) {
    if (Overlaps(abandoned, m.start, m.end) || Overlaps(I.map_leaked, m.start, m.end)) continue;
    const bool sim_memory = m.path.find("kfdsim") != std::string::npos;
    const bool reservation = m.perms == "---p" && m.path.empty() && Overlaps(ever, m.start, m.end);
    if (sim_memory || reservation) I.Violation("mapping left in /proc/self/maps: " + m.text);
  }
  // The tolerated leftovers go now, so later runs start clean.
  const RangeSet* const leftovers[] = {&abandoned, &I.map_leaked};
  for (const RangeSet* set : leftovers) {
    for (const auto& r : set->ranges()) {
      (void)munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(r.first)),
                   static_cast<size_t>(r.second - r.first));
    }
  }

  if (fault != nullptr) {
    out.outcome = I.outcome.empty() ? "not hit" : I.outcome;
    out.line = s.name + "\t" + fault->Describe() + "\t" + I.failed_call.Describe() + "\t";
    if (I.failing_step >= 0) {
      const StepRecord& st = I.steps[static_cast<size_t>(I.failing_step)];
      out.line += st.api + "\t" + HsaName(st.status);
    } else {
      out.line += "-\t-";
    }
    out.line += "\t" + out.outcome + "\t" + std::to_string(I.violations.size()) + " violations";
  }
  out.violations = std::move(I.violations);
  out.steps = std::move(I.steps);
  out.calls = std::move(top->calls);
  return out;
}

}  // namespace

std::vector<std::string> ReferenceViolations(const Scenario& s) {
  return RunOnce(s, nullptr, nullptr).violations;
}

SweepResult Sweep(const Scenario& s) {
  SweepResult result;
  const auto start = std::chrono::steady_clock::now();
  const RunOutput ref = RunOnce(s, nullptr, nullptr);
  ++result.runs;
  for (const std::string& v : ref.violations) result.violations.push_back(v);
  for (const StepRecord& st : ref.steps) {
    result.reference_steps.push_back(st.api + " -> " + HsaName(st.status));
    if (st.status != HSAKMT_STATUS_SUCCESS) {
      result.violations.push_back("[" + s.name + "] reference run: " + st.api + " returned " +
                                  StatusText(st.status));
    }
  }
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) result.calls[op] = ref.counts[op];

  // Act's calls per operation, in order (call k of op = calls_by_op[op][k-1]).
  std::vector<std::vector<const Call*>> by_op(HKE_FAULTS_OP_COUNT);
  for (const Call& c : ref.calls) by_op[c.op].push_back(&c);
  std::ostringstream list;
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) {
    if (by_op[op].size() != ref.counts[op]) {
      result.violations.push_back("[" + s.name + "] the ledger saw " +
                                  std::to_string(by_op[op].size()) + " " + OpName(op) +
                                  " calls, the faults decorator " + std::to_string(ref.counts[op]));
    }
    for (size_t i = 0; i < by_op[op].size(); ++i) {
      list << "  " << OpName(op) << " " << (i + 1) << ": " << by_op[op][i]->Describe() << "\n";
    }
  }
  result.call_list = list.str();

  // File sampling: the calls of read_file/list_dir/read_fd whose
  // description is the same once every number is folded ("nodes/N/caches/
  // N/properties") run the same code; the first and the last of each such
  // pattern are swept.
  std::vector<std::set<uint64_t>> sampled(HKE_FAULTS_OP_COUNT);
  if (s.sample_files) {
    for (uint32_t op : {HKE_FAULTS_OP_READ_FILE, HKE_FAULTS_OP_LIST_DIR, HKE_FAULTS_OP_READ_FD}) {
      std::map<std::string, std::pair<uint64_t, uint64_t>> first_last;
      for (uint64_t k = 1; k <= by_op[op].size(); ++k) {
        std::string key;
        bool digit = false;
        for (char ch : by_op[op][k - 1]->Describe()) {
          const bool d = ch >= '0' && ch <= '9';
          if (!d) key += ch;
          if (d && !digit) key += 'N';
          digit = d;
        }
        auto it = first_last.find(key);
        if (it == first_last.end()) {
          first_last[key] = {k, k};
        } else {
          it->second.second = k;
        }
      }
      for (const auto& e : first_last) {
        sampled[op].insert(e.second.first);
        sampled[op].insert(e.second.second);
      }
      result.sampled[op] = sampled[op].size();
    }
  }
  // HKE_FAULT_SWEEP_LOG=<file> appends one line per run (scenario, fault,
  // call, failing step, status, outcome, violations) for inspection.
  FILE* log = nullptr;
  if (const char* path = std::getenv("HKE_FAULT_SWEEP_LOG")) log = std::fopen(path, "a");
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) {
    const uint64_t n = by_op[op].size();
    for (uint64_t k = 1; k <= n; ++k) {
      if (!sampled[op].empty() && sampled[op].count(k) == 0) continue;
      for (const Fault& f : FaultsFor(*by_op[op][k - 1], k)) {
        const RunOutput r = RunOnce(s, &f, &ref.steps);
        ++result.runs;
        const std::string kind = r.outcome.substr(0, r.outcome.find(':'));
        ++result.outcomes[kind];
        if (log != nullptr) std::fprintf(log, "%s\n", r.line.c_str());
        for (const std::string& v : r.violations) result.violations.push_back(v);
      }
    }
  }
  if (log != nullptr) std::fclose(log);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void Report(const Scenario& s, const SweepResult& r) {
  std::ostringstream summary;
  summary << "[" << s.name << "] " << r.runs << " runs in " << r.seconds << " s; calls during act:";
  uint64_t total = 0;
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) {
    if (r.calls[op] == 0) continue;
    summary << " " << OpName(op) << "=" << r.calls[op];
    if (r.sampled[op] != 0) summary << " (" << r.sampled[op] << " swept)";
    total += r.calls[op];
  }
  summary << "; outcomes:";
  for (const auto& o : r.outcomes) summary << " " << o.first << "=" << o.second;
  summary << "; steps:";
  for (const std::string& st : r.reference_steps) summary << " " << st << ";";
  MESSAGE(summary.str());
  CHECK_MESSAGE(total > 0, "[" << s.name << "] act made no platform call: nothing was swept");
  for (const std::string& v : r.violations) FAIL_CHECK(v);
  if (!r.violations.empty()) MESSAGE("[" << s.name << "] calls of act:\n" << r.call_list);
}

}  // namespace sweep
