// hke_context: all state of one KFD client, in caller-owned storage.
//
// A context is created by hke_context_init() in storage the caller provides
// and destroyed by hke_context_deinit(). It is the composition root of
// lib/: it holds the platform, the diagnostics sink, the configuration, the
// open gate and the open epoch itself, and one state object per module,
// each defined in its module's own header with its meaning, ownership and
// threading (device/state.h, topology/state.h, memory/memory.h,
// events/events.h, queues/queues.h, debug/debug.h, profile/profile.h,
// pmc/pmc.h), next to the lock that guards it. A module writes only its
// own state; it reads another module's facts through that module's
// functions. Nothing is heap-allocated; the topology snapshot and the
// memory object table make a context large (see
// hke_context_storage_size()).
//
// Threading: open and close hold open_gate() exclusively and every other
// public call holds it shared (lib/context/open_gate.h), so the device
// fields Open writes and the state a close tears down never change under a
// call. Inside that, each subsystem's state is serialised by its own lock
// (a platform mutex, or a spin lock when the platform has none:
// lib/core/lock.h); one thread takes them only in rank order, the order
// lib/README.md ("Locks") gives and debug builds check. Different contexts
// are independent.
#ifndef HKE_LIB_CONTEXT_CONTEXT_H_
#define HKE_LIB_CONTEXT_CONTEXT_H_

#include <atomic>
#include <cstdint>

#include "hsakmt/hsakmt_embedded.h"
#include "lib/context/open_gate.h"
#include "lib/core/config.h"
#include "lib/core/diag.h"
#include "lib/core/lock.h"
#include "lib/core/platform.h"
#include "lib/core/status.h"
// The composition root: each module's state header, nothing else of the
// modules (tests/gates/module_order_gate.sh checks the list).
#include "lib/debug/debug.h"
#include "lib/device/state.h"
#include "lib/events/events.h"
#include "lib/memory/memory.h"
#include "lib/pmc/pmc.h"
#include "lib/profile/profile.h"
#include "lib/queues/queues.h"
#include "lib/topology/gfx_override.h"
#include "lib/topology/state.h"

namespace hke {

class Context {
 public:
  static constexpr uint32_t kMagic = 0x484b4543u;  // "HKEC"

  Context(const hke_config& config, const Platform& platform);

  bool valid() const { return magic_ == kMagic; }
  // Marks the context dead and ends its locks' platform mutexes
  // (hke_context_deinit, under the exclusive gate, after the teardown).
  void Invalidate();

  const Platform& platform() const { return platform_; }
  const Diag& diag() const { return diag_; }
  // The configuration as given, except gfx_overrides (NULL, count 0): the
  // context keeps its own copy of them, gfx_overrides().
  const hke_config& config() const { return config_; }
  const topology::GfxOverrideTable& gfx_overrides() const { return gfx_overrides_; }
  // Takes another context's overrides (a secondary context opened for the
  // default one inherits them). Before the first open only.
  void InheritGfxOverrides(const Context& from) { gfx_overrides_ = from.gfx_overrides_; }
  const char* topology_root() const;
  bool discovery_only() const { return (config_.flags & HKE_CONFIG_DISCOVERY_ONLY) != 0; }
  // A secondary KFD context (HKE_CONFIG_SECONDARY_PROCESS): its own
  // kfd_process; user-memory registration, SVM and the debugger are the
  // primary's only.
  bool secondary() const { return (config_.flags & HKE_CONFIG_SECONDARY_PROCESS) != 0; }
  // Which context the id of a PMC trace names (lib/pmc: the id's top byte),
  // so that the context-less hsaKmtPmcStart/Query/StopTrace find it: 0 the
  // default context, 1 + k secondary slot k (lib/api/secondary_contexts.cc),
  // kNoTraceTag a caller-owned context, which cannot register traces. Set
  // once, before the context is shared.
  static constexpr uint8_t kNoTraceTag = 0xFF;
  uint8_t trace_tag() const { return trace_tag_; }
  void set_trace_tag(uint8_t tag) { trace_tag_ = tag; }

  // Open/close against every other call (lib/context/open_gate.h): the
  // outermost lock, taken only by the API layer.
  OpenGate& open_gate() { return open_gate_; }

