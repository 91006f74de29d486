// Memory instructions: SMEM (scalar loads/stores, buffer loads through a V#,
// clocks), FLAT / GLOBAL / SCRATCH, MUBUF (buffer resource descriptors,
// swizzled scratch) and DS (the workgroup's LDS). Every access goes through
// the wave's Vm (vm.h) or the LDS bounds; a refused access stops the wave
// with a memory violation at the first faulting lane (in lane order).
//
// Address rules (gfx9):
//  - FLAT: 64-bit VGPR address + unsigned 12-bit offset; an address whose
//    upper half is the shared (LDS) or private (scratch) aperture goes to
//    LDS (low half = offset) or to the wave's scratch (low half = private
//    offset); anything else is a GPU VA.
//  - GLOBAL: saddr off: 64-bit VGPR address; else SGPR pair + 32-bit VGPR
//    offset; plus a signed 13-bit offset.
//  - SCRATCH: a 32-bit VGPR or SGPR private offset + signed 13-bit offset.
//  - Private (scratch) memory is swizzled per lane: with FLAT_SCRATCH (or a
//    V# with swizzle) as base, element size E and index stride S, byte `o`
//    of lane `l` lives at base + (o / E) * E * S + l * E + o % E (E = 4,
//    S = 64 for flat scratch); a multi-dword access is split per element.
//  - MUBUF: base + soffset + (idxen ? vindex : 0) * stride [+ tid with
//    ADD_TID] + (offen ? voffset : 0) + imm offset, swizzled when the V#
//    says so. Range check (soffset excluded): raw buffers (stride 0) by
//    byte offset against num_records, structured buffers by index; an
//    out-of-range load reads 0, a store or atomic is dropped.
//  - DS: 32-bit VGPR address + offset (two 8-bit offsets scaled by the
//    element size, x64 for st64, for the *2 forms); outside the LDS
//    allocation reads 0 and writes are dropped. GDS is not modelled.
// Atomics on memory the simulator maps (VRAM/GTT) are host atomics, so a
// CPU thread sees them atomically; on user pages (the Copy path) they are
// read-modify-writes under the engine's lock. Memory ordering and cache
// controls (glc/slc/dlc, s_waitcnt, buffer_wbinvl1) need no action: every
// access is complete when the instruction retires.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "platform/sim/core/shader/exec.h"

