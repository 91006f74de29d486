// kfdsim dispatch: the front door for ioctl/mmap/munmap on simulated fds,
// the KFD ioctl table, the kernel's argument-size rule, fault injection
// and the trace lines.
//
// KFD dispatch (kfd_ioctl()): the request's nr selects the kernel's own
// definition, taken with its name and first KFD version from the library's
// one list (lib/kfd/ioctl_list.h); this file adds only which handler serves
// each. nr outside the list for the board's KFD minor -> ENOTTY (e.g. SVM
// needs 1.5, RUNTIME_ENABLE 1.13, CREATE_PROCESS 1.19). A type
// byte other than 'K' is also refused with ENOTTY (the kernel does not look
// at it; a wrong type is always a caller bug). DKMS numbers: 0x82 (DBG_TRAP
// in the ROCm 5.x DKMS header, sent by Debian's 5.2.3 thunk) -> EINVAL;
// 0x80/0x81 (IPC), 0x84 (RLC_SPM) and 0x85 (PC_SAMPLE, KFD >= 1.16) are
// served as a DKMS kernel does; 0x83 -> ENOTTY. The argument buffer is
// max(user size, kernel size) bytes: the user's bytes are copied in when the
// kernel's definition reads, the tail is zero, and the user's size is copied
// back when it writes, even after the handler failed (WAIT_EVENTS and
// CREATE_QUEUE updates depend on that). So an 88-byte CREATE_QUEUE (KFD 1.16
// and older) works, with sdma_engine_id read as 0. A bad argument pointer
// -> EFAULT.
//
// Trace lines (one per call, completion order; see core/README.md):
//   <seq> ioctl fd=<n> dev=<kfd|renderD<m>> req=0x<hex> name=<NAME|?> size=<n> in=<hex>
//         -> ok|<ERRNO> [out=<hex>] [injected] [tampered]
//   <seq> mmap fd=<n> dev=<...> addr=0x.. len=0x.. prot=.. flags=.. off=0x.. -> ok addr=0x..
//   <seq> munmap addr=0x.. len=0x.. -> ok
//   <seq> open path=<p> flags=<RDWR|CLOEXEC> -> ok fd=<n>
//   <seq> close fd=<n> -> ok
//
// Threading: hook_mu_ guards the sink, the faults and the call counters;
// the sink is called without it. A call first reads the atomic "armed"
// flags the setters keep (simulator.h), so with no sink, fault or tamper
// set it takes no lock for them.
//
// Cost: the nr selects its entries through a per-nr chain built once, the
// argument buffer is on the stack, and the trace name is the table's
// string, so an untraced call allocates nothing.
#include <errno.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "lib/kfd/abi.h"
#include "lib/kfd/ioctl_list.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr size_t kTraceHexMax = 512;
// Argument bytes a KFD call gets on the stack: every KFD definition fits
// (the largest, GET_PROCESS_APERTURES, is 400); a caller's larger size
// field takes the heap.
constexpr size_t kSmallArgBytes = 512;

// One served request: nr, name, definition and first KFD minor from the
// list (lib/kfd/ioctl_list.h), plus the handler (nullptr: not served).
struct KfdEntry {
  uint8_t nr;
  const char* name;
  uint32_t cmd;    // the kernel's definition (direction and size)
  uint32_t since;  // KFD minor that introduced it
  Simulator::Handler handler;
};

std::string FlagsText(int v, const std::pair<int, const char*>* names, size_t n,
                      const char* zero) {
  if (v == 0) return zero;
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if ((v & names[i].first) == 0) continue;
    if (!s.empty()) s += "|";
    s += names[i].second;
    v &= ~names[i].first;
  }
  if (v != 0) {
    if (!s.empty()) s += "|";
    s += HexU64(static_cast<uint32_t>(v));
  }
  return s;
}

