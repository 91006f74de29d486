// Fixed-capacity text building without the heap or <cstdio>. Used for
// diagnostics and for composing sysfs paths. Appends past the capacity are
// dropped and remembered (truncated()), so a caller can refuse a path that
// did not fit instead of using a shortened one.
#ifndef HKE_LIB_CORE_TEXT_H_
#define HKE_LIB_CORE_TEXT_H_

#include <cstddef>
#include <cstdint>

namespace hke {

// Logic over caller storage (pointer, capacity); always NUL-terminated.
class TextBuilder {
 public:
  TextBuilder(char* storage, size_t capacity);

  TextBuilder& Append(const char* s);
  TextBuilder& Append(const char* s, size_t n);
  TextBuilder& AppendChar(char c);
  TextBuilder& AppendU64(uint64_t v);
  TextBuilder& AppendI64(int64_t v);
  TextBuilder& AppendHex(uint64_t v);  // 0x-prefixed, lower case

  const char* c_str() const { return data_; }
  size_t size() const { return size_; }
  bool truncated() const { return truncated_; }
  void Clear();

 private:
  char* data_;
  size_t capacity_;  // bytes including the terminating NUL
  size_t size_ = 0;
  bool truncated_ = false;
};

// Storage-owning variant.
template <size_t N>
class FixedText : public TextBuilder {
 public:
  static_assert(N >= 1, "room for the terminator");
  FixedText() : TextBuilder(buf_, N) {}
  FixedText(const FixedText&) = delete;
  FixedText& operator=(const FixedText&) = delete;

 private:
  char buf_[N];
};

}  // namespace hke

#endif  // HKE_LIB_CORE_TEXT_H_
