// kfdsim secondary processes: AMDKFD_IOC_CREATE_PROCESS (KFD 1.19).
//
// The kernel turns the kfd_process behind one /dev/kfd descriptor into a
// new, secondary process of the same mm: its own VMs (one per GPU, bound
// to render files it gives ACQUIRE_VM), BOs, events, queues and doorbells;
// no SVM, no userptr BOs and no debug trap (EOPNOTSUPP); destroyed when
// its descriptor's file is released. A descriptor that holds a secondary
// process already gets EINVAL.
//
// Here a secondary process is a Simulator of its own. The primary (root)
// keeps a route from each file the secondary owns to it and forwards
// ioctl, mmap and close on those files; everything else (the render
// nodes' DRM queries before ACQUIRE_VM, opens) stays with the root.
// Deviations: VRAM accounting is per process (the board's VRAM is not
// shared out between processes); the kernel's 0xFFFE limit on context ids
// is not modelled; dma-buf and IPC imports see only the importing
// process's exports.
#include <errno.h>
#include <sys/stat.h>

#include <algorithm>
#include <vector>

#include "platform/sim/core/simulator.h"

namespace kfdsim {

int Simulator::IocCreateProcess(IoctlCtx& c, void*) {
  // Each descriptor owns one kfd_process; this one is secondary already.
  if (IsSecondary()) return EINVAL;
  Board board;
  board.desc = board_.desc;
  auto sec = std::make_shared<Simulator>(std::move(board));
  sec->root_ = this;
  sec->own_key_ = c.key;
  sec->SetEngineMode(engine_mode());
  std::lock_guard<std::mutex> dl(dev_mu_);
  auto it = files_.find(c.key);
  if (it == files_.end()) return EBADF;
  {
    std::lock_guard<std::mutex> sl(sec->dev_mu_);
    sec->files_[c.key] = it->second;
  }
  files_.erase(it);
  routes_[c.key] = sec;
  route_count_.store(routes_.size());
  return 0;
}

std::shared_ptr<Simulator> Simulator::RouteOf(int fd) {
  if (route_count_.load() == 0) return nullptr;
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) return nullptr;
  const FileKey key{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  std::lock_guard<std::mutex> dl(dev_mu_);
  auto it = routes_.find(key);
  return it == routes_.end() ? nullptr : it->second;
}

bool Simulator::AdoptRenderFile(const FileKey& key, Simulator* sec) {
  std::lock_guard<std::mutex> dl(dev_mu_);
  auto it = files_.find(key);
  // A render file the root bound a VM to belongs to the primary process.
  if (it == files_.end() || it->second.kind != DevKind::kRender || it->second.pin_fd >= 0) {
    return false;
  }
  auto owner = routes_.find(sec->own_key_);
  if (owner == routes_.end() || owner->second.get() != sec) return false;
  {
    std::lock_guard<std::mutex> sl(sec->dev_mu_);
    sec->files_[key] = it->second;
  }
  files_.erase(it);
  routes_[key] = owner->second;
  route_count_.store(routes_.size());
  return true;
}

void Simulator::ReapIfClosed(const std::shared_ptr<Simulator>& sec) {
  {
    std::lock_guard<std::mutex> sl(sec->dev_mu_);
    if (sec->files_.count(sec->own_key_) != 0) return;
  }
  // The process goes: its VMs release their render files' pins.
  sec->ResetProcess();
  std::lock_guard<std::mutex> dl(dev_mu_);
  bool routed = false;
  for (auto it = routes_.begin(); it != routes_.end();) {
    if (it->second == sec) {
      routed = true;
      it = routes_.erase(it);
    } else {
      ++it;
    }
  }
  route_count_.store(routes_.size());
  if (!routed) return;  // another thread reaped it first
  std::lock_guard<std::mutex> sl(sec->dev_mu_);
  for (auto& [key, file] : sec->files_) {
    if (!file.fds.empty()) files_[key] = file;  // still open: a plain render file again
  }
  sec->files_.clear();
}

void Simulator::DropSecondaries() {
  std::map<FileKey, std::shared_ptr<Simulator>> routes;
  {
    std::lock_guard<std::mutex> dl(dev_mu_);
    routes.swap(routes_);
    route_count_.store(0);
  }
  // Destroyed here, outside the root's locks (each joins its engine thread).
  routes.clear();
}

size_t Simulator::SecondaryCount() {
  std::lock_guard<std::mutex> dl(dev_mu_);
  std::vector<Simulator*> seen;
  for (auto& [key, sec] : routes_) {
    (void)key;
    if (std::find(seen.begin(), seen.end(), sec.get()) == seen.end()) seen.push_back(sec.get());
  }
  return seen.size();
}

}  // namespace kfdsim
