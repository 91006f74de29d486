// GFX version overrides (upstream's HSA_OVERRIDE_GFX_VERSION[_<node>]):
// the strict text parser, the environment-block scanner on fake
// environments, hke_context_init's validation of hke_config.gfx_overrides,
// and OverrideEngineId / the malformed-override failure through the hsaKmt
// topology API on the in-process simulator.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "lib/core/status.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"

namespace {

struct Diags {
  std::vector<std::string> messages;
  std::vector<uint32_t> levels;
  static void Fn(void* user, const hke_diag_record* r) {
    auto* d = static_cast<Diags*>(user);
    d->messages.push_back(r->message);
    d->levels.push_back(r->level);
  }
  bool Mentions(const std::string& s) const {
    for (const auto& m : messages) {
      if (m.find(s) != std::string::npos) return true;
    }
    return false;
  }
};

hke_gfx_override Ovr(uint32_t node, uint8_t major, uint8_t minor, uint8_t step, uint8_t flags = 0) {
  hke_gfx_override o;
  o.node = node;
  o.major = major;
  o.minor = minor;
  o.stepping = step;
  o.flags = flags;
  return o;
}
hke_gfx_override Malformed(uint32_t node) { return Ovr(node, 0, 0, 0, HKE_GFX_OVERRIDE_MALFORMED); }

bool Same(const hke_gfx_override& a, const hke_gfx_override& b) {
  return a.node == b.node && a.major == b.major && a.minor == b.minor &&
         a.stepping == b.stepping && a.flags == b.flags;
}

template <typename T>
void Fill(T* p, size_t n = 1) {
  std::memset(static_cast<void*>(p), 0xA5, sizeof(T) * n);
}
template <typename T>
bool Untouched(const T* p, size_t n = 1) {
  std::vector<unsigned char> ref(sizeof(T) * n, 0xA5);
  return std::memcmp(p, ref.data(), ref.size()) == 0;
}

hke_status_t Parse(const std::string& text, hke_gfx_override* out) {
  return hke_gfx_override_parse(text.data(), text.size(), 7, out);
}

// Storage for hke_context_init, aligned as the build asks.
struct ContextStorage {
  ContextStorage()
      : size(hke_context_storage_size()),
        mem(static_cast<unsigned char*>(
                std::aligned_alloc(hke_context_storage_align(),
                                   (size + hke_context_storage_align() - 1) /
                                       hke_context_storage_align() * hke_context_storage_align())),
            &std::free) {}
  size_t size;
  std::unique_ptr<unsigned char, void (*)(void*)> mem;
};

// A built-in simulated board behind the default context, configured with
// `overrides`; leaves the default context closed, on the Linux platform.
class SimBoard {
 public:
  SimBoard(const char* board, const std::vector<hke_gfx_override>& overrides) {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = board;
    char error[512] = {};
    const int rc = kfdsim_create(&o, &sim_, error, sizeof(error));
    INFO(error);
    REQUIRE(rc == 0);
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_sim_platform(sim_);
    c.diag = &Diags::Fn;
    c.diag_user = &diags;
    c.gfx_overrides = overrides.empty() ? nullptr : overrides.data();
    c.gfx_override_count = static_cast<uint32_t>(overrides.size());
    status = hke_default_context_configure(&c);
  }
  ~SimBoard() {
    while (hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS) {
    }
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_linux_platform();
    (void)hke_default_context_configure(&c);
    kfdsim_destroy(sim_);
  }
  SimBoard(const SimBoard&) = delete;
  SimBoard& operator=(const SimBoard&) = delete;

  hke_status_t status = HKE_OK;
  Diags diags;

 private:
  kfdsim_t* sim_ = nullptr;
};

struct Version {
  uint32_t major, minor, stepping;
  bool operator==(const Version& o) const {
    return major == o.major && minor == o.minor && stepping == o.stepping;
  }
};
Version Of(const HSA_ENGINE_ID& e) { return Version{e.ui32.Major, e.ui32.Minor, e.ui32.Stepping}; }

}  // namespace

