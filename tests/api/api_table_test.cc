// The hsaKmt* API tables: every function hsakmt.h declares, and every
// hsaKmt*Ctx function hsakmtctx.h declares (but those other branches
// define, HKE_CTX_FUNCTIONS_ELSEWHERE), is linked; the tables cannot fall
// behind the headers; and the entry points that are still stubs behave as
// stubs must. (That the symbols are exported is api_exports, a script test
// on libhsakmt.a: tests/api/exports_check.sh.)
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "tests/api/abi_lists.h"
#include "tests/support/api_header.h"

namespace {

// Every function of hsakmt.h with its address as the C++ compiler sees it.
// Taking the address makes the link fail if a definition is missing.
#define HKE_CXX_FUNCTION(name) {#name, reinterpret_cast<hke_api_fn>(&name)},
const hke_api_entry kApiTable[] = {HKE_API_FUNCTIONS(HKE_CXX_FUNCTION)};
// The same for the Ctx functions of hsakmtctx.h this branch defines.
const hke_api_entry kCtxTable[] = {HKE_CTX_FUNCTIONS(HKE_CXX_FUNCTION)};
#undef HKE_CXX_FUNCTION

// The Ctx functions defined on other branches: only their names. sizeof
// does not evaluate its operand, so this needs a declaration in
// hsakmtctx.h (a misspelt name fails to compile) but no definition.
#define HKE_CXX_DECLARED(name) (sizeof(&name) != 0 ? #name : nullptr),
const char* const kCtxElsewhere[] = {HKE_CTX_FUNCTIONS_ELSEWHERE(HKE_CXX_DECLARED)};
#undef HKE_CXX_DECLARED

using hketest::FunctionNamesIn;
using hketest::ReadTextFile;

const std::string kHeader = hketest::PublicHeaderPath();
const std::string kCtxHeader = std::string(HKE_SOURCE_DIR) + "/include/hsakmt/hsakmtctx.h";
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

TEST_CASE(
    "the Ctx table lists every hsaKmt*Ctx function declared in hsakmtctx.h, once, except those "
    "defined on other branches") {
  const std::multiset<std::string> declared = FunctionNamesIn(kCtxHeader);
  REQUIRE(declared.size() >= 72);  // the header's count at the time of writing

  std::map<std::string, int> in_table;
  for (const hke_api_entry& e : kCtxTable) in_table[e.name]++;
  std::map<std::string, int> elsewhere;
  for (const char* name : kCtxElsewhere) elsewhere[name]++;

  for (const std::string& name : declared) {
    CHECK_MESSAGE(declared.count(name) == 1, name << " is declared more than once in hsakmtctx.h");
    const bool ends_in_ctx = name.size() > 3 && name.compare(name.size() - 3, 3, "Ctx") == 0;
    CHECK_MESSAGE(ends_in_ctx, name << " is declared in hsakmtctx.h but is not a ...Ctx function");
    CHECK_MESSAGE(in_table.count(name) + elsewhere.count(name) == 1,
                  name << " is declared in hsakmtctx.h but is in neither HKE_CTX_FUNCTIONS nor "
                          "HKE_CTX_FUNCTIONS_ELSEWHERE (tests/api/abi_lists.h), or in both");
  }
  for (const auto& entry : in_table) {
    const auto& name = entry.first;
    CHECK_MESSAGE(entry.second == 1, name << " is listed " << entry.second
                                          << " times in HKE_CTX_FUNCTIONS");
  }
  for (const auto& entry : elsewhere) {
    const auto& name = entry.first;
    CHECK_MESSAGE(entry.second == 1, name << " is listed " << entry.second
                                          << " times in HKE_CTX_FUNCTIONS_ELSEWHERE");
  }
  // Linked table = declared minus what other branches define.
  const size_t listed = in_table.size() + elsewhere.size();
  const size_t linked_expected = declared.size() - sizeof(kCtxElsewhere) / sizeof(kCtxElsewhere[0]);
  CHECK(listed == declared.size());
  CHECK(in_table.size() == linked_expected);
}

TEST_CASE("every hsaKmt*Ctx function of this branch is the Ctx twin of a listed hsaKmt function") {
  std::set<std::string> plain;
  for (const hke_api_entry& e : kApiTable) plain.insert(e.name);
  // The secondary-context open/close calls have no plain namesake (there is
  // no secondary context without a Ctx API); every other Ctx function has one.
  const std::set<std::string> kNoTwin = {"hsaKmtOpenSecondaryKFDCtx", "hsaKmtCloseSecondaryKFDCtx"};
  for (const hke_api_entry& e : kCtxTable) {
    const std::string name = e.name;
    if (kNoTwin.count(name) != 0) continue;
    CHECK_MESSAGE(plain.count(name.substr(0, name.size() - 3)) == 1,
                  name << " has no hsaKmt function of the same name without Ctx");
  }
}

TEST_CASE("every hsaKmt*Ctx function links, and C and C++ callers see the same symbol") {
  REQUIRE(hke_c_ctx_api_count == sizeof(kCtxTable) / sizeof(kCtxTable[0]));
  for (size_t i = 0; i < hke_c_ctx_api_count; ++i) {
    CAPTURE(kCtxTable[i].name);
    const bool linked = kCtxTable[i].fn != nullptr;
    const bool same_symbol = hke_c_ctx_api[i].fn == kCtxTable[i].fn;
    CHECK(linked);
    CHECK(std::strcmp(hke_c_ctx_api[i].name, kCtxTable[i].name) == 0);
    CHECK(same_symbol);
    // A Ctx function is its own symbol, never an alias of a plain one.
    for (const hke_api_entry& p : kApiTable) {
      const bool aliased = p.fn == kCtxTable[i].fn;
      CHECK_FALSE(aliased);
    }
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
