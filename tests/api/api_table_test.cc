// The hsaKmt* API table: every function hsakmt.h declares is linked and
// exported, the table cannot fall behind the header, and none is a stub.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "hsakmt/hsakmt.h"
#include "tests/api/abi_lists.h"

namespace {

// Every function of hsakmt.h with its address as the C++ compiler sees it.
// Taking the address makes the link fail if a definition is missing.
#define HKE_CXX_FUNCTION(name) {#name, reinterpret_cast<hke_api_fn>(&name)},
const hke_api_entry kApiTable[] = {HKE_API_FUNCTIONS(HKE_CXX_FUNCTION)};
#undef HKE_CXX_FUNCTION

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The names of the hsaKmt* functions a source file declares or defines:
// every `hsaKmtName(` outside comments.
std::multiset<std::string> FunctionNamesIn(const std::string& path) {
  std::string text = ReadFile(path);
  text = std::regex_replace(text, std::regex(R"(/\*[\s\S]*?\*/)"), " ");
  text = std::regex_replace(text, std::regex(R"(//[^\n]*)"), " ");
  std::multiset<std::string> names;
  const std::regex call(R"(\b(hsaKmt\w+)\s*\()");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), call); it != std::sregex_iterator();
       ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

const std::string kHeader = std::string(HKE_SOURCE_DIR) + "/include/hsakmt/hsakmt.h";
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

// Every function used to start as a NOT_IMPLEMENTED stub in
// lib/api/not_implemented.cc; the PMC calls were the last ones, and the file
// went with them. A function added to hsakmt.h must come with its
// implementation (or a stub file and its checks brought back).
TEST_CASE("no hsaKmt function is left a stub: lib/api/not_implemented.cc is gone") {
  std::ifstream stub(kApiDir + "/not_implemented.cc");
  CHECK_FALSE(stub.good());
  // The PMC entry points, the last stubs, are defined in lib/api/pmc.cc.
  const std::multiset<std::string> pmc = FunctionNamesIn(kApiDir + "/pmc.cc");
  for (const char* name : {"hsaKmtPmcGetCounterProperties", "hsaKmtPmcRegisterTrace",
                           "hsaKmtPmcUnregisterTrace", "hsaKmtPmcAcquireTraceAccess",
                           "hsaKmtPmcReleaseTraceAccess", "hsaKmtPmcStartTrace",
                           "hsaKmtPmcQueryTrace", "hsaKmtPmcStopTrace"}) {
    CAPTURE(name);
    CHECK(pmc.count(name) == 1);
  }
}