TEST_CASE("override parser accepts exactly major.minor.stepping within 63.255.255") {
  struct Good {
    const char* text;
    uint8_t major, minor, stepping;
  };
  const Good good[] = {
      {"9.0.10", 9, 0, 10},     {"11.0.2", 11, 0, 2},   {"0.0.0", 0, 0, 0},
      {"63.255.255", 63, 255, 255}, {"009.000.010", 9, 0, 10},
      {"00000000000000000000063.0.1", 63, 0, 1},
  };
  for (const Good& g : good) {
    INFO(g.text);
    hke_gfx_override out;
    Fill(&out);
    REQUIRE(Parse(g.text, &out) == HKE_OK);
    CHECK(Same(out, Ovr(7, g.major, g.minor, g.stepping)));
  }
}

TEST_CASE("override parser rejects bad syntax with INVALID_ARGUMENT and limits with OUT_OF_RANGE, output untouched") {
  const char* syntax[] = {"",        "9",        "9.0",        "9.0.",      ".0.10",    "9..10",
                          "9.0.10.", "9.0.10.1", " 9.0.10",    "9.0.10 ",   "9.0.10\n", "+9.0.10",
                          "-0.0.0",  "9,0,10",   "9.0.1a",     "0x9.0.10",  "9. 0.10",  "9.0.-1",
                          "gfx90a",  "9.0.10\t", "\xff.0.0",   "9.0.10="};
  for (const char* s : syntax) {
    INFO('"' << s << '"');
    hke_gfx_override out;
    Fill(&out);
    CHECK(Parse(s, &out) == hke::InvalidArgument().raw());
    CHECK(Untouched(&out));
  }
  const char* range[] = {"64.0.0", "9.256.0", "9.0.256", "4294967296.0.0",
                         "99999999999999999999.0.0", "9.0.4294967306"};
  for (const char* s : range) {
    INFO(s);
    hke_gfx_override out;
    Fill(&out);
    CHECK(Parse(s, &out) == hke::OutOfRange().raw());
    CHECK(Untouched(&out));
  }
  // An embedded NUL is a byte like any other, not an end of text.
  hke_gfx_override out;
  Fill(&out);
  CHECK(hke_gfx_override_parse("9.0\0.10", 7, 0, &out) == hke::InvalidArgument().raw());
  CHECK(Untouched(&out));
  CHECK(hke_gfx_override_parse(nullptr, 3, 0, &out) == hke::InvalidArgument().raw());
  CHECK(hke_gfx_override_parse("9.0.10", 6, 0, nullptr) == hke::InvalidArgument().raw());
  CHECK(hke_gfx_override_parse(nullptr, 0, 0, &out) == hke::InvalidArgument().raw());
  CHECK(Untouched(&out));
}

TEST_CASE("override parser reads only len bytes") {
  // The bytes after len would make the text malformed (or valid) if read;
  // with a page guard a sanitizer build would catch an overread, here the
  // result shows it.
  const char text[] = "9.0.10garbage";
  hke_gfx_override out;
  REQUIRE(hke_gfx_override_parse(text, 6, 1, &out) == HKE_OK);
  CHECK(Same(out, Ovr(1, 9, 0, 10)));
  CHECK(hke_gfx_override_parse(text, 5, 1, &out) == HKE_OK);  // "9.0.1"
  CHECK(Same(out, Ovr(1, 9, 0, 1)));
  CHECK(hke_gfx_override_parse(text, 4, 1, &out) == hke::InvalidArgument().raw());  // "9.0."
  // A heap block of exactly len bytes (no terminator): ASan reports a read past it.
  std::unique_ptr<char[]> exact(new char[6]);
  std::memcpy(exact.get(), "11.0.2", 6);
  CHECK(hke_gfx_override_parse(exact.get(), 6, 2, &out) == HKE_OK);
  CHECK(Same(out, Ovr(2, 11, 0, 2)));
}

