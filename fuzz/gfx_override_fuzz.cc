// libFuzzer harness for the GFX version override text form
// (hke_gfx_override_parse) and the environment-block scanner
// (hke_gfx_overrides_from_environment), both in hsakmt/hsakmt_embedded.h.
//
// Input: [mode][bytes...]. Mode bit 0 clear: the bytes are one override
// text, parsed from a heap block of exactly that size (ASan catches any read
// past len). Mode bit 0 set: the bytes are an environment, entries split at
// '\n'; an entry starting with '#' gets "HSA_OVERRIDE_GFX_VERSION" in place
// of the '#', so the fuzzer reaches the variable names quickly.
//
// Invariants: the parser succeeds exactly when a reference model (digits,
// two dots, nonempty parts, 63/255/255) accepts, with the model's values;
// on failure its output is untouched. The scanner's output is a valid
// hke_config.gfx_overrides list (hke_context_init accepts it), at most
// max_nodes + 1 entries, node ids unique, each equal to what the parser
// says of the first entry with that name; with too little room it fails
// with its outputs untouched.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"

namespace {

#define FUZZ_CHECK(cond)      \
  do {                        \
    if (!(cond)) __builtin_trap(); \
  } while (0)

constexpr char kVar[] = "HSA_OVERRIDE_GFX_VERSION";

// The documented grammar, written independently of the parser.
bool Model(const std::string& s, uint32_t v[3]) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == '.') {
      parts.emplace_back();
    } else if (c >= '0' && c <= '9') {
      parts.back() += c;
    } else {
      return false;
    }
  }
  if (parts.size() != 3) return false;
  const uint64_t limit[3] = {63, 255, 255};
  for (int i = 0; i < 3; ++i) {
    if (parts[i].empty()) return false;
    uint64_t x = 0;
    for (char c : parts[i]) {
      x = x * 10 + static_cast<uint64_t>(c - '0');
      if (x > limit[i]) return false;
    }
    v[i] = static_cast<uint32_t>(x);
  }
  return true;
}

void FuzzParse(const uint8_t* data, size_t size) {
  std::unique_ptr<char[]> text(new char[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(text.get(), data, size);
  hke_gfx_override out;
  std::memset(&out, 0xA5, sizeof(out));
  const hke_status_t s = hke_gfx_override_parse(size == 0 ? nullptr : text.get(), size, 5, &out);
  uint32_t v[3] = {};
  const bool ok = Model(std::string(reinterpret_cast<const char*>(data), size), v);
  FUZZ_CHECK((s == HKE_OK) == ok);
  if (ok) {
    FUZZ_CHECK(out.node == 5 && out.major == v[0] && out.minor == v[1] && out.stepping == v[2] &&
               out.flags == 0);
  } else {
    const hke_status_t invalid = hke_status_make(HKE_DOMAIN_API, HKE_STATUS_INVALID_ARGUMENT);
    const hke_status_t range = hke_status_make(HKE_DOMAIN_API, HKE_STATUS_OUT_OF_RANGE);
    FUZZ_CHECK(s == invalid || s == range);
    unsigned char ref[sizeof(out)];
    std::memset(ref, 0xA5, sizeof(ref));
    FUZZ_CHECK(std::memcmp(&out, ref, sizeof(out)) == 0);
  }
}

// The name an entry sets ("" when none of ours): the part before '='.
bool NodeOf(const std::string& entry, uint32_t max_nodes, uint32_t* node, std::string* value) {
  const size_t eq = entry.find('=');
  if (eq == std::string::npos) return false;
  const std::string name = entry.substr(0, eq);
  *value = entry.substr(eq + 1);
  if (name == kVar) {
    *node = HKE_GFX_OVERRIDE_ALL_NODES;
    return true;
  }
  const std::string prefix = std::string(kVar) + "_";
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string id = name.substr(prefix.size());
  if (id.empty() || id.size() > 9) return false;
  for (char c : id) {
    if (c < '0' || c > '9') return false;
  }
  if (id.size() > 1 && id[0] == '0') return false;
  const unsigned long n = std::strtoul(id.c_str(), nullptr, 10);
  if (n >= max_nodes) return false;
  *node = static_cast<uint32_t>(n);
  return true;
}

void FuzzEnvironment(const uint8_t* data, size_t size) {
  hke_capacities caps;
  hke_build_capacities(&caps);
  std::vector<std::string> entries(1);
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n') {
      entries.emplace_back();
    } else if (c == '#' && entries.back().empty()) {
      entries.back() = kVar;
    } else if (c != '\0') {
      entries.back() += c;
    }
  }
  std::vector<const char*> envp;
  for (const auto& e : entries) envp.push_back(e.c_str());
  envp.push_back(nullptr);

  const uint32_t cap = caps.max_nodes + 1;
  std::vector<hke_gfx_override> out(cap);
  uint32_t n = 0;
  FUZZ_CHECK(hke_gfx_overrides_from_environment(envp.data(), out.data(), cap, &n, nullptr,
                                                nullptr) == HKE_OK);
  FUZZ_CHECK(n <= cap);

  // Reference: the first entry of each name, in order.
  std::vector<hke_gfx_override> want;
  for (const auto& e : entries) {
    uint32_t node = 0;
    std::string value;
    if (!NodeOf(e, caps.max_nodes, &node, &value)) continue;
    bool seen = false;
    for (const auto& w : want) seen = seen || w.node == node;
    if (seen) continue;
    hke_gfx_override o;
    if (hke_gfx_override_parse(value.data(), value.size(), node, &o) != HKE_OK) {
      o = hke_gfx_override{node, 0, 0, 0, HKE_GFX_OVERRIDE_MALFORMED};
    }
    want.push_back(o);
  }
  FUZZ_CHECK(want.size() == n);
  for (uint32_t i = 0; i < n; ++i) {
    FUZZ_CHECK(std::memcmp(&want[i], &out[i], sizeof(out[i])) == 0);
  }

  // The result is a configuration hke_context_init accepts.
  static void* storage = std::aligned_alloc(
      hke_context_storage_align(),
      (hke_context_storage_size() + hke_context_storage_align() - 1) /
          hke_context_storage_align() * hke_context_storage_align());
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = hke_linux_platform();
  c.gfx_overrides = out.data();
  c.gfx_override_count = n;
  hke_context* ctx = nullptr;
  // Nothing is opened, so the storage is reused without hke_context_deinit
  // (whose object would pull the default context into this link).
  FUZZ_CHECK(hke_context_init(storage, hke_context_storage_size(), &c, &ctx) == HKE_OK);

  // Too little room: an error, outputs untouched.
  if (n > 0) {
    std::vector<hke_gfx_override> small(n - 1 == 0 ? 1 : n - 1);
    std::memset(small.data(), 0xA5, small.size() * sizeof(small[0]));
    uint32_t count = 0xA5A5A5A5u;
    FUZZ_CHECK(hke_gfx_overrides_from_environment(envp.data(), small.data(), n - 1, &count, nullptr,
                                                  nullptr) != HKE_OK);
    FUZZ_CHECK(count == 0xA5A5A5A5u);
    const auto* b = reinterpret_cast<const unsigned char*>(small.data());
    for (size_t i = 0; i < small.size() * sizeof(small[0]); ++i) FUZZ_CHECK(b[i] == 0xA5);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > hke::fuzz::kMaxInput) return 0;
  if ((data[0] & 1) == 0) {
    FuzzParse(data + 1, size - 1);
  } else {
    FuzzEnvironment(data + 1, size - 1);
  }
  return 0;
}
