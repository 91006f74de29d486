// libFuzzer harness for the fault spec parser (hsakmt/hsakmt_faults.h).
//
// Any input either is rejected with a known status, an offset inside the
// input and nothing published, or yields in-range rules whose canonical text
// parses back to the same rules and formats to the same text again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hsakmt/hsakmt_faults.h"

namespace {

bool SameRule(const hke_faults_rule& a, const hke_faults_rule& b) {
  return a.op == b.op && a.when == b.when && a.nth == b.nth && a.error == b.error &&
         a.match_request == b.match_request && a.request == b.request && a.reserved == b.reserved;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kMaxInput = 4096;
  if (size > kMaxInput) size = kMaxInput;
  // An exact-size copy, so a read past `size` is caught by ASan even when
  // the input was capped.
  std::vector<char> spec(data, data + size);
  const char* p = spec.empty() ? nullptr : spec.data();

  hke_faults_rule rules[HKE_FAULTS_MAX_RULES];
  size_t count = SIZE_MAX;
  size_t offset = SIZE_MAX;
  const uint32_t st = hke_faults_parse(p, size, rules, HKE_FAULTS_MAX_RULES, &count, &offset);
  if (st != HKE_FAULTS_PARSE_OK) {
    if (st > HKE_FAULTS_PARSE_TOO_MANY_RULES || st == HKE_FAULTS_PARSE_NULL_ARGUMENT) abort();
    if (offset > size || count != SIZE_MAX) abort();
    return 0;
  }
  if (offset != SIZE_MAX || count > HKE_FAULTS_MAX_RULES) abort();
  for (size_t i = 0; i < count; ++i) {
    if (!hke_faults_rule_valid(&rules[i])) abort();
  }

  // One rule fewer than parsed does not fit.
  if (count != 0) {
    hke_faults_rule fewer[HKE_FAULTS_MAX_RULES];
    size_t n = 0;
    if (hke_faults_parse(p, size, fewer, count - 1, &n, &offset) != HKE_FAULTS_PARSE_TOO_MANY_RULES) {
      abort();
    }
    if (offset >= size) abort();
  }

  char text[4096];
  size_t len = 0;
  if (hke_faults_format(rules, count, text, sizeof(text), &len) != 0) abort();
  if (len >= sizeof(text) || text[len] != '\0') abort();

  hke_faults_rule again[HKE_FAULTS_MAX_RULES];
  size_t count2 = 0;
  if (hke_faults_parse(text, len, again, HKE_FAULTS_MAX_RULES, &count2, &offset) !=
      HKE_FAULTS_PARSE_OK) {
    abort();
  }
  if (count2 != count) abort();
  for (size_t i = 0; i < count; ++i) {
    if (!SameRule(rules[i], again[i])) abort();
  }

  char text2[4096];
  size_t len2 = 0;
  if (hke_faults_format(again, count2, text2, sizeof(text2), &len2) != 0) abort();
  if (len2 != len || std::memcmp(text, text2, len) != 0) abort();
  return 0;
}
