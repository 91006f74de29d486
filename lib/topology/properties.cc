#include "lib/topology/properties.h"

#include <cstring>

#include "lib/core/checked.h"
#include "lib/core/text.h"

namespace hke::topology {

void PropertyValues::Clear() {
  for (uint32_t i = 0; i < (capacity_ + 31) / 32; ++i) present_[i] = 0;
  for (uint32_t i = 0; i < capacity_; ++i) values_[i] = 0;
}

void PropertyValues::Set(uint32_t id, uint64_t value) {
  if (id >= capacity_) return;
  values_[id] = value;
  present_[id / 32] |= 1u << (id % 32);
}

namespace {

constexpr const char* kArea = "topology";

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsPrintable(char c) { return c >= 0x21 && c <= 0x7e; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Status Malformed(const TextSource& src, uint32_t line, const char* what, const char* key = nullptr,
                 size_t key_length = 0) {
  FixedText<Diag::kMessageCapacity> msg;
  msg.Append("malformed sysfs text: ");
  if (key != nullptr) msg.Append("key '").Append(key, key_length).Append("': ");
  msg.Append(what);
  return src.diag->Error(Protocol(), kArea, msg.c_str(), src.path, line);
}

// Parses digits [p, end) as an unsigned decimal of `width`.
bool ParseDecimal(const char* p, const char* end, ValueWidth width, uint64_t* out) {
  if (p == end) return false;
  uint64_t v = 0;
  for (; p != end; ++p) {
    if (!IsDigit(*p)) return false;
    if (!CheckedMul<uint64_t>(v, 10, &v)) return false;
    if (!CheckedAdd<uint64_t>(v, static_cast<uint64_t>(*p - '0'), &v)) return false;
  }
  if (width == ValueWidth::k32 && v > 0xffffffffull) return false;
  *out = v;
  return true;
}

const char* DecimalProblem(const char* p, const char* end) {
  for (const char* q = p; q != end; ++q) {
    if (!IsDigit(*q)) return "value is not an unsigned decimal number";
  }
  return "value does not fit the key's width";
}

int32_t FindKey(const KeyTable& table, const char* key, size_t length) {
  for (uint32_t i = 0; i < table.count; ++i) {
    const char* name = table.keys[i].name;
    // The first byte rules out nearly every entry before any longer compare
    // (strncmp, not memcmp: a table name may be shorter than `length`).
    if (name[0] == key[0] && std::strncmp(name, key, length) == 0 && name[length] == '\0') {
      return static_cast<int32_t>(i);
    }
  }
  return -1;
}

bool IsListKey(const ListSink* list, const char* key, size_t length) {
  return list != nullptr && std::strncmp(list->key, key, length) == 0 && list->key[length] == '\0';
}

// Checks a comma-separated 0/1 list; with `bits`, stores it.
bool ParseFlagList(const char* p, const char* end, uint32_t* bits, uint32_t capacity_bits) {
  uint32_t index = 0;
  while (true) {
    const char* start = p;
    while (p != end && *p != ',') ++p;
    if (p - start != 1 || (*start != '0' && *start != '1')) return false;
    if (bits != nullptr && *start == '1' && index < capacity_bits) {
      bits[index / 32] |= 1u << (index % 32);
    }
    if (index != UINT32_MAX) ++index;
    if (p == end) return true;
    ++p;  // the comma; an entry must follow
  }
}

// Scratch a parse fills; the caller publishes it only when the whole text
// parsed. Lives on the caller's stack (about 2.3 KiB).
struct Scratch {
  static constexpr uint32_t kMaxKeys = 256;
  static constexpr uint32_t kMaxListBits = 2048;
  uint64_t values[kMaxKeys];
  uint32_t seen[kMaxKeys / 32];
  uint32_t list_bits[kMaxListBits / 32];
  bool list_present;
};

// One pass over the text into `scratch`; nothing of the caller's changes.
Status Scan(const char* text, size_t length, const KeyTable& table, const TextSource& src,
            const ListSink* list, Scratch* scratch) {
  uint32_t* const seen_words = scratch->seen;
  const char* p = text;
  const char* const text_end = text + length;
  uint32_t line = 0;
  while (p != text_end) {
    ++line;
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(text_end - p)));
    const char* next = eol != nullptr ? eol + 1 : text_end;
    const char* end = eol != nullptr ? eol : text_end;
    if (end != p && end[-1] == '\r') --end;
    for (const char* q = p; q != end; ++q) {
      if (!IsBlank(*q) && !IsPrintable(*q)) {
        return Malformed(src, line, *q == '\0' ? "NUL byte in the text" : "control byte in the text");
      }
    }
    while (p != end && IsBlank(*p)) ++p;
    while (end != p && IsBlank(end[-1])) --end;
    if (p == end) {  // blank line
      p = next;
      continue;
    }
    const char* key = p;
    while (p != end && !IsBlank(*p)) ++p;
    const size_t key_length = static_cast<size_t>(p - key);
    if (key_length > kMaxKeyLength) return Malformed(src, line, "key longer than 63 characters");
    while (p != end && IsBlank(*p)) ++p;
    const bool list_key = IsListKey(list, key, key_length);
    // The kernel prints a cache with an empty sibling map as a bare key.
    if (p == end && !list_key) return Malformed(src, line, "missing value", key, key_length);
    const char* value = p;

    if (list_key) {
      if (value != end && !ParseFlagList(value, end, scratch->list_bits, list->capacity_bits)) {
        return Malformed(src, line, "expected a comma-separated list of 0 and 1", key, key_length);
      }
      scratch->list_present = true;
    } else {
      const int32_t id = FindKey(table, key, key_length);
      if (id >= 0) {
        const uint32_t uid = static_cast<uint32_t>(id);
        uint64_t v = 0;
        if (!ParseDecimal(value, end, table.keys[uid].width, &v)) {
          return Malformed(src, line, DecimalProblem(value, end), key, key_length);
        }
        if ((seen_words[uid / 32] & (1u << (uid % 32))) != 0) {
          return Malformed(src, line, "key appears twice", key, key_length);
        }
        seen_words[uid / 32] |= 1u << (uid % 32);
        scratch->values[uid] = v;
      }
    }
    p = next;
  }
  return Status::Ok();
}

}  // namespace

