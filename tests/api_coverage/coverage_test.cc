// The API coverage test (issue #8 item 7): every function hsakmt.h declares
// has a row, every row names a declared function, and every row's success
// and error paths pass on a fresh simulated board without
// HSAKMT_STATUS_NOT_IMPLEMENTED (save the by-design rows).
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "tests/api/abi_lists.h"
#include "tests/api_coverage/coverage.h"
#include "tests/support/api_header.h"

using covtest::Board;
using covtest::Env;
using covtest::Kind;
using covtest::Outcome;
using covtest::Row;

namespace {

std::vector<Row> AllRows() {
  std::vector<Row> rows;
  covtest::AddDeviceRows(&rows);
  covtest::AddMemoryRows(&rows);
  covtest::AddEventQueueRows(&rows);
  covtest::AddDebugProfileRows(&rows);
  return rows;
}

std::set<std::string> Declared() {
  const std::multiset<std::string> names = hketest::FunctionNamesIn(hketest::PublicHeaderPath());
  return std::set<std::string>(names.begin(), names.end());
}

const covtest::Documented* DocumentedOutcome(const std::string& name) {
  for (size_t i = 0; i < covtest::kDocumentedOutcomeCount; ++i) {
    if (name == covtest::kDocumentedOutcomes[i].name) return &covtest::kDocumentedOutcomes[i];
  }
  return nullptr;
}

bool ByDesign(const std::string& name) {
  for (size_t i = 0; i < covtest::kNotImplementedByDesignCount; ++i) {
    if (name == covtest::kNotImplementedByDesign[i]) return true;
  }
  return false;
}

// Runs one path on a fresh board and holds it to the row's kind. Returns
// "" when it passed, else why it failed.
std::string RunPath(const Row& row, bool success) {
  std::unique_ptr<misctest::KaveriTree> tree;
  if (row.board == Board::kKaveri) tree = std::make_unique<misctest::KaveriTree>();
  hketest::SimBoard board(tree ? tree->path() : nullptr, tree ? nullptr : "datacenter-4gpu");
  Outcome o{false, ""};
  std::vector<HSAKMT_STATUS> statuses;
  try {
    Env env(board);
    o = (success ? row.success : row.error)(env);
    statuses = env.statuses();
  } catch (...) {
    // A setup REQUIRE failed; doctest has reported where.
    return "a setup step failed (see the assertion above)";
  }
  if (!o.pass) return o.message;
  if (statuses.empty()) return "the path never reported the status of the call under test";
  const HSAKMT_STATUS got = statuses.back();
  const bool may_be_stub = row.kind == Kind::kByDesign;
  for (HSAKMT_STATUS s : statuses) {
    if (s == HSAKMT_STATUS_NOT_IMPLEMENTED && !may_be_stub) return "NOT_IMPLEMENTED";
  }
  if (!success) {
    // An error path must fail, except for calls whose one status is fixed.
    if (got == HSAKMT_STATUS_SUCCESS) return "the error path succeeded";
    return "";
  }
  switch (row.kind) {
    case Kind::kReal:
      if (got != HSAKMT_STATUS_SUCCESS) return "a real row's success path did not succeed";
      break;
    case Kind::kDocumented: {
      const covtest::Documented* d = DocumentedOutcome(row.name);
      if (d == nullptr) return "documented row without a kDocumentedOutcomes entry";
      if (got != d->status) {
        return std::string("returned ") + covtest::StatusName(got) + ", documented " +
               covtest::StatusName(d->status);
      }
      break;
    }
    case Kind::kByDesign:
      if (got != HSAKMT_STATUS_NOT_IMPLEMENTED) {
        return std::string("returned ") + covtest::StatusName(got) +
               ", expected NOT_IMPLEMENTED (update the row)";
      }
      break;
  }
  return "";
}

}  // namespace

TEST_CASE("the coverage table has one row per function hsakmt.h declares, and no other") {
  const std::set<std::string> declared = Declared();
  REQUIRE(declared.size() >= 92);
  std::map<std::string, int> rows;
  for (const Row& r : AllRows()) rows[r.name]++;
  for (const std::string& name : declared) {
    CHECK_MESSAGE(rows.count(name) == 1, name << " is declared in hsakmt.h but has no coverage row");
  }
  for (const auto& entry : rows) {
    const std::string& name = entry.first;
    const int count = entry.second;
    CHECK_MESSAGE(declared.count(name) == 1, name << " has a row but hsakmt.h does not declare it");
    CHECK_MESSAGE(count == 1, name << " has " << count << " rows");
  }
  // The table of tests/api agrees (it is the link-time list of the same header).
  std::set<std::string> listed;
#define HKE_NAME(name) listed.insert(#name);
  HKE_API_FUNCTIONS(HKE_NAME)
#undef HKE_NAME
  CHECK(listed == declared);
}

