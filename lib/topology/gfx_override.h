// GFX version overrides (hke_gfx_override, upstream's
// HSA_OVERRIDE_GFX_VERSION[_<node>]) as a context holds them: one slot per
// user node plus the all-nodes slot, so resolving a node is O(1).
//
// The public parser and environment scanner (hsakmt_embedded.h) live in
// gfx_override.cc too; nothing here reads the environment itself.
//
// Threading: a table is written once, while its context is constructed, and
// only read afterwards.
#ifndef HKE_LIB_TOPOLOGY_GFX_OVERRIDE_H_
#define HKE_LIB_TOPOLOGY_GFX_OVERRIDE_H_

#include <cstdint>

#include "hsakmt/hsakmt_embedded.h"
#include "lib/core/config.h"
#include "lib/core/diag.h"
#include "lib/core/status.h"

namespace hke::topology {

struct NodeRecord;
class Snapshot;

struct GfxOverride {
  enum State : uint8_t { kNone = 0, kValue = 1, kMalformed = 2 };
  uint8_t state = kNone;
  uint8_t major = 0;
  uint8_t minor = 0;
  uint8_t stepping = 0;
};

class GfxOverrideTable {
 public:
  // Most entries a configuration may hold: one per node and the all-nodes
  // one.
  static constexpr uint32_t kMaxEntries = config::kMaxNodes + 1;

  // Checks a configuration's list: count within kMaxEntries, a list when
  // count > 0, node ids below kMaxNodes or HKE_GFX_OVERRIDE_ALL_NODES and
  // unique, major within HKE_GFX_OVERRIDE_MAX_MAJOR, flags known, a
  // malformed entry's version zero. INVALID_ARGUMENT with a diagnostic
  // naming the entry.
  static Status Validate(const hke_gfx_override* list, uint32_t count, const Diag& diag);

  // Replaces the table with a list Validate accepted.
  void Assign(const hke_gfx_override* list, uint32_t count);

  // What applies to user node `node`: its own entry, else the all-nodes
  // entry. *per_node tells which (may be null). Null when neither is set.
  const GfxOverride* Resolve(uint32_t node, bool* per_node = nullptr) const;

  bool empty() const { return count_ == 0; }

 private:
  GfxOverride per_node_[config::kMaxNodes];
  GfxOverride all_;
  uint32_t count_ = 0;
};

// True when upstream consults the override for this node: it has SIMDs
// and a GFX version (gfx_target_version, or a device-table hit).
bool GfxOverrideApplies(const NodeRecord& r);

// Upstream fails the whole snapshot when a node the override applies to
// resolves to a malformed value: INVALID_ARGUMENT naming the node and the
// variable, or OK. Reads only the snapshot's records.
Status CheckGfxOverrides(const Snapshot& snap, const GfxOverrideTable& table, const Diag& diag);

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_GFX_OVERRIDE_H_
