// GFX version overrides: the strict text parser, the environment-block
// scanner (both public, hsakmt_embedded.h), the per-context table and
// upstream's "a malformed override fails the snapshot" rule.
#include "lib/topology/gfx_override.h"

#include <cstddef>
#include <cstring>

#include "lib/core/text.h"
#include "lib/topology/gfx.h"
#include "lib/topology/keys.h"
#include "lib/topology/snapshot.h"

namespace hke::topology {
namespace {

constexpr const char* kArea = "topology";
constexpr char kVariable[] = "HSA_OVERRIDE_GFX_VERSION";
constexpr size_t kVariableLength = sizeof(kVariable) - 1;
constexpr uint32_t kAll = HKE_GFX_OVERRIDE_ALL_NODES;
constexpr uint32_t kSeenWords = (config::kMaxNodes + 31) / 32;

// Node ids already taken, plus the all-nodes entry.
class SeenSet {
 public:
  // Marks `node` (below kMaxNodes or kAll); false when it was marked.
  bool Mark(uint32_t node) {
    if (node == kAll) {
      if (all_) return false;
      all_ = true;
      return true;
    }
    const uint32_t bit = 1u << (node % 32);
    if ((bits_[node / 32] & bit) != 0) return false;
    bits_[node / 32] |= bit;
    return true;
  }

 private:
  uint32_t bits_[kSeenWords] = {};
  bool all_ = false;
};

// Appends at most 40 bytes of `s`, control and non-ASCII bytes as '?'.
void AppendShown(TextBuilder& m, const char* s) {
  size_t i = 0;
  for (; s[i] != '\0' && i < 40; ++i) {
    const char c = s[i];
    m.AppendChar(c >= 0x20 && c < 0x7f ? c : '?');
  }
  if (s[i] != '\0') m.Append("...");
}

void AppendVariable(TextBuilder& m, uint32_t node) {
  m.Append(kVariable);
  if (node != kAll) m.AppendChar('_').AppendU64(node);
}

}  // namespace

Status GfxOverrideTable::Validate(const hke_gfx_override* list, uint32_t count, const Diag& diag) {
  if (count == 0) return Status::Ok();
  if (list == nullptr) {
    return diag.Error(InvalidArgument(), "context",
                      "hke_config.gfx_overrides is NULL but gfx_override_count is not 0");
  }
  if (count > kMaxEntries) {
    FixedText<128> m;
    m.Append("hke_config.gfx_override_count ").AppendU64(count);
    m.Append(" exceeds max_nodes + 1 (").AppendU64(kMaxEntries).Append(")");
    return diag.Error(InvalidArgument(), "context", m.c_str());
  }
  SeenSet seen;
  for (uint32_t i = 0; i < count; ++i) {
    const hke_gfx_override& e = list[i];
    FixedText<160> m;
    m.Append("hke_config.gfx_overrides[").AppendU64(i).Append("] ");
    const char* problem = nullptr;
    if ((e.flags & ~HKE_GFX_OVERRIDE_MALFORMED) != 0) {
      problem = "has unknown flags";
    } else if (e.node != kAll && e.node >= config::kMaxNodes) {
      m.Append("names node ").AppendU64(e.node).Append(", beyond this build's max_nodes (");
      m.AppendU64(config::kMaxNodes).Append(")");
      problem = "";
    } else if ((e.flags & HKE_GFX_OVERRIDE_MALFORMED) != 0 &&
               (e.major | e.minor | e.stepping) != 0) {
      problem = "is flagged MALFORMED but carries a version";
    } else if (e.major > HKE_GFX_OVERRIDE_MAX_MAJOR) {
      m.Append("has major ").AppendU64(e.major).Append(", above 63");
      problem = "";
    } else if (!seen.Mark(e.node)) {
      if (e.node == kAll) {
        problem = "repeats the all-nodes entry";
      } else {
        m.Append("repeats node ").AppendU64(e.node);
        problem = "";
      }
    }
    if (problem != nullptr) {
      m.Append(problem);
      return diag.Error(InvalidArgument(), "context", m.c_str());
    }
  }
  return Status::Ok();
}

void GfxOverrideTable::Assign(const hke_gfx_override* list, uint32_t count) {
  for (GfxOverride& o : per_node_) o = GfxOverride{};
  all_ = GfxOverride{};
  count_ = 0;
  for (uint32_t i = 0; i < count && list != nullptr; ++i) {
    const hke_gfx_override& e = list[i];
    GfxOverride o;
    if ((e.flags & HKE_GFX_OVERRIDE_MALFORMED) != 0) {
      o.state = GfxOverride::kMalformed;
    } else {
      o.state = GfxOverride::kValue;
      o.major = e.major;
      o.minor = e.minor;
      o.stepping = e.stepping;
    }
    if (e.node == kAll) {
      all_ = o;
    } else if (e.node < config::kMaxNodes) {
      per_node_[e.node] = o;
    } else {
      continue;
    }
    ++count_;
  }
}

const GfxOverride* GfxOverrideTable::Resolve(uint32_t node, bool* per_node) const {
  if (node < config::kMaxNodes && per_node_[node].state != GfxOverride::kNone) {
    if (per_node != nullptr) *per_node = true;
    return &per_node_[node];
  }
  if (all_.state != GfxOverride::kNone) {
    if (per_node != nullptr) *per_node = false;
    return &all_;
  }
  return nullptr;
}

bool GfxOverrideApplies(const NodeRecord& r) {
  if (r.Get32(kSimdCount) == 0) return false;
  const uint32_t gfxv = r.Get32(kGfxTargetVersion);
  if (gfxv != 0) return true;
  return FindGfxIpByDeviceId(static_cast<uint16_t>(r.Get32(kDeviceId)),
                             DecodeGfxTargetVersion(gfxv).major) != nullptr;
}

Status CheckGfxOverrides(const Snapshot& snap, const GfxOverrideTable& table, const Diag& diag) {
  if (table.empty()) return Status::Ok();
  for (uint32_t u = 0; u < snap.num_nodes(); ++u) {
    const NodeRecord* r = snap.node(u);
    if (r == nullptr || !GfxOverrideApplies(*r)) continue;
    bool per_node = false;
    const GfxOverride* o = table.Resolve(u, &per_node);
    if (o == nullptr || o->state != GfxOverride::kMalformed) continue;
    FixedText<192> m;
    m.Append("the GFX version override of node ").AppendU64(u).Append(" (");
    AppendVariable(m, per_node ? u : kAll);
    m.Append(") is malformed; the snapshot fails, as upstream's");
    return diag.Error(InvalidArgument(), kArea, m.c_str());
  }
  return Status::Ok();
}

}  // namespace hke::topology