  // The device module (lib/device/state.h).
  Mutex& lock() { return lock_; }
  device::DeviceState& device() { return device_; }
  const device::DeviceState& device() const { return device_; }
  // Counts first opens; state derived while the device was open carries
  // the epoch it was derived in and is stale once it differs. Advanced
  // under lock(); read anywhere (the PMC and profiling tables compare it
  // under their own locks), hence atomic.
  uint32_t open_epoch() const { return open_epoch_.load(std::memory_order_acquire); }
  void advance_open_epoch() { open_epoch_.fetch_add(1, std::memory_order_acq_rel); }

  // The topology module (lib/topology/state.h).
  Mutex& topology_lock() { return topology_lock_; }
  topology::TopologyState& topology() { return topology_; }

  // The memory subsystem (lib/memory/memory.h).
  Mutex& memory_lock() { return memory_lock_; }
  memory::MemoryState& memory() { return memory_; }

  // The events subsystem (lib/events/events.h).
  Mutex& events_setup_lock() { return events_setup_lock_; }
  Mutex& events_lock() { return events_lock_; }
  events::EventsState& events() { return events_; }

  // The queues subsystem (lib/queues/queues.h).
  Mutex& queues_lock() { return queues_lock_; }
  queues::QueuesState& queues() { return queues_; }

  // The debugger state (lib/debug/debug.h).
  Mutex& debug_lock() { return debug_lock_; }
  debug::DebugState& debug() { return debug_; }
  // SPM and PC-sampling bookkeeping (lib/profile/profile.h).
  Mutex& profile_lock() { return profile_lock_; }
  profile::ProfileState& profile() { return profile_; }
  // Performance counters and traces (lib/pmc/pmc.h).
  Mutex& pmc_lock() { return pmc_lock_; }
  pmc::PmcState& pmc() { return pmc_; }

 private:
  uint32_t magic_;
  uint8_t trace_tag_ = kNoTraceTag;
  hke_config config_;
  Platform platform_;
  Diag diag_;
  OpenGate open_gate_;
  Mutex lock_{LockRank::kDevice};
  device::DeviceState device_;
  std::atomic<uint32_t> open_epoch_{0};
  Mutex topology_lock_{LockRank::kTopology};
  topology::TopologyState topology_;
  topology::GfxOverrideTable gfx_overrides_;
  Mutex memory_lock_{LockRank::kMemory};
  // Not value-initialised: the object table and the range nodes are tens
  // of megabytes in the default configuration and are touched lazily;
  // the constructor sets only the small members (MemoryState::Construct).
  memory::MemoryState memory_;
  Mutex events_setup_lock_{LockRank::kEventsSetup};
  Mutex events_lock_{LockRank::kEvents};
  // Only the small members are initialised (their initialisers); the
  // table, the HsaEvent views and the wait pool are touched lazily.
  events::EventsState events_;
  Mutex queues_lock_{LockRank::kQueues};
  // Only the small members and the doorbell table are initialised; the
  // descriptor slots are touched lazily.
  queues::QueuesState queues_;
  Mutex debug_lock_{LockRank::kLeaf};
  // Only the small members are initialised; the snapshot blocks are
  // touched by the snapshot calls.
  debug::DebugState debug_;
  Mutex profile_lock_{LockRank::kLeaf};
  profile::ProfileState profile_;
  Mutex pmc_lock_{LockRank::kLeaf};
  // Only the small members are initialised; the blobs are touched when
  // built.
  pmc::PmcState pmc_;
};

// An exclusive hold of a context's open gate for one scope: open, close
// and context teardown (lib/context/open_gate.h).
class ExclusiveGate {
 public:
  explicit ExclusiveGate(Context& ctx);
  ~ExclusiveGate() { ctx_.open_gate().LeaveExclusive(); }
  ExclusiveGate(const ExclusiveGate&) = delete;
  ExclusiveGate& operator=(const ExclusiveGate&) = delete;

 private:
  Context& ctx_;
};

// UNSUPPORTED, with a diagnostic in `area` naming `what`, when `ctx` is a
// secondary context (the kernel serves `what` to the primary kfd_process
// only); OK otherwise.
Status RequirePrimary(Context& ctx, const char* area, const char* what);

// Checks a configuration (gfx_overrides included); reports the reason
// through its diag callback.
Status ValidateConfig(const hke_config* config);

// Copies a caller's configuration of any known layout (struct_size from the
// first hke_config up to this library's) into *out with the fields it lacks
// zeroed, then validates it. *out is written only on success.
Status NormalizeConfig(const hke_config* config, hke_config* out);

}  // namespace hke

// The public opaque type is the C++ context itself.
struct hke_context {
  hke::Context impl;
};

#endif  // HKE_LIB_CONTEXT_CONTEXT_H_