TEST_CASE("environment scan: all-nodes and per-node variables, first one wins, others ignored") {
  const char* env[] = {"PATH=/usr/bin",
                       "HSA_OVERRIDE_GFX_VERSION_3=10.3.0",
                       "HSA_OVERRIDE_GFX_VERSION=9.0.10",
                       "HSA_OVERRIDE_GFX_VERSION_0=11.0.2",
                       "HSA_OVERRIDE_GFX_VERSION=9.4.2",      // second of a name: getenv never sees it
                       "HSA_OVERRIDE_GFX_VERSION_3=1.2.3",    // likewise
                       "HSA_OVERRIDE_GFX_VERSION_03=1.2.3",   // not how upstream prints node 3
                       "HSA_OVERRIDE_GFX_VERSION_=1.2.3",     // no node id
                       "HSA_OVERRIDE_GFX_VERSION_+4=1.2.3",
                       "HSA_OVERRIDE_GFX_VERSION_4 =1.2.3",
                       "HSA_OVERRIDE_GFX_VERSIONS=1.2.3",     // another variable
                       "HSA_OVERRIDE_GFX_VERSION_5",          // no '='
                       "hsa_override_gfx_version=1.2.3",      // names are case-sensitive
                       "HSA_OVERRIDE_GFX_VERSION_1=0.0.0",
                       nullptr};
  hke_gfx_override out[8];
  uint32_t n = 99;
  Diags d;
  REQUIRE(hke_gfx_overrides_from_environment(env, out, 8, &n, &Diags::Fn, &d) == HKE_OK);
  REQUIRE(n == 4);
  CHECK(Same(out[0], Ovr(3, 10, 3, 0)));
  CHECK(Same(out[1], Ovr(HKE_GFX_OVERRIDE_ALL_NODES, 9, 0, 10)));
  CHECK(Same(out[2], Ovr(0, 11, 0, 2)));
  CHECK(Same(out[3], Ovr(1, 0, 0, 0)));
  CHECK(d.messages.empty());

  // No environment at all, and an empty one.
  n = 99;
  CHECK(hke_gfx_overrides_from_environment(nullptr, nullptr, 0, &n, nullptr, nullptr) == HKE_OK);
  CHECK(n == 0);
  const char* empty[] = {nullptr};
  n = 99;
  CHECK(hke_gfx_overrides_from_environment(empty, out, 8, &n, nullptr, nullptr) == HKE_OK);
  CHECK(n == 0);
}

TEST_CASE("environment scan: a malformed value becomes a MALFORMED entry and a warning naming the variable") {
  const char* env[] = {"HSA_OVERRIDE_GFX_VERSION_2=9.0", "HSA_OVERRIDE_GFX_VERSION=",
                       "HSA_OVERRIDE_GFX_VERSION_1=64.0.0", nullptr};
  hke_gfx_override out[4];
  uint32_t n = 0;
  Diags d;
  REQUIRE(hke_gfx_overrides_from_environment(env, out, 4, &n, &Diags::Fn, &d) == HKE_OK);
  REQUIRE(n == 3);
  CHECK(Same(out[0], Malformed(2)));
  CHECK(Same(out[1], Malformed(HKE_GFX_OVERRIDE_ALL_NODES)));
  CHECK(Same(out[2], Malformed(1)));
  REQUIRE(d.messages.size() == 3);
  CHECK(d.Mentions("HSA_OVERRIDE_GFX_VERSION_2=\"9.0\""));
  CHECK(d.Mentions("HSA_OVERRIDE_GFX_VERSION=\"\""));
  CHECK(d.Mentions("HSA_OVERRIDE_GFX_VERSION_1=\"64.0.0\""));
  for (uint32_t level : d.levels) CHECK(level == HKE_DIAG_WARNING);
}