namespace kfdsim::shader::detail {

namespace {

// Where one lane's access goes.
struct Target {
  enum Kind : uint8_t { kGlobal, kLds, kSwizzled, kDropped } kind = kGlobal;
  uint64_t va = 0;       // kGlobal: GPU VA; kLds: LDS offset; kSwizzled: private offset
  uint64_t base = 0;     // kSwizzled
  uint32_t lane = 0;     // kSwizzled: index_lsb
  uint32_t elem = 4;     // kSwizzled: element bytes
  uint32_t stride = 64;  // kSwizzled: index stride
};

bool FaultAt(Exec& x, uint64_t va, Fault f, bool write) { return x.MemFault(va, f, write); }

bool GlobalRead(Exec& x, uint64_t va, void* buf, uint32_t n) {
  Fault f = Fault::kNone;
  if (uint8_t* p = x.env.vm().Host(va, n, false, &f)) {
    std::memcpy(buf, p, n);
    return true;
  }
  if (f != Fault::kNone) return FaultAt(x, va, f, false);
  uint64_t at = va;
  if (!x.env.vm().Read(va, buf, n, &f, &at)) return FaultAt(x, at, f, false);
  return true;
}

bool GlobalWrite(Exec& x, uint64_t va, const void* buf, uint32_t n) {
  Fault f = Fault::kNone;
  if (uint8_t* p = x.env.vm().Host(va, n, true, &f)) {
    std::memcpy(p, buf, n);
    return true;
  }
  if (f != Fault::kNone) return FaultAt(x, va, f, true);
  uint64_t at = va;
  if (!x.env.vm().Write(va, buf, n, &f, &at)) return FaultAt(x, at, f, true);
  return true;
}

// Reads/writes n bytes of a lane's target.
bool TAccess(Exec& x, const Target& t, uint8_t* buf, uint32_t n, bool write) {
  switch (t.kind) {
    case Target::kDropped:
      if (!write) std::memset(buf, 0, n);
      return true;
    case Target::kLds: {
      const uint32_t size = x.env.lds_size();
      if (t.va > size || n > size - t.va) {
        if (!write) std::memset(buf, 0, n);
        return true;
      }
      uint8_t* p = x.env.lds() + t.va;
      if (write) {
        std::memcpy(p, buf, n);
      } else {
        std::memcpy(buf, p, n);
      }
      return true;
    }
    case Target::kSwizzled: {
      uint64_t off = t.va;
      uint32_t done = 0;
      while (done < n) {
        const uint64_t element = off / t.elem;
        const uint32_t within = static_cast<uint32_t>(off % t.elem);
        const uint32_t chunk = std::min<uint32_t>(n - done, t.elem - within);
        const uint64_t va =
            t.base + element * t.elem * t.stride + uint64_t{t.lane} * t.elem + within;
        const bool ok = write ? GlobalWrite(x, va, buf + done, chunk) : GlobalRead(x, va, buf + done, chunk);
        if (!ok) return false;
        done += chunk;
        off += chunk;
      }
      return true;
    }
    case Target::kGlobal:
      break;
  }
  return write ? GlobalWrite(x, t.va, buf, n) : GlobalRead(x, t.va, buf, n);
}

// ---- atomics ----

enum AtomicOp : unsigned {
  kSwap, kCmpSwap, kAdd, kSub, kSMin, kUMin, kSMax, kUMax, kAnd, kOr, kXor, kInc, kDec,
  kAddF32, kPkAddF16, kAddF64, kMinF64, kMaxF64,
  // DS only
  kRsub, kMskOr, kMinF32, kMaxF32, kCmpSwapF, kMinF64Ds, kMaxF64Ds,
};

template <typename T>
T Apply(unsigned op, T old, T data, T cmp) {
  using S = typename std::make_signed<T>::type;
  switch (op) {
    case kSwap: return data;
    case kCmpSwap: return old == cmp ? data : old;
    case kAdd: return static_cast<T>(old + data);
    case kSub: return static_cast<T>(old - data);
    case kRsub: return static_cast<T>(data - old);
    case kSMin: return static_cast<S>(data) < static_cast<S>(old) ? data : old;
    case kUMin: return data < old ? data : old;
    case kSMax: return static_cast<S>(data) > static_cast<S>(old) ? data : old;
    case kUMax: return data > old ? data : old;
    case kAnd: return old & data;
    case kOr: return old | data;
    case kXor: return old ^ data;
    case kInc: return old >= data ? 0 : static_cast<T>(old + 1);
    case kDec: return (old == 0 || old > data) ? data : static_cast<T>(old - 1);
    case kMskOr: return static_cast<T>((old & ~cmp) | data);  // cmp carries the mask
    default: break;
  }
  if constexpr (sizeof(T) == 4) {
    const float o = F32(old), d = F32(data);
    switch (op) {
      case kAddF32: return U32(o + d);
      case kMinF32: return U32(std::fmin(o, d));
      case kMaxF32: return U32(std::fmax(o, d));
      case kCmpSwapF: return o == F32(cmp) ? data : old;
      case kPkAddF16: {
        const uint32_t lo = F32ToF16(F16ToF32(static_cast<uint16_t>(old)) + F16ToF32(static_cast<uint16_t>(data)));
        const uint32_t hi = F32ToF16(F16ToF32(static_cast<uint16_t>(old >> 16)) +
                                     F16ToF32(static_cast<uint16_t>(data >> 16)));
        return (lo & 0xFFFFu) | (hi << 16);
      }
      default: break;
    }
  } else {
    const double o = F64(old), d = F64(data);
    switch (op) {
      case kAddF64: return U64(o + d);
      case kMinF64:
      case kMinF64Ds: return U64(std::fmin(o, d));
      case kMaxF64:
      case kMaxF64Ds: return U64(std::fmax(o, d));
      case kCmpSwapF: return o == F64(cmp) ? data : old;
      default: break;
    }
  }
  return old;
}

template <typename T>
T HostAtomic(uint8_t* p, unsigned op, T data, T cmp) {
  if ((reinterpret_cast<uintptr_t>(p) % sizeof(T)) != 0) {
    T old;
    std::memcpy(&old, p, sizeof(T));
    const T nv = Apply<T>(op, old, data, cmp);
    std::memcpy(p, &nv, sizeof(T));
    return old;
  }
  T* q = reinterpret_cast<T*>(p);
  switch (op) {
    case kSwap: return __atomic_exchange_n(q, data, __ATOMIC_SEQ_CST);
    case kAdd: return __atomic_fetch_add(q, data, __ATOMIC_SEQ_CST);
    case kSub: return __atomic_fetch_sub(q, data, __ATOMIC_SEQ_CST);
    case kAnd: return __atomic_fetch_and(q, data, __ATOMIC_SEQ_CST);
    case kOr: return __atomic_fetch_or(q, data, __ATOMIC_SEQ_CST);
    case kXor: return __atomic_fetch_xor(q, data, __ATOMIC_SEQ_CST);
    default: break;
  }
  T old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
  for (;;) {
    const T nv = Apply<T>(op, old, data, cmp);
    if (__atomic_compare_exchange_n(q, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
  }
}

// One lane's atomic; *old receives the value before it.
template <typename T>
bool TAtomic(Exec& x, const Target& t, unsigned op, T data, T cmp, T* old) {
  const uint32_t n = sizeof(T);
  if (t.kind == Target::kGlobal) {
    Fault f = Fault::kNone;
    if (uint8_t* p = x.env.vm().Host(t.va, n, true, &f)) {
      *old = HostAtomic<T>(p, op, data, cmp);
      return true;
    }
    if (f != Fault::kNone) return FaultAt(x, t.va, f, true);
  }
  if (t.kind == Target::kDropped) {
    *old = 0;
    return true;
  }
  uint8_t buf[sizeof(T)];
  if (!TAccess(x, t, buf, n, false)) return false;
  std::memcpy(old, buf, n);
  const T nv = Apply<T>(op, *old, data, cmp);
  std::memcpy(buf, &nv, n);
  return TAccess(x, t, buf, n, true);
}

// ---- the shared load/store/atomic table of FLAT, GLOBAL, SCRATCH and MUBUF ----

struct DataOp {
  enum Kind : uint8_t { kNone, kLoad, kStore, kAtomic } kind = kNone;
  uint8_t bytes = 0;    // memory bytes per lane (loads/stores), 4 or 8 (atomics)
  uint8_t dwords = 0;   // data registers
  bool sign = false;    // sign-extend sub-dword loads
  bool d16 = false;     // load/store a 16-bit half of the register
  bool hi = false;      // ... the high half
  unsigned atomic = 0;  // AtomicOp
};

DataOp DecodeDataOp(unsigned op, const GfxTraits& t) {
  DataOp d;
  auto ld = [&](uint8_t bytes, uint8_t dw, bool sign, bool d16 = false, bool hi = false) {
    d.kind = DataOp::kLoad;
    d.bytes = bytes;
    d.dwords = dw;
    d.sign = sign;
    d.d16 = d16;
    d.hi = hi;
  };
  auto st = [&](uint8_t bytes, uint8_t dw, bool hi = false) {
    d.kind = DataOp::kStore;
    d.bytes = bytes;
    d.dwords = dw;
    d.hi = hi;
  };
  switch (op) {
    case 0x10: ld(1, 1, false); break;
    case 0x11: ld(1, 1, true); break;
    case 0x12: ld(2, 1, false); break;
    case 0x13: ld(2, 1, true); break;
    case 0x14: ld(4, 1, false); break;
    case 0x15: ld(8, 2, false); break;
    case 0x16: ld(12, 3, false); break;
    case 0x17: ld(16, 4, false); break;
    case 0x18: st(1, 1); break;
    case 0x19: st(1, 1, true); break;
    case 0x1a: st(2, 1); break;
    case 0x1b: st(2, 1, true); break;
    case 0x1c: st(4, 1); break;
    case 0x1d: st(8, 2); break;
    case 0x1e: st(12, 3); break;
    case 0x1f: st(16, 4); break;
    case 0x20: ld(1, 1, false, true, false); break;
    case 0x21: ld(1, 1, false, true, true); break;
    case 0x22: ld(1, 1, true, true, false); break;
    case 0x23: ld(1, 1, true, true, true); break;
    case 0x24: ld(2, 1, false, true, false); break;
    case 0x25: ld(2, 1, false, true, true); break;
    default: break;
  }
  if (d.kind != DataOp::kNone) return d;
  if (op >= 0x40 && op <= 0x4c) {
    d.kind = DataOp::kAtomic;
    d.bytes = 4;
    d.dwords = op == 0x41 ? 2 : 1;
    d.atomic = op - 0x40;
  } else if (op >= 0x60 && op <= 0x6c) {
    d.kind = DataOp::kAtomic;
    d.bytes = 8;
    d.dwords = op == 0x61 ? 4 : 2;
    d.atomic = op - 0x60;
  } else if ((op == 0x4d || op == 0x4e) && t.fp_atomics) {
    d.kind = DataOp::kAtomic;
    d.bytes = 4;
    d.dwords = 1;
    d.atomic = op == 0x4d ? kAddF32 : kPkAddF16;
  } else if (op >= 0x4f && op <= 0x51 && t.gfx90a_insts) {
    d.kind = DataOp::kAtomic;
    d.bytes = 8;
    d.dwords = 2;
    d.atomic = op == 0x4f ? kAddF64 : (op == 0x50 ? kMinF64 : kMaxF64);
  }
  return d;
}

// Runs a data op over the active lanes, `target(lane, &t)` giving each
// lane's target (false stops the wave). `data`/`vdst` name VGPR rows of
// the file `file` (VGPRs, or AGPRs with the acc bit).
template <typename TargetFn>
bool RunDataOp(Exec& x, const DataOp& d, uint32_t (*file)[kLanes], unsigned data, unsigned vdst,
               bool glc, TargetFn target) {
  Wave& w = x.w;
  const uint64_t exec = w.exec();
  if (d.kind == DataOp::kLoad || (d.kind == DataOp::kAtomic && glc)) {
    const unsigned n = d.kind == DataOp::kAtomic ? d.bytes / 4u : d.dwords;
    if (vdst + n > kVgprs) return x.Illegal("destination registers beyond 255");
  }
  if (d.kind == DataOp::kStore || d.kind == DataOp::kAtomic) {
    if (data + d.dwords > kVgprs) return x.Illegal("data registers beyond 255");
  }
  for (unsigned l = 0; l < kLanes; ++l) {
    if (((exec >> l) & 1u) == 0) continue;
    Target t;
    if (!target(l, &t)) return false;
    switch (d.kind) {
      case DataOp::kLoad: {
        uint8_t buf[16] = {};
        if (!TAccess(x, t, buf, d.bytes, false)) return false;
        if (d.d16) {
          uint32_t v = d.bytes == 1 ? buf[0] : (buf[0] | uint32_t{buf[1]} << 8);
          if (d.sign && d.bytes == 1) v = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v))) & 0xFFFFu;
          uint32_t& r = file[vdst][l];
          r = d.hi ? ((r & 0xFFFFu) | (v << 16)) : ((r & 0xFFFF0000u) | v);
        } else if (d.bytes < 4) {
          uint32_t v = d.bytes == 1 ? buf[0] : (buf[0] | uint32_t{buf[1]} << 8);
          if (d.sign) {
            v = d.bytes == 1 ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v)))
                             : static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v)));
          }
          file[vdst][l] = v;
        } else {
          for (unsigned i = 0; i < d.dwords; ++i) std::memcpy(&file[vdst + i][l], buf + 4 * i, 4);
        }
        break;
      }
      case DataOp::kStore: {
        uint8_t buf[16];
        for (unsigned i = 0; i < d.dwords; ++i) std::memcpy(buf + 4 * i, &file[data + i][l], 4);
        if (d.hi) {
          const uint32_t v = file[data][l] >> 16;
          std::memcpy(buf, &v, 4);
        }
        if (!TAccess(x, t, buf, d.bytes, true)) return false;
        break;
      }
      case DataOp::kAtomic: {
        if (d.bytes == 4) {
          const uint32_t src = file[data][l];
          const uint32_t cmp = d.dwords == 2 ? file[data + 1][l] : 0u;
          uint32_t old = 0;
          if (!TAtomic<uint32_t>(x, t, d.atomic, src, cmp, &old)) return false;
          if (glc) file[vdst][l] = old;
        } else {
          const uint64_t src = file[data][l] | uint64_t{file[data + 1][l]} << 32;
          const uint64_t cmp = d.dwords == 4 ? (file[data + 2][l] | uint64_t{file[data + 3][l]} << 32) : 0u;
          uint64_t old = 0;
          if (!TAtomic<uint64_t>(x, t, d.atomic, src, cmp, &old)) return false;
          if (glc) {
            file[vdst][l] = static_cast<uint32_t>(old);
            file[vdst + 1][l] = static_cast<uint32_t>(old >> 32);
          }
        }
        break;
      }
      case DataOp::kNone:
        break;
    }
  }
  return true;
}

