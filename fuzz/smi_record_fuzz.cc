// libFuzzer harness for hke_smi_record_parse (hsakmt/hsakmt_embedded.h):
// the SMI event records read from an hsaKmtOpenSMI descriptor, i.e. text
// a kernel (or anything else holding the other end) wrote.
//
// Input: the bytes, parsed from a heap block of exactly that size (ASan
// catches any read past len), then walked record by record as a reader
// would (skipping past the '\n' of a PROTOCOL line).
//
// Invariants: the status is OK, UNAVAILABLE or PROTOCOL; UNAVAILABLE only
// when there is no '\n' in fewer than HKE_SMI_RECORD_MAX bytes; on failure
// both outputs keep their 0xA5 fill. On success: consumed is the position
// after the first '\n', at most HKE_SMI_RECORD_MAX; the event is 1..63;
// text is NUL-terminated; present has only HKE_SMI_HAS_* bits; parsing
// again gives the same record. For the events with a fixed layout
// (1..11), printing the record back in the KFD's layout (with the optional
// fields its present bits name) and parsing that gives the same record.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz/fuzz_input.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmttypes.h"

namespace {

#define FUZZ_CHECK(cond)           \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

constexpr hke_status_t kProtocol = (hke_status_t{HKE_DOMAIN_API} << 32) | HKE_STATUS_PROTOCOL;
constexpr hke_status_t kUnavailable =
    (hke_status_t{HKE_DOMAIN_API} << 32) | HKE_STATUS_UNAVAILABLE;
constexpr uint32_t kAllBits = (1u << 10) - 1;

bool Same(const hke_smi_record& a, const hke_smi_record& b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

// The record in the KFD's layout; empty when the event has none here.
std::string Print(const hke_smi_record& r) {
  char b[512];
  const auto ll = [](uint64_t v) { return static_cast<long long>(v); };
  const auto lx = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  int n = -1;
  switch (r.event) {
    case HSA_SMI_EVENT_VMFAULT:
      n = std::snprintf(b, sizeof(b), "1 %x:%s\n", r.pid, r.text);
      break;
    case HSA_SMI_EVENT_THERMAL_THROTTLE:
      n = std::snprintf(b, sizeof(b), "2 %llx:%llx\n", lx(r.throttle_bitmask),
                        lx(r.throttle_counter));
      break;
    case HSA_SMI_EVENT_GPU_PRE_RESET:
    case HSA_SMI_EVENT_GPU_POST_RESET:
      n = (r.present & HKE_SMI_HAS_TEXT)
              ? std::snprintf(b, sizeof(b), "%x %x %s\n", r.event, r.reset_seq, r.text)
              : std::snprintf(b, sizeof(b), "%x %x\n", r.event, r.reset_seq);
      break;
    case HSA_SMI_EVENT_MIGRATE_START:
      n = std::snprintf(b, sizeof(b), "5 %lld -%u @%llx(%llx) %x->%x %x:%x %d\n",
                        ll(r.timestamp_ns), r.pid, lx(r.address), lx(r.size), r.from_node,
                        r.to_node, r.prefetch_node, r.preferred_node, r.trigger);
      break;
    case HSA_SMI_EVENT_MIGRATE_END:
      n = std::snprintf(b, sizeof(b), "6 %lld -%u @%llx(%llx) %x->%x %d", ll(r.timestamp_ns),
                        r.pid, lx(r.address), lx(r.size), r.from_node, r.to_node, r.trigger);
      if (n > 0 && (r.present & HKE_SMI_HAS_ERROR)) {
        n += std::snprintf(b + n, sizeof(b) - static_cast<size_t>(n), " %d", r.error_code);
      }
      if (n > 0) n += std::snprintf(b + n, sizeof(b) - static_cast<size_t>(n), "\n");
      break;
    case HSA_SMI_EVENT_PAGE_FAULT_START:
    case HSA_SMI_EVENT_PAGE_FAULT_END:
      n = std::snprintf(b, sizeof(b), "%x %lld -%u @%llx(%x) ", r.event, ll(r.timestamp_ns), r.pid,
                        lx(r.address), r.node);
      if (n > 0) {
        b[n++] = r.flag;  // may be any byte but ' ' and '\n'
        b[n++] = '\n';
      }
      break;
    case HSA_SMI_EVENT_QUEUE_EVICTION:
      n = std::snprintf(b, sizeof(b), "9 %lld -%u %x %d\n", ll(r.timestamp_ns), r.pid, r.node,
                        r.trigger);
      break;
    case HSA_SMI_EVENT_QUEUE_RESTORE:
      n = std::snprintf(b, sizeof(b), "a %lld -%u %x", ll(r.timestamp_ns), r.pid, r.node);
      if (n > 0 && (r.present & HKE_SMI_HAS_FLAG)) {
        b[n++] = ' ';
        b[n++] = r.flag;
      }
      if (n > 0) b[n++] = '\n';
      break;
    case HSA_SMI_EVENT_UNMAP_FROM_GPU:
      n = std::snprintf(b, sizeof(b), "b %lld -%u @%llx(%llx) %x %d\n", ll(r.timestamp_ns), r.pid,
                        lx(r.address), lx(r.size), r.node, r.trigger);
      break;
    default:
      return std::string();
  }
  FUZZ_CHECK(n > 0 && static_cast<size_t>(n) < sizeof(b));
  return std::string(b, static_cast<size_t>(n));
}

// Parses data[0..len) from an exact-size copy and checks the contract.
hke_status_t Check(const uint8_t* data, size_t len, hke_smi_record* out, size_t* used) {
  std::unique_ptr<char[]> copy(new char[len == 0 ? 1 : len]);
  if (len != 0) std::memcpy(copy.get(), data, len);
  hke_smi_record r;
  std::memset(&r, 0xA5, sizeof(r));
  size_t consumed = 0xA5A5A5A5u;
  const hke_status_t s = hke_smi_record_parse(copy.get(), len, &r, &consumed);
  const size_t window = len < HKE_SMI_RECORD_MAX ? len : HKE_SMI_RECORD_MAX;
  const void* nl = window == 0 ? nullptr : std::memchr(data, '\n', window);
  if (s != HKE_OK) {
    FUZZ_CHECK(s == kProtocol || s == kUnavailable);
    FUZZ_CHECK(s != kUnavailable || (nl == nullptr && len < HKE_SMI_RECORD_MAX));
    hke_smi_record fill;
    std::memset(&fill, 0xA5, sizeof(fill));
    FUZZ_CHECK(Same(r, fill) && consumed == 0xA5A5A5A5u);
    return s;
  }
  FUZZ_CHECK(nl != nullptr);
  FUZZ_CHECK(consumed == static_cast<size_t>(static_cast<const uint8_t*>(nl) - data) + 1);
  FUZZ_CHECK(consumed <= HKE_SMI_RECORD_MAX);
  FUZZ_CHECK(r.event >= 1 && r.event < 64);
  FUZZ_CHECK(std::memchr(r.text, '\0', sizeof(r.text)) != nullptr);
  FUZZ_CHECK((r.present & ~kAllBits) == 0);
  hke_smi_record again;
  size_t again_used = 0;
  FUZZ_CHECK(hke_smi_record_parse(copy.get(), len, &again, &again_used) == HKE_OK);
  FUZZ_CHECK(again_used == consumed);
  // Text fields may hold bytes the record's padding does not: compare the
  // parses as a whole, they were both zero-initialised by the parser.
  FUZZ_CHECK(Same(again, r));
  *out = r;
  *used = consumed;
  return s;
}

void RoundTrip(const hke_smi_record& r) {
  const std::string printed = Print(r);
  if (printed.empty() || printed.size() > HKE_SMI_RECORD_MAX) return;
  hke_smi_record back;
  size_t used = 0;
  FUZZ_CHECK(hke_smi_record_parse(printed.data(), printed.size(), &back, &used) == HKE_OK);
  FUZZ_CHECK(used == printed.size());
  FUZZ_CHECK(Same(back, r));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  size_t at = 0;
  while (at < size) {
    hke_smi_record r;
    size_t used = 0;
    const hke_status_t s = Check(data + at, size - at, &r, &used);
    if (s == HKE_OK) {
      RoundTrip(r);
      at += used;
      continue;
    }
    if (s == kUnavailable) break;
    const void* nl = std::memchr(data + at, '\n', size - at);
    if (nl == nullptr) break;
    at = static_cast<size_t>(static_cast<const uint8_t*>(nl) - data) + 1;
  }
  return 0;
}
