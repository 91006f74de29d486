// Shared helpers for the libFuzzer harnesses in fuzz/: a bounds-checked
// reader over the fuzzer's input and a "poisoned output" check for the
// publish-only-on-success contract. Header-only; harness code only.
#ifndef HKE_FUZZ_FUZZ_INPUT_H_
#define HKE_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hke::fuzz {

// Inputs longer than this are ignored, which keeps every run fast.
constexpr size_t kMaxInput = 4096;

// Reads little pieces off the input; past the end it yields zeros.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  template <typename T>
  T Get() {
    T v{};
    const size_t n = sizeof(T) <= size_ - pos_ ? sizeof(T) : size_ - pos_;
    std::memcpy(&v, data_ + pos_, n);
    pos_ += n;
    return v;
  }
  uint32_t U32() { return Get<uint32_t>(); }
  uint64_t U64() { return Get<uint64_t>(); }
  uint8_t U8() { return Get<uint8_t>(); }
  bool Bool() { return (U8() & 1) != 0; }
  // A value that is often "interesting": small, page-aligned or extreme.
  uint64_t Addr() {
    switch (U8() & 7) {
      case 0: return 0;
      case 1: return uint64_t{U32()} << 12;
      case 2: return UINT64_MAX - (U32() & 0xFFFF);
      case 3: return U64() & ~0xFFFull;
      default: return U64();
    }
  }
  size_t remaining() const { return size_ - pos_; }
  const uint8_t* rest() const { return data_ + pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// An object filled with 0xA5 that can tell whether anyone wrote to it.
template <typename T>
struct Poisoned {
  T v;
  Poisoned() { std::memset(static_cast<void*>(&v), 0xA5, sizeof(T)); }
  bool untouched() const {
    unsigned char ref[sizeof(T)];
    std::memset(ref, 0xA5, sizeof(T));
    return std::memcmp(&v, ref, sizeof(T)) == 0;
  }
};

// Invariant violated: crash so libFuzzer records the input.
#define HKE_FUZZ_ASSERT(cond) \
  do {                        \
    if (!(cond)) __builtin_trap(); \
  } while (0)

}  // namespace hke::fuzz

#endif  // HKE_FUZZ_FUZZ_INPUT_H_
