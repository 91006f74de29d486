// Context locks; see lock.h.
#include "lib/core/lock.h"

#include <cstddef>
#include <cstring>

namespace hke {
namespace {

bool HasMutexOps(const hke_platform& p) {
  const hke_platform_ops* o = p.ops;
  if (o == nullptr) return false;
  const size_t need = offsetof(hke_platform_ops, mutex_destroy) + sizeof(o->mutex_destroy);
  return o->struct_size >= need && o->mutex_init != nullptr && o->mutex_lock != nullptr &&
         o->mutex_unlock != nullptr && o->mutex_destroy != nullptr;
}

}  // namespace

#ifndef NDEBUG
namespace {
thread_local uint32_t t_held_ranks = 0;
}  // namespace

void NoteLockAcquired(LockRank rank) {
  const uint32_t bit = 1u << static_cast<uint32_t>(rank);
  // A lock of this rank or a higher one is already held: the order in
  // lib/README.md ("Locks") is broken.
  if (t_held_ranks >= bit) __builtin_trap();
  t_held_ranks |= bit;
}

void NoteLockReleased(LockRank rank) { t_held_ranks &= ~(1u << static_cast<uint32_t>(rank)); }
#endif

void Mutex::Init(const hke_platform& p) {
  if (!HasMutexOps(p)) return;
  std::memset(storage_, 0, sizeof(storage_));
  if (p.ops->mutex_init(p.self, storage_) != 0) return;  // spin instead
  self_ = p.self;
  ops_ = p.ops;
}

void Mutex::Destroy() {
  if (ops_ == nullptr) return;
  const hke_platform_ops* ops = ops_;
  ops_ = nullptr;
  ops->mutex_destroy(self_, storage_);
}

}  // namespace hke