extern "C" {

hke_status_t hke_gfx_override_parse(const char* text, size_t len, uint32_t node,
                                    hke_gfx_override* out) {
  if (out == nullptr || (text == nullptr && len != 0)) return hke::InvalidArgument().raw();
  constexpr uint32_t kLimit[3] = {HKE_GFX_OVERRIDE_MAX_MAJOR, 255, 255};
  uint32_t value[3] = {0, 0, 0};
  uint32_t part = 0;
  size_t digits = 0;
  for (size_t i = 0; i < len; ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      // A value past its limit stays past it without growing further.
      if (value[part] <= kLimit[part]) value[part] = value[part] * 10 + static_cast<uint32_t>(c - '0');
      ++digits;
    } else if (c == '.' && digits != 0 && part < 2) {
      ++part;
      digits = 0;
    } else {
      return hke::InvalidArgument().raw();
    }
  }
  if (part != 2 || digits == 0) return hke::InvalidArgument().raw();
  for (uint32_t p = 0; p < 3; ++p) {
    if (value[p] > kLimit[p]) return hke::OutOfRange().raw();
  }
  hke_gfx_override o;
  o.node = node;
  o.major = static_cast<uint8_t>(value[0]);
  o.minor = static_cast<uint8_t>(value[1]);
  o.stepping = static_cast<uint8_t>(value[2]);
  o.flags = 0;
  *out = o;
  return HKE_OK;
}

hke_status_t hke_gfx_overrides_from_environment(const char* const* envp, hke_gfx_override* out,
                                                uint32_t capacity, uint32_t* out_count,
                                                hke_diag_fn diag_fn, void* diag_user) {
  using hke::topology::GfxOverrideTable;
  using hke::topology::kAll;
  using hke::topology::kVariable;
  using hke::topology::kVariableLength;
  if (out_count == nullptr || (out == nullptr && capacity != 0)) {
    return hke::InvalidArgument().raw();
  }
  const hke::Diag diag(diag_fn, diag_user);
  hke_gfx_override found[GfxOverrideTable::kMaxEntries];
  uint32_t n = 0;
  hke::topology::SeenSet seen;
  for (const char* const* e = envp; e != nullptr && *e != nullptr; ++e) {
    const char* s = *e;
    if (std::strncmp(s, kVariable, kVariableLength) != 0) continue;
    const char* p = s + kVariableLength;
    uint32_t node = kAll;
    if (*p == '_') {
      // The node id as upstream prints it: canonical decimal.
      ++p;
      if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9')) continue;
      uint64_t v = 0;
      for (; *p >= '0' && *p <= '9'; ++p) {
        if (v <= 0xffffffffu) v = v * 10 + static_cast<uint64_t>(*p - '0');
      }
      if (*p != '=') continue;
      if (v >= hke::config::kMaxNodes) {
        hke::FixedText<160> m;
        m.Append(s, static_cast<size_t>(p - s) < 64 ? static_cast<size_t>(p - s) : 64);
        m.Append(" names a node beyond this build's max_nodes (");
        m.AppendU64(hke::config::kMaxNodes).Append("); ignored");
        (void)diag.Report(HKE_DIAG_WARNING, hke::OutOfRange(), "topology", m.c_str());
        continue;
      }
      node = static_cast<uint32_t>(v);
    } else if (*p != '=') {
      continue;  // another variable sharing the prefix
    }
    if (!seen.Mark(node)) continue;  // getenv sees the first one only
    if (n >= GfxOverrideTable::kMaxEntries) break;  // unreachable: one entry per mark
    const char* value = p + 1;
    hke_gfx_override o;
    const hke::Status parsed(hke_gfx_override_parse(value, std::strlen(value), node, &o));
    if (!parsed.ok()) {
      o.node = node;
      o.major = o.minor = o.stepping = 0;
      o.flags = HKE_GFX_OVERRIDE_MALFORMED;
      hke::FixedText<192> m;
      hke::topology::AppendVariable(m, node);
      m.Append("=\"");
      hke::topology::AppendShown(m, value);
      m.Append("\" is not major.minor.stepping within 63.255.255; a snapshot that applies it fails");
      (void)diag.Report(HKE_DIAG_WARNING, parsed, "topology", m.c_str());
    }
    found[n++] = o;
  }
  if (n > capacity) {
    hke::FixedText<128> m;
    m.Append("the environment sets ").AppendU64(n).Append(" GFX version overrides; room for ");
    m.AppendU64(capacity);
    return diag.Error(hke::Exhausted(), "topology", m.c_str()).raw();
  }
  if (n != 0) std::memcpy(out, found, n * sizeof(found[0]));
  *out_count = n;
  return HKE_OK;
}

}  // extern "C"
