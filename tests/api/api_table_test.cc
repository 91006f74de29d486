// The hsaKmt* API table: every function hsakmt.h declares is linked and
// exported, the table cannot fall behind the header, and the entry points
// that are still stubs behave as stubs must.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>

#include "hsakmt/hsakmt.h"
#include "tests/api/abi_lists.h"
#include "tests/support/api_header.h"

namespace {

// Every function of hsakmt.h with its address as the C++ compiler sees it.
// Taking the address makes the link fail if a definition is missing.
#define HKE_CXX_FUNCTION(name) {#name, reinterpret_cast<hke_api_fn>(&name)},
const hke_api_entry kApiTable[] = {HKE_API_FUNCTIONS(HKE_CXX_FUNCTION)};
#undef HKE_CXX_FUNCTION

using hketest::FunctionNamesIn;

const std::string kHeader = hketest::PublicHeaderPath();
const std::string kNotImplementedSource =
    std::string(HKE_SOURCE_DIR) + "/lib/api/not_implemented.cc";

// Calls of the entry points that lib/api/not_implemented.cc still stubs.
// Each call passes `p` for every pointer argument and zero (or the first
// valid enumerator) for every value argument. When a function is
// implemented it leaves not_implemented.cc and its line here.
struct StubCall {
  const char* name;
  HSAKMT_STATUS (*call)(void* p);
};

const StubCall kStubCalls[] = {
    {"hsaKmtPmcGetCounterProperties",
     [](void* p) {
       return hsaKmtPmcGetCounterProperties(0, static_cast<HsaCounterProperties**>(p));
     }},
    {"hsaKmtPmcRegisterTrace",
     [](void* p) {
       return hsaKmtPmcRegisterTrace(0, 0, static_cast<HsaCounter*>(p),
                                     static_cast<HsaPmcTraceRoot*>(p));
     }},
    {"hsaKmtPmcUnregisterTrace", [](void*) { return hsaKmtPmcUnregisterTrace(0, 0); }},
    {"hsaKmtPmcAcquireTraceAccess", [](void*) { return hsaKmtPmcAcquireTraceAccess(0, 0); }},
    {"hsaKmtPmcReleaseTraceAccess", [](void*) { return hsaKmtPmcReleaseTraceAccess(0, 0); }},
    {"hsaKmtPmcStartTrace", [](void* p) { return hsaKmtPmcStartTrace(0, p, 0); }},
    {"hsaKmtPmcQueryTrace", [](void*) { return hsaKmtPmcQueryTrace(0); }},
    {"hsaKmtPmcStopTrace", [](void*) { return hsaKmtPmcStopTrace(0); }},
};

}  // namespace

TEST_CASE("the API table lists every hsaKmt function declared in hsakmt.h, once") {
  const std::multiset<std::string> declared = FunctionNamesIn(kHeader);
  REQUIRE(declared.size() >= 92);  // upstream's count at the time of writing

  std::map<std::string, int> in_table;
  for (const hke_api_entry& e : kApiTable) in_table[e.name]++;

  for (const std::string& name : declared) {
    CHECK_MESSAGE(declared.count(name) == 1, name << " is declared more than once in hsakmt.h");
    CHECK_MESSAGE(in_table.count(name) == 1,
                  name << " is declared in hsakmt.h but missing from HKE_API_FUNCTIONS "
                          "(tests/api/abi_lists.h)");
  }
  for (const auto& entry : in_table) {
    // Named copies: clang rejects structured bindings captured by doctest's lambdas.
    const auto& name = entry.first;
    const auto count = entry.second;
    CHECK_MESSAGE(count == 1, name << " is listed " << count << " times in HKE_API_FUNCTIONS");
  }
  CHECK(in_table.size() == declared.size());
}

TEST_CASE("every hsaKmt function links, and C and C++ callers see the same symbol") {
  REQUIRE(hke_c_api_count == sizeof(kApiTable) / sizeof(kApiTable[0]));
  for (size_t i = 0; i < hke_c_api_count; ++i) {
    CAPTURE(kApiTable[i].name);
    // Function pointers are compared as bools: doctest cannot print them.
    const bool linked = kApiTable[i].fn != nullptr;
    const bool same_symbol = hke_c_api[i].fn == kApiTable[i].fn;
    CHECK(linked);
    CHECK(std::strcmp(hke_c_api[i].name, kApiTable[i].name) == 0);
    CHECK(same_symbol);
  }
}

TEST_CASE("the stub list names exactly the functions lib/api/not_implemented.cc defines") {
  const std::multiset<std::string> defined = FunctionNamesIn(kNotImplementedSource);
  std::multiset<std::string> listed;
  for (const StubCall& c : kStubCalls) listed.insert(c.name);

  for (const std::string& name : defined) {
    CHECK_MESSAGE(listed.count(name) == 1,
                  name << " is stubbed in not_implemented.cc but not listed in kStubCalls");
  }
  for (const std::string& name : listed) {
    CHECK_MESSAGE(defined.count(name) == 1,
                  name << " is listed in kStubCalls but not stubbed in not_implemented.cc "
                          "(remove its line once it is implemented)");
  }
  // The open/close/version trio belongs to lib/api/open_close.cc.
  CHECK(defined.count("hsaKmtOpenKFD") == 0);
  CHECK(defined.count("hsaKmtCloseKFD") == 0);
  CHECK(defined.count("hsaKmtGetVersion") == 0);
}

TEST_CASE("a stubbed function returns NOT_IMPLEMENTED for null and zero arguments") {
  for (const StubCall& c : kStubCalls) {
    CAPTURE(c.name);
    CHECK(c.call(nullptr) == HSAKMT_STATUS_NOT_IMPLEMENTED);
  }
}

TEST_CASE("a stubbed function leaves every output byte untouched") {
  alignas(64) unsigned char scratch[4096];
  unsigned char expected[sizeof(scratch)];
  std::memset(scratch, 0xA5, sizeof(scratch));
  std::memcpy(expected, scratch, sizeof(scratch));
  for (const StubCall& c : kStubCalls) {
    CAPTURE(c.name);
    CHECK(c.call(scratch) == HSAKMT_STATUS_NOT_IMPLEMENTED);
    CHECK(std::memcmp(scratch, expected, sizeof(scratch)) == 0);
  }
}