// Moves a lane-major block of R dwords per lane (memory order) to or from
// R register rows; R is a constant so the loops vectorise.
template <unsigned R>
void Transpose(uint32_t (*file)[kLanes], unsigned reg, uint8_t* p, bool to_memory) {
  uint32_t block[kLanes * R];
  if (to_memory) {
    for (unsigned l = 0; l < kLanes; ++l) {
      for (unsigned i = 0; i < R; ++i) block[l * R + i] = file[reg + i][l];
    }
    std::memcpy(p, block, sizeof(block));
  } else {
    std::memcpy(block, p, sizeof(block));
    for (unsigned l = 0; l < kLanes; ++l) {
      for (unsigned i = 0; i < R; ++i) file[reg + i][l] = block[l * R + i];
    }
  }
}

// The fast path of plain loads and stores: every active lane addresses GPU
// VA `va[l]`, and all of them lie in one region the simulator maps with the
// needed permission; then the lanes copy straight to and from the host
// mapping. False (nothing done) when that does not hold: the per-lane path
// then runs, with its faults in lane order.
bool FastDataOp(Exec& x, const DataOp& d, uint32_t (*file)[kLanes], unsigned data, unsigned vdst,
                const uint64_t* va) {
  if (d.kind != DataOp::kLoad && d.kind != DataOp::kStore) return false;
  if (d.d16 || d.hi || d.bytes < 4) return false;
  const uint64_t exec = x.w.exec();
  if (exec == 0) return false;
  uint64_t lo = ~uint64_t{0}, hi = 0;
  // Every lane on, lane l at va[0] + l * bytes: one contiguous block (the
  // common case of a wave walking an array).
  bool contiguous = exec == ~uint64_t{0};
  if (contiguous) {
    uint64_t mismatch = 0;
    const uint64_t step = d.bytes;
    for (unsigned l = 1; l < kLanes; ++l) mismatch |= (va[l] - va[l - 1]) ^ step;
    contiguous = mismatch == 0 && va[0] <= ~uint64_t{0} - uint64_t{kLanes} * d.bytes;
  }
  if (contiguous) {
    lo = va[0];
    hi = va[kLanes - 1];
  } else if (exec == ~uint64_t{0}) {
    for (unsigned l = 0; l < kLanes; ++l) {
      lo = va[l] < lo ? va[l] : lo;
      hi = va[l] > hi ? va[l] : hi;
    }
  } else {
    for (unsigned l = 0; l < kLanes; ++l) {
      const bool on = ((exec >> l) & 1u) != 0;
      lo = on && va[l] < lo ? va[l] : lo;
      hi = on && va[l] > hi ? va[l] : hi;
    }
  }
  Fault f = Fault::kNone;
  const bool write = d.kind == DataOp::kStore;
  const Region* r = x.env.vm().Lookup(lo, write, &f);
  if (r == nullptr || r->host == nullptr || hi > r->hi || r->hi - hi < d.bytes) return false;
  const unsigned regs = d.dwords;
  if ((write ? data : vdst) + regs > kVgprs) return false;  // the per-lane path reports it
  uint8_t* const host = r->host;
  const uint64_t base = r->lo;
  if (contiguous) {
    // Transpose the block (lane-major in memory) to or from the rows.
    uint8_t* p = host + (lo - base);
    if (regs == 1) {
      if (write) {
        std::memcpy(p, file[data], kLanes * 4);
      } else {
        std::memcpy(file[vdst], p, kLanes * 4);
      }
      return true;
    }
    switch (regs) {
      case 2: Transpose<2>(file, write ? data : vdst, p, write); break;
      case 3: Transpose<3>(file, write ? data : vdst, p, write); break;
      default: Transpose<4>(file, write ? data : vdst, p, write); break;
    }
    return true;
  }
  // Lane offsets into the mapping (all inside it, checked above).

  size_t off[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) off[l] = static_cast<size_t>(va[l] - base);
  if (exec == ~uint64_t{0}) {
    // Every lane: one pass per register, a plain strided gather/scatter.
    for (unsigned i = 0; i < regs; ++i) {
      uint32_t* row = file[(write ? data : vdst) + i];
      if (write) {
        for (unsigned l = 0; l < kLanes; ++l) std::memcpy(host + off[l] + 4 * i, &row[l], 4);
      } else {
        for (unsigned l = 0; l < kLanes; ++l) std::memcpy(&row[l], host + off[l] + 4 * i, 4);
      }
    }
    return true;
  }
  for (unsigned l = 0; l < kLanes; ++l) {
    if (((exec >> l) & 1u) == 0) continue;
    uint8_t* p = host + off[l];
    for (unsigned i = 0; i < regs; ++i) {
      if (write) {
        std::memcpy(p + 4 * i, &file[data + i][l], 4);
      } else {
        std::memcpy(&file[vdst + i][l], p + 4 * i, 4);
      }
    }
  }
  return true;
}