std::string ProtText(int prot) {
  static const std::pair<int, const char*> kNames[] = {
      {PROT_READ, "READ"}, {PROT_WRITE, "WRITE"}, {PROT_EXEC, "EXEC"}};
  return FlagsText(prot, kNames, 3, "NONE");
}

std::string MapText(int flags) {
  static const std::pair<int, const char*> kNames[] = {{MAP_SHARED, "SHARED"},
                                                       {MAP_PRIVATE, "PRIVATE"},
                                                       {MAP_FIXED, "FIXED"},
                                                       {MAP_ANONYMOUS, "ANONYMOUS"},
                                                       {MAP_NORESERVE, "NORESERVE"}};
  return FlagsText(flags, kNames, 5, "0");
}

}  // namespace

int Simulator::KfdIoctl(IoctlCtx& c, unsigned long request, void* arg, const char** trace_name,
                        bool* unknown) {
  using S = Simulator;
  // Which handler serves each request of the list (lib/kfd/ioctl_list.h);
  // nullptr: the request is not served (ENOTTY, as for an unknown nr).
  const auto handler_of = [](uint32_t cmd) -> Handler {
    switch (cmd) {
      case k::kIocGetVersion: return &S::IocGetVersion;
      case k::kIocCreateQueue: return &S::IocCreateQueue;
      case k::kIocDestroyQueue: return &S::IocDestroyQueue;
      case k::kIocSetMemoryPolicy: return &S::IocSetMemoryPolicy;
      case k::kIocGetClockCounters: return &S::IocGetClockCounters;
      case k::kIocGetProcessApertures: return &S::IocGetProcessApertures;
      case k::kIocUpdateQueue: return &S::IocUpdateQueue;
      case k::kIocCreateEvent: return &S::IocCreateEvent;
      case k::kIocDestroyEvent: return &S::IocDestroyEvent;
      case k::kIocSetEvent: return &S::IocSetEvent;
      case k::kIocResetEvent: return &S::IocResetEvent;
      case k::kIocWaitEvents: return &S::IocWaitEvents;
      case k::kIocDbgRegisterDeprecated:
      case k::kIocDbgUnregisterDeprecated:
      case k::kIocDbgAddressWatchDeprecated:
      case k::kIocDbgWaveControlDeprecated: return &S::IocDeprecatedDebug;
      case k::kIocSetScratchBackingVa: return &S::IocSetScratchBackingVa;
      case k::kIocGetTileConfig: return &S::IocGetTileConfig;
      case k::kIocSetTrapHandler: return &S::IocSetTrapHandler;
      case k::kIocGetProcessAperturesNew: return &S::IocGetProcessAperturesNew;
      case k::kIocAcquireVm: return &S::IocAcquireVm;
      case k::kIocAllocMemoryOfGpu: return &S::IocAllocMemory;
      case k::kIocFreeMemoryOfGpu: return &S::IocFreeMemory;
      case k::kIocMapMemoryToGpu: return &S::IocMapMemory;
      case k::kIocUnmapMemoryFromGpu: return &S::IocUnmapMemory;
      case k::kIocSetCuMask: return &S::IocSetCuMask;
      case k::kIocGetQueueWaveState: return &S::IocGetQueueWaveState;
      case k::kIocGetDmabufInfo: return &S::IocGetDmabufInfo;
      case k::kIocImportDmabuf: return &S::IocImportDmabuf;
      case k::kIocAllocQueueGws: return &S::IocAllocQueueGws;
      case k::kIocSmiEvents: return &S::IocSmiEvents;
      case k::kIocSvm: return &S::IocSvm;
      case k::kIocSetXnackMode: return &S::IocSetXnackMode;
      case k::kIocCriuOp: return &S::IocCriu;
      case k::kIocAvailableMemory: return &S::IocAvailableMemory;
      case k::kIocExportDmabuf: return &S::IocExportDmabuf;
      case k::kIocRuntimeEnable: return &S::IocRuntimeEnable;
      case k::kIocDbgTrap: return &S::IocDbgTrap;
      case k::kIocCreateProcess: return &S::IocCreateProcess;
      // DKMS IPC share handles (not in the upstream kernel).
      case k::kIocIpcImportHandle: return &S::IocIpcImport;
      case k::kIocIpcExportHandle: return &S::IocIpcExport;
      // DKMS profiling: SPM streaming and PC sampling (profile.cc).
      case k::kIocRlcSpm: return &S::IocRlcSpm;
      case k::kIocPcSample: return &S::IocPcSample;
      // CROSS_MEMORY_COPY (0x83) is not served.
      default: return nullptr;
    }
  };
#define KFDSIM_ENTRY(nr, Name, NAME, dir, Args, kind, major, minor) \
  {nr, "AMDKFD_IOC_" #NAME, k::kIoc##Name, minor, handler_of(k::kIoc##Name)},
  static const KfdEntry kTable[] = {
      HKE_KFD_IOCTL_LIST(KFDSIM_ENTRY)
      // DKMS DBG_TRAP of the ROCm 5.x header (not in the list: the library
      // never sends it; Debian's 5.2.3 thunk does): same layout as 0x26 there.
      {0x82, "AMDKFD_IOC_DBG_TRAP_DKMS", k::IocEncode(k::kIocReadWrite, k::kKfdIocType, 0x82, 32), 0,
       &S::IocDkmsDebug},
  };
#undef KFDSIM_ENTRY
  constexpr size_t kEntries = sizeof(kTable) / sizeof(kTable[0]);
  static_assert(kEntries < 0x7fff, "the chains below index the table with int16_t");
  // The table's entries of each nr, chained in table order (-1 ends a
  // chain), so a call looks only at its own nr's entries.
  struct NrChains {
    int16_t head[256];
    int16_t next[kEntries];
  };
  static const NrChains kChains = [] {
    NrChains ch{};
    int16_t tail[256];
    for (int i = 0; i < 256; ++i) ch.head[i] = tail[i] = -1;
    for (size_t i = 0; i < kEntries; ++i) {
      const auto idx = static_cast<int16_t>(i);
      ch.next[i] = -1;
      const uint8_t n = kTable[i].nr;
      if (tail[n] < 0) {
        ch.head[n] = idx;
      } else {
        ch.next[static_cast<size_t>(tail[n])] = idx;
      }
      tail[n] = idx;
    }
    return ch;
  }();
  const uint32_t req = static_cast<uint32_t>(request);
  const uint8_t nr = k::IocNr(req);
  const KfdEntry* e = nullptr;
  if (k::IocType(req) == k::kKfdIocType) {
    // The last served entry of the nr for the board's KFD minor.
    for (int16_t i = kChains.head[nr]; i >= 0; i = kChains.next[static_cast<size_t>(i)]) {
      const KfdEntry& x = kTable[static_cast<size_t>(i)];
      if (x.handler != nullptr && board_.desc.kfd_minor >= x.since) e = &x;
    }
  }
  if (e == nullptr) {
    *unknown = true;
    return ENOTTY;
  }
  *trace_name = e->name;
  const uint8_t kdir = k::IocDir(e->cmd);
  const uint32_t usize = k::IocSize(req);
  // The argument buffer: on the stack when it fits (every KFD definition
  // does; a caller's larger size field takes the heap).
  const size_t bytes = std::max(usize, k::IocSize(e->cmd));
  alignas(16) uint8_t small[kSmallArgBytes];
  std::vector<uint8_t> large;
  uint8_t* kdata = small;
  if (bytes > sizeof(small)) {
    large.resize(bytes);
    kdata = large.data();
  }
  std::memset(kdata, 0, bytes);
  if ((kdir & k::kIocWrite) && usize != 0 &&
      UserRead(kdata, reinterpret_cast<uintptr_t>(arg), usize) != 0) {
    return EFAULT;
  }
  c.user_size = usize;
  int result = (this->*(e->handler))(c, kdata);
  if ((kdir & k::kIocRead) && usize != 0 &&
      UserWrite(reinterpret_cast<uintptr_t>(arg), kdata, usize) != 0) {
    result = EFAULT;
  }
  return result;
}

bool Simulator::TakeFault(uint32_t key, int* error) {
  if (root_ != nullptr) return root_->TakeFault(key, error);
  if (!faults_armed_.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> hl(hook_mu_);
  if (faults_.empty()) return false;
  const uint32_t count = ++call_counts_[key];
  for (size_t i = 0; i < faults_.size(); ++i) {
    Fault& f = faults_[i];
    if (f.key != key || count < std::max(f.nth, 1u)) continue;
    *error = f.error;
    if (f.remaining != 0 && --f.remaining == 0) {
      faults_.erase(faults_.begin() + static_cast<std::ptrdiff_t>(i));
      faults_armed_.store(!faults_.empty(), std::memory_order_release);
    }
    return true;
  }
  return false;
}

void Simulator::AddFault(uint32_t request_key, int error, uint32_t nth, uint32_t count) {
  std::lock_guard<std::mutex> hl(hook_mu_);
  Fault f;
  f.key = request_key & 0xFFFFu;
  f.error = error;
  f.nth = nth;
  f.remaining = count;
  faults_.push_back(f);
  faults_armed_.store(true, std::memory_order_release);
  call_counts_.erase(f.key);
}

void Simulator::ClearFaults() {
  std::lock_guard<std::mutex> hl(hook_mu_);
  faults_.clear();
  faults_armed_.store(false, std::memory_order_release);
  call_counts_.clear();
}

void Simulator::SetTraceSink(TraceSink sink, void* user) {
  std::lock_guard<std::mutex> hl(hook_mu_);
  trace_sink_ = sink;
  trace_user_ = user;
  trace_armed_.store(sink != nullptr, std::memory_order_release);
}

bool Simulator::tracing() {
  if (root_ != nullptr) return root_->tracing();
  return trace_armed_.load(std::memory_order_acquire);
}

void Simulator::Trace(const std::string& body) {
  if (root_ != nullptr) return root_->Trace(body);
  TraceSink sink = nullptr;
  void* user = nullptr;
  {
    std::lock_guard<std::mutex> hl(hook_mu_);
    sink = trace_sink_;
    user = trace_user_;
  }
  if (sink == nullptr) return;
  std::string line = std::to_string(seq_.fetch_add(1)) + " " + body + "\n";
  sink(user, line.c_str(), line.size());
}

namespace {
std::string DevText(const Simulator& s, const Simulator::IoctlCtx& c) {
  if (c.kind == Simulator::DevKind::kKfd) return "kfd";
  return "renderD" + std::to_string(s.desc().gpus[static_cast<size_t>(c.gpu)].render_minor);
}
}  // namespace

int Simulator::Ioctl(int fd, unsigned long request, void* arg) {
  bool owned = false;
  return IoctlIfOwned(fd, request, arg, &owned);
}

int Simulator::IoctlIfOwned(int fd, unsigned long request, void* arg, bool* owned) {
  *owned = false;
  if (auto sec = RouteOf(fd)) return sec->IoctlIfOwned(fd, request, arg, owned);
  IoctlCtx c;
  if (int r = LookupFd(fd, &c)) return r;
  *owned = true;
  const uint32_t req = static_cast<uint32_t>(request);
  const uint32_t usize = k::IocSize(req);
  const bool trace = tracing();
  std::string line;
  if (trace) {
    line = "ioctl fd=" + std::to_string(fd) + " dev=" + DevText(*this, c) + " req=" + HexU64(req);
  }
  std::vector<uint8_t> bytes;
  if (trace && usize != 0 && (k::IocDir(req) & k::kIocWrite)) {
    bytes.resize(usize);
    if (UserRead(bytes.data(), reinterpret_cast<uintptr_t>(arg), usize) != 0) bytes.clear();
  }
  const char* name = "?";
  bool unknown = false;
  int injected = 0;
  int result = 0;
  if (TakeFault(req & 0xFFFFu, &injected)) {
    result = injected;
  } else if (c.kind == DevKind::kKfd) {
    result = KfdIoctl(c, request, arg, &name, &unknown);
  } else {
    result = DrmIoctl(c, request, arg, &name, &unknown);
  }
  if (unknown) {
    unknown_requests_.fetch_add(1);
    last_unknown_request_.store(req);
  }
  // Reply tamper seam (core/tamper.cc): a handled call's reply may be
  // rewritten before the caller sees it; the trace shows the tampered bytes.
  bool tampered = false;
  if (injected == 0 && !unknown) result = TamperReply(req, arg, result, &tampered);
  if (trace) {
    line += std::string(" name=") + name + " size=" + std::to_string(usize) + " in=";
    AppendHex(&line, bytes.data(), bytes.size(), kTraceHexMax);
    line += " -> " + (result == 0 ? std::string("ok") : ErrnoName(result));
    if (injected == 0 && !unknown && usize != 0 && (k::IocDir(req) & k::kIocRead)) {
      std::vector<uint8_t> out(usize);
      if (UserRead(out.data(), reinterpret_cast<uintptr_t>(arg), usize) == 0) {
        line += " out=";
        AppendHex(&line, out.data(), out.size(), kTraceHexMax);
      }
    }
    if (injected != 0) line += " injected";
    if (tampered) line += " tampered";
    if (unknown) line += " unknown";
    Trace(line);
  }
  return result;
}

int Simulator::Mmap(void* addr, size_t length, int prot, int flags, int fd, uint64_t offset,
                    void** out_addr) {
  if (out_addr == nullptr) return EINVAL;
  bool owned = false;
  return MmapIfOwned(addr, length, prot, flags, fd, offset, out_addr, &owned);
}

int Simulator::MmapIfOwned(void* addr, size_t length, int prot, int flags, int fd, uint64_t offset,
                           void** out_addr, bool* owned) {
  *owned = false;
  if (auto sec = RouteOf(fd)) return sec->MmapIfOwned(addr, length, prot, flags, fd, offset, out_addr, owned);
  IoctlCtx c;
  if (int r = LookupFd(fd, &c)) return r == ENOTTY ? ENODEV : r;
  *owned = true;
  if (out_addr == nullptr) return EINVAL;
  void* p = nullptr;
  const int result = c.kind == DevKind::kKfd ? MmapKfd(addr, length, prot, flags, offset, &p)
                                             : MmapRender(c, addr, length, prot, flags, offset, &p);
  if (tracing()) {
    std::string line = "mmap fd=" + std::to_string(fd) + " dev=" + DevText(*this, c) +
                       " addr=" + HexU64(reinterpret_cast<uintptr_t>(addr)) +
                       " len=" + HexU64(length) + " prot=" + ProtText(prot) +
                       " flags=" + MapText(flags) + " off=" + HexU64(offset) + " -> ";
    line += result == 0 ? "ok addr=" + HexU64(reinterpret_cast<uintptr_t>(p)) : ErrnoName(result);
    Trace(line);
  }
  if (result == 0) *out_addr = p;
  // A new mapping lies where nothing was, or replaced what was (MAP_FIXED):
  // no SVM range survives there (the MMU notifier's unmap).
  if (result == 0) HostUnmapped(reinterpret_cast<uintptr_t>(p), length);
  return result;
}

int Simulator::Munmap(void* addr, size_t length) {
  const int result = munmap(addr, length) == 0 ? 0 : errno;
  if (result == 0) HostUnmapped(reinterpret_cast<uintptr_t>(addr), length);
  if (tracing()) {
    Trace("munmap addr=" + HexU64(reinterpret_cast<uintptr_t>(addr)) + " len=" + HexU64(length) +
          " -> " + (result == 0 ? std::string("ok") : ErrnoName(result)));
  }
  return result;
}

}  // namespace kfdsim
