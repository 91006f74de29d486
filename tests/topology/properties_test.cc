// Contracts of the sysfs topology text parsers (lib/topology/properties.h).
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lib/topology/keys.h"
#include "lib/topology/properties.h"
#include "lib/topology/snapshot.h"

namespace {

using hke::Status;
using namespace hke::topology;

struct DiagLog {
  std::vector<std::string> messages;
  std::vector<std::string> paths;
  std::vector<uint32_t> lines;
  std::vector<hke_status_t> statuses;
  static void Fn(void* user, const hke_diag_record* r) {
    auto* self = static_cast<DiagLog*>(user);
    self->messages.push_back(r->message);
    self->paths.push_back(r->path != nullptr ? r->path : "");
    self->lines.push_back(r->line);
    self->statuses.push_back(r->status);
  }
};

const KeySpec kTestKeys[] = {
    {"alpha", ValueWidth::k32},
    {"beta", ValueWidth::k64},
    {"gamma", ValueWidth::k32},
};
const KeyTable kTable{kTestKeys, 3};

struct Parsed {
  DiagLog log;
  hke::Diag diag{&DiagLog::Fn, &log};
  FixedPropertyValues<3> values;
  Status status;

  explicit Parsed(const std::string& text, const char* path = "/t/properties") {
    status = ParseProperties(text.data(), text.size(), kTable, TextSource{&diag, path}, &values);
  }
};

bool IsProtocol(Status s) { return s.is_api(HKE_STATUS_PROTOCOL); }

std::string ReadHost(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Upstream's loop: "%s %llu\n" repeatedly; stops at the first line that
// does not match; the last value of a key wins.
std::map<std::string, uint64_t> UpstreamParse(const std::string& text) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key, value;
    if (!(ls >> key >> value)) break;
    size_t digits = 0;
    while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') ++digits;
    if (digits == 0) break;
    out[key] = std::stoull(value.substr(0, digits));
    if (digits != value.size()) break;
  }
  return out;
}

}  // namespace

TEST_CASE("properties parser reads known keys and ignores unknown ones") {
  Parsed p("alpha 1\nunknown 77\nbeta 18446744073709551615\n");
  REQUIRE(p.status.ok());
  CHECK(p.values.Has(0));
  CHECK(p.values.Get(0) == 1);
  CHECK(p.values.Get(1) == UINT64_MAX);
  CHECK_FALSE(p.values.Has(2));
  CHECK(p.values.Get(2, 42) == 42);
  CHECK(p.log.messages.empty());
}

TEST_CASE("properties parser tolerates missing keys, blank lines, CRLF, tabs and a missing final newline") {
  Parsed p("\r\n  alpha\t5 \r\n\n\tgamma 7");
  REQUIRE(p.status.ok());
  CHECK(p.values.Get(0) == 5);
  CHECK(p.values.Get(2) == 7);
  CHECK_FALSE(p.values.Has(1));

  Parsed empty("");
  REQUIRE(empty.status.ok());
  CHECK_FALSE(empty.values.Has(0));
}

TEST_CASE("properties parser accepts non-numeric values of unknown keys such as sibling_map") {
  Parsed p("alpha 1\nsibling_map 1,0,1\nname ip discovery\ngamma 3\n");
  REQUIRE(p.status.ok());
  CHECK(p.values.Get(0) == 1);
  CHECK(p.values.Get(2) == 3);  // read although it follows non-numeric lines
}