TEST_CASE("environment scan: node ids beyond max_nodes are ignored with a warning") {
  hke_capacities caps;
  hke_build_capacities(&caps);
  const std::string beyond = "HSA_OVERRIDE_GFX_VERSION_" + std::to_string(caps.max_nodes) + "=9.0.10";
  const std::string last =
      "HSA_OVERRIDE_GFX_VERSION_" + std::to_string(caps.max_nodes - 1) + "=9.0.10";
  const char* env[] = {beyond.c_str(), last.c_str(),
                       "HSA_OVERRIDE_GFX_VERSION_99999999999999999999999=1.0.0", nullptr};
  hke_gfx_override out[2];
  uint32_t n = 0;
  Diags d;
  REQUIRE(hke_gfx_overrides_from_environment(env, out, 2, &n, &Diags::Fn, &d) == HKE_OK);
  REQUIRE(n == 1);
  CHECK(Same(out[0], Ovr(caps.max_nodes - 1, 9, 0, 10)));
  CHECK(d.messages.size() == 2);
  CHECK(d.Mentions("beyond this build's max_nodes"));
}

TEST_CASE("environment scan: too little room is RESOURCE_EXHAUSTED with outputs untouched") {
  const char* env[] = {"HSA_OVERRIDE_GFX_VERSION=9.0.10", "HSA_OVERRIDE_GFX_VERSION_0=9.0.10",
                       nullptr};
  hke_gfx_override out[2];
  Fill(out, 2);
  uint32_t n = 0xA5A5A5A5u;
  Diags d;
  CHECK(hke_gfx_overrides_from_environment(env, out, 1, &n, &Diags::Fn, &d) ==
        hke::Exhausted().raw());
  CHECK(Untouched(out, 2));
  CHECK(n == 0xA5A5A5A5u);
  CHECK(d.Mentions("2 GFX version overrides"));
  CHECK(hke_gfx_overrides_from_environment(env, nullptr, 2, &n, nullptr, nullptr) ==
        hke::InvalidArgument().raw());
  CHECK(hke_gfx_overrides_from_environment(env, out, 2, nullptr, nullptr, nullptr) ==
        hke::InvalidArgument().raw());
  CHECK(Untouched(out, 2));
}

TEST_CASE("environment scan: every per-node variable of the build fits max_nodes + 1 entries") {
  hke_capacities caps;
  hke_build_capacities(&caps);
  std::vector<std::string> vars;
  vars.push_back("HSA_OVERRIDE_GFX_VERSION=1.0.0");
  for (uint32_t i = 0; i < caps.max_nodes; ++i) {
    vars.push_back("HSA_OVERRIDE_GFX_VERSION_" + std::to_string(i) + "=" + std::to_string(i % 64) +
                   ".1.2");
    vars.push_back("HSA_OVERRIDE_GFX_VERSION_" + std::to_string(i) + "=bad");  // shadowed
  }
  std::vector<const char*> env;
  for (const auto& v : vars) env.push_back(v.c_str());
  env.push_back(nullptr);
  std::vector<hke_gfx_override> out(caps.max_nodes + 1);
  uint32_t n = 0;
  REQUIRE(hke_gfx_overrides_from_environment(env.data(), out.data(), caps.max_nodes + 1, &n,
                                             nullptr, nullptr) == HKE_OK);
  REQUIRE(n == caps.max_nodes + 1);
  CHECK(Same(out[0], Ovr(HKE_GFX_OVERRIDE_ALL_NODES, 1, 0, 0)));
  for (uint32_t i = 0; i < caps.max_nodes; ++i) {
    CHECK(Same(out[i + 1], Ovr(i, static_cast<uint8_t>(i % 64), 1, 2)));
  }
}

