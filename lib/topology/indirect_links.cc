// Upstream's indirect io links between nodes the kernel does not link
// directly (derived.h). Rules, for an ordered pair (n1, n2), n1 != n2:
//  - none between two CPU nodes, none inside one XGMI hive (equal nonzero
//    hive ids), none towards a GPU without a FB_PUBLIC memory bank;
//  - a GPU's "direct CPU" is the target of its first PCIe link of weight
//    <= 20; at least one end must have one;
//  - GPU-CPU-GPU (same direct CPU), GPU-CPU-CPU-GPU (refused across a QPI
//    link heavier than 20: different sockets), GPU-CPU-CPU, CPU-CPU-GPU;
//    every hop must be an existing link (the first one found to that
//    node, new links included); type = that of the middle hop, weight =
//    the sum of the hop weights;
//  - a node holds at most (nodes - 1) links; further ones are dropped.
#include <cstring>

#include "lib/core/text.h"
#include "lib/topology/derived.h"

namespace hke::topology {
namespace {

constexpr const char* kArea = "topology";
constexpr uint32_t kPcie = HSA_IOLINKTYPE_PCIEXPRESS;
constexpr uint32_t kQpi = HSA_IOLINK_TYPE_QPI_1_1;
constexpr uint32_t kDirectCpuMaxWeight = 20;
constexpr uint32_t kSameSocketMaxWeight = 20;

}  // namespace

const LinkRecord* IndirectLinkBuilder::LinkAt(uint32_t node, uint32_t i) const {
  const NodeRecord& n = s_.nodes[node];
  if (i >= n.num_links) return nullptr;
  if (placing_ || i < n.num_sysfs_links) return &s_.links[n.first_link + i];
  // First pass: the node's new links are in the tail, in creation order.
  uint32_t want = i - n.num_sysfs_links;
  for (uint32_t t = tail_begin_; t < tail_end_; ++t) {
    if (s_.links[t].v[kNodeFrom] != node) continue;
    if (want-- == 0) return &s_.links[t];
  }
  return nullptr;
}

const LinkRecord* IndirectLinkBuilder::Direct(uint32_t from, uint32_t to) const {
  for (uint32_t i = 0;; ++i) {
    const LinkRecord* l = LinkAt(from, i);
    if (l == nullptr) return nullptr;
    if (l->v[kNodeTo] == to) return l;
  }
}

int32_t IndirectLinkBuilder::DirectCpu(uint32_t gpu) const {
  if (!s_.nodes[gpu].is_gpu()) return -1;
  for (uint32_t i = 0;; ++i) {
    const LinkRecord* l = LinkAt(gpu, i);
    if (l == nullptr) return -1;
    if (l->v[kLinkType] == kPcie && l->v[kWeight] <= kDirectCpuMaxWeight) {
      return static_cast<int32_t>(l->v[kNodeTo]);
    }
  }
}

bool IndirectLinkBuilder::HasPublicFrameBuffer(uint32_t node) const {
  const NodeRecord& n = s_.nodes[node];
  for (uint32_t b = 0; b < n.num_mem_banks; ++b) {
    if (s_.banks[n.first_bank + b].heap_type == HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC) return true;
  }
  return false;
}

bool IndirectLinkBuilder::Indirect(uint32_t n1, uint32_t n2, uint32_t* weight,
                                   uint32_t* type) const {
  const NodeRecord& a = s_.nodes[n1];
  const NodeRecord& b = s_.nodes[n2];
  if (n1 == n2 || (!a.is_gpu() && !b.is_gpu())) return false;
  const uint64_t hive_a = a.Get64(kHiveId);
  if (hive_a != 0 && hive_a == b.Get64(kHiveId)) return false;
  const int32_t cpu1 = a.is_gpu() ? DirectCpu(n1) : -1;
  const int32_t cpu2 = b.is_gpu() ? DirectCpu(n2) : -1;
  if (cpu1 < 0 && cpu2 < 0) return false;
  if (b.is_gpu() && !HasPublicFrameBuffer(n2)) return false;

  const auto c1 = static_cast<uint32_t>(cpu1);
  const auto c2 = static_cast<uint32_t>(cpu2);
  const LinkRecord* hop1 = nullptr;  // n1 -> its CPU
  const LinkRecord* hop2 = nullptr;  // the middle hop: gives the type
  const LinkRecord* hop3 = nullptr;  // CPU -> n2
  if (cpu1 >= 0) {
    hop1 = Direct(n1, c1);
    if (hop1 == nullptr) return false;
    if (cpu2 >= 0 && c1 != c2) {  // GPU-CPU-CPU-GPU
      hop2 = Direct(c1, c2);
      if (hop2 == nullptr) return false;
      if (hop2->v[kLinkType] == kQpi && hop2->v[kWeight] > kSameSocketMaxWeight) return false;
      hop3 = Direct(c2, n2);
      if (hop3 == nullptr) return false;
    } else {  // GPU-CPU-GPU or GPU-CPU-CPU
      hop2 = Direct(c1, n2);
      if (hop2 == nullptr) return false;
    }
  } else {  // CPU-CPU-GPU
    hop2 = Direct(n1, c2);
    if (hop2 == nullptr) return false;
    hop3 = Direct(c2, n2);
    if (hop3 == nullptr) return false;
  }
  uint64_t w = hop2->v[kWeight];
  if (hop1 != nullptr) w += hop1->v[kWeight];
  if (hop3 != nullptr) w += hop3->v[kWeight];
  *weight = static_cast<uint32_t>(w);  // upstream sums in 32 bits
  *type = hop2->v[kLinkType];
  return *weight != 0;
}

Status IndirectLinkBuilder::Add(uint32_t from, uint32_t to, uint32_t type, uint32_t weight) {
  NodeRecord& n = s_.nodes[from];
  if (n.num_links >= snap_.num_nodes_ - 1) return Status::Ok();  // upstream drops it
  FixedText<Diag::kMessageCapacity> m;
  if (n.num_links >= s_.max_links) {
    m.Append("node ").AppendU64(from).Append(" needs more than ").AppendU64(s_.max_links);
    m.Append(" links with indirect ones (raise hke::config::kMaxLinksPerNode)");
    return diag_.Error(::hke::Exhausted(), kArea, m.c_str());
  }
  LinkRecord l;
  std::memset(&l, 0, sizeof(l));
  l.v[kLinkType] = type;
  l.v[kNodeFrom] = from;
  l.v[kNodeTo] = to;
  l.v[kWeight] = weight;
  if (placing_) {
    s_.links[n.first_link + n.num_links] = l;
  } else {
    if (tail_end_ >= s_.link_pool) {
      m.Append("the link pool needs more than ").AppendU64(s_.link_pool);
      m.Append(" entries with indirect links (raise config::kMaxLinksTotal)");
      return diag_.Error(::hke::Exhausted(), kArea, m.c_str());
    }
    s_.links[tail_end_++] = l;
  }
  ++n.num_links;
  return Status::Ok();
}

Status IndirectLinkBuilder::Pass() {
  const uint32_t count = snap_.num_nodes_;
  for (uint32_t i = 0; i + 1 < count; ++i) {
    for (uint32_t j = i + 1; j < count; ++j) {
      uint32_t w = 0, t = 0;
      if (Indirect(i, j, &w, &t)) HKE_RETURN_IF_ERROR(Add(i, j, t, w));
      if (Indirect(j, i, &w, &t)) HKE_RETURN_IF_ERROR(Add(j, i, t, w));
    }
  }
  return Status::Ok();
}

Status IndirectLinkBuilder::Build() {
  const uint32_t count = snap_.num_nodes_;
  if (count < 2) return Status::Ok();
  placing_ = false;
  tail_begin_ = tail_end_ = snap_.used_links_;
  HKE_RETURN_IF_ERROR(Pass());
  if (tail_end_ == tail_begin_) return Status::Ok();

  // Spread the runs apart (last node first, so nothing unmoved is
  // overwritten) leaving room for each node's new links, then place them.
  uint32_t total = 0;
  for (uint32_t u = 0; u < count; ++u) total += s_.nodes[u].num_links;
  uint32_t end = total;
  for (uint32_t u = count; u-- > 0;) {
    NodeRecord& n = s_.nodes[u];
    const uint32_t first = end - n.num_links;
    if (n.num_sysfs_links != 0 && first != n.first_link) {
      std::memmove(&s_.links[first], &s_.links[n.first_link],
                   n.num_sysfs_links * sizeof(LinkRecord));
    }
    n.first_link = first;
    n.num_links = n.num_sysfs_links;
    end = first;
  }
  snap_.used_links_ = total;
  placing_ = true;
  return Pass();
}

}  // namespace hke::topology
