// Parsing of the KFD sysfs topology texts: `properties` files (`key value`
// lines), single-number files (`gpu_id`, `generation_id`) and the node
// `name` file. Pure functions over a caller buffer: no allocation, no I/O.
//
// Line rules of a properties text (stricter than upstream, which scans
// "%s %llu" and silently stops at the first line that does not match):
//  - Lines end with '\n'; a '\r' before it is dropped (CRLF accepted); the
//    last line may lack its '\n'. Blank (whitespace-only) lines are skipped.
//  - A line is `key <spaces> value [spaces]`; spaces are ' ' or '\t', also
//    allowed before the key. Keys are 1..kMaxKeyLength printable ASCII
//    characters. A NUL or other control byte anywhere is malformed.
//  - A key of the caller's table must carry a plain decimal value (digits
//    only, no sign, no "0x") that fits the key's width, and may appear once.
//  - A key outside the table is ignored whatever printable value it has
//    (this is how a cache's comma-separated `sibling_map` passes, and how
//    future string-valued keys will), but it must have a value.
//  Every line is examined: unlike upstream, a known key after an unknown
//  string-valued line is still read. In every real tree the only
//  non-numeric line (`sibling_map`) is the last one, so both rules read the
//  same values there.
//
// Failures are HKE_STATUS_PROTOCOL, reported through the Diag with the
// file's path and the 1-based line. Outputs are written only on success.
#ifndef HKE_LIB_TOPOLOGY_PROPERTIES_H_
#define HKE_LIB_TOPOLOGY_PROPERTIES_H_

#include <cstddef>
#include <cstdint>

#include "lib/core/diag.h"
#include "lib/core/status.h"

namespace hke::topology {

inline constexpr size_t kMaxKeyLength = 63;

// Width of the kernel field behind a key; larger values are malformed.
enum class ValueWidth : uint8_t { k32, k64 };

struct KeySpec {
  const char* name;
  ValueWidth width;
};

// The keys a caller looks up; key id i names keys[i].
struct KeyTable {
  const KeySpec* keys;
  uint32_t count;
};

// Parsed values of one KeyTable in caller storage (value and present bit
// per key id). Logic over (pointer, capacity); FixedPropertyValues owns it.
class PropertyValues {
 public:
  PropertyValues(uint64_t* values, uint32_t* present_words, uint32_t capacity)
      : values_(values), present_(present_words), capacity_(capacity) {
    Clear();
  }
  PropertyValues(const PropertyValues&) = delete;
  PropertyValues& operator=(const PropertyValues&) = delete;

  uint32_t capacity() const { return capacity_; }
  bool Has(uint32_t id) const {
    return id < capacity_ && (present_[id / 32] & (1u << (id % 32))) != 0;
  }
  // The value, or `fallback` when the key was absent.
  uint64_t Get(uint32_t id, uint64_t fallback = 0) const { return Has(id) ? values_[id] : fallback; }
  // Narrowed for 32-bit keys (the parser already range-checked them).
  uint32_t Get32(uint32_t id, uint32_t fallback = 0) const {
    return static_cast<uint32_t>(Get(id, fallback));
  }

  void Clear();
  void Set(uint32_t id, uint64_t value);

 private:
  uint64_t* values_;
  uint32_t* present_;
  uint32_t capacity_;
};

template <uint32_t N>
class FixedPropertyValues : public PropertyValues {
 public:
  static_assert(N >= 1, "at least one key");
  FixedPropertyValues() : PropertyValues(values_, present_, N) {}

 private:
  uint64_t values_[N];
  uint32_t present_[(N + 31) / 32];
};

// An optional list-valued key (a cache's `sibling_map`): comma-separated
// 0/1 flags stored as a bitmap, bit i = entry i. Entries past
// `capacity_bits` are checked and dropped (upstream keeps 256). The key
// alone (no value) is an empty list: the kernel prints that for a cache
// without a sibling map.
struct ListSink {
  const char* key;
  uint32_t* bits;          // capacity_bits / 32 words, rounded up
  uint32_t capacity_bits;
  bool present;            // out: the key was seen
};

// Where a text came from, for diagnostics.
struct TextSource {
  const Diag* diag;  // never null
  const char* path;  // shown in the record; may be null
};

// Parses a properties text into `out` (cleared first). With `list`, that
// key is parsed as a flag list into list->bits (cleared first). On failure
// neither `out` nor `list` is modified.
Status ParseProperties(const char* text, size_t length, const KeyTable& table,
                       const TextSource& source, PropertyValues* out, ListSink* list = nullptr);

// A file holding one decimal number (gpu_id, generation_id): optional
// surrounding whitespace, digits, within `width`.
Status ParseSingleValue(const char* text, size_t length, ValueWidth width, const TextSource& source,
                        uint64_t* out);

// The node `name` file: one line of printable ASCII (spaces allowed), its
// trailing newline dropped; copied NUL-terminated into `out`. Longer than
// capacity-1 characters is malformed.
Status ParseName(const char* text, size_t length, const TextSource& source, char* out,
                 size_t capacity);

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_PROPERTIES_H_
