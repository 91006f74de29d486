// Checked integer arithmetic for every size, count and offset that crosses
// the ioctl boundary. Each helper writes *out only when the result fits and
// returns false otherwise, so a caller can never build a command from a
// wrapped value.
#ifndef HKE_LIB_CORE_CHECKED_H_
#define HKE_LIB_CORE_CHECKED_H_

#include <cstdint>
#include <type_traits>

namespace hke {

namespace checked_detail {
// Publishes *r to *out only when the operation did not overflow. Takes r
// by pointer: it is read after the call's arguments (the builtin that
// writes it among them) are evaluated.
template <typename T>
constexpr bool Publish(bool overflowed, const T* r, T* out) {
  static_assert(std::is_integral<T>::value, "integers only");
  if (overflowed) return false;
  *out = *r;
  return true;
}
}  // namespace checked_detail

template <typename T>
[[nodiscard]] constexpr bool CheckedAdd(T a, T b, T* out) {
  T r{};
  return checked_detail::Publish(__builtin_add_overflow(a, b, &r), &r, out);
}

template <typename T>
[[nodiscard]] constexpr bool CheckedSub(T a, T b, T* out) {
  T r{};
  return checked_detail::Publish(__builtin_sub_overflow(a, b, &r), &r, out);
}

template <typename T>
[[nodiscard]] constexpr bool CheckedMul(T a, T b, T* out) {
  T r{};
  return checked_detail::Publish(__builtin_mul_overflow(a, b, &r), &r, out);
}

// Converts between integer types; false when the value does not fit.
template <typename To, typename From>
[[nodiscard]] constexpr bool CheckedCast(From v, To* out) {
  static_assert(std::is_integral<To>::value && std::is_integral<From>::value, "integers only");
  To r = static_cast<To>(v);
  if (static_cast<From>(r) != v || ((r < To{}) != (v < From{}))) return false;
  *out = r;
  return true;
}

// Rounds `v` up to a multiple of `align` (a power of two).
template <typename T>
[[nodiscard]] constexpr bool CheckedAlignUp(T v, T align, T* out) {
  static_assert(std::is_unsigned<T>::value, "unsigned only");
  if (align == 0 || (align & (align - 1)) != 0) return false;
  T r{};
  if (__builtin_add_overflow(v, align - 1, &r)) return false;
  *out = r & ~(align - 1);
  return true;
}

template <typename T>
constexpr bool IsPowerOfTwo(T v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace hke

#endif  // HKE_LIB_CORE_CHECKED_H_
