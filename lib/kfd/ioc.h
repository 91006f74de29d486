// Portable encoding of Linux ioctl request numbers.
//
// The layout is the asm-generic one: nr in bits 0-7, type in bits 8-15,
// size in bits 16-29 (14 bits) and direction in bits 30-31 (bit 30 = write
// user->kernel, bit 31 = read kernel->user). x86, x86_64, arm, arm64 and
// riscv all use it; alpha, mips, powerpc and sparc do not (3-bit direction,
// 13-bit size) and are not supported by this library.
//
// Everything here is constexpr and free of OS headers, so lib/ can build
// and check request numbers without <sys/ioctl.h>.
#ifndef HKE_LIB_KFD_IOC_H_
#define HKE_LIB_KFD_IOC_H_

#include <cstddef>
#include <cstdint>

namespace hke::kfd {

// Direction bits, from the caller's point of view.
constexpr uint8_t kIocNone = 0;
constexpr uint8_t kIocWrite = 1;  // user -> kernel
constexpr uint8_t kIocRead = 2;   // kernel -> user
constexpr uint8_t kIocReadWrite = kIocRead | kIocWrite;

constexpr uint32_t kIocNrBits = 8;
constexpr uint32_t kIocTypeBits = 8;
constexpr uint32_t kIocSizeBits = 14;
constexpr uint32_t kIocDirBits = 2;
constexpr uint32_t kIocNrShift = 0;
constexpr uint32_t kIocTypeShift = kIocNrShift + kIocNrBits;      // 8
constexpr uint32_t kIocSizeShift = kIocTypeShift + kIocTypeBits;  // 16
constexpr uint32_t kIocDirShift = kIocSizeShift + kIocSizeBits;   // 30
// Largest payload a request number can describe: 16383 bytes.
constexpr uint32_t kIocMaxSize = (1u << kIocSizeBits) - 1u;

// Builds a request number. The size must fit in 14 bits; a constexpr use
// with a larger size fails to compile (division by zero in the guard).
constexpr uint32_t IocEncode(uint8_t dir, uint8_t type, uint8_t nr, size_t size) {
  return (size > kIocMaxSize || dir > 3)
             ? static_cast<uint32_t>(0u / (size > kIocMaxSize ? 0u : 1u))
             : (static_cast<uint32_t>(dir) << kIocDirShift) |
                   (static_cast<uint32_t>(size) << kIocSizeShift) |
                   (static_cast<uint32_t>(type) << kIocTypeShift) |
                   (static_cast<uint32_t>(nr) << kIocNrShift);
}

constexpr uint8_t IocDir(uint32_t request) {
  return static_cast<uint8_t>((request >> kIocDirShift) & ((1u << kIocDirBits) - 1u));
}
constexpr uint8_t IocType(uint32_t request) {
  return static_cast<uint8_t>((request >> kIocTypeShift) & ((1u << kIocTypeBits) - 1u));
}
constexpr uint8_t IocNr(uint32_t request) {
  return static_cast<uint8_t>((request >> kIocNrShift) & ((1u << kIocNrBits) - 1u));
}
constexpr uint32_t IocSize(uint32_t request) {
  return (request >> kIocSizeShift) & kIocMaxSize;
}

// Request with the same dir/type/nr as `request` and a new size field;
// the size must be <= kIocMaxSize (callers check first).
constexpr uint32_t IocWithSize(uint32_t request, uint32_t size) {
  return (request & ~(kIocMaxSize << kIocSizeShift)) | ((size & kIocMaxSize) << kIocSizeShift);
}

// Ioctl "type" bytes.
constexpr uint8_t kKfdIocType = 'K';
constexpr uint8_t kDrmIocType = 'd';

}  // namespace hke::kfd

#endif  // HKE_LIB_KFD_IOC_H_
