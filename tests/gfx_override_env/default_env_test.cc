// The compat API's default context honours upstream's
// HSA_OVERRIDE_GFX_VERSION variables: read once, through
// hke_default_gfx_overrides(), when the default context is first
// initialised; hke_default_context_configure() ignores the environment.
//
// The default context initialises once per process, so every case runs in a
// forked child that sets its environment, then reports a nonzero exit code
// naming the first failed check (also printed to stderr).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"

namespace {

const char* g_board = "datacenter-4gpu";  // nodes 0-1 CPUs, 2-5 gfx90a GPUs

}  // namespace

// This executable's default platform: the simulator, created on first use
// (in the forked child).
extern "C" hke_platform hke_default_platform(void) {
  static kfdsim_t* sim = nullptr;
  if (sim == nullptr) {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = g_board;
    char error[256] = {};
    if (kfdsim_create(&o, &sim, error, sizeof(error)) != 0) {
      std::fprintf(stderr, "kfdsim_create: %s\n", error);
      std::_Exit(90);
    }
  }
  return hke_sim_platform(sim);
}

namespace {

#define CHILD_CHECK(code, cond)                                              \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "child check %d failed: %s\n", code, #cond);      \
      return code;                                                           \
    }                                                                        \
  } while (0)

using Env = std::initializer_list<std::pair<const char*, const char*>>;

// Runs body() in a child with `env` added; returns its exit code.
int InChild(Env env, int (*body)()) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& kv : env) setenv(kv.first, kv.second, 1);
    std::_Exit(body());
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 99;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool Is(const HSA_ENGINE_ID& e, unsigned major, unsigned minor, unsigned stepping) {
  return e.ui32.Major == major && e.ui32.Minor == minor && e.ui32.Stepping == stepping;
}

}  // namespace