// Plain loads and stores whose active lanes are one run of lanes addressing
// one ascending, gap-free block (lane l at va[first] + (l - first) * bytes),
// for what FastDataOp does not take: memory without a host mapping (user
// pages, reached through VmBackend::Copy: one copy per instruction instead
// of one per lane) and sub-dword accesses (ROCR's misaligned-copy blit).
// False (nothing done, or a store's prefix written again by the per-lane
// path) when that does not hold or the block faults: the per-lane path then
// runs and reports the fault in lane order.
bool BlockDataOp(Exec& x, const DataOp& d, uint32_t (*file)[kLanes], unsigned data, unsigned vdst,
                 const uint64_t* va) {
  if ((d.kind != DataOp::kLoad && d.kind != DataOp::kStore) || d.d16 || d.hi) return false;
  const uint64_t exec = x.w.exec();
  if (exec == 0) return false;
  const unsigned first = static_cast<unsigned>(__builtin_ctzll(exec));
  const unsigned count = static_cast<unsigned>(__builtin_popcountll(exec));
  const uint64_t run = count == kLanes ? ~uint64_t{0} : (uint64_t{1} << count) - 1u;
  if ((exec >> first) != run) return false;
  const uint64_t step = d.bytes;
  uint64_t mismatch = 0;
  for (unsigned l = first + 1; l < first + count; ++l) mismatch |= (va[l] - va[l - 1]) ^ step;
  const uint32_t size = count * d.bytes;
  if (mismatch != 0 || va[first] > ~uint64_t{0} - size) return false;
  const bool write = d.kind == DataOp::kStore;
  const unsigned reg = write ? data : vdst;
  if (reg + d.dwords > kVgprs) return false;  // the per-lane path reports it
  uint8_t block[kLanes * 16];
  Fault f = Fault::kNone;
  uint64_t at = 0;
  if (write) {
    for (unsigned k = 0; k < count; ++k) {
      uint8_t* p = block + k * d.bytes;
      if (d.bytes < 4) {
        const uint32_t v = file[reg][first + k];
        for (unsigned b = 0; b < d.bytes; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
      } else {
        for (unsigned i = 0; i < d.dwords; ++i) std::memcpy(p + 4 * i, &file[reg + i][first + k], 4);
      }
    }
    return x.env.vm().Write(va[first], block, size, &f, &at);
  }
  if (!x.env.vm().Read(va[first], block, size, &f, &at)) return false;
  for (unsigned k = 0; k < count; ++k) {
    const uint8_t* p = block + k * d.bytes;
    const unsigned l = first + k;
    if (d.bytes == 1) {
      file[reg][l] = d.sign ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(p[0]))) : p[0];
    } else if (d.bytes == 2) {
      const uint16_t v = static_cast<uint16_t>(p[0] | p[1] << 8);
      file[reg][l] = d.sign ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v))) : v;
    } else {
      for (unsigned i = 0; i < d.dwords; ++i) std::memcpy(&file[reg + i][l], p + 4 * i, 4);
    }
  }
  return true;
}

int64_t Sext(uint32_t v, unsigned bits) {
  const uint32_t m = 1u << (bits - 1);
  const uint32_t x = v & ((1u << bits) - 1u);
  return static_cast<int64_t>(static_cast<int32_t>((x ^ m) - m));
}

}  // namespace

// ---- SMEM ----