TEST_CASE("properties parser rejects a malformed known value with PROTOCOL naming file and line") {
  const char* bad[] = {
      "alpha 1\ngamma x12\n",      // non-numeric
      "alpha 1\ngamma 12abc\n",    // trailing garbage
      "alpha 1\ngamma -1\n",       // sign
      "alpha 1\ngamma 0x10\n",     // hex
      "alpha 1\ngamma 1 2\n",      // two values
      "alpha 1\ngamma 4294967296\n",  // over 32 bits
      "alpha 1\nbeta 18446744073709551616\n",  // over 64 bits
      "alpha 1\ngamma\n",          // missing value
      "alpha 1\nunknown\n",        // an unknown key still needs a value
      "alpha 1\ngamma 1\ngamma 2\n",  // duplicate
  };
  for (const char* text : bad) {
    CAPTURE(text);
    Parsed p(text, "/x/nodes/1/properties");
    CHECK(IsProtocol(p.status));
    REQUIRE(p.log.messages.size() == 1);
    CHECK(p.log.paths[0] == "/x/nodes/1/properties");
    CHECK(p.log.lines[0] == (std::strstr(text, "gamma 2") ? 3u : 2u));
    CHECK(p.log.statuses[0] == hke::Protocol().raw());
  }
}

TEST_CASE("properties parser rejects NUL and control bytes and overlong keys") {
  std::string nul("alpha 1\n", 8);
  nul += std::string("gamma 2\0\n", 9);
  Parsed a(nul);
  CHECK(IsProtocol(a.status));
  Parsed b("alpha 1\x01\n");
  CHECK(IsProtocol(b.status));
  Parsed c(std::string(64, 'k') + " 1\n");
  CHECK(IsProtocol(c.status));
  Parsed d(std::string(63, 'k') + " 1\n");
  CHECK(d.status.ok());
}

TEST_CASE("properties parser leaves its outputs untouched on failure") {
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  FixedPropertyValues<3> values;
  const std::string good = "alpha 9\n";
  REQUIRE(ParseProperties(good.data(), good.size(), kTable, TextSource{&diag, "p"}, &values).ok());
  const std::string bad = "beta 5\nalpha zz\n";
  CHECK(IsProtocol(ParseProperties(bad.data(), bad.size(), kTable, TextSource{&diag, "p"}, &values)));
  CHECK(values.Get(0) == 9);
  CHECK_FALSE(values.Has(1));

  uint32_t bits[8];
  std::memset(bits, 0xA5, sizeof(bits));
  uint32_t saved[8];
  std::memcpy(saved, bits, sizeof(bits));
  ListSink list{"sibling_map", bits, 256, false};
  const std::string bad_list = "alpha 1\nsibling_map 1,2\n";
  CHECK(IsProtocol(
      ParseProperties(bad_list.data(), bad_list.size(), kTable, TextSource{&diag, "p"}, &values, &list)));
  CHECK(std::memcmp(bits, saved, sizeof(bits)) == 0);
  CHECK_FALSE(list.present);
}

TEST_CASE("properties parser reads a flag list into a bitmap and drops entries past its capacity") {
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  FixedPropertyValues<3> values;
  uint32_t bits[1];
  ListSink list{"sibling_map", bits, 32, false};
  std::string text = "alpha 1\nsibling_map 1,0,1";
  for (int i = 3; i < 40; ++i) text += ",1";
  text += "\n";
  REQUIRE(ParseProperties(text.data(), text.size(), kTable, TextSource{&diag, "p"}, &values, &list).ok());
  CHECK(list.present);
  CHECK(bits[0] == 0xFFFFFFFDu);

  const std::string bare = "alpha 1\nsibling_map\n";
  REQUIRE(ParseProperties(bare.data(), bare.size(), kTable, TextSource{&diag, "p"}, &values, &list).ok());
  CHECK(list.present);
  CHECK(bits[0] == 0);

  const char* bad[] = {"sibling_map 1,,0\n", "sibling_map 1,0,\n", "sibling_map 10\n",
                       "sibling_map ,1\n"};
  for (const char* t : bad) {
    CAPTURE(t);
    CHECK(IsProtocol(ParseProperties(t, std::strlen(t), kTable, TextSource{&diag, "p"}, &values, &list)));
  }
}

TEST_CASE("properties parser handles a huge text in one bounded pass") {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "unknown_key_" + std::to_string(i) + " 1\n";
  text += "gamma 5\n";
  Parsed p(text);
  REQUIRE(p.status.ok());
  CHECK(p.values.Get(2) == 5);

  std::string long_value = "unknown " + std::string(100000, '9') + "\n";
  Parsed q(long_value);
  CHECK(q.status.ok());  // unknown keys are not range-checked
  Parsed r("gamma " + std::string(100000, '9') + "\n");
  CHECK(IsProtocol(r.status));
}