TEST_CASE("the default context applies HSA_OVERRIDE_GFX_VERSION and the per-node variable first") {
  const int rc = InChild({{"HSA_OVERRIDE_GFX_VERSION", "11.0.2"},
                          {"HSA_OVERRIDE_GFX_VERSION_3", "10.3.0"},
                          {"HSA_OVERRIDE_GFX_VERSION_0", "1.2.3"}},  // a CPU node: ignored
                         [] {
                           CHILD_CHECK(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
                           HsaSystemProperties sys;
                           CHILD_CHECK(2, hsaKmtAcquireSystemProperties(&sys) ==
                                              HSAKMT_STATUS_SUCCESS);
                           CHILD_CHECK(3, sys.NumNodes == 6);
                           for (uint32_t n = 0; n < sys.NumNodes; ++n) {
                             HsaNodeProperties p;
                             CHILD_CHECK(4, hsaKmtGetNodeProperties(n, &p) ==
                                                HSAKMT_STATUS_SUCCESS);
                             if (n < 2) {
                               CHILD_CHECK(5, p.OverrideEngineId.Value == 0);
                               continue;
                             }
                             CHILD_CHECK(6, Is(p.EngineId, 9, 0, 10));
                             if (n == 3) {
                               CHILD_CHECK(7, Is(p.OverrideEngineId, 10, 3, 0));
                             } else {
                               CHILD_CHECK(8, Is(p.OverrideEngineId, 11, 0, 2));
                             }
                           }
                           return 0;
                         });
  CHECK(rc == 0);
}

TEST_CASE("a malformed HSA_OVERRIDE_GFX_VERSION makes Acquire fail with HSAKMT_STATUS_ERROR") {
  for (const char* value : {"9.0", "", "9.0.10 ", "64.0.0", "gfx90a"}) {
    INFO('"' << value << '"');
    static const char* v;
    v = value;
    const int rc = InChild({{"HSA_OVERRIDE_GFX_VERSION", v}}, [] {
      CHILD_CHECK(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
      HsaSystemProperties sys;
      std::memset(&sys, 0xA5, sizeof(sys));
      CHILD_CHECK(2, hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_ERROR);
      unsigned char ref[sizeof(sys)];
      std::memset(ref, 0xA5, sizeof(ref));
      CHILD_CHECK(3, std::memcmp(&sys, ref, sizeof(sys)) == 0);
      HsaNodeProperties p;
      CHILD_CHECK(4, hsaKmtGetNodeProperties(0, &p) == HSAKMT_STATUS_INVALID_NODE_UNIT);
      return 0;
    });
    CHECK(rc == 0);
  }
}

TEST_CASE("a malformed per-node variable fails only when its node is a GPU") {
  int rc = InChild({{"HSA_OVERRIDE_GFX_VERSION_1", "bad"}, {"HSA_OVERRIDE_GFX_VERSION_77", "bad"}},
                   [] {
                     CHILD_CHECK(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
                     HsaSystemProperties sys;
                     CHILD_CHECK(2, hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
                     return 0;
                   });
  CHECK(rc == 0);
  rc = InChild({{"HSA_OVERRIDE_GFX_VERSION", "9.0.10"}, {"HSA_OVERRIDE_GFX_VERSION_4", "9.0.x"}},
               [] {
                 CHILD_CHECK(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
                 HsaSystemProperties sys;
                 CHILD_CHECK(2, hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_ERROR);
                 return 0;
               });
  CHECK(rc == 0);
}

TEST_CASE("without the variables OverrideEngineId stays 0") {
  const int rc = InChild({}, [] {
    unsetenv("HSA_OVERRIDE_GFX_VERSION");
    for (int n = 0; n < 6; ++n) {
      char name[64];
      std::snprintf(name, sizeof(name), "HSA_OVERRIDE_GFX_VERSION_%d", n);
      unsetenv(name);
    }
    CHILD_CHECK(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    CHILD_CHECK(2, hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    for (uint32_t n = 0; n < sys.NumNodes; ++n) {
      HsaNodeProperties p;
      CHILD_CHECK(3, hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
      CHILD_CHECK(4, p.OverrideEngineId.Value == 0);
    }
    return 0;
  });
  CHECK(rc == 0);
}

TEST_CASE("hke_default_context_configure ignores the environment") {
  const int rc = InChild({{"HSA_OVERRIDE_GFX_VERSION", "not-a-version"}}, [] {
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_default_platform();
    CHILD_CHECK(1, hke_default_context_configure(&c) == HKE_OK);
    CHILD_CHECK(2, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    CHILD_CHECK(3, hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    HsaNodeProperties p;
    CHILD_CHECK(4, hsaKmtGetNodeProperties(2, &p) == HSAKMT_STATUS_SUCCESS);
    CHILD_CHECK(5, p.OverrideEngineId.Value == 0);
    return 0;
  });
  CHECK(rc == 0);
}

TEST_CASE("hke_default_gfx_overrides reads this process's environment") {
  const int rc = InChild({{"HSA_OVERRIDE_GFX_VERSION_2", "9.4.2"},
                          {"HSA_OVERRIDE_GFX_VERSION", "x"}},
                         [] {
                           hke_gfx_override out[4];
                           uint32_t n = 0;
                           CHILD_CHECK(1, hke_default_gfx_overrides(out, 4, &n) == HKE_OK);
                           CHILD_CHECK(2, n == 2);
                           bool node2 = false, all = false;
                           for (uint32_t i = 0; i < n; ++i) {
                             if (out[i].node == 2) {
                               node2 = out[i].major == 9 && out[i].minor == 4 &&
                                       out[i].stepping == 2 && out[i].flags == 0;
                             } else if (out[i].node == HKE_GFX_OVERRIDE_ALL_NODES) {
                               all = out[i].flags == HKE_GFX_OVERRIDE_MALFORMED;
                             }
                           }
                           CHILD_CHECK(3, node2 && all);
                           return 0;
                         });
  CHECK(rc == 0);
}
