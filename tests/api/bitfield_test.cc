// Bit-field placement of the public flag words. offsetof cannot name a
// bit-field, so each field is set to all ones in an otherwise zero value and
// the resulting word is compared with upstream's position and width (taken
// from the compiler's layout of upstream's own headers). Callers build these
// words by value (HsaMemFlags, HsaMemMapFlags, HSA_REGISTER_MEM_FLAGS) or
// decode them from the kernel (capabilities, fault bits), so one moved bit
// is an ABI break.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>

#include "hsakmt/hsakmt.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the expected words below assume a little-endian target");

namespace {

template <typename T>
uint64_t Word(const T& value) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "a flag word is at most 64 bits");
  uint64_t word = 0;
  std::memcpy(&word, &value, sizeof(T));
  return word;
}

constexpr uint64_t Mask(unsigned pos, unsigned width) {
  return (width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1)) << pos;
}

}  // namespace

// Sets T's `field` to all ones (by wrapping it below zero) and expects
// exactly bits [pos, pos + width) of the word to be set.
#define HKE_BITS(T, field, pos, width)                              \
  do {                                                              \
    T value;                                                        \
    std::memset(&value, 0, sizeof(value));                          \
    --value.field;                                                  \
    CHECK_MESSAGE(Word(value) == Mask(pos, width),                  \
                  #T "." #field " is not bits " #pos " + " #width); \
  } while (0)

TEST_CASE("every bit-field of the public flag words sits where upstream puts it") {
  // HSA_ENGINE_ID
  HKE_BITS(HSA_ENGINE_ID, ui32.uCode, 0, 10);
  HKE_BITS(HSA_ENGINE_ID, ui32.Major, 10, 6);
  HKE_BITS(HSA_ENGINE_ID, ui32.Minor, 16, 8);
  HKE_BITS(HSA_ENGINE_ID, ui32.Stepping, 24, 8);
  // HSA_ENGINE_VERSION
  HKE_BITS(HSA_ENGINE_VERSION, uCodeSDMA, 0, 10);
  HKE_BITS(HSA_ENGINE_VERSION, uCodeRes, 10, 10);
  HKE_BITS(HSA_ENGINE_VERSION, Reserved, 20, 12);
  // HSA_CAPABILITY
  HKE_BITS(HSA_CAPABILITY, ui32.HotPluggable, 0, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.HSAMMUPresent, 1, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.SharedWithGraphics, 2, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.QueueSizePowerOfTwo, 3, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.QueueSize32bit, 4, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.QueueIdleEvent, 5, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.VALimit, 6, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.WatchPointsSupported, 7, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.WatchPointsTotalBits, 8, 4);
  HKE_BITS(HSA_CAPABILITY, ui32.DoorbellType, 12, 2);
  HKE_BITS(HSA_CAPABILITY, ui32.AQLQueueDoubleMap, 14, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.DebugTrapSupported, 15, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.WaveLaunchTrapOverrideSupported, 16, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.WaveLaunchModeSupported, 17, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.PreciseMemoryOperationsSupported, 18, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.DEPRECATED_SRAM_EDCSupport, 19, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.Mem_EDCSupport, 20, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.RASEventNotify, 21, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.ASICRevision, 22, 4);
  HKE_BITS(HSA_CAPABILITY, ui32.SRAM_EDCSupport, 26, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.SVMAPISupported, 27, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.CoherentHostAccess, 28, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.DebugSupportedFirmware, 29, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.PreciseALUOperationsSupported, 30, 1);
  HKE_BITS(HSA_CAPABILITY, ui32.PerQueueResetSupported, 31, 1);
  // HSA_CAPABILITY2
  HKE_BITS(HSA_CAPABILITY2, ui32.PerSDMAQueueResetSupported, 0, 1);
  HKE_BITS(HSA_CAPABILITY2, ui32.Reserved, 1, 31);
  // HSA_DEBUG_PROPERTIES
  HKE_BITS(HSA_DEBUG_PROPERTIES, WatchAddrMaskLoBit, 0, 4);
  HKE_BITS(HSA_DEBUG_PROPERTIES, WatchAddrMaskHiBit, 4, 6);
  HKE_BITS(HSA_DEBUG_PROPERTIES, DispatchInfoAlwaysValid, 10, 1);
  HKE_BITS(HSA_DEBUG_PROPERTIES, AddressWatchpointShareKind, 11, 1);
  HKE_BITS(HSA_DEBUG_PROPERTIES, Reserved, 12, 52);
  // HSA_MEMORYPROPERTY
  HKE_BITS(HSA_MEMORYPROPERTY, ui32.HotPluggable, 0, 1);
  HKE_BITS(HSA_MEMORYPROPERTY, ui32.NonVolatile, 1, 1);
  HKE_BITS(HSA_MEMORYPROPERTY, ui32.Reserved, 2, 30);
  // HsaCacheType
  HKE_BITS(HsaCacheType, ui32.Data, 0, 1);
  HKE_BITS(HsaCacheType, ui32.Instruction, 1, 1);
  HKE_BITS(HsaCacheType, ui32.CPU, 2, 1);
  HKE_BITS(HsaCacheType, ui32.HSACU, 3, 1);
  HKE_BITS(HsaCacheType, ui32.Reserved, 4, 28);
  // HSA_LINKPROPERTY
  HKE_BITS(HSA_LINKPROPERTY, ui32.Override, 0, 1);
  HKE_BITS(HSA_LINKPROPERTY, ui32.NonCoherent, 1, 1);
  HKE_BITS(HSA_LINKPROPERTY, ui32.NoAtomics32bit, 2, 1);
  HKE_BITS(HSA_LINKPROPERTY, ui32.NoAtomics64bit, 3, 1);
  HKE_BITS(HSA_LINKPROPERTY, ui32.NoPeerToPeerDMA, 4, 1);
  HKE_BITS(HSA_LINKPROPERTY, ui32.Reserved, 5, 27);
  // HsaMemFlags
  HKE_BITS(HsaMemFlags, ui32.NonPaged, 0, 1);
  HKE_BITS(HsaMemFlags, ui32.CachePolicy, 1, 2);
  HKE_BITS(HsaMemFlags, ui32.ReadOnly, 3, 1);
  HKE_BITS(HsaMemFlags, ui32.PageSize, 4, 2);
  HKE_BITS(HsaMemFlags, ui32.HostAccess, 6, 1);
  HKE_BITS(HsaMemFlags, ui32.NoSubstitute, 7, 1);
  HKE_BITS(HsaMemFlags, ui32.GDSMemory, 8, 1);
  HKE_BITS(HsaMemFlags, ui32.Scratch, 9, 1);
  HKE_BITS(HsaMemFlags, ui32.AtomicAccessFull, 10, 1);
  HKE_BITS(HsaMemFlags, ui32.AtomicAccessPartial, 11, 1);
  HKE_BITS(HsaMemFlags, ui32.ExecuteAccess, 12, 1);
  HKE_BITS(HsaMemFlags, ui32.CoarseGrain, 13, 1);
  HKE_BITS(HsaMemFlags, ui32.AQLQueueMemory, 14, 1);
  HKE_BITS(HsaMemFlags, ui32.FixedAddress, 15, 1);
  HKE_BITS(HsaMemFlags, ui32.NoNUMABind, 16, 1);
  HKE_BITS(HsaMemFlags, ui32.Uncached, 17, 1);
  HKE_BITS(HsaMemFlags, ui32.NoAddress, 18, 1);
  HKE_BITS(HsaMemFlags, ui32.OnlyAddress, 19, 1);
  HKE_BITS(HsaMemFlags, ui32.ExtendedCoherent, 20, 1);
  HKE_BITS(HsaMemFlags, ui32.GTTAccess, 21, 1);
  HKE_BITS(HsaMemFlags, ui32.Contiguous, 22, 1);
  HKE_BITS(HsaMemFlags, ui32.ExecuteBlit, 23, 1);
  HKE_BITS(HsaMemFlags, ui32.Reserved, 24, 8);
  // HsaMemMapFlags
  HKE_BITS(HsaMemMapFlags, ui32.Reserved1, 0, 1);
  HKE_BITS(HsaMemMapFlags, ui32.CachePolicy, 1, 2);
  HKE_BITS(HsaMemMapFlags, ui32.ReadOnly, 3, 1);
  HKE_BITS(HsaMemMapFlags, ui32.PageSize, 4, 2);
  HKE_BITS(HsaMemMapFlags, ui32.HostAccess, 6, 1);
  HKE_BITS(HsaMemMapFlags, ui32.Migrate, 7, 1);
  HKE_BITS(HsaMemMapFlags, ui32.Probe, 8, 1);
  HKE_BITS(HsaMemMapFlags, ui32.Reserved, 9, 23);
  // HsaAccessAttributeFailure
  HKE_BITS(HsaAccessAttributeFailure, NotPresent, 0, 1);
  HKE_BITS(HsaAccessAttributeFailure, ReadOnly, 1, 1);
  HKE_BITS(HsaAccessAttributeFailure, NoExecute, 2, 1);
  HKE_BITS(HsaAccessAttributeFailure, GpuAccess, 3, 1);
  HKE_BITS(HsaAccessAttributeFailure, ECC, 4, 1);
  HKE_BITS(HsaAccessAttributeFailure, Imprecise, 5, 1);
  HKE_BITS(HsaAccessAttributeFailure, ErrorType, 6, 3);
  HKE_BITS(HsaAccessAttributeFailure, Reserved, 9, 23);
  // HsaCounterFlags
  HKE_BITS(HsaCounterFlags, ui32.Global, 0, 1);
  HKE_BITS(HsaCounterFlags, ui32.Resettable, 1, 1);
  HKE_BITS(HsaCounterFlags, ui32.ReadOnly, 2, 1);
  HKE_BITS(HsaCounterFlags, ui32.Stream, 3, 1);
  HKE_BITS(HsaCounterFlags, ui32.Reserved, 4, 28);
  // HSA_REGISTER_MEM_FLAGS
  HKE_BITS(HSA_REGISTER_MEM_FLAGS, ui32.requiresVAddr, 0, 1);
}
