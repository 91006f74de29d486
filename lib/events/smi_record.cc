// hke_smi_record_parse: one SMI event record (see hsakmt_embedded.h).
//
// A record is "<event hex> <fields>\n". The parser works on the line only
// (everything before the first '\n', which must come within
// HKE_SMI_RECORD_MAX bytes), with a cursor that never reads past the
// line's end. Each event's field layout is tried as written by the KFD;
// where kernels differ (optional trailing fields) the shorter form is
// accepted as well and the member's HKE_SMI_HAS_* bit tells which one
// came. Numbers are checked against their type's range while they are
// read; anything after the last field fails the record.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmttypes.h"
#include "lib/core/status.h"

namespace hke::events {
namespace {

class Cursor {
 public:
  Cursor(const char* p, const char* end) : p_(p), end_(end) {}

  bool AtEnd() const { return p_ == end_; }
  bool Peek(char c) const { return p_ != end_ && *p_ == c; }
  bool Lit(char c) {
    if (!Peek(c)) return false;
    ++p_;
    return true;
  }
  bool Lit(const char* s) {
    const char* q = p_;
    for (; *s != '\0'; ++s, ++q) {
      if (q == end_ || *q != *s) return false;
    }
    p_ = q;
    return true;
  }
  // The value of digit `c` in `base` (10 or 16, hex in either case), or
  // `base` when `c` is not one.
  static uint32_t DigitValue(char c, uint32_t base) {
    if (c >= '0' && c <= '9') return static_cast<uint32_t>(c - '0');
    if (base == 16 && c >= 'a' && c <= 'f') return static_cast<uint32_t>(c - 'a' + 10);
    if (base == 16 && c >= 'A' && c <= 'F') return static_cast<uint32_t>(c - 'A' + 10);
    return base;
  }
  // One or more digits of `base`, the value at most `max`.
  bool Digits(uint32_t base, uint64_t max, uint64_t* out) {
    uint64_t v = 0;
    const char* q = p_;
    for (; q != end_; ++q) {
      const uint32_t d = DigitValue(*q, base);
      if (d >= base) break;
      if (v > (max - d) / base) return false;
      v = v * base + d;
    }
    if (q == p_) return false;
    p_ = q;
    *out = v;
    return true;
  }
  // One or more hex digits (either case), the value at most `max`.
  bool Hex(uint64_t max, uint64_t* out) { return Digits(16, max, out); }
  bool Hex32(uint32_t* out) {
    uint64_t v = 0;
    if (!Hex(UINT32_MAX, &v)) return false;
    *out = static_cast<uint32_t>(v);
    return true;
  }
  // One or more decimal digits, the value at most `max`.
  bool Dec(uint64_t max, uint64_t* out) { return Digits(10, max, out); }
  // printf's %d of an int: an optional '-', then digits.
  bool SignedDec32(int32_t* out) {
    const char* start = p_;
    const bool negative = Lit('-');
    uint64_t v = 0;
    if (!Dec(negative ? uint64_t{INT32_MAX} + 1 : uint64_t{INT32_MAX}, &v)) {
      p_ = start;
      return false;
    }
    *out = negative ? static_cast<int32_t>(-static_cast<int64_t>(v)) : static_cast<int32_t>(v);
    return true;
  }
  // One character that is not a blank.
  bool Char(char* out) {
    if (p_ == end_ || *p_ == ' ') return false;
    *out = *p_++;
    return true;
  }
  // The rest of the line as a C string: false when it holds a NUL (the
  // line is at most HKE_SMI_RECORD_MAX - 1 bytes, so it always fits).
  bool Rest(char* out, size_t cap) {
    const size_t n = static_cast<size_t>(end_ - p_);
    if (n >= cap || std::memchr(p_, '\0', n) != nullptr) return false;
    std::memcpy(out, p_, n);
    out[n] = '\0';
    p_ = end_;
    return true;
  }
  const char* pos() const { return p_; }
  void set_pos(const char* p) { p_ = p; }

