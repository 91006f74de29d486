// kfdsim devices and process lifetime: opening /dev/kfd and the render
// nodes, recognising their descriptors, closing them, and creating,
// resetting and destroying the per-process state.
//
// Every opened device file is a real memfd, so the descriptor behaves like
// any other in libc (dup, fcntl(F_DUPFD_CLOEXEC), close, fork). The
// simulator keys its file table by the memfd's (st_dev, st_ino): a dup'ed
// descriptor reaches the same file, and a number reused by an unrelated
// file after a close behind the simulator's back is not mistaken for it.
// Descriptors first seen through such a dup are remembered on first use.
// A file record is dropped when the last descriptor the simulator knows is
// closed, unless ACQUIRE_VM pinned it (the kernel keeps a reference to the
// DRM file of a process VM for the life of the process).
//
// Threading: the file table is guarded by dev_mu_.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace {

constexpr const char kKfdPath[] = "/dev/kfd";
constexpr const char kRenderPrefix[] = "/dev/dri/renderD";

// Parses "/dev/dri/renderD<decimal>"; false for anything else.
bool ParseRenderMinor(const std::string& path, uint32_t* minor) {
  const size_t n = sizeof(kRenderPrefix) - 1;
  if (path.compare(0, n, kRenderPrefix) != 0 || path.size() == n || path.size() > n + 6) {
    return false;
  }
  uint32_t v = 0;
  for (size_t i = n; i < path.size(); ++i) {
    if (path[i] < '0' || path[i] > '9') return false;
    v = v * 10 + static_cast<uint32_t>(path[i] - '0');
  }
  *minor = v;
  return true;
}

std::string OpenFlagsText(int flags) {
  std::string s;
  switch (flags & O_ACCMODE) {
    case O_RDONLY: s = "RDONLY"; break;
    case O_WRONLY: s = "WRONLY"; break;
    default: s = "RDWR"; break;
  }
  if (flags & O_CLOEXEC) s += "|CLOEXEC";
  const int rest = flags & ~(O_ACCMODE | O_CLOEXEC);
  if (rest != 0) s += "|" + HexU64(static_cast<uint32_t>(rest));
  return s;
}

}  // namespace

Simulator::Simulator(Board board) : board_(std::move(board)) {
  const long ps = sysconf(_SC_PAGESIZE);
  if (ps > 0) page_size_ = static_cast<size_t>(ps);
  gpus_.resize(board_.desc.gpus.size());
  for (GpuProc& g : gpus_) g.doorbell_used.assign(1024, false);
  xnack_enabled_ = XnackModeOk(false);
  RegisterForFork();
}

Simulator::~Simulator() {
  DropSecondaries();
  UnregisterForFork();
  ResetProcess();
  std::lock_guard<std::mutex> dl(dev_mu_);
  for (auto& [key, f] : files_) {
    (void)key;
    if (f.pin_fd >= 0) close(f.pin_fd);
  }
  files_.clear();
}

void Simulator::ResetProcess() {
  DropSecondaries();
  std::lock_guard<std::mutex> dl(dev_mu_);
  std::lock_guard<std::mutex> pl(proc_mu_);
  {
    std::lock_guard<std::mutex> el(ev_mu_);
    DropEventsLocked();
  }
  // Imports of other processes' shares: their memfds (share.cc). The
  // registry holds of this simulator end with it; in a fork child the
  // holds are the parent's (another pid) and stay.
  {
    std::set<int> files;
    for (const GpuProc& g : gpus_) {
      for (const auto& [idx, bo] : g.bos) {
        (void)idx;
        if (bo.storage && bo.storage->file >= 0) files.insert(bo.storage->file);
      }
    }
    for (const auto& [key, buf] : dmabufs_) {
      (void)key;
      if (buf.storage && buf.storage->file >= 0) files.insert(buf.storage->file);
    }
    // Leave the registry first: while it lists this process's descriptor
    // numbers, another process may open them through /proc.
    if (shares_ != nullptr) shares_->ReleaseOwner(share_owner_);
    for (int f : files) close(f);
  }
  // GEM objects and dma-bufs drop their storage while the GPUs still exist.
  gem_files_.clear();
  for (auto& [key, buf] : dmabufs_) {
    (void)key;
    if (buf.pin_fd >= 0) close(buf.pin_fd);
  }
  dmabufs_.clear();
  for (size_t i = 0; i < gpus_.size(); ++i) {
    GpuProc& g = gpus_[i];
    if (g.vm_acquired) {
      auto it = files_.find(g.vm_file);
      if (it != files_.end() && it->second.pin_fd >= 0) {
        close(it->second.pin_fd);
        it->second.pin_fd = -1;
        if (it->second.fds.empty()) files_.erase(it);
      }
    }
    if (g.doorbell_map != nullptr) {
      munmap(const_cast<uint8_t*>(g.doorbell_map), static_cast<size_t>(DoorbellSlice(static_cast<int>(i))));
    }
    if (g.doorbell_fd >= 0) close(g.doorbell_fd);
    if (g.mmio_fd >= 0) close(g.mmio_fd);
    if (g.backing_fd >= 0) close(g.backing_fd);
    g = GpuProc();
    g.doorbell_used.assign(1024, false);
  }
  queues_.clear();
  queue_ids_.Clear();
  svm_.clear();
  ipc_.clear();
  {
    std::lock_guard<std::mutex> sl(smi_mu_);
    SmiResetLocked();
  }
  xnack_enabled_ = XnackModeOk(false);
  runtime_enabled_ = false;
  debug_trap_enabled_ = false;
  debug_exception_mask_ = 0;
  suspended_queues_.clear();
  DebugEventsResetLocked();
  event_page_handle_ = 0;
}

