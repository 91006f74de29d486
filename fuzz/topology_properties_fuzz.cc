// Fuzzes the topology text parsers of lib/topology/properties.h
// (ParseProperties, ParseSingleValue, ParseName) on arbitrary bytes, at
// most 8 KiB (the snapshot's read buffer).
//
// Input: byte 0 picks the key table (node, system, memory bank, cache,
// link), whether a list key is parsed (the cache's sibling_map, or a key of
// the table itself, which the list then shadows) and its bit capacity;
// byte 1 picks the ParseName capacity; the rest is the text.
//
// Each parser is checked against a small reference model written here from
// the documented rules (properties.h): same success or failure; on success
// the same values, present bits, list bits and name; on failure PROTOCOL
// with a diagnostic, and outputs byte-identical to their 0xA5 fill. Bounds
// on success: a 32-bit key's value fits 32 bits; ids past the table and
// list bits past the capacity stay clear; a parsed name is shorter than its
// capacity and followed by the untouched fill.
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "lib/core/diag.h"
#include "lib/core/status.h"
#include "lib/topology/keys.h"
#include "lib/topology/properties.h"

namespace t = hke::topology;

namespace {

constexpr size_t kMaxText = 8192;
constexpr uint32_t kExtraIds = 5;   // value slots past the table, must stay clear
constexpr uint32_t kMaxIds = 64;    // >= every table + kExtraIds
constexpr uint32_t kMaxListBits = 288;
constexpr size_t kMaxNameCapacity = 40;
constexpr size_t kNameGuard = 8;

struct DiagCount {
  uint32_t errors = 0;
  hke_status_t last = 0;
};

void OnDiag(void* user, const hke_diag_record* r) {
  auto* c = static_cast<DiagCount*>(user);
  if (r->level == HKE_DIAG_ERROR) {
    ++c->errors;
    c->last = r->status;
  }
}

bool Blank(char c) { return c == ' ' || c == '\t'; }
bool Printable(char c) { return c >= 0x21 && c <= 0x7e; }

bool Decimal(const char* p, const char* e, bool wide, uint64_t* out) {
  if (p == e) return false;
  unsigned __int128 v = 0;
  for (; p != e; ++p) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + static_cast<unsigned>(*p - '0');
    if (v > UINT64_MAX) return false;
  }
  if (!wide && v > 0xffffffffu) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

// The documented line rules, written independently of properties.cc.
struct Model {
  bool ok = false;
  uint64_t values[kMaxIds] = {};
  bool has[kMaxIds] = {};
  uint32_t bits[kMaxListBits / 32] = {};
  bool list_present = false;
};

void ModelProperties(const char* text, size_t len, const t::KeyTable& table, const char* list_key,
                     uint32_t list_bits, Model* m) {
  size_t pos = 0;
  while (pos < len) {
    const char* nl = static_cast<const char*>(std::memchr(text + pos, '\n', len - pos));
    size_t line_end = nl != nullptr ? static_cast<size_t>(nl - text) : len;
    const size_t next = nl != nullptr ? line_end + 1 : len;
    if (line_end > pos && text[line_end - 1] == '\r') --line_end;
    for (size_t i = pos; i < line_end; ++i) {
      if (!Blank(text[i]) && !Printable(text[i])) return;
    }
    const char* p = text + pos;
    const char* e = text + line_end;
    pos = next;
    while (p != e && Blank(*p)) ++p;
    while (e != p && Blank(e[-1])) --e;
    if (p == e) continue;
    const char* key = p;
    while (p != e && !Blank(*p)) ++p;
    const size_t klen = static_cast<size_t>(p - key);
    if (klen > t::kMaxKeyLength) return;
    while (p != e && Blank(*p)) ++p;
    const bool is_list =
        list_key != nullptr && std::strlen(list_key) == klen && std::memcmp(list_key, key, klen) == 0;
    if (is_list) {
      uint32_t index = 0;
      const char* q = p;
      while (q != e) {
        const char* s = q;
        while (q != e && *q != ',') ++q;
        if (q - s != 1 || (*s != '0' && *s != '1')) return;
        if (*s == '1' && index < list_bits) m->bits[index / 32] |= 1u << (index % 32);
        ++index;
        if (q == e) break;
        ++q;
        if (q == e) return;  // trailing comma: an entry must follow
      }
      m->list_present = true;
      continue;
    }
    if (p == e) return;  // missing value
    for (uint32_t id = 0; id < table.count; ++id) {
      const char* name = table.keys[id].name;
      if (std::strlen(name) != klen || std::memcmp(name, key, klen) != 0) continue;
      uint64_t v = 0;
      if (!Decimal(p, e, table.keys[id].width == t::ValueWidth::k64, &v)) return;
      if (m->has[id]) return;  // twice
      m->has[id] = true;
      m->values[id] = v;
      break;
    }
  }
  m->ok = true;
}

void CheckProperties(const char* text, size_t len, uint8_t sel) {
  const t::KeyTable* tables[] = {&t::NodeKeys(), &t::SystemKeys(), &t::MemKeys(), &t::CacheKeys(),
                                 &t::LinkKeys()};
  const t::KeyTable& table = *tables[sel % 5];
  HKE_FUZZ_ASSERT(table.count + kExtraIds <= kMaxIds);
  const uint32_t capacity = table.count + (sel & 0x08 ? kExtraIds : 0);

  // List sink: none, sibling_map, or the table's first key (shadowed).
  const char* list_key = nullptr;
  switch ((sel >> 4) & 3) {
    case 1: list_key = t::kSiblingMapKey; break;
    case 2: list_key = table.keys[0].name; break;
    default: break;
  }
  const uint32_t list_bits = (sel & 0x40) != 0 ? 40 : ((sel & 0x80) != 0 ? 0 : 256);

  uint64_t values[kMaxIds];
  uint32_t present[(kMaxIds + 31) / 32];
  t::PropertyValues out(values, present, capacity);
  std::memset(values, 0xA5, sizeof(values));
  std::memset(present, 0xA5, sizeof(present));
  uint32_t bits[kMaxListBits / 32];
  std::memset(bits, 0xA5, sizeof(bits));
  t::ListSink list{list_key, list_bits != 0 ? bits : nullptr, list_bits, false};

  DiagCount dc;
  const hke::Diag diag(&OnDiag, &dc);
  const t::TextSource src{&diag, "fuzz/properties"};
  const hke::Status s =
      t::ParseProperties(text, len, table, src, &out, list_key != nullptr ? &list : nullptr);

  Model m;
  ModelProperties(text, len, table, list_key, list_bits, &m);
  HKE_FUZZ_ASSERT(s.ok() == m.ok);
  if (!s.ok()) {
    HKE_FUZZ_ASSERT(s == hke::Protocol());
    HKE_FUZZ_ASSERT(dc.errors == 1 && dc.last == s.raw());
    unsigned char fill[sizeof(values)];
    std::memset(fill, 0xA5, sizeof(fill));
    HKE_FUZZ_ASSERT(std::memcmp(values, fill, sizeof(values)) == 0);
    HKE_FUZZ_ASSERT(std::memcmp(present, fill, sizeof(present)) == 0);
    HKE_FUZZ_ASSERT(std::memcmp(bits, fill, sizeof(bits)) == 0);
    HKE_FUZZ_ASSERT(!list.present);
    return;
  }
  HKE_FUZZ_ASSERT(dc.errors == 0);
  for (uint32_t id = 0; id < capacity; ++id) {
    HKE_FUZZ_ASSERT(out.Has(id) == m.has[id]);
    HKE_FUZZ_ASSERT(out.Get(id, 7) == (m.has[id] ? m.values[id] : 7));
    if (!out.Has(id)) HKE_FUZZ_ASSERT(values[id] == 0);
    if (id < table.count && table.keys[id].width == t::ValueWidth::k32) {
      HKE_FUZZ_ASSERT(out.Get(id) <= 0xffffffffu);
      HKE_FUZZ_ASSERT(out.Get32(id) == out.Get(id));
    }
  }
  for (uint32_t id = capacity; id < kMaxIds; ++id) {
    HKE_FUZZ_ASSERT(!out.Has(id));
    if (id >= (capacity + 31) / 32 * 32) continue;  // past the present words
    HKE_FUZZ_ASSERT((present[id / 32] & (1u << (id % 32))) == 0);
  }
  if (list_key != nullptr) {
    HKE_FUZZ_ASSERT(list.present == m.list_present);
    const uint32_t words = (list_bits + 31) / 32;
    for (uint32_t w = 0; w < kMaxListBits / 32; ++w) {
      if (w < words) {
        HKE_FUZZ_ASSERT(bits[w] == m.bits[w]);
      } else {
        HKE_FUZZ_ASSERT(bits[w] == 0xA5A5A5A5u);  // past the sink: never touched
      }
    }
  }
}

void CheckSingleValue(const char* text, size_t len, bool wide) {
  uint64_t out;
  std::memset(&out, 0xA5, sizeof(out));
  DiagCount dc;
  const hke::Diag diag(&OnDiag, &dc);
  const hke::Status s = t::ParseSingleValue(text, len, wide ? t::ValueWidth::k64 : t::ValueWidth::k32,
                                            t::TextSource{&diag, nullptr}, &out);
  // Model: surrounding " \t\n\r" dropped, then one decimal.
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  const char* p = text;
  const char* e = text + len;
  while (p != e && space(*p)) ++p;
  while (e != p && space(e[-1])) --e;
  uint64_t v = 0;
  const bool model_ok = Decimal(p, e, wide, &v);
  HKE_FUZZ_ASSERT(s.ok() == model_ok);
  if (s.ok()) {
    HKE_FUZZ_ASSERT(out == v && dc.errors == 0);
    HKE_FUZZ_ASSERT(wide || out <= 0xffffffffu);
  } else {
    HKE_FUZZ_ASSERT(s == hke::Protocol() && dc.errors == 1);
    HKE_FUZZ_ASSERT(out == 0xA5A5A5A5A5A5A5A5ull);
  }
}

void CheckName(const char* text, size_t len, size_t capacity) {
  char out[kMaxNameCapacity + kNameGuard];
  std::memset(out, 0xA5, sizeof(out));
  DiagCount dc;
  const hke::Diag diag(&OnDiag, &dc);
  const hke::Status s = t::ParseName(text, len, t::TextSource{&diag, "fuzz/name"}, out, capacity);
  // Model: one trailing '\n' then one '\r' dropped; the rest is one line
  // of blanks and printable characters shorter than the capacity.
  size_t n = len;
  if (n != 0 && text[n - 1] == '\n') --n;
  if (n != 0 && text[n - 1] == '\r') --n;
  bool model_ok = n < capacity;
  for (size_t i = 0; i < n && model_ok; ++i) model_ok = Blank(text[i]) || Printable(text[i]);
  HKE_FUZZ_ASSERT(s.ok() == model_ok);
  if (s.ok()) {
    HKE_FUZZ_ASSERT(dc.errors == 0);
    HKE_FUZZ_ASSERT(std::memcmp(out, text, n) == 0 && out[n] == '\0' && std::strlen(out) == n);
    for (size_t i = n + 1; i < sizeof(out); ++i) HKE_FUZZ_ASSERT(static_cast<uint8_t>(out[i]) == 0xA5);
  } else {
    HKE_FUZZ_ASSERT(s == hke::Protocol() && dc.errors == 1);
    for (char c : out) HKE_FUZZ_ASSERT(static_cast<uint8_t>(c) == 0xA5);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > kMaxText + 2) return 0;
  const uint8_t sel = data[0];
  const size_t name_capacity = 1 + data[1] % kMaxNameCapacity;
  const char* text = reinterpret_cast<const char*>(data + 2);
  const size_t len = size - 2;
  CheckProperties(text, len, sel);
  CheckSingleValue(text, len, (sel & 1) != 0);
  CheckName(text, len, name_capacity);
  return 0;
}
