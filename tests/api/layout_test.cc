// Layout of the public types at run time: C and C++ consumers see the same
// bytes, and the differences from Debian's libhsakmt 5.2.3 headers are
// exactly the fields upstream added since. (The upstream values themselves
// are pinned at compile time by lib/api/layout_checks.cc.)
#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <string>

#include "hsakmt/hsakmt.h"
#include "tests/api/abi_lists.h"

namespace {

// HKE_ABI_LAYOUT evaluated by the C++ compiler (c_consumer.c evaluates the
// same list as C).
#define HKE_CXX_SIZE(T) {"sizeof(" #T ")", sizeof(T)},
#define HKE_CXX_OFFSET(T, m) {"offsetof(" #T ", " #m ")", offsetof(T, m)},
const hke_abi_value kCxxLayout[] = {HKE_ABI_LAYOUT(HKE_CXX_SIZE, HKE_CXX_OFFSET)};
#undef HKE_CXX_SIZE
#undef HKE_CXX_OFFSET
constexpr size_t kCxxLayoutCount = sizeof(kCxxLayout) / sizeof(kCxxLayout[0]);

std::map<std::string, size_t> CxxLayoutByName() {
  std::map<std::string, size_t> m;
  for (const hke_abi_value& v : kCxxLayout) m[v.what] = v.value;
  return m;
}

}  // namespace

TEST_CASE("C and C++ agree on the size of every public type and the offset of every member") {
  REQUIRE(hke_c_layout_count == kCxxLayoutCount);
  for (size_t i = 0; i < kCxxLayoutCount; ++i) {
    CAPTURE(kCxxLayout[i].what);
    REQUIRE(std::strcmp(hke_c_layout[i].what, kCxxLayout[i].what) == 0);
    CHECK(hke_c_layout[i].value == kCxxLayout[i].value);
  }
}

TEST_CASE("the layout list covers the key upstream facts") {
  // Guards the list itself: these entries must be present with the
  // target's values, or the comparison above proves less than it claims.
  const std::map<std::string, size_t> cxx = CxxLayoutByName();
  constexpr bool kLp64 = sizeof(void*) == 8;
  const std::map<std::string, size_t> expected = {
      {"sizeof(HSA_QUEUE_PRIORITY)", 8},
      {"sizeof(HSAKMT_STATUS)", 4},
      {"sizeof(HsaNodeProperties)", 368},
      {"sizeof(HsaCacheProperties)", 1056},
      {"sizeof(HsaEvent)", 48},
      {"sizeof(HsaQueueResource)", kLp64 ? 40u : 36u},
      {"offsetof(HsaQueueResource, ErrorReason)", 32},
      {"offsetof(HsaNodeProperties, LocalMemSize)", 92},
      {"offsetof(HsaEventData, HWData3)", 40},
  };
  for (const auto& entry : expected) {
    // Named copies: clang rejects structured bindings captured by doctest's lambdas.
    const auto& what = entry.first;
    const auto value = entry.second;
    CAPTURE(what);
    REQUIRE(cxx.count(what) == 1);
    CHECK(cxx.at(what) == value);
  }
}

#if defined(HKE_HAVE_DEBIAN_HSAKMTTYPES)

namespace {

// Upstream grew two structs after Debian's 5.2.3 by inserting 32-bit fields
// in the middle: every later member moved by 4 bytes per inserted field
// before it. HsaNodeProperties also turned its 12 reserved tail bytes into
// NumXcc/KFDGpuID/FamilyID, so it grew by exactly the inserted 12 bytes.
// These are binary incompatibilities between Debian 5.2.3 and current
// upstream (and so this library); source written against either compiles
// against both. Renames at equal offsets (HsaNodeProperties.Reserved2 ->
// Integrated, HsaGraphicsResourceInfo.Reserved -> NodeId) change nothing.
struct Growth {
  const char* record;
  size_t inserted[3];  // offsets (in the new layout) of the inserted fields
  size_t inserted_count;
};

const Growth kGrowth[] = {
    {"HsaNodeProperties",
     {offsetof(HsaNodeProperties, NumNeuralCores), offsetof(HsaNodeProperties, Capability2),
      offsetof(HsaNodeProperties, OverrideEngineId)},
     3},
    {"HsaIoLinkProperties", {offsetof(HsaIoLinkProperties, RecSdmaEngIdMask), 0, 0}, 1},
};

// What Debian's header must give for `what`, whose value in this library
// is `ours`.
size_t ExpectedDebianValue(const std::string& what, size_t ours) {
  for (const Growth& g : kGrowth) {
    const std::string rec = g.record;
    if (what == "sizeof(" + rec + ")") return ours - 4 * g.inserted_count;
    if (what.rfind("offsetof(" + rec + ",", 0) == 0) {
      size_t shift = 0;
      for (size_t i = 0; i < g.inserted_count; ++i) {
        if (g.inserted[i] < ours) shift += 4;
      }
      return ours - shift;
    }
  }
  return ours;
}

}  // namespace

TEST_CASE("Debian 5.2.3 types match ours except for the fields upstream inserted since") {
  const std::map<std::string, size_t> cxx = CxxLayoutByName();
  REQUIRE(hke_debian_layout_count > 250);  // 69 sizes + 201 offsets when written
  size_t differing = 0;
  for (size_t i = 0; i < hke_debian_layout_count; ++i) {
    const std::string what = hke_debian_layout[i].what;
    CAPTURE(what);
    REQUIRE_MESSAGE(cxx.count(what) == 1, "Debian entry has no counterpart in HKE_ABI_LAYOUT");
    const size_t ours = cxx.at(what);
    CHECK(hke_debian_layout[i].value == ExpectedDebianValue(what, ours));
    if (hke_debian_layout[i].value != ours) ++differing;
  }
  // 2 sizes + 37 HsaNodeProperties offsets + HsaIoLinkProperties.Flags.
  CHECK(differing == 40);
}

TEST_CASE("Debian 5.2.3 and this library agree on the types every queue and event call uses") {
  const std::map<std::string, size_t> cxx = CxxLayoutByName();
  std::map<std::string, size_t> deb;
  for (size_t i = 0; i < hke_debian_layout_count; ++i) {
    deb[hke_debian_layout[i].what] = hke_debian_layout[i].value;
  }
  for (const char* what :
       {"sizeof(HsaEvent)", "sizeof(HsaEventDescriptor)", "sizeof(HsaQueueResource)",
        "sizeof(HsaMemFlags)", "sizeof(HsaMemoryProperties)", "sizeof(HsaCacheProperties)",
        "sizeof(HSA_QUEUE_PRIORITY)", "sizeof(HsaPointerInfo)"}) {
    CAPTURE(what);
    REQUIRE(deb.count(what) == 1);
    CHECK(deb.at(what) == cxx.at(what));
  }
}

#endif  // HKE_HAVE_DEBIAN_HSAKMTTYPES