TEST_CASE("single-value parser reads gpu_id and generation_id style files") {
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  uint64_t v = 7;
  CHECK(ParseSingleValue("53601\n", 6, ValueWidth::k32, TextSource{&diag, "g"}, &v).ok());
  CHECK(v == 53601);
  CHECK(ParseSingleValue(" 0 \r\n", 5, ValueWidth::k32, TextSource{&diag, "g"}, &v).ok());
  CHECK(v == 0);
  v = 7;
  const char* bad[] = {"", "\n", "12x\n", "1\n2\n", "4294967296\n", "-3\n"};
  for (const char* t : bad) {
    CAPTURE(t);
    CHECK(IsProtocol(ParseSingleValue(t, std::strlen(t), ValueWidth::k32, TextSource{&diag, "g"}, &v)));
    CHECK(v == 7);
  }
  CHECK(ParseSingleValue("4294967296\n", 11, ValueWidth::k64, TextSource{&diag, "g"}, &v).ok());
  CHECK(v == 4294967296ull);
}

TEST_CASE("name parser drops the newline, keeps spaces and rejects control bytes or overlong names") {
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  char name[8];
  std::memset(name, 0xA5, sizeof(name));
  CHECK(ParseName("ip dis\n", 7, TextSource{&diag, "n"}, name, sizeof(name)).ok());
  CHECK(std::string(name) == "ip dis");
  CHECK(ParseName("\n", 1, TextSource{&diag, "n"}, name, sizeof(name)).ok());
  CHECK(std::string(name) == "");
  CHECK(ParseName("", 0, TextSource{&diag, "n"}, name, sizeof(name)).ok());
  std::memcpy(name, "keep", 5);
  CHECK(IsProtocol(ParseName("12345678\n", 9, TextSource{&diag, "n"}, name, sizeof(name))));
  CHECK(IsProtocol(ParseName("a\nb\n", 4, TextSource{&diag, "n"}, name, sizeof(name))));
  CHECK(IsProtocol(ParseName("a\x7f\n", 3, TextSource{&diag, "n"}, name, sizeof(name))));
  CHECK(std::string(name) == "keep");
}

TEST_CASE("every properties file of every captured fixture tree parses, with the values upstream reads") {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(HKE_SHARED_DIR) / "fixtures" / "topology";
  REQUIRE(fs::is_directory(root));
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || (name != "properties" && name != "system_properties")) continue;
    const std::string rel = e.path().lexically_relative(root).string();
    const KeyTable* table = &NodeKeys();
    uint32_t sibling_bits[kSiblingBits / 32];
    ListSink list{kSiblingMapKey, sibling_bits, kSiblingBits, false};
    ListSink* sink = nullptr;
    if (name == "system_properties") table = &SystemKeys();
    else if (rel.find("/mem_banks/") != std::string::npos) table = &MemKeys();
    else if (rel.find("/caches/") != std::string::npos) table = &CacheKeys(), sink = &list;
    else if (rel.find("_links/") != std::string::npos) table = &LinkKeys();
    const std::string text = ReadHost(e.path());
    FixedPropertyValues<kNodeKeyCount> values;
    CAPTURE(rel);
    REQUIRE(ParseProperties(text.data(), text.size(), *table, TextSource{&diag, rel.c_str()}, &values,
                            sink)
                .ok());
    const std::map<std::string, uint64_t> upstream = UpstreamParse(text);
    for (uint32_t k = 0; k < table->count; ++k) {
      auto it = upstream.find(table->keys[k].name);
      CAPTURE(table->keys[k].name);
      CHECK(values.Has(k) == (it != upstream.end()));
      if (it != upstream.end()) CHECK(values.Get(k) == it->second);
    }
    if (sink != nullptr) CHECK(list.present);
    ++files;
  }
  CHECK(files > 4000);
  CHECK(log.messages.empty());
}
