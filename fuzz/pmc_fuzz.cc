// Fuzzes the PMC trace API on the simulator (datacenter-4gpu, in-process
// platform, its IOMMU PMU): each input is up to 48 calls of
// RegisterTrace (arbitrary blocks, ids, types, counts and nodes),
// Unregister / Acquire / Release on a live, stale or forged id and a node,
// Start (buffer NULL or the harness's scratch, arbitrary size), Query and
// Stop. A model keeps the live ids with their node and privileged-counter
// count. Invariants: every status is one the API documents; an id the
// model does not hold is never accepted (INVALID_HANDLE, or
// INVALID_PARAMETER for 0); a refused RegisterTrace leaves TraceRoot's 0xA5
// fill; a new id is distinct from every live one; Query writes at most 8
// bytes per privileged counter (of the largest trace so far; the buffer is
// shared); after the input every trace
// is unregistered and the simulator has no perf counter open.
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>

#include "fuzz/fuzz_input.h"
#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"

using hke::fuzz::Input;

namespace {

struct Live {
  uint32_t node;
  uint32_t privileged;
};

kfdsim_t* g_sim = nullptr;
uint32_t g_nodes = 0;

void Setup() {
  if (g_sim != nullptr) return;
  kfdsim_options o{};
  o.struct_size = sizeof(o);
  o.board_name = "datacenter-4gpu";
  char error[256] = {};
  if (kfdsim_create(&o, &g_sim, error, sizeof(error)) != 0) __builtin_trap();
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = hke_sim_platform(g_sim);
  if (hke_default_context_configure(&c) != HKE_OK) __builtin_trap();
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) __builtin_trap();
  HsaSystemProperties sys{};
  if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) __builtin_trap();
  g_nodes = sys.NumNodes;
}

bool Known(HSAKMT_STATUS s) {
  switch (s) {
    case HSAKMT_STATUS_SUCCESS:
    case HSAKMT_STATUS_ERROR:
    case HSAKMT_STATUS_INVALID_PARAMETER:
    case HSAKMT_STATUS_INVALID_HANDLE:
    case HSAKMT_STATUS_INVALID_NODE_UNIT:
    case HSAKMT_STATUS_OUT_OF_RESOURCES:
    case HSAKMT_STATUS_UNAVAILABLE:
    case HSAKMT_STATUS_NOT_SUPPORTED:
      return true;
    default:
      return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Setup();
  Input in(data, size);
  std::map<HSATraceId, Live> live;
  HSATraceId stale[8] = {};
  uint32_t stale_count = 0;
  uint32_t max_privileged = 0;  // the scratch buffer is shared by every trace
  alignas(8) unsigned char scratch[256];
  std::memset(scratch, 0xA5, sizeof(scratch));
  for (int step = 0; step < 48 && in.remaining() != 0; ++step) {
    const uint8_t op = in.U8() % 7;
    const uint32_t node = in.U8() % (g_nodes + 2);
    // The id: a live one, a stale one, or arbitrary bytes.
    HSATraceId id = 0;
    const uint8_t pick = in.U8();
    if ((pick & 3) == 0 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(pick >> 2) % static_cast<long>(live.size()));
      id = it->first;
    } else if ((pick & 3) == 1 && stale_count != 0) {
      id = stale[(pick >> 2) % stale_count];
    } else {
      id = in.U64();
    }
    const auto found = live.find(id);
    const bool is_live = found != live.end();
    HSAKMT_STATUS s = HSAKMT_STATUS_SUCCESS;
    if (op == 0) {
      HsaCounter c[20];
      const uint32_t n = in.U8() % 21;
      uint32_t privileged = 0;
      for (uint32_t i = 0; i < n; ++i) {
        std::memset(&c[i], 0, sizeof(c[i]));
        c[i].BlockIndex = in.U8() % 27;
        c[i].CounterId = in.Bool() ? in.U8() : in.U64();
        c[i].Type = static_cast<HSA_PROFILE_TYPE>(in.U8() % 5);
        if (c[i].BlockIndex == 24) ++privileged;
      }
      HsaPmcTraceRoot root;
      std::memset(&root, 0xA5, sizeof(root));
      s = hsaKmtPmcRegisterTrace(node, n, in.Bool() ? nullptr : c, &root);
      if (s == HSAKMT_STATUS_SUCCESS) {
        // HsaPmcTraceRoot is packed: TraceId is read by value, never bound.
        const HSATraceId new_id = root.TraceId;
        if (new_id == 0 || live.count(new_id) != 0) __builtin_trap();
        if (root.NumberOfPasses != 1) __builtin_trap();
        if (root.TraceBufferMinSizeBytes < uint64_t{privileged} * 8) __builtin_trap();
        live[new_id] = Live{node, privileged};
        if (privileged > max_privileged) max_privileged = privileged;
      } else {
        const unsigned char* r = reinterpret_cast<const unsigned char*>(&root);
        for (size_t i = 0; i < sizeof(root); ++i) {
          if (r[i] != 0xA5) __builtin_trap();
        }
      }
    } else if (op <= 3) {
      s = op == 1   ? hsaKmtPmcUnregisterTrace(node, id)
          : op == 2 ? hsaKmtPmcAcquireTraceAccess(node, id)
                    : hsaKmtPmcReleaseTraceAccess(node, id);
      if (s == HSAKMT_STATUS_SUCCESS && (!is_live || found->second.node != node)) __builtin_trap();
      if (s == HSAKMT_STATUS_SUCCESS && op == 1) {
        live.erase(found);
        stale[stale_count < 8 ? stale_count++ : (pick % 8)] = id;
      }
    } else if (op == 4) {
      const uint64_t bytes = in.U8();
      s = hsaKmtPmcStartTrace(id, in.Bool() ? nullptr : scratch, bytes);
      if (s == HSAKMT_STATUS_SUCCESS && !is_live) __builtin_trap();
    } else {
      s = op == 5 ? hsaKmtPmcQueryTrace(id) : hsaKmtPmcStopTrace(id);
      if (s == HSAKMT_STATUS_SUCCESS && !is_live) __builtin_trap();
      if (s == HSAKMT_STATUS_SUCCESS && op == 5) {
        for (size_t i = size_t{max_privileged} * 8; i < sizeof(scratch); ++i) {
          if (scratch[i] != 0xA5) __builtin_trap();
        }
      }
    }
    if (!Known(s)) __builtin_trap();
    if (!is_live && id != 0 && op != 0 && s != HSAKMT_STATUS_INVALID_HANDLE &&
        s != HSAKMT_STATUS_INVALID_PARAMETER) {
      __builtin_trap();
    }
  }
  for (const auto& t : live) {
    if (hsaKmtPmcUnregisterTrace(t.second.node, t.first) != HSAKMT_STATUS_SUCCESS) __builtin_trap();
  }
  if (kfdsim_perf_open_count(g_sim) != 0) __builtin_trap();
  return 0;
}
