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
// An access may span regions, as it may span pages on hardware; a fault
// reports the first address that cannot be accessed.
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
  // pointer; null otherwise, with *fault set when the access faults at `va`
  // (left kNone when Read/Write can serve it: no host pointer, or the
  // access continues into the next region).
  uint8_t* Host(uint64_t va, uint32_t n, bool write, Fault* fault) {
    const Region* r = Lookup(va, write, fault);
    if (r == nullptr || r->host == nullptr || n > r->hi - va) return nullptr;
    return r->host + (va - r->lo);
  }

  // The region holding `va` with the needed access, or null with *fault
  // set (instruction fetch keeps it as its window).
  const Region* Lookup(uint64_t va, bool write, Fault* fault) {
    *fault = Fault::kNone;
    const Region* r = Find(va);
    if (r == nullptr) {
      *fault = Fault::kNotPresent;
      return nullptr;
    }
    if (write && !r->writable) {
      *fault = Fault::kReadOnly;
      return nullptr;
    }
    return r;
  }

  // Copies region by region (an access may continue into the next mapping,
  // as it may cross pages on hardware); false with *fault and *fault_va
  // set at the first byte that cannot be accessed.
  bool Read(uint64_t va, void* dst, uint32_t n, Fault* fault, uint64_t* fault_va) {
    return Access(va, static_cast<uint8_t*>(dst), n, false, fault, fault_va);
  }
  bool Write(uint64_t va, const void* src, uint32_t n, Fault* fault, uint64_t* fault_va) {
    return Access(va, static_cast<uint8_t*>(const_cast<void*>(src)), n, true, fault, fault_va);
  }

 private:
  static constexpr unsigned kCacheSize = 8;

  bool Access(uint64_t va, uint8_t* buf, uint32_t n, bool write, Fault* fault, uint64_t* fault_va) {
    while (n > 0) {
      const Region* r = Lookup(va, write, fault);
      if (r == nullptr) {
        *fault_va = va;
        return false;
      }
      const uint64_t room = r->hi - va;
      const uint32_t chunk = room < n ? static_cast<uint32_t>(room) : n;
      if (r->host != nullptr) {
        if (write) {
          std::memcpy(r->host + (va - r->lo), buf, chunk);
        } else {
          std::memcpy(buf, r->host + (va - r->lo), chunk);
        }
      } else if (!backend_->Copy(*r, va, buf, chunk, write)) {
        *fault = Fault::kNotPresent;
        *fault_va = va;
        return false;
      }
      va += chunk;
      buf += chunk;
      n -= chunk;
      if (n != 0 && va == 0) {  // wrapped around the address space
        *fault = Fault::kNotPresent;
        *fault_va = va;
        return false;
      }
    }
    return true;
  }

  const Region* Find(uint64_t va) {
    const Region& last = cache_[last_];
    if (va >= last.lo && va < last.hi) return &last;
    for (unsigned i = 0; i < kCacheSize; ++i) {
      const Region& r = cache_[i];
      if (va >= r.lo && va < r.hi) {
        last_ = i;
        return &r;
      }
    }
    Region got;
    if (!backend_->Resolve(va, &got) || va < got.lo || va >= got.hi) return nullptr;
    last_ = next_;
    Region& slot = cache_[next_];
    next_ = (next_ + 1) % kCacheSize;
    slot = got;
    return &slot;
  }

  VmBackend* backend_;
  Region cache_[kCacheSize];
  unsigned next_ = 0;
  unsigned last_ = 0;
};

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_VM_H_