 private:
  const char* p_;
  const char* end_;
};

// "<ns> -<pid>": the profiler events' common head (%lld -%d).
bool Head(Cursor& c, hke_smi_record* r) {
  uint64_t ns = 0, pid = 0;
  if (!c.Dec(INT64_MAX, &ns) || !c.Lit(" -") || !c.Dec(INT32_MAX, &pid)) return false;
  r->timestamp_ns = ns;
  r->pid = static_cast<uint32_t>(pid);
  r->present |= HKE_SMI_HAS_TIMESTAMP;
  return true;
}

// " @<addr>(<size>)" with a 64-bit size (migrations, unmaps).
bool Range(Cursor& c, hke_smi_record* r) {
  uint64_t a = 0, s = 0;
  if (!c.Lit(" @") || !c.Hex(UINT64_MAX, &a) || !c.Lit('(') || !c.Hex(UINT64_MAX, &s) ||
      !c.Lit(')')) {
    return false;
  }
  r->address = a;
  r->size = s;
  r->present |= HKE_SMI_HAS_ADDRESS;
  return true;
}

bool Node(Cursor& c, hke_smi_record* r) {
  if (!c.Lit(' ') || !c.Hex32(&r->node)) return false;
  r->present |= HKE_SMI_HAS_NODE;
  return true;
}

bool Trigger(Cursor& c, hke_smi_record* r) {
  if (!c.Lit(' ') || !c.SignedDec32(&r->trigger)) return false;
  r->present |= HKE_SMI_HAS_TRIGGER;
  return true;
}

// " <from>-><to>"
bool FromTo(Cursor& c, hke_smi_record* r) {
  if (!c.Lit(' ') || !c.Hex32(&r->from_node) || !c.Lit("->") || !c.Hex32(&r->to_node)) {
    return false;
  }
  r->present |= HKE_SMI_HAS_MIGRATION;
  return true;
}

// The fields of `event` (the cursor is just past "<event> ").
bool Fields(uint32_t event, Cursor& c, hke_smi_record* r) {
  switch (event) {
    case HSA_SMI_EVENT_VMFAULT:  // "%x:%s": pid, task name
      if (!c.Hex32(&r->pid) || !c.Lit(':')) return false;
      r->present |= HKE_SMI_HAS_TEXT;
      return c.Rest(r->text, sizeof(r->text));
    case HSA_SMI_EVENT_THERMAL_THROTTLE:  // "%llx:%llx"
      if (!c.Hex(UINT64_MAX, &r->throttle_bitmask) || !c.Lit(':') ||
          !c.Hex(UINT64_MAX, &r->throttle_counter)) {
        return false;
      }
      r->present |= HKE_SMI_HAS_THROTTLE;
      return true;
    case HSA_SMI_EVENT_GPU_PRE_RESET:
    case HSA_SMI_EVENT_GPU_POST_RESET:  // "%x" or "%x %s": sequence number [cause]
      if (!c.Hex32(&r->reset_seq)) return false;
      r->present |= HKE_SMI_HAS_RESET;
      if (c.Lit(' ')) {
        if (c.AtEnd()) return false;
        r->present |= HKE_SMI_HAS_TEXT;
        return c.Rest(r->text, sizeof(r->text));
      }
      return true;
    case HSA_SMI_EVENT_MIGRATE_START:  // head @addr(size) from->to prefetch:preferred trigger
      if (!Head(c, r) || !Range(c, r) || !FromTo(c, r) || !c.Lit(' ') ||
          !c.Hex32(&r->prefetch_node) || !c.Lit(':') || !c.Hex32(&r->preferred_node)) {
        return false;
      }
      return Trigger(c, r);
    case HSA_SMI_EVENT_MIGRATE_END:  // head @addr(size) from->to trigger [error]
      if (!Head(c, r) || !Range(c, r) || !FromTo(c, r) || !Trigger(c, r)) return false;
      if (c.Lit(' ')) {
        if (!c.SignedDec32(&r->error_code)) return false;
        r->present |= HKE_SMI_HAS_ERROR;
      }
      return true;
    case HSA_SMI_EVENT_PAGE_FAULT_START:
    case HSA_SMI_EVENT_PAGE_FAULT_END: {  // head @addr(node) flag
      uint64_t a = 0;
      if (!Head(c, r) || !c.Lit(" @") || !c.Hex(UINT64_MAX, &a) || !c.Lit('(') ||
          !c.Hex32(&r->node) || !c.Lit(") ") || !c.Char(&r->flag)) {
        return false;
      }
      r->address = a;
      r->present |= HKE_SMI_HAS_ADDRESS | HKE_SMI_HAS_NODE | HKE_SMI_HAS_FLAG;
      return true;
    }
    case HSA_SMI_EVENT_QUEUE_EVICTION:  // head node trigger
      return Head(c, r) && Node(c, r) && Trigger(c, r);
    case HSA_SMI_EVENT_QUEUE_RESTORE:  // head node [flag]
      if (!Head(c, r) || !Node(c, r)) return false;
      if (c.Lit(' ')) {
        if (!c.Char(&r->flag)) return false;
        r->present |= HKE_SMI_HAS_FLAG;
      }
      return true;
    case HSA_SMI_EVENT_UNMAP_FROM_GPU:  // head @addr(size) node trigger
      return Head(c, r) && Range(c, r) && Node(c, r) && Trigger(c, r);
    default: {
      // An event this parser does not know: its fields as text, and the
      // profiler head when the fields start with one.
      const char* start = c.pos();
      hke_smi_record head{};
      if (Head(c, &head)) {
        r->timestamp_ns = head.timestamp_ns;
        r->pid = head.pid;
        r->present |= HKE_SMI_HAS_TIMESTAMP;
      }
      c.set_pos(start);
      r->present |= HKE_SMI_HAS_TEXT;
      return c.Rest(r->text, sizeof(r->text));
    }
  }
}

}  // namespace
}  // namespace hke::events

extern "C" hke_status_t hke_smi_record_parse(const char* data, size_t len, hke_smi_record* out,
                                             size_t* consumed) {
  using hke::events::Cursor;
  if ((data == nullptr && len != 0) || out == nullptr || consumed == nullptr) {
    return hke::InvalidArgument().raw();
  }
  const size_t window = len < HKE_SMI_RECORD_MAX ? len : HKE_SMI_RECORD_MAX;
  const void* nl = window != 0 ? std::memchr(data, '\n', window) : nullptr;
  if (nl == nullptr) {
    return (len < HKE_SMI_RECORD_MAX ? hke::Status::Api(HKE_STATUS_UNAVAILABLE) : hke::Protocol())
        .raw();
  }
  const char* end = static_cast<const char*>(nl);
  Cursor c(data, end);
  hke_smi_record r{};
  uint32_t event = 0;
  // Event numbers count from 1; 64 (ALL_PROCESS) is a mask flag, not an event.
  if (!c.Hex32(&event) || event == 0 || event >= HSA_SMI_EVENT_ALL_PROCESS || !c.Lit(' ') ||
      !hke::events::Fields(event, c, &r) || !c.AtEnd()) {
    return hke::Protocol().raw();
  }
  r.event = event;
  *out = r;
  *consumed = static_cast<size_t>(end - data) + 1;
  return HKE_OK;
}