bool ExecSmem(Exec& x) {
  Wave& w = x.w;
  uint32_t w1 = 0;
  if (!x.Word1(&w1)) return false;
  x.size = 8;
  const uint32_t op = (x.w0 >> 18) & 0xFF;
  const unsigned sbase = (x.w0 & 0x3F) * 2;
  const unsigned sdata = (x.w0 >> 6) & 0x7F;
  const bool soe = ((x.w0 >> 14) & 1u) != 0;
  const bool imm = ((x.w0 >> 17) & 1u) != 0;
  switch (op) {
    case 0x20: case 0x21: case 0x22: case 0x23:  // s_dcache_inv/wb(_vol)
    case 0x26: case 0x27:                        // s_atc_probe(_buffer)
      return true;
    case 0x24:  // s_memtime
      return x.SetS64(sdata, x.env.ShaderClock());
    case 0x25:  // s_memrealtime
      return x.SetS64(sdata, x.env.RealTime());
    default:
      break;
  }
  unsigned count = 0;
  bool store = false, buffer = false;
  switch (op) {
    case 0x00: case 0x08: count = 1; break;
    case 0x01: case 0x09: count = 2; break;
    case 0x02: case 0x0a: count = 4; break;
    case 0x03: case 0x0b: count = 8; break;
    case 0x04: case 0x0c: count = 16; break;
    case 0x10: case 0x18: count = 1; store = true; break;
    case 0x11: case 0x19: count = 2; store = true; break;
    case 0x12: case 0x1a: count = 4; store = true; break;
    default:
      return x.Illegal("SMEM opcode " + std::to_string(op) + " is not supported");
  }
  buffer = (op & 0x08) != 0;
  if (sdata + count > 128 || (sdata < kSgprs && sdata + count > kSgprs && sdata + count <= 104)) {
    return x.Illegal("SMEM data registers out of range");
  }
  if (sbase + (buffer ? 4u : 2u) > 128) return x.Illegal("SMEM base out of range");
  // Offset: imm -> signed 21-bit immediate (+ SGPR soffset with SOE);
  // otherwise SGPR offset[6:0] (or soffset with SOE).
  int64_t offset = 0;
  if (imm) {
    offset = Sext(w1 & 0x1FFFFF, 21);
    if (soe) offset += w.sgpr[(w1 >> 25) & 0x7F];
  } else {
    const unsigned reg = soe ? (w1 >> 25) & 0x7F : w1 & 0x7F;
    offset = w.sgpr[reg];
  }
  uint64_t base = w.sgpr[sbase] | uint64_t{w.sgpr[sbase + 1]} << 32;
  uint32_t num_records = ~0u;
  if (buffer) {
    base = w.sgpr[sbase] | uint64_t{w.sgpr[sbase + 1] & 0xFFFF} << 32;
    num_records = w.sgpr[sbase + 2];
  }
  const uint64_t addr = (base + static_cast<uint64_t>(offset)) & ~uint64_t{3};
  uint32_t vals[16] = {};
  if (store) {
    for (unsigned i = 0; i < count; ++i) vals[i] = w.sgpr[sdata + i];
    if (buffer) {
      for (unsigned i = 0; i < count; ++i) {
        const uint64_t rel = static_cast<uint64_t>(offset) + 4 * i;
        if (rel < num_records && !GlobalWrite(x, addr + 4 * i, &vals[i], 4)) return false;
      }
      return true;
    }
    return GlobalWrite(x, addr, vals, 4 * count);
  }
  if (buffer) {
    for (unsigned i = 0; i < count; ++i) {
      const uint64_t rel = (static_cast<uint64_t>(offset) & ~uint64_t{3}) + 4 * i;
      if (rel < num_records && !GlobalRead(x, addr + 4 * i, &vals[i], 4)) return false;
    }
  } else if (!GlobalRead(x, addr, vals, 4 * count)) {
    return false;
  }
  for (unsigned i = 0; i < count; ++i) w.sgpr[sdata + i] = vals[i];
  return true;
}

// ---- FLAT / GLOBAL / SCRATCH ----

bool ExecFlat(Exec& x) {
  Wave& w = x.w;
  uint32_t w1 = 0;
  if (!x.Word1(&w1)) return false;
  x.size = 8;
  const unsigned op = (x.w0 >> 18) & 0x7F;
  const unsigned seg = (x.w0 >> 14) & 3;
  const bool glc = ((x.w0 >> 16) & 1u) != 0;
  const unsigned vaddr = w1 & 0xFF, data = (w1 >> 8) & 0xFF, saddr = (w1 >> 16) & 0x7F;
  const unsigned vdst = w1 >> 24;
  const bool acc = x.t.gfx90a_insts && ((w1 >> 23) & 1u) != 0;
  if (((x.w0 >> 13) & 1u) != 0) return x.Illegal("FLAT/GLOBAL load to LDS is not supported");
  if (seg == 3) return x.Illegal("reserved FLAT segment");
  const DataOp d = DecodeDataOp(op, x.t);
  if (d.kind == DataOp::kNone) return x.Illegal("FLAT opcode " + std::to_string(op) + " is not supported");
  if ((d.atomic == kAddF32 || d.atomic == kPkAddF16) && seg != 2 && !x.t.gfx940_insts) {
    return x.Illegal("f32/pk_f16 atomics are GLOBAL-only on " + std::string(x.t.name));
  }
  uint32_t (*file)[kLanes] = acc ? w.acc : w.v;
  const uint64_t scratch_base = w.flat_scratch();
  const uint32_t shared_hi = x.env.shared_base_hi(), private_hi = x.env.private_base_hi();
  if (seg == 0) {
    const uint64_t offset = x.w0 & 0xFFF;
    if (vaddr + 1 >= kVgprs) return x.Illegal("FLAT address registers beyond v255");
    uint64_t va[kLanes];
    uint32_t aperture = 0;
    const uint32_t* lo32 = w.v[vaddr];
    const uint32_t* hi32 = w.v[vaddr + 1];
    for (unsigned l = 0; l < kLanes; ++l) {
      va[l] = (lo32[l] | uint64_t{hi32[l]} << 32) + offset;
      const uint32_t hi = static_cast<uint32_t>(va[l] >> 32);
      aperture |= (hi == shared_hi ? 1u : 0u) | (hi == private_hi ? 1u : 0u);
    }
    // (An inactive lane in an aperture only costs the fast path.)
    if (aperture == 0 && (FastDataOp(x, d, file, data, vdst, va) || BlockDataOp(x, d, file, data, vdst, va))) {
      return true;
    }
    return RunDataOp(x, d, file, data, vdst, glc, [&](unsigned l, Target* t) {
      const uint64_t a = (w.v[vaddr][l] | uint64_t{w.v[vaddr + 1][l]} << 32) + offset;
      const uint32_t hi = static_cast<uint32_t>(a >> 32);
      if (hi == shared_hi) {
        t->kind = Target::kLds;
        t->va = static_cast<uint32_t>(a);
      } else if (hi == private_hi) {
        t->kind = Target::kSwizzled;
        t->va = static_cast<uint32_t>(a);
        t->base = scratch_base;
        t->lane = l;
      } else {
        t->va = a;
      }
      return true;
    });
  }
  const int64_t offset = Sext(x.w0 & 0x1FFF, 13);
  if (seg == 2) {  // GLOBAL
    uint64_t va[kLanes];
    if (saddr == 0x7F) {
      if (vaddr + 1 >= kVgprs) return x.Illegal("GLOBAL address registers beyond v255");
      for (unsigned l = 0; l < kLanes; ++l) {
        va[l] = (w.v[vaddr][l] | uint64_t{w.v[vaddr + 1][l]} << 32) + static_cast<uint64_t>(offset);
      }
    } else {
      uint64_t sbase = 0;
      if (!x.S64(saddr, &sbase)) return false;
      for (unsigned l = 0; l < kLanes; ++l) va[l] = sbase + w.v[vaddr][l] + static_cast<uint64_t>(offset);
    }
    if (FastDataOp(x, d, file, data, vdst, va) || BlockDataOp(x, d, file, data, vdst, va)) return true;
    return RunDataOp(x, d, file, data, vdst, glc, [&](unsigned l, Target* t) {
      t->va = va[l];
      return true;
    });
  }
  // SCRATCH: a private offset from a VGPR (saddr off) or an SGPR.
  if (d.kind == DataOp::kAtomic) return x.Illegal("scratch atomics do not exist");
  uint32_t soff = 0;
  if (saddr != 0x7F && !x.S32(saddr, &soff)) return false;
  return RunDataOp(x, d, file, data, vdst, glc, [&](unsigned l, Target* t) {
    const uint32_t po = saddr == 0x7F ? w.v[vaddr][l] : soff;
    t->kind = Target::kSwizzled;
    t->va = static_cast<uint32_t>(po + static_cast<uint32_t>(offset));
    t->base = scratch_base;
    t->lane = l;
    return true;
  });
}