TEST_CASE("hke_context_init rejects invalid gfx_overrides with INVALID_ARGUMENT, a diagnostic, and no context") {
  hke_capacities caps;
  hke_build_capacities(&caps);
  ContextStorage storage;
  REQUIRE(storage.mem != nullptr);
  struct Bad {
    std::vector<hke_gfx_override> list;
    uint32_t count;  // used instead of list.size() when list is empty
    const char* mentions;
  };
  std::vector<hke_gfx_override> too_many;
  for (uint32_t i = 0; i < caps.max_nodes; ++i) too_many.push_back(Ovr(i, 9, 0, 0));
  too_many.push_back(Ovr(HKE_GFX_OVERRIDE_ALL_NODES, 9, 0, 0));
  too_many.push_back(Ovr(0, 9, 0, 0));
  const Bad bad[] = {
      {{}, 1, "gfx_overrides is NULL"},
      {{Ovr(0, 64, 0, 0)}, 0, "has major 64, above 63"},
      {{Ovr(0, 9, 0, 0), Ovr(1, 9, 0, 0), Ovr(0, 10, 0, 0)}, 0, "gfx_overrides[2] repeats node 0"},
      {{Ovr(HKE_GFX_OVERRIDE_ALL_NODES, 9, 0, 0), Malformed(HKE_GFX_OVERRIDE_ALL_NODES)},
       0,
       "repeats the all-nodes entry"},
      {{Ovr(caps.max_nodes, 9, 0, 0)}, 0, "beyond this build's max_nodes"},
      {{Ovr(0, 9, 0, 0, 0x2)}, 0, "unknown flags"},
      {{Ovr(0, 9, 0, 0, HKE_GFX_OVERRIDE_MALFORMED)}, 0, "flagged MALFORMED but carries a version"},
      {too_many, 0, "exceeds max_nodes + 1"},
  };
  for (const Bad& b : bad) {
    INFO(b.mentions);
    Diags d;
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_linux_platform();
    c.diag = &Diags::Fn;
    c.diag_user = &d;
    c.gfx_overrides = b.list.empty() ? nullptr : b.list.data();
    c.gfx_override_count = b.list.empty() ? b.count : static_cast<uint32_t>(b.list.size());
    hke_context* ctx;
    Fill(&ctx);
    CHECK(hke_context_init(storage.mem.get(), storage.size, &c, &ctx) ==
          hke::InvalidArgument().raw());
    CHECK(Untouched(&ctx));
    CHECK(d.Mentions(b.mentions));
    // The default context refuses the same configuration.
    CHECK(hke_default_context_configure(&c) == hke::InvalidArgument().raw());
  }
}

TEST_CASE("hke_context_init accepts a full valid override list and does not keep the caller's array") {
  hke_capacities caps;
  hke_build_capacities(&caps);
  ContextStorage storage;
  std::vector<hke_gfx_override> list;
  list.push_back(Malformed(HKE_GFX_OVERRIDE_ALL_NODES));
  for (uint32_t i = 0; i < caps.max_nodes; ++i) list.push_back(Ovr(i, 63, 255, 255));
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = hke_linux_platform();
  c.gfx_overrides = list.data();
  c.gfx_override_count = static_cast<uint32_t>(list.size());
  hke_context* ctx = nullptr;
  REQUIRE(hke_context_init(storage.mem.get(), storage.size, &c, &ctx) == HKE_OK);
  CHECK(ctx != nullptr);
  hke_context_deinit(ctx);
  // A NULL list with count 0 is "no overrides".
  c.gfx_overrides = nullptr;
  c.gfx_override_count = 0;
  REQUIRE(hke_context_init(storage.mem.get(), storage.size, &c, &ctx) == HKE_OK);
  hke_context_deinit(ctx);
}

TEST_CASE("OverrideEngineId: per-node entries take precedence over the all-nodes entry; EngineId and names keep the hardware's version") {
  // datacenter-4gpu: nodes 0-1 are CPUs, 2-5 Aldebaran GPUs (gfx90a, 9.0.10).
  // Node 1 (a CPU) gets a per-node entry too, node 100 does not exist.
  SimBoard b("datacenter-4gpu", {Ovr(HKE_GFX_OVERRIDE_ALL_NODES, 11, 0, 2), Ovr(3, 10, 3, 0),
                                 Ovr(1, 9, 4, 2), Ovr(100, 12, 0, 1)});
  REQUIRE(b.status == HKE_OK);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(sys.NumNodes == 6);
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    INFO("node " << n);
    HsaNodeProperties p;
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (n < 2) {
      CHECK(p.NumFComputeCores == 0);
      CHECK(p.OverrideEngineId.Value == 0);  // CPU nodes ignore overrides
      continue;
    }
    CHECK(Of(p.EngineId) == Version{9, 0, 10});
    CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)) == "Aldebaran");
    CHECK(p.VGPRSizePerCU == 0x80000);
    CHECK(unsigned{p.OverrideEngineId.ui32.uCode} == 0);
    if (n == 3) {
      CHECK(Of(p.OverrideEngineId) == Version{10, 3, 0});
    } else {
      CHECK(Of(p.OverrideEngineId) == Version{11, 0, 2});
    }
  }
}