TEST_CASE("the special lists name rows of the matching kind, and only those") {
  std::map<std::string, Kind> kinds;
  for (const Row& r : AllRows()) kinds[r.name] = r.kind;
  for (size_t i = 0; i < covtest::kDocumentedOutcomeCount; ++i) {
    const covtest::Documented& d = covtest::kDocumentedOutcomes[i];
    const std::string name = d.name;  // doctest prints a const char* as a pointer
    CAPTURE(name);
    CHECK(kinds.count(d.name) == 1);
    CHECK(kinds[d.name] == Kind::kDocumented);
    CHECK(d.status != HSAKMT_STATUS_NOT_IMPLEMENTED);
    CHECK(d.status != HSAKMT_STATUS_SUCCESS);
  }
  for (size_t i = 0; i < covtest::kNotImplementedByDesignCount; ++i) {
    const std::string name = covtest::kNotImplementedByDesign[i];
    CAPTURE(name);
    CHECK(kinds.count(name) == 1);
    CHECK(kinds[name] == Kind::kByDesign);
  }
  for (const auto& entry : kinds) {
    const std::string& name = entry.first;
    CAPTURE(name);
    if (entry.second == Kind::kDocumented) CHECK(DocumentedOutcome(name) != nullptr);
    if (entry.second == Kind::kByDesign) CHECK(ByDesign(name));
  }
}

TEST_CASE("every row passes its success and its error path on a fresh simulated board") {
  const std::vector<Row> rows = AllRows();
  std::vector<std::string> failed;
  size_t real = 0;
  for (const Row& row : rows) {
    for (const bool success : {true, false}) {
      INFO(row.name << (success ? " (success path)" : " (error path)"));
      const std::string why = RunPath(row, success);
      if (!why.empty()) {
        failed.push_back(std::string(row.name) + (success ? " success: " : " error: ") + why);
      }
    }
    real += row.kind == Kind::kReal ? 1 : 0;
  }
  std::string list;
  for (const std::string& f : failed) list += "\n  " + f;
  MESSAGE(rows.size() << " rows, " << real << " with a real success path, "
                      << covtest::kDocumentedOutcomeCount << " documented outcomes, "
                      << covtest::kNotImplementedByDesignCount << " NOT_IMPLEMENTED by design");
  CHECK_MESSAGE(failed.empty(), failed.size() << " failing paths:" << list);
}

namespace {

// The functions of each comment-led group of hsakmt.h, with the comment: a
// `/* ... */` block applies to the declarations that follow it up to the
// next blank line or comment.
std::map<std::string, std::string> HeaderComments() {
  const std::string text = hketest::ReadTextFile(hketest::PublicHeaderPath());
  std::map<std::string, std::string> out;
  std::string comment;
  size_t pos = 0;
  const std::regex decl(R"(\b(hsaKmt\w+)\s*\()");
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string line = text.substr(pos, eol - pos);
    const size_t open = line.find("/*");
    if (open != std::string::npos) {
      const size_t close = text.find("*/", pos + open);
      REQUIRE(close != std::string::npos);
      comment = text.substr(pos + open, close + 2 - pos - open);
      eol = text.find('\n', close);
      if (eol == std::string::npos) eol = text.size();
    } else if (line.find_first_not_of(" \t\r") == std::string::npos) {
      comment.clear();
    } else {
      std::smatch m;
      if (std::regex_search(line, m, decl)) out[m[1].str()] = comment;
    }
    pos = eol + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("hsakmt.h says NOT_IMPLEMENTED of exactly the functions whose row expects it") {
  const std::map<std::string, std::string> comments = HeaderComments();
  REQUIRE(comments.size() >= 92);
  for (const Row& r : AllRows()) {
    const std::string name = r.name;
    CAPTURE(name);
    REQUIRE(comments.count(name) == 1);
    const bool says = comments.at(name).find("NOT_IMPLEMENTED") != std::string::npos;
    INFO("comment: " << comments.at(name));
    if (r.kind == Kind::kByDesign) {
      CHECK(says);
    } else if (says) {
      // A conditional NOT_IMPLEMENTED (hsaKmtSetMemoryPolicy off Kaveri) is
      // documented only for rows whose success path runs where the call is real.
      CHECK(r.board != Board::kDatacenter);
    }
  }
}
