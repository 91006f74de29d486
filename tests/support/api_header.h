// The hsaKmt* names a source file declares or defines, read at test time:
// the api area checks its table against include/hsakmt/hsakmt.h with it,
// the api_coverage area its rows.
#ifndef HKE_TESTS_SUPPORT_API_HEADER_H_
#define HKE_TESTS_SUPPORT_API_HEADER_H_

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "doctest/doctest.h"

namespace hketest {

inline std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every `hsaKmtName(` outside comments, as often as it occurs.
inline std::multiset<std::string> FunctionNamesIn(const std::string& path) {
  std::string text = ReadTextFile(path);
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

// The public header, in the source tree (HKE_SOURCE_DIR is set for every
// test area).
inline std::string PublicHeaderPath() {
  return std::string(HKE_SOURCE_DIR) + "/include/hsakmt/hsakmt.h";
}

}  // namespace hketest

#endif  // HKE_TESTS_SUPPORT_API_HEADER_H_
