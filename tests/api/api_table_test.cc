// The hsaKmt* API tables: every function hsakmt.h declares, and every
// hsaKmt*Ctx function hsakmtctx.h declares, is linked; the tables cannot fall
// behind the headers; and none is a stub. (That the symbols are exported is
// api_exports, a script test on libhsakmt.a: tests/api/exports_check.sh.)
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <regex>
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

using hketest::FunctionNamesIn;
using hketest::ReadTextFile;

const std::string kHeader = hketest::PublicHeaderPath();
const std::string kCtxHeader = std::string(HKE_SOURCE_DIR) + "/include/hsakmt/hsakmtctx.h";
const std::string kApiDir = std::string(HKE_SOURCE_DIR) + "/lib/api";

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

TEST_CASE("the Ctx table lists every hsaKmt*Ctx function declared in hsakmtctx.h, once") {
  const std::multiset<std::string> declared = FunctionNamesIn(kCtxHeader);
  REQUIRE(declared.size() >= 72);  // the header's count at the time of writing

  std::map<std::string, int> in_table;
  for (const hke_api_entry& e : kCtxTable) in_table[e.name]++;

  for (const std::string& name : declared) {
    CHECK_MESSAGE(declared.count(name) == 1, name << " is declared more than once in hsakmtctx.h");
    const bool ends_in_ctx = name.size() > 3 && name.compare(name.size() - 3, 3, "Ctx") == 0;
    CHECK_MESSAGE(ends_in_ctx, name << " is declared in hsakmtctx.h but is not a ...Ctx function");
    CHECK_MESSAGE(in_table.count(name) == 1,
                  name << " is declared in hsakmtctx.h but missing from HKE_CTX_FUNCTIONS "
                          "(tests/api/abi_lists.h)");
  }
  for (const auto& entry : in_table) {
    const auto& name = entry.first;
    CHECK_MESSAGE(entry.second == 1, name << " is listed " << entry.second
                                          << " times in HKE_CTX_FUNCTIONS");
  }
  CHECK(in_table.size() == declared.size());
}

TEST_CASE("every hsaKmt*Ctx function is the Ctx twin of a listed hsaKmt function") {
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

// Every function used to start as a NOT_IMPLEMENTED stub in
// lib/api/not_implemented.cc; the PMC calls were the last ones, and the file
// went with them. A function added to hsakmt.h must come with its
// implementation (or a stub file and its checks brought back).
TEST_CASE("no hsaKmt function is left a stub: lib/api/not_implemented.cc is gone") {
  std::ifstream stub(kApiDir + "/not_implemented.cc");
  CHECK_FALSE(stub.good());
  // The PMC entry points, the last stubs, are defined in lib/api/pmc.cc:
  // written out, or one line X(<Name>, ...) of its twins list, which
  // defines hsaKmt<Name> (lib/api/entry.h, HKE_API_TWINS).
  std::multiset<std::string> pmc = FunctionNamesIn(kApiDir + "/pmc.cc");
  const std::string text = ReadTextFile(kApiDir + "/pmc.cc");
  const std::regex twin(R"(\bX\((\w+),)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), twin); it != std::sregex_iterator();
       ++it) {
    pmc.insert("hsaKmt" + (*it)[1].str());
  }
  for (const char* name : {"hsaKmtPmcGetCounterProperties", "hsaKmtPmcRegisterTrace",
                           "hsaKmtPmcUnregisterTrace", "hsaKmtPmcAcquireTraceAccess",
                           "hsaKmtPmcReleaseTraceAccess", "hsaKmtPmcStartTrace",
                           "hsaKmtPmcQueryTrace", "hsaKmtPmcStopTrace"}) {
    CAPTURE(name);
    CHECK(pmc.count(name) == 1);
  }
}
