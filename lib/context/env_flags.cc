// hke_config_flags_from_environment: upstream's memory environment
// switches as configuration flags, read from a caller-given array (the core
// never calls getenv).
#include <cstring>

#include "hsakmt/hsakmt_embedded.h"

namespace {

// The value of NAME in `entry` ("NAME=value"), or nullptr.
const char* ValueOf(const char* entry, const char* name) {
  const size_t n = std::strlen(name);
  if (std::strncmp(entry, name, n) != 0 || entry[n] != '=') return nullptr;
  return entry + n + 1;
}

}  // namespace

extern "C" uint32_t hke_config_flags_from_environment(const char* const* envp) {
  uint32_t flags = 0;
  if (envp == nullptr) return 0;
  for (const char* const* e = envp; *e != nullptr; ++e) {
    const char* v = ValueOf(*e, "HSA_USE_SVM");
    if (v != nullptr) {
      // Upstream: "0" turns the SVM API off; anything else leaves it on.
      if (std::strcmp(v, "0") == 0) {
        flags |= HKE_CONFIG_LEGACY_USERPTR;
      } else {
        flags &= ~HKE_CONFIG_LEGACY_USERPTR;
      }
      continue;
    }
    v = ValueOf(*e, "HSA_RESERVE_SVM");
    if (v != nullptr) {
      if (std::strcmp(v, "1") == 0) {
        flags |= HKE_CONFIG_RESERVE_SVM;
      } else {
        flags &= ~HKE_CONFIG_RESERVE_SVM;
      }
    }
  }
  return flags;
}
