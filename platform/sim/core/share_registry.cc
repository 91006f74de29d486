// kfdsim share registry (share_registry.h): the table file and its rules.
//
// Layout: a fixed table (kSlots shares of kHolders holders each) at the
// start of the file, zero-filled by the creator's ftruncate, so a slot
// with key word 0 == 0 is free and a file of the right size needs no other
// initialisation. The header's serial numbers shares machine-wide.
// Cross-process exclusion is flock(LOCK_EX) on the process's own open file
// description (a fork child reopens: an inherited description would share
// the parent's lock); threads of one process are serialised by one mutex,
// held across fork by the atfork handlers so a child never inherits it
// taken (fork.cc takes it after every simulator's locks: the order of a
// registry call made under proc_mu_).
#include "platform/sim/core/share_registry.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>

#include "platform/sim/core/util.h"

namespace kfdsim {

namespace {

constexpr uint32_t kMagic = 0x4b465349u;  // "KFSI": share word 0 of every registry share
constexpr uint32_t kVersion = 1;
constexpr int kSlots = 256;
constexpr int kHolders = 16;

std::mutex& ProcessMutex() {
  static std::mutex mu;
  return mu;
}

// Opens without the preload front end's open() interposer (the core runs
// inside it, under its own locks).
int RawOpen(const char* path, int flags, mode_t mode) {
  return static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}

bool ProcessAlive(int32_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

struct ShareRegistry::Table {
  struct Holder {
    int32_t pid;
    int32_t fd;
    uint64_t owner;
  };
  struct Slot {
    uint32_t key[4];
    ShareInfo info;
    Holder holders[kHolders];
  };
  uint32_t magic;
  uint32_t version;
  uint32_t serial;
  uint32_t pad;
  Slot slots[kSlots];

  Slot* Find(const ShareKey& key) {
    if (key[0] != kMagic) return nullptr;
    for (Slot& s : slots) {
      if (s.key[0] == key[0] && s.key[1] == key[1] && s.key[2] == key[2] && s.key[3] == key[3]) {
        return &s;
      }
    }
    return nullptr;
  }
  // Drops holders of ended processes; frees the slot when none is left.
  static int Prune(Slot* s) {
    int live = 0;
    for (Holder& h : s->holders) {
      if (h.pid == 0) continue;
      if (!ProcessAlive(h.pid)) {
        h = Holder{};
        continue;
      }
      ++live;
    }
    if (live == 0) *s = Slot{};
    return live;
  }
};

std::shared_ptr<ShareRegistry> ShareRegistry::ForMachine(const std::string& machine) {
  std::lock_guard<std::mutex> l(ProcessMutex());
  static std::map<std::string, std::weak_ptr<ShareRegistry>> open;
  char name[96];
  // The table's version is part of the name: a simulator with another
  // layout uses its own file instead of refusing this one.
  std::snprintf(name, sizeof(name), "/dev/shm/kfdsim-share-v%u-%u-%016llx", kVersion,
                static_cast<unsigned>(getuid()), static_cast<unsigned long long>(Fnv1a(machine)));
  if (auto live = open[name].lock()) return live;
  std::shared_ptr<ShareRegistry> r(new ShareRegistry());
  r->path_ = name;
  if (!r->EnsureOpen()) return nullptr;
  const size_t bytes = sizeof(Table);
  if (flock(r->fd_, LOCK_EX) != 0) return nullptr;
  struct stat st{};
  bool ok = fstat(r->fd_, &st) == 0;
  if (ok && static_cast<size_t>(st.st_size) < bytes) {
    ok = ftruncate(r->fd_, static_cast<off_t>(bytes)) == 0;
  }
  void* m = ok ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd_, 0) : MAP_FAILED;
  if (m != MAP_FAILED) {
    r->table_ = static_cast<Table*>(m);
    if (r->table_->magic == 0) {
      r->table_->magic = kMagic;
      r->table_->version = kVersion;
    }
    if (r->table_->magic != kMagic || r->table_->version != kVersion) {
      munmap(m, bytes);
      r->table_ = nullptr;
    }
  }
  flock(r->fd_, LOCK_UN);
  if (r->table_ == nullptr) return nullptr;
  open[name] = r;
  return r;
}

void ShareRegistry::LockForFork() { ProcessMutex().lock(); }
void ShareRegistry::UnlockForFork() { ProcessMutex().unlock(); }

ShareRegistry::~ShareRegistry() {
  if (table_ != nullptr) munmap(table_, sizeof(Table));
  if (fd_ >= 0) close(fd_);
}

bool ShareRegistry::EnsureOpen() {
  const int pid = SelfPid();
  if (fd_ >= 0 && fd_pid_ == pid) return true;
  // A fork child closes its inherited copy (its description is the parent's).
  if (fd_ >= 0) close(fd_);
  fd_ = RawOpen(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  fd_pid_ = pid;
  if (fd_ < 0) return false;
  // The name is predictable: use only a regular file of this user that no
  // one else may read or write.
  struct stat st{};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
      (st.st_mode & 077) != 0) {
    close(fd_);
    fd_ = -1;
    return false;
  }
  return true;
}

bool ShareRegistry::Lock() {
  ProcessMutex().lock();
  if (!EnsureOpen() || table_ == nullptr) {
    ProcessMutex().unlock();
    return false;
  }
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      ProcessMutex().unlock();
      return false;
    }
  }
  return true;
}