int Simulator::RenderMinorGpu(uint32_t minor) const {
  const auto& g = board_.desc.gpus;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i].render_minor == minor) return static_cast<int>(i);
  }
  return -1;
}

bool Simulator::OwnsPath(const std::string& path) const {
  uint32_t minor = 0;
  if (path == kKfdPath || ParseRenderMinor(path, &minor)) return true;
  return files() != nullptr && files()->Owns(path);
}

int Simulator::Open(const char* path, int flags, int* out_fd) {
  if (path == nullptr || out_fd == nullptr) return EINVAL;
  const std::string p(path);
  DeviceFile file;
  std::string name;
  uint32_t minor = 0;
  int result = 0;
  if (p == kKfdPath) {
    file.kind = DevKind::kKfd;
    name = "kfdsim-kfd";
  } else if (ParseRenderMinor(p, &minor)) {
    file.kind = DevKind::kRender;
    file.gpu = RenderMinorGpu(minor);
    name = "kfdsim-renderD" + std::to_string(minor);
    FileKind kind = FileKind::kNone;
    if (file.gpu < 0) {
      result = ENOENT;
    } else if (files() != nullptr && files()->Owns(p) &&
               (files()->Kind(p, &kind) != 0 || kind != FileKind::kDevice)) {
      result = ENOENT;
    }
  } else {
    result = ENOENT;
  }
  int fd = -1;
  if (result == 0) {
    fd = memfd_create(name.c_str(), (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0u);
    if (fd < 0) result = errno;
  }
  if (result == 0) {
    struct stat st{};
    if (fstat(fd, &st) != 0) {
      result = errno;
      close(fd);
    } else {
      file.fds.push_back(fd);
      std::lock_guard<std::mutex> dl(dev_mu_);
      files_[FileKey{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)}] = file;
    }
  }
  if (tracing()) {
    std::string line = "open path=" + p + " flags=" + OpenFlagsText(flags) + " -> ";
    line += result == 0 ? "ok fd=" + std::to_string(fd) : ErrnoName(result);
    Trace(line);
  }
  if (result == 0) *out_fd = fd;
  return result;
}

int Simulator::LookupFd(int fd, IoctlCtx* ctx) {
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) return EBADF;
  const FileKey key{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  // A secondary process is handed a render file of the root's (ACQUIRE_VM
  // of a fresh render descriptor): it becomes this process's.
  if (root_ != nullptr) {
    bool known = false;
    {
      std::lock_guard<std::mutex> dl(dev_mu_);
      known = files_.count(key) != 0;
    }
    if (!known) (void)root_->AdoptRenderFile(key, this);
  }
  std::lock_guard<std::mutex> dl(dev_mu_);
  auto it = files_.find(key);
  if (it == files_.end()) return ENOTTY;
  if (std::find(it->second.fds.begin(), it->second.fds.end(), fd) == it->second.fds.end()) {
    it->second.fds.push_back(fd);
  }
  ctx->fd = fd;
  ctx->key = key;
  ctx->kind = it->second.kind;
  ctx->gpu = it->second.gpu;
  return 0;
}

bool Simulator::OwnsFd(int fd) {
  if (auto sec = RouteOf(fd)) return sec->OwnsFd(fd);
  IoctlCtx ctx;
  return LookupFd(fd, &ctx) == 0;
}

int Simulator::Close(int fd) {
  if (auto sec = RouteOf(fd)) {
    const int r = sec->Close(fd);
    ReapIfClosed(sec);
    return r;
  }
  struct stat st{};
  if (fd >= 0 && fstat(fd, &st) == 0) {
    const FileKey key{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
    std::lock_guard<std::mutex> dl(dev_mu_);
    auto it = files_.find(key);
    if (it != files_.end()) {
      auto& fds = it->second.fds;
      fds.erase(std::remove(fds.begin(), fds.end(), fd), fds.end());
      if (fds.empty() && it->second.pin_fd < 0) {
        files_.erase(it);
        std::lock_guard<std::mutex> pl(proc_mu_);
        GemFileClosedLocked(key);  // its GEM handles die with the DRM file
      }
    }
  }
  const int result = close(fd) == 0 ? 0 : errno;
  if (tracing()) {
    Trace("close fd=" + std::to_string(fd) + " -> " + (result == 0 ? "ok" : ErrnoName(result)));
  }
  return result;
}

Simulator::ProcessStats Simulator::Stats() {
  ProcessStats st;
  std::lock_guard<std::mutex> dl(dev_mu_);
  for (const auto& [key, f] : files_) {
    (void)key;
    if (routes_.count(key) != 0) continue;  // a secondary process's file
    (f.kind == DevKind::kKfd ? st.kfd_fds : st.render_fds) += static_cast<uint32_t>(f.fds.size());
  }
  {
    std::lock_guard<std::mutex> pl(proc_mu_);
    SvmPruneLocked(0, ~uint64_t{0});  // host unmaps nobody reported
    for (const GpuProc& g : gpus_) {
      for (const auto& [id, bo] : g.bos) {
        (void)id;
        if (bo.event_page) {
          ++st.event_page_bos;
          continue;
        }
        ++st.bos;
        st.gpu_mappings += static_cast<uint32_t>(bo.mapped.size());
      }
    }
    st.queues = static_cast<uint32_t>(queues_.size());
    st.svm_ranges = static_cast<uint32_t>(svm_.size());
  }
  st.gem_objects = static_cast<uint32_t>(GemObjectCount());
  std::lock_guard<std::mutex> el(ev_mu_);
  st.events = static_cast<uint32_t>(events_.size());
  return st;
}

}  // namespace kfdsim
