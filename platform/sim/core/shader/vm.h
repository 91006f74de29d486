// kfdsim shader cores: the GPU virtual memory a wave sees. Every access of
// the interpreter (instruction fetch, scalar and vector memory, atomics)
// goes through a Vm, which translates GPU VAs with the regions its
// VmBackend resolves from the process's GPU page table (the BO table the
// ALLOC/MAP ioctls built, SVM ranges, an APU's shared host pages) and
// checks their permission.
//
// A Region is one contiguous mapping: [lo, hi) of GPU VA, with a host
// pointer when the simulator can address the memory directly (VRAM/GTT
// backing mapped by the backend), or without one (user pages: every
// access is a VmBackend::Copy, which checks the host mapping first, so a
// kernel never crashes the simulator on memory its process unmapped).
// An access must lie inside one region (one BO), as the other engines
// require; a page fault reports the first faulting address.
//
// Ownership and threading: a Vm belongs to one dispatch step on the engine
// thread (the simulator's proc_mu_ held); the regions it caches are valid
// only until Reset(), which the step calls before it releases the lock.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_VM_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_VM_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kfdsim::shader {

struct Region {
  uint64_t lo = 0;
  uint64_t hi = 0;          // exclusive
  uint8_t* host = nullptr;  // host address of `lo`, or null (Copy path)
  bool writable = false;
};

class VmBackend {
 public:
  virtual ~VmBackend() = default;
  // The region containing `va`; false when nothing is mapped there.
  virtual bool Resolve(uint64_t va, Region* out) = 0;
  // Copies for a region without a host pointer; false when the host pages
  // are not accessible (a fault).
  virtual bool Copy(const Region& r, uint64_t va, void* buf, size_t n, bool write) = 0;
};

enum class Fault : uint8_t { kNone, kNotPresent, kReadOnly };

class Vm {
 public:
  explicit Vm(VmBackend* backend) : backend_(backend) {}

  void Reset() {
    for (Region& r : cache_) r = Region();
    next_ = 0;
    last_ = 0;
  }

  // The host address of [va, va + n) when it lies in one region with a host
  // pointer; null otherwise, with *fault set when the access faults (left
  // kNone when only the Copy path can serve it).
  uint8_t* Host(uint64_t va, uint32_t n, bool write, Fault* fault) {
    const Region* r = Find(va, n, write, fault);
    if (r == nullptr || r->host == nullptr) return nullptr;
    return r->host + (va - r->lo);
  }

  // The region holding [va, va + n) with the needed access, or null with
  // *fault set (instruction fetch keeps it as its window).
  const Region* Lookup(uint64_t va, uint32_t n, bool write, Fault* fault) {
    return Find(va, n, write, fault);
  }

  // Copies; false with *fault set on a fault.
  bool Read(uint64_t va, void* dst, uint32_t n, Fault* fault) {
    const Region* r = Find(va, n, false, fault);
    if (r == nullptr) return false;
    if (r->host != nullptr) {
      std::memcpy(dst, r->host + (va - r->lo), n);
      return true;
    }
    if (!backend_->Copy(*r, va, dst, n, false)) {
      *fault = Fault::kNotPresent;
      return false;
    }
    return true;
  }
  bool Write(uint64_t va, const void* src, uint32_t n, Fault* fault) {
    const Region* r = Find(va, n, true, fault);
    if (r == nullptr) return false;
    if (r->host != nullptr) {
      std::memcpy(r->host + (va - r->lo), src, n);
      return true;
    }
    if (!backend_->Copy(*r, va, const_cast<void*>(src), n, true)) {
      *fault = Fault::kNotPresent;
      return false;
    }
    return true;
  }

 private:
  static constexpr unsigned kCacheSize = 8;

  const Region* Find(uint64_t va, uint32_t n, bool write, Fault* fault) {
    *fault = Fault::kNone;
    const Region& last = cache_[last_];
    if (va >= last.lo && va < last.hi) return Check(last, va, n, write, fault);
    for (unsigned i = 0; i < kCacheSize; ++i) {
      const Region& r = cache_[i];
      if (va >= r.lo && va < r.hi) {
        last_ = i;
        return Check(r, va, n, write, fault);
      }
    }
    Region got;
    if (!backend_->Resolve(va, &got) || va < got.lo || va >= got.hi) {
      *fault = Fault::kNotPresent;
      return nullptr;
    }
    last_ = next_;
    Region& slot = cache_[next_];
    next_ = (next_ + 1) % kCacheSize;
    slot = got;
    return Check(slot, va, n, write, fault);
  }
  static const Region* Check(const Region& r, uint64_t va, uint32_t n, bool write, Fault* fault) {
    if (n > r.hi - va) {
      *fault = Fault::kNotPresent;  // runs off the mapping
      return nullptr;
    }
    if (write && !r.writable) {
      *fault = Fault::kReadOnly;
      return nullptr;
    }
    return &r;
  }

  VmBackend* backend_;
  Region cache_[kCacheSize];
  unsigned next_ = 0;
  unsigned last_ = 0;
};

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_VM_H_