void ShareRegistry::Unlock() {
  flock(fd_, LOCK_UN);
  ProcessMutex().unlock();
}

int ShareRegistry::Publish(const ShareInfo& info, int fd, uint64_t owner, ShareKey* key) {
  if (!Lock()) return EIO;
  Table::Slot* free_slot = nullptr;
  for (Table::Slot& s : table_->slots) {
    if (s.key[0] != 0) Table::Prune(&s);
    if (s.key[0] == 0 && free_slot == nullptr) free_slot = &s;
  }
  if (free_slot == nullptr) {
    Unlock();
    return ENOSPC;
  }
  uint32_t serial = ++table_->serial;
  if (serial == 0) serial = ++table_->serial;
  *free_slot = Table::Slot{};
  free_slot->key[0] = kMagic;
  free_slot->key[1] = info.gpu_id;
  free_slot->key[2] = serial;
  free_slot->key[3] = static_cast<uint32_t>(SelfPid());
  free_slot->info = info;
  free_slot->holders[0] = Table::Holder{SelfPid(), fd, owner};
  for (int i = 0; i < 4; ++i) (*key)[static_cast<size_t>(i)] = free_slot->key[i];
  Unlock();
  return 0;
}

int ShareRegistry::Lookup(const ShareKey& key, ShareInfo* info) {
  if (!Lock()) return EINVAL;
  Table::Slot* s = table_->Find(key);
  const bool live = s != nullptr && Table::Prune(s) > 0;
  if (live) *info = s->info;
  Unlock();
  return live ? 0 : EINVAL;
}

namespace {

bool RangeInFile(int fd, const ShareInfo& info) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (info.size == 0 || info.size % page != 0 || info.file_offset % page != 0) return false;
  struct stat st{};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) return false;
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  return info.file_offset <= file_size && info.size <= file_size - info.file_offset;
}

}  // namespace

int ShareRegistry::Attach(const ShareKey& key, uint64_t owner, ShareInfo* info, int* fd) {
  if (!Lock()) return EINVAL;
  Table::Slot* s = table_->Find(key);
  if (s == nullptr || Table::Prune(s) == 0) {
    Unlock();
    return EINVAL;
  }
  Table::Holder* free_holder = nullptr;
  int opened = -1;
  for (Table::Holder& h : s->holders) {
    if (h.pid == 0) {
      if (free_holder == nullptr) free_holder = &h;
      continue;
    }
    if (opened >= 0) continue;
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/%d/fd/%d", static_cast<int>(h.pid), static_cast<int>(h.fd));
    opened = RawOpen(path, O_RDWR | O_CLOEXEC, 0);
    // The file is another process's (and the record is in a shared file):
    // accept only a regular file that holds the whole recorded range of a
    // page-multiple size.
    if (opened >= 0 && !RangeInFile(opened, s->info)) {
      close(opened);
      opened = -1;
    }
  }
  int r = 0;
  if (opened < 0) {
    r = EINVAL;
  } else if (free_holder == nullptr) {
    close(opened);
    r = ENOSPC;
  } else {
    *free_holder = Table::Holder{SelfPid(), opened, owner};
    *info = s->info;
    *fd = opened;
  }
  Unlock();
  return r;
}

int ShareRegistry::Release(const ShareKey& key, uint64_t owner) {
  if (!Lock()) return 0;
  Table::Slot* s = table_->Find(key);
  int left = 0;
  if (s != nullptr) {
    for (Table::Holder& h : s->holders) {
      if (h.pid == SelfPid() && h.owner == owner) h = Table::Holder{};
    }
    left = Table::Prune(s);
  }
  Unlock();
  return left;
}

bool ShareRegistry::Held(const ShareKey& key) {
  if (!Lock()) return false;
  Table::Slot* s = table_->Find(key);
  const bool held = s != nullptr && Table::Prune(s) > 0;
  Unlock();
  return held;
}

void ShareRegistry::ReleaseOwner(uint64_t owner) {
  if (!Lock()) return;
  for (Table::Slot& s : table_->slots) {
    if (s.key[0] == 0) continue;
    for (Table::Holder& h : s.holders) {
      if (h.pid == SelfPid() && h.owner == owner) h = Table::Holder{};
    }
    Table::Prune(&s);
  }
  Unlock();
}

}  // namespace kfdsim