Status ParseProperties(const char* text, size_t length, const KeyTable& table,
                       const TextSource& source, PropertyValues* out, ListSink* list) {
  if (text == nullptr && length != 0) return InvalidArgument();
  if (out == nullptr || source.diag == nullptr || table.count > out->capacity()) {
    return InvalidArgument();
  }
  if (list != nullptr && (list->key == nullptr || (list->bits == nullptr && list->capacity_bits != 0))) {
    return InvalidArgument();
  }
  if (table.count > Scratch::kMaxKeys) return InvalidArgument();
  if (list != nullptr && list->capacity_bits > Scratch::kMaxListBits) return InvalidArgument();
  Scratch scratch;
  std::memset(scratch.seen, 0, sizeof(scratch.seen));
  std::memset(scratch.list_bits, 0, sizeof(scratch.list_bits));
  scratch.list_present = false;
  HKE_RETURN_IF_ERROR(Scan(text, length, table, source, list, &scratch));
  // Publish: every key seen, then the list.
  out->Clear();
  for (uint32_t id = 0; id < table.count; ++id) {
    if ((scratch.seen[id / 32] & (1u << (id % 32))) != 0) out->Set(id, scratch.values[id]);
  }
  if (list != nullptr) {
    const uint32_t words = (list->capacity_bits + 31) / 32;
    for (uint32_t i = 0; i < words; ++i) list->bits[i] = scratch.list_bits[i];
    list->present = scratch.list_present;
  }
  return Status::Ok();
}

Status ParseSingleValue(const char* text, size_t length, ValueWidth width, const TextSource& source,
                        uint64_t* out) {
  if ((text == nullptr && length != 0) || out == nullptr || source.diag == nullptr) {
    return InvalidArgument();
  }
  const char* p = text;
  const char* end = text + length;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (p != end && space(*p)) ++p;
  while (end != p && space(end[-1])) --end;
  if (p == end) return Malformed(source, 1, "empty file where a number was expected");
  for (const char* q = p; q != end; ++q) {
    if (*q == '\n') return Malformed(source, 1, "more than one line where a number was expected");
  }
  uint64_t v = 0;
  if (!ParseDecimal(p, end, width, &v)) return Malformed(source, 1, DecimalProblem(p, end));
  *out = v;
  return Status::Ok();
}

Status ParseName(const char* text, size_t length, const TextSource& source, char* out,
                 size_t capacity) {
  if ((text == nullptr && length != 0) || out == nullptr || capacity == 0 ||
      source.diag == nullptr) {
    return InvalidArgument();
  }
  size_t n = length;
  if (n != 0 && text[n - 1] == '\n') --n;
  if (n != 0 && text[n - 1] == '\r') --n;
  for (size_t i = 0; i < n; ++i) {
    if (text[i] == '\n') return Malformed(source, 2, "name has more than one line");
    if (!IsBlank(text[i]) && !IsPrintable(text[i])) {
      return Malformed(source, 1, "name holds a non-printable byte");
    }
  }
  if (n >= capacity) return Malformed(source, 1, "name longer than the node name capacity");
  std::memcpy(out, text, n);
  out[n] = '\0';
  return Status::Ok();
}

}  // namespace hke::topology
