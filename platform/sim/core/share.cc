// kfdsim sharing across processes: IPC share handles and KFD dma-bufs
// exported by one simulated process and imported by another process of the
// same simulated machine (a fork child, or an unrelated process on the
// same board), through the machine's share registry (share_registry.h).
//
// Model:
//  - The first IPC_EXPORT_HANDLE or EXPORT_DMABUF of a storage publishes
//    it: a registry share naming the exporter's backing memfd (descriptor
//    number and offset). The share words are the registry's key
//    ("KFSI", gpu_id, machine-wide serial, exporter pid): the same words
//    for every export of that BO, as the DKMS driver keeps one IPC object
//    per BO. An exported dma-buf is a memfd named
//    "kfdsim-dmabuf-<the 4 words in hex>", so a process that received the
//    descriptor (inherited over fork, or sent with SCM_RIGHTS) finds the
//    share from the name (/proc/self/fd).
//  - An import in another process opens the exporter's memfd
//    (/proc/<pid>/fd/<n>) and becomes a holder: its BO's mmap offset is a
//    range reserved in its own GPU mmap space that every CPU mapping,
//    engine and shader access redirects to that memfd (StorageFd).
//  - Lifetime: a storage's last reference in a process drops that
//    process's hold. The exporter keeps the range of a freed BO out of its
//    free list ("retired") while other processes hold it and reclaims it,
//    returning the pages, once nobody does; an importer never punches
//    them (with the exporter gone, they go with the memfd's last
//    descriptor).
//  - Accounting: the exporter's VRAM/GTT counters charge the BO from ALLOC
//    to FREE; an import charges nothing (the kernel's is_imported BOs skip
//    the KFD limit and the process's vram_usage), so the memory is counted
//    once, by the exporter, until it frees it.
//  - Refusals: unknown words, a share whose holders have all ended, or one
//    of another GPU -> EINVAL (the kernel's import fails on an unknown
//    handle and a foreign device with EINVAL); another machine's words are
//    unknown to this machine's registry.
//
// Threading: everything runs under proc_mu_; the registry has its own
// process and file locks, always taken after proc_mu_.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "platform/sim/core/simulator.h"

namespace kfdsim {

uint64_t Simulator::NextShareOwner() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

int Simulator::StorageFd(const Storage& s) const {
  return s.file >= 0 ? s.file : gpus_[static_cast<size_t>(s.gpu)].backing_fd;
}

ShareRegistry* Simulator::SharesLocked() {
  if (!shares_tried_) {
    shares_tried_ = true;
    std::string machine = board_.desc.name;
    for (const GpuDesc& g : board_.desc.gpus) machine += ":" + std::to_string(g.gpu_id);
    shares_ = ShareRegistry::ForMachine(machine);
  }
  return shares_.get();
}

int Simulator::PublishLocked(const std::shared_ptr<Storage>& s, uint32_t flags) {
  if (s->shared) return 0;
  ShareRegistry* reg = SharesLocked();
  if (reg == nullptr) return EIO;
  ShareInfo info;
  info.gpu_id = board_.desc.gpus[static_cast<size_t>(s->gpu)].gpu_id;
  info.flags = flags;
  info.size = s->size;
  info.file_offset = StorageFileOffset(*s);
  ShareKey key{};
  if (int r = reg->Publish(info, StorageFd(*s), share_owner_, &key)) return r;
  s->shared = true;
  s->share = key;
  return 0;
}

std::shared_ptr<Simulator::Storage> Simulator::FindSharedLocked(const ShareKey& key) const {
  for (const GpuProc& g : gpus_) {
    for (const auto& [idx, bo] : g.bos) {
      (void)idx;
      if (bo.storage && bo.storage->shared && bo.storage->share == key) return bo.storage;
    }
  }
  for (const auto& [fkey, buf] : dmabufs_) {
    (void)fkey;
    if (buf.storage && buf.storage->shared && buf.storage->share == key) return buf.storage;
  }
  return nullptr;
}

int Simulator::AttachShareLocked(const ShareKey& key, int gpu, std::shared_ptr<Storage>* out,
                                 ShareInfo* info) {
  ShareRegistry* reg = SharesLocked();
  if (reg == nullptr) return EINVAL;
  ShareInfo peek;
  if (reg->Lookup(key, &peek) != 0) return EINVAL;
  if (peek.gpu_id != board_.desc.gpus[static_cast<size_t>(gpu)].gpu_id) return EINVAL;
  auto s = std::make_shared<Storage>();
  s->gpu = gpu;
  s->size = peek.size;
  if (int r = AllocBacking(gpu, peek.size, &s->offset)) return r;  // the mmap range only
  int fd = -1;
  if (int r = reg->Attach(key, share_owner_, info, &fd)) {
    FreeBacking(gpu, s->offset, s->size);
    return r == ENOSPC ? ENOMEM : r;
  }
  s->file = fd;
  s->file_offset = info->file_offset;
  s->shared = true;
  s->share = key;
  *out = std::move(s);
  return 0;
}

int Simulator::ImportShareLocked(const ShareKey& key, int gpu, std::shared_ptr<Storage>* out,
                                 ShareInfo* info) {
  std::shared_ptr<Storage> s = FindSharedLocked(key);
  if (s == nullptr) {
    if (int r = AttachShareLocked(key, gpu, &s, info)) return r;
    s->refs = 0;  // the caller's alias BO takes the only reference
  } else if (s->gpu != gpu || SharesLocked() == nullptr || shares_->Lookup(key, info) != 0) {
    return EINVAL;
  }
  *out = std::move(s);
  return 0;
}

bool Simulator::ReleaseShareLocked(Storage* s) {
  if (!s->shared || shares_ == nullptr) return false;
  const int left = shares_->Release(s->share, share_owner_);
  if (s->file >= 0) {
    // An importer never returns the pages itself: the exporter does when it
    // reclaims the retired range (FreeBacking), and a punch from here, after
    // the registry let go, could zero a BO the exporter has just put in that
    // range. With the exporter gone, the memfd's pages go with its last
    // descriptor.
    close(s->file);
    s->file = -1;
    return false;  // the reserved mmap range is ours to free
  }
  if (left == 0) return false;
  GpuProc::Retired r;
  r.offset = s->offset;
  r.size = s->size;
  r.key = s->share;
  gpus_[static_cast<size_t>(s->gpu)].retired.push_back(r);
  return true;
}

void Simulator::ReclaimRetiredLocked(int gpu) {
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  if (g.retired.empty() || shares_ == nullptr) return;
  for (size_t i = 0; i < g.retired.size();) {
    if (shares_->Held(g.retired[i].key)) {
      ++i;
      continue;
    }
    const GpuProc::Retired r = g.retired[i];
    g.retired.erase(g.retired.begin() + static_cast<std::ptrdiff_t>(i));
    FreeBacking(gpu, r.offset, r.size);
  }
}

bool Simulator::ForeignDmabufKey(uint32_t fd, ShareKey* key) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/fd/%u", fd);
  char link[256];
  const ssize_t n = readlink(path, link, sizeof(link) - 1);
  if (n <= 0) return false;
  link[n] = '\0';
  unsigned w[4];
  char tail = 0;
  if (std::sscanf(link, "/memfd:kfdsim-dmabuf-%8x%8x%8x%8x%c", &w[0], &w[1], &w[2], &w[3], &tail) < 4) {
    return false;
  }
  for (int i = 0; i < 4; ++i) (*key)[static_cast<size_t>(i)] = w[i];
  return true;
}

}  // namespace kfdsim