// ---- MUBUF ----

bool ExecMubuf(Exec& x) {
  Wave& w = x.w;
  uint32_t w1 = 0;
  if (!x.Word1(&w1)) return false;
  x.size = 8;
  const unsigned op = (x.w0 >> 18) & 0x7F;
  const uint32_t inst_offset = x.w0 & 0xFFF;
  const bool offen = ((x.w0 >> 12) & 1u) != 0, idxen = ((x.w0 >> 13) & 1u) != 0;
  const bool glc = ((x.w0 >> 14) & 1u) != 0;
  const unsigned vaddr = w1 & 0xFF, vdata = (w1 >> 8) & 0xFF;
  const unsigned srsrc = ((w1 >> 16) & 0x1F) * 4;
  const unsigned soffset_enc = w1 >> 24;
  const bool bit55 = ((w1 >> 23) & 1u) != 0;
  if (op == 0x3e || op == 0x3f || ((op == 0x28 || op == 0x29) && x.t.gfx90a_insts)) return true;
  if (((x.w0 >> 16) & 1u) != 0) return x.Illegal("buffer load to LDS is not supported");
  if (bit55 && !x.t.gfx90a_insts) return x.Illegal("MUBUF tfe is not supported");
  const bool acc = bit55 && x.t.gfx90a_insts;
  if (op < 0x10) return x.Illegal("MUBUF format loads/stores are not supported");
  const DataOp d = DecodeDataOp(op, x.t);
  if (d.kind == DataOp::kNone) return x.Illegal("MUBUF opcode " + std::to_string(op) + " is not supported");
  if (srsrc + 4 > 128) return x.Illegal("MUBUF resource out of range");
  uint32_t soffset = 0;
  if (!x.S32(soffset_enc, &soffset)) return false;
  const uint32_t* v = &w.sgpr[srsrc];
  const uint64_t base = v[0] | uint64_t{v[1] & 0xFFFF} << 32;
  const uint32_t stride = (v[1] >> 16) & 0x3FFF;
  const bool swizzle = (v[1] >> 31) != 0;
  const uint32_t num_records = v[2];
  const bool add_tid = ((v[3] >> 23) & 1u) != 0;
  const uint32_t index_stride = 8u << ((v[3] >> 21) & 3u);
  const uint32_t elem = 2u << ((v[3] >> 19) & 3u);
  if ((idxen || offen) && vaddr + (idxen && offen ? 2u : 1u) > kVgprs) {
    return x.Illegal("MUBUF address registers beyond v255");
  }
  uint32_t (*file)[kLanes] = acc ? w.acc : w.v;
  return RunDataOp(x, d, file, vdata, vdata, glc, [&](unsigned l, Target* t) {
    const uint32_t vindex = idxen ? w.v[vaddr][l] : 0u;
    const uint32_t voffset = offen ? w.v[vaddr + (idxen ? 1u : 0u)][l] : 0u;
    const uint64_t index = uint64_t{vindex} + (add_tid ? l : 0u);
    const uint64_t offset = uint64_t{voffset} + inst_offset;
    const bool out = stride == 0 ? offset + d.bytes > num_records : index >= num_records;
    if (out) {
      t->kind = Target::kDropped;
      return true;
    }
    if (swizzle) {
      t->kind = Target::kSwizzled;
      t->base = base + soffset + (index / index_stride) * stride * index_stride;
      t->lane = static_cast<uint32_t>(index % index_stride);
      t->elem = elem;
      t->stride = index_stride;
      t->va = offset;
    } else {
      t->va = base + soffset + index * stride + offset;
    }
    return true;
  });
}

// ---- DS ----

namespace {

uint32_t DsSwizzleLane(uint32_t pattern, unsigned l) {
  if ((pattern & 0x8000u) != 0) {  // quad permute
    const unsigned sel = (pattern >> (2 * (l & 3))) & 3u;
    return (l & ~3u) | sel;
  }
  const uint32_t and_mask = pattern & 0x1F, or_mask = (pattern >> 5) & 0x1F, xor_mask = (pattern >> 10) & 0x1F;
  return (l & 0x20u) | ((((l & 0x1Fu) & and_mask) | or_mask) ^ xor_mask);
}

}  // namespace