TEST_CASE("OverrideEngineId stays 0 without overrides, and covers an APU's GPU node") {
  {
    SimBoard b("datacenter-4gpu", {});
    REQUIRE(b.status == HKE_OK);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    for (uint32_t n = 0; n < sys.NumNodes; ++n) {
      HsaNodeProperties p;
      REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
      CHECK(p.OverrideEngineId.Value == 0);
    }
  }
  SimBoard b("apu-embedded", {Ovr(HKE_GFX_OVERRIDE_ALL_NODES, 9, 0, 0)});
  REQUIRE(b.status == HKE_OK);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  uint32_t gpus = 0;
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties p;
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.NumFComputeCores == 0) {
      CHECK(p.OverrideEngineId.Value == 0);
      continue;
    }
    ++gpus;
    CHECK(Of(p.EngineId) == Version{9, 0, 12});
    CHECK(Of(p.OverrideEngineId) == Version{9, 0, 0});
  }
  CHECK(gpus == 1);
}

TEST_CASE("a malformed override on a GPU node fails Acquire with HSAKMT_STATUS_ERROR, naming the variable") {
  struct Case {
    std::vector<hke_gfx_override> list;
    const char* variable;
  };
  const Case cases[] = {
      {{Malformed(3)}, "HSA_OVERRIDE_GFX_VERSION_3"},
      {{Malformed(HKE_GFX_OVERRIDE_ALL_NODES)}, "HSA_OVERRIDE_GFX_VERSION)"},
      // Nodes 2, 4 and 5 fall back to the malformed all-nodes entry.
      {{Malformed(HKE_GFX_OVERRIDE_ALL_NODES), Ovr(3, 9, 0, 0)}, "node 2 (HSA_OVERRIDE_GFX_VERSION)"},
  };
  for (const Case& c : cases) {
    INFO(c.variable);
    SimBoard b("datacenter-4gpu", c.list);
    REQUIRE(b.status == HKE_OK);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    Fill(&sys);
    CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_ERROR);
    CHECK(Untouched(&sys));
    CHECK(b.diags.Mentions(c.variable));
    CHECK(b.diags.Mentions("malformed"));
    // No snapshot was kept: the getters see none, and Acquire fails again.
    HsaNodeProperties p;
    Fill(&p);
    CHECK(hsaKmtGetNodeProperties(0, &p) == HSAKMT_STATUS_INVALID_NODE_UNIT);
    CHECK(Untouched(&p));
    CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_ERROR);
  }
}

TEST_CASE("a malformed override that applies to no GPU node does not fail Acquire") {
  // Node 0 is a CPU, node 100 does not exist; the malformed all-nodes entry
  // is shadowed on every GPU node by a per-node one (upstream reads the
  // per-node variable first and never looks at the other).
  SimBoard b("datacenter-4gpu", {Malformed(0), Malformed(100), Malformed(HKE_GFX_OVERRIDE_ALL_NODES),
                                 Ovr(2, 9, 0, 0), Ovr(3, 9, 0, 0), Ovr(4, 9, 0, 0), Ovr(5, 9, 0, 0)});
  REQUIRE(b.status == HKE_OK);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  HsaNodeProperties p;
  REQUIRE(hsaKmtGetNodeProperties(0, &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(p.OverrideEngineId.Value == 0);
  REQUIRE(hsaKmtGetNodeProperties(5, &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(Of(p.OverrideEngineId) == Version{9, 0, 0});
}
