#include "lib/core/text.h"

namespace hke {

TextBuilder::TextBuilder(char* storage, size_t capacity) : data_(storage), capacity_(capacity) {
  if (capacity_ != 0) data_[0] = '\0';
}

void TextBuilder::Clear() {
  size_ = 0;
  truncated_ = false;
  if (capacity_ != 0) data_[0] = '\0';
}

TextBuilder& TextBuilder::Append(const char* s, size_t n) {
  if (s == nullptr) return *this;
  for (size_t i = 0; i < n; ++i) {
    if (size_ + 1 >= capacity_) {
      truncated_ = true;
      break;
    }
    data_[size_++] = s[i];
  }
  if (capacity_ != 0) data_[size_] = '\0';
  return *this;
}

TextBuilder& TextBuilder::Append(const char* s) {
  if (s == nullptr) return Append("(null)");
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return Append(s, n);
}

TextBuilder& TextBuilder::AppendChar(char c) { return Append(&c, 1); }

TextBuilder& TextBuilder::AppendU64(uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n != 0) AppendChar(tmp[--n]);
  return *this;
}

TextBuilder& TextBuilder::AppendI64(int64_t v) {
  if (v < 0) {
    AppendChar('-');
    // Negate in unsigned arithmetic so INT64_MIN is handled.
    return AppendU64(0 - static_cast<uint64_t>(v));
  }
  return AppendU64(static_cast<uint64_t>(v));
}

TextBuilder& TextBuilder::AppendHex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  char tmp[16];
  size_t n = 0;
  do {
    tmp[n++] = kDigits[v & 0xf];
    v >>= 4;
  } while (v != 0);
  Append("0x", 2);
  while (n != 0) AppendChar(tmp[--n]);
  return *this;
}

}  // namespace hke