bool ExecDs(Exec& x) {
  Wave& w = x.w;
  uint32_t w1 = 0;
  if (!x.Word1(&w1)) return false;
  x.size = 8;
  const unsigned op = (x.w0 >> 17) & 0xFF;
  const uint32_t off0 = x.w0 & 0xFF, off1 = (x.w0 >> 8) & 0xFF;
  const uint32_t offset = off0 | (off1 << 8);
  const unsigned addr = w1 & 0xFF, data0 = (w1 >> 8) & 0xFF, data1 = (w1 >> 16) & 0xFF, vdst = w1 >> 24;
  const bool acc = x.t.gfx90a_insts && ((x.w0 >> 25) & 1u) != 0;
  if (((x.w0 >> 16) & 1u) != 0) return x.Illegal("GDS is not modelled");
  uint32_t (*file)[kLanes] = acc ? w.acc : w.v;
  const uint64_t exec = w.exec();
  auto lds_target = [&](unsigned l, uint32_t extra) {
    Target t;
    t.kind = Target::kLds;
    t.va = uint64_t{w.v[addr][l]} + extra;
    return t;
  };
  auto regs_ok = [&](unsigned r, unsigned n) { return r + n <= kVgprs; };
  if (!regs_ok(addr, 1)) return x.Illegal("DS address register");

  // Cross-lane ops that do not touch LDS.
  if (op == 0x3d || op == 0x3e || op == 0x3f) {
    if (!regs_ok(vdst, 1) || !regs_ok(data0, 1)) return x.Illegal("DS registers beyond v255");
    uint32_t src[kLanes], r[kLanes];
    std::memcpy(src, file[data0], sizeof(src));
    for (unsigned l = 0; l < kLanes; ++l) {
      if (((exec >> l) & 1u) == 0) src[l] = 0;  // inactive lanes read as 0
    }
    if (op == 0x3d) {
      for (unsigned l = 0; l < kLanes; ++l) r[l] = src[DsSwizzleLane(offset, l)];
    } else if (op == 0x3f) {  // bpermute: read lane (addr + offset) / 4
      for (unsigned l = 0; l < kLanes; ++l) r[l] = src[((w.v[addr][l] + offset) >> 2) & 63];
    } else {  // permute: write to lane (addr + offset) / 4
      std::memset(r, 0, sizeof(r));
      for (unsigned l = 0; l < kLanes; ++l) {
        if ((exec >> l) & 1u) r[((w.v[addr][l] + offset) >> 2) & 63] = src[l];
      }
    }
    Commit32(file[vdst], r, exec);
    return true;
  }

  struct Rw {
    bool read;
    uint8_t bytes;
    bool sign, d16, hi;
  };
  auto single = [&](const Rw& m) {
    const unsigned regs = m.bytes > 4 ? m.bytes / 4u : 1u;
    if (!regs_ok(m.read ? vdst : data0, regs)) return x.Illegal("DS registers beyond v255");
    for (unsigned l = 0; l < kLanes; ++l) {
      if (((exec >> l) & 1u) == 0) continue;
      const Target t = lds_target(l, offset);
      uint8_t buf[16] = {};
      if (m.read) {
        TAccess(x, t, buf, m.bytes, false);
        uint32_t v0 = 0;
        std::memcpy(&v0, buf, 4);
        if (m.bytes == 1) v0 = m.sign ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(buf[0]))) : buf[0];
        if (m.bytes == 2) {
          const uint32_t h = buf[0] | uint32_t{buf[1]} << 8;
          v0 = m.sign ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(h))) : h;
        }
        if (m.d16) {
          uint32_t& r = file[vdst][l];
          v0 &= 0xFFFFu;
          r = m.hi ? ((r & 0xFFFFu) | (v0 << 16)) : ((r & 0xFFFF0000u) | v0);
        } else if (m.bytes <= 4) {
          file[vdst][l] = v0;
        } else {
          for (unsigned i = 0; i < regs; ++i) std::memcpy(&file[vdst + i][l], buf + 4 * i, 4);
        }
      } else {
        for (unsigned i = 0; i < regs; ++i) std::memcpy(buf + 4 * i, &file[data0 + i][l], 4);
        if (m.hi) {
          const uint32_t h = file[data0][l] >> 16;
          std::memcpy(buf, &h, 4);
        }
        TAccess(x, t, buf, m.bytes, true);
      }
    }
    return true;
  };
  // read2/write2: two elements at offset0 and offset1 (scaled).
  auto pair = [&](bool read, unsigned bytes, unsigned scale) {
    const unsigned regs = bytes / 4;
    if (read ? !regs_ok(vdst, 2 * regs) : (!regs_ok(data0, regs) || !regs_ok(data1, regs))) {
      return x.Illegal("DS registers beyond v255");
    }
    for (unsigned l = 0; l < kLanes; ++l) {
      if (((exec >> l) & 1u) == 0) continue;
      for (unsigned k = 0; k < 2; ++k) {
        const Target t = lds_target(l, (k == 0 ? off0 : off1) * bytes * scale);
        uint8_t buf[8] = {};
        if (read) {
          TAccess(x, t, buf, bytes, false);
          for (unsigned i = 0; i < regs; ++i) std::memcpy(&file[vdst + k * regs + i][l], buf + 4 * i, 4);
        } else {
          const unsigned src = k == 0 ? data0 : data1;
          for (unsigned i = 0; i < regs; ++i) std::memcpy(buf + 4 * i, &file[src + i][l], 4);
          TAccess(x, t, buf, bytes, true);
        }
      }
    }
    return true;
  };
  // wrxchg2: exchange at two addresses, returning both old values.
  auto xchg2 = [&](unsigned bytes, unsigned scale) {
    const unsigned regs = bytes / 4;
    if (!regs_ok(vdst, 2 * regs) || !regs_ok(data0, regs) || !regs_ok(data1, regs)) {
      return x.Illegal("DS registers beyond v255");
    }
    for (unsigned l = 0; l < kLanes; ++l) {
      if (((exec >> l) & 1u) == 0) continue;
      for (unsigned k = 0; k < 2; ++k) {
        const Target t = lds_target(l, (k == 0 ? off0 : off1) * bytes * scale);
        uint8_t old[8] = {}, nw[8] = {};
        TAccess(x, t, old, bytes, false);
        const unsigned src = k == 0 ? data0 : data1;
        for (unsigned i = 0; i < regs; ++i) std::memcpy(nw + 4 * i, &file[src + i][l], 4);
        TAccess(x, t, nw, bytes, true);
        for (unsigned i = 0; i < regs; ++i) std::memcpy(&file[vdst + k * regs + i][l], old + 4 * i, 4);
      }
    }
    return true;
  };
  // Atomics: `two` = data1 is an operand (cmpst: data0 = cmp, data1 = src; mskor: data0 = mask).
  auto atomic = [&](bool wide, unsigned aop, bool rtn, bool two) {
    const unsigned regs = wide ? 2 : 1;
    if (!regs_ok(data0, regs) || (two && !regs_ok(data1, regs)) || (rtn && !regs_ok(vdst, regs))) {
      return x.Illegal("DS registers beyond v255");
    }
    for (unsigned l = 0; l < kLanes; ++l) {
      if (((exec >> l) & 1u) == 0) continue;
      const Target t = lds_target(l, offset);
      uint64_t a = file[data0][l], b = two ? file[data1][l] : 0u;
      if (wide) {
        a |= uint64_t{file[data0 + 1][l]} << 32;
        if (two) b |= uint64_t{file[data1 + 1][l]} << 32;
      }
      uint64_t data = a, cmp = 0;
      if (aop == kCmpSwap || aop == kCmpSwapF) {
        data = b;
        cmp = a;
      } else if (aop == kMskOr) {
        data = b;
        cmp = a;
      }
      uint64_t old = 0;
      if (wide) {
        TAtomic<uint64_t>(x, t, aop, data, cmp, &old);
      } else {
        uint32_t o32 = 0;
        TAtomic<uint32_t>(x, t, aop, static_cast<uint32_t>(data), static_cast<uint32_t>(cmp), &o32);
        old = o32;
      }
      if (rtn) {
        file[vdst][l] = static_cast<uint32_t>(old);
        if (wide) file[vdst + 1][l] = static_cast<uint32_t>(old >> 32);
      }
    }
    return true;
  };
  // The 13 integer atomics share an order: add sub rsub inc dec min_i max_i min_u max_u and or xor mskor.
  static constexpr unsigned kIntAtomics[13] = {kAdd, kSub, kRsub, kInc, kDec, kSMin, kSMax,
                                               kUMin, kUMax, kAnd, kOr, kXor, kMskOr};
  const bool gfx90a = x.t.gfx90a_insts;
  if (op <= 0x0c) return atomic(false, kIntAtomics[op], false, op == 0x0c);
  if (op >= 0x20 && op <= 0x2c) return atomic(false, kIntAtomics[op - 0x20], true, op == 0x2c);
  if (op >= 0x40 && op <= 0x4c) return atomic(true, kIntAtomics[op - 0x40], false, op == 0x4c);
  if (op >= 0x60 && op <= 0x6c) return atomic(true, kIntAtomics[op - 0x60], true, op == 0x6c);
  switch (op) {
    case 0x0d: return single({false, 4, false, false, false});
    case 0x0e: return pair(false, 4, 1);
    case 0x0f: return pair(false, 4, 64);
    case 0x10: return atomic(false, kCmpSwap, false, true);
    case 0x11: return atomic(false, kCmpSwapF, false, true);
    case 0x12: return atomic(false, kMinF32, false, false);
    case 0x13: return atomic(false, kMaxF32, false, false);
    case 0x14: return true;  // ds_nop
    case 0x15: return atomic(false, kAddF32, false, false);
    case 0x1e: return single({false, 1, false, false, false});
    case 0x1f: return single({false, 2, false, false, false});
    case 0x2d: return atomic(false, kSwap, true, false);
    case 0x2e: return xchg2(4, 1);
    case 0x2f: return xchg2(4, 64);
    case 0x30: return atomic(false, kCmpSwap, true, true);
    case 0x31: return atomic(false, kCmpSwapF, true, true);
    case 0x32: return atomic(false, kMinF32, true, false);
    case 0x33: return atomic(false, kMaxF32, true, false);
    case 0x35: return atomic(false, kAddF32, true, false);
    case 0x36: return single({true, 4, false, false, false});
    case 0x37: return pair(true, 4, 1);
    case 0x38: return pair(true, 4, 64);
    case 0x39: return single({true, 1, true, false, false});
    case 0x3a: return single({true, 1, false, false, false});
    case 0x3b: return single({true, 2, true, false, false});
    case 0x3c: return single({true, 2, false, false, false});
    case 0x4d: return single({false, 8, false, false, false});
    case 0x4e: return pair(false, 8, 1);
    case 0x4f: return pair(false, 8, 64);
    case 0x50: return atomic(true, kCmpSwap, false, true);
    case 0x51: return atomic(true, kCmpSwapF, false, true);
    case 0x52: return atomic(true, kMinF64Ds, false, false);
    case 0x53: return atomic(true, kMaxF64Ds, false, false);
    case 0x54: return single({false, 1, false, false, true});
    case 0x55: return single({false, 2, false, false, true});
    case 0x56: return single({true, 1, false, true, false});
    case 0x57: return single({true, 1, false, true, true});
    case 0x58: return single({true, 1, true, true, false});
    case 0x59: return single({true, 1, true, true, true});
    case 0x5a: return single({true, 2, false, true, false});
    case 0x5b: return single({true, 2, false, true, true});
    case 0x5c:
      if (!gfx90a) break;
      return atomic(true, kAddF64, false, false);
    case 0x6d: return atomic(true, kSwap, true, false);
    case 0x6e: return xchg2(8, 1);
    case 0x6f: return xchg2(8, 64);
    case 0x70: return atomic(true, kCmpSwap, true, true);
    case 0x71: return atomic(true, kCmpSwapF, true, true);
    case 0x72: return atomic(true, kMinF64Ds, true, false);
    case 0x73: return atomic(true, kMaxF64Ds, true, false);
    case 0x76: return single({true, 8, false, false, false});
    case 0x77: return pair(true, 8, 1);
    case 0x78: return pair(true, 8, 64);
    case 0x7c:
      if (!gfx90a) break;
      return atomic(true, kAddF64, true, false);
    case 0xde: return single({false, 12, false, false, false});
    case 0xdf: return single({false, 16, false, false, false});
    case 0xfe: return single({true, 12, false, false, false});
    case 0xff: return single({true, 16, false, false, false});
    default:
      break;
  }
  return x.Illegal("DS opcode " + std::to_string(op) + " is not supported");
}

}  // namespace kfdsim::shader::detail
