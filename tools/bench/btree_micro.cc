// btree_micro: "which range contains this address" on the live-object index,
// the AVL RangeTree (lib/memory/range_tree.h) against the B+tree RangeBTree
// (lib/memory/range_btree.h), for 10^2..10^5 entries.
//
// Not part of the CMake build (tools/bench/CMakeLists.txt builds hke-bench
// only). Build it from the source root with the Release flags, e.g.
//
//   g++ -std=c++17 -O3 -DNDEBUG -I. -Iinclude tools/bench/btree_micro.cc
//       lib/memory/range_btree.cc lib/memory/range_tree.cc -o btree_micro
//
// (or link a Release libhsakmt.a instead of the two .cc files), and run it
// with no arguments, or with the entry counts to try.
//
// Workload: n ranges of 4 KiB at distinct random page-aligned addresses in a
// window of 4n pages below 0x7f0000000000 (like mmap's top-down placement
// with holes left by earlier frees), inserted in random order, so both
// trees' nodes are scattered through their pools as after real churn.
// Probes: 2^20 precomputed (a random entry, a random byte of it), each
// answer checked. Two loops per structure:
//  - throughput: independent lookups, the CPU may overlap several;
//  - latency: each probe's address depends on the previous answer (a zero
//    the compiler cannot see through), so lookups run one after another, as
//    single QueryPointerInfo calls do.
// Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so time spent
// descheduled on a busy machine is not counted; each figure is the minimum
// over kRounds rounds of kProbesPerRound lookups, in ns per lookup. Insert
// and erase costs are per operation while building and tearing down the
// index (one pass each, so noisier).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <time.h>

#include "lib/memory/range_btree.h"
#include "lib/memory/range_tree.h"

namespace {

using namespace hke::memory;

constexpr uint32_t kMaxEntries = 131072;
constexpr uint32_t kProbes = 1u << 20;  // precomputed probes
constexpr uint32_t kProbesPerRound = 1u << 16;
constexpr int kRounds = 48;
constexpr uint64_t kPage = 4096;

FixedRangeNodePool<kMaxEntries + 16> g_avl_pool;
// The B+tree over a 64-byte aligned array (a node = 10 whole cache lines)
// and, to see what alignment is worth, over an array offset by 8 bytes.
alignas(64) RangeBTreeNode g_bt_aligned[RangeBTreeNodesFor(kMaxEntries)];
struct Misaligned {
  alignas(64) uint64_t pad;
  RangeBTreeNode nodes[RangeBTreeNodesFor(kMaxEntries)];
};
Misaligned g_bt_misaligned;
static_assert(offsetof(Misaligned, nodes) % 64 == 8, "offset by 8");

volatile uint64_t g_zero = 0;  // a zero the optimiser cannot see

double NowNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "btree_micro: %s\n", what);
  std::exit(1);
}

// The three lookups, each returning the containing entry's value (or
// UINT32_MAX for a miss).
struct AvlContaining {
  const RangeTree* t;
  uint32_t operator()(uint64_t a) const {
    const uint32_t n = t->FindContaining(a);
    return n == kNil ? UINT32_MAX : t->node(n).value;
  }
};
// What lib/memory/objects.cc does on va_index today: the last start <= a,
// then a containment check.
struct AvlLastStart {
  const RangeTree* t;
  uint32_t operator()(uint64_t a) const {
    const uint32_t n = t->FindAtOrBelow(a);
    if (n == kNil) return UINT32_MAX;
    const RangeNode& r = t->node(n);
    return (a - r.start < r.size || (r.size == 0 && a == r.start)) ? r.value : UINT32_MAX;
  }
};
struct BTreeContaining {
  const RangeBTree* t;
  uint32_t operator()(uint64_t a) const {
    RangeBTree::Entry e;
    return t->FindContaining(a, &e) ? e.value : UINT32_MAX;
  }
};

template <typename F>
double Throughput(F f, const std::vector<uint64_t>& probes, const std::vector<uint32_t>& want) {
  std::vector<double> r;
  for (int round = 0; round < kRounds; ++round) {
    uint64_t bad = 0;
    const uint32_t first = (round * kProbesPerRound) % kProbes;
    const double t0 = NowNs();
    for (uint32_t i = first; i < first + kProbesPerRound; ++i) bad += f(probes[i]) != want[i];
    const double t1 = NowNs();
    if (bad != 0) Die("a lookup returned the wrong entry");
    r.push_back((t1 - t0) / kProbesPerRound);
  }
  return Min(r);
}

template <typename F>
double Latency(F f, const std::vector<uint64_t>& probes, const std::vector<uint32_t>& want) {
  std::vector<double> r;
  const uint64_t zero = g_zero;
  for (int round = 0; round < kRounds; ++round) {
    uint64_t bad = 0;
    uint32_t prev = 0;
    const uint32_t first = (round * kProbesPerRound) % kProbes;
    const double t0 = NowNs();
    for (uint32_t i = first; i < first + kProbesPerRound; ++i) {
      prev = f(probes[i] + (prev & zero));
      bad += prev != want[i];
    }
    const double t1 = NowNs();
    if (bad != 0) Die("a lookup returned the wrong entry");
    r.push_back((t1 - t0) / kProbesPerRound);
  }
  return Min(r);
}

struct Row {
  uint32_t n;
  double avl_c_tp, avl_l_tp, bt_tp, bt_mis_tp;
  double avl_c_lat, avl_l_lat, bt_lat, bt_mis_lat;
  double avl_ins, bt_ins, avl_del, bt_del;
  uint32_t bt_depth, bt_nodes;
};

Row RunOne(uint32_t n, std::mt19937_64& rng) {
  Row row{};
  row.n = n;
  // Distinct random pages in a window of 4n pages below the mmap base.
  const uint64_t window = uint64_t{4} * n;
  const uint64_t top = 0x7f0000000000ull;
  std::vector<uint64_t> page_ids(window);
  for (uint64_t i = 0; i < window; ++i) page_ids[i] = i;
  std::shuffle(page_ids.begin(), page_ids.end(), rng);
  std::vector<uint64_t> starts(n);
  for (uint32_t i = 0; i < n; ++i) starts[i] = top - (page_ids[i] + 1) * kPage;

  RangeTree avl(&g_avl_pool);
  RangeBTree bt(g_bt_aligned, RangeBTreeNodesFor(kMaxEntries));
  RangeBTree bt_mis(g_bt_misaligned.nodes, RangeBTreeNodesFor(kMaxEntries));

  double t0 = NowNs();
  for (uint32_t i = 0; i < n; ++i) {
    if (!avl.Insert(starts[i], kPage, i, nullptr).ok()) Die("AVL insert failed");
  }
  row.avl_ins = (NowNs() - t0) / n;
  t0 = NowNs();
  for (uint32_t i = 0; i < n; ++i) {
    if (!bt.Insert(starts[i], kPage, i).ok()) Die("B+tree insert failed");
  }
  row.bt_ins = (NowNs() - t0) / n;
  for (uint32_t i = 0; i < n; ++i) {
    if (!bt_mis.Insert(starts[i], kPage, i).ok()) Die("B+tree insert failed");
  }
  const char* why = nullptr;
  if (!bt.CheckInvariants(&why).ok() || !avl.CheckInvariants(&why).ok()) Die(why);
  row.bt_depth = bt.depth();
  row.bt_nodes = bt.nodes_used();

  std::vector<uint64_t> probes(kProbes);
  std::vector<uint32_t> want(kProbes);
  std::uniform_int_distribution<uint32_t> pick(0, n - 1);
  std::uniform_int_distribution<uint64_t> byte(0, kPage - 1);
  for (uint32_t i = 0; i < kProbes; ++i) {
    const uint32_t k = pick(rng);
    probes[i] = starts[k] + byte(rng);
    want[i] = k;
  }

  row.avl_c_tp = Throughput(AvlContaining{&avl}, probes, want);
  row.avl_l_tp = Throughput(AvlLastStart{&avl}, probes, want);
  row.bt_tp = Throughput(BTreeContaining{&bt}, probes, want);
  row.bt_mis_tp = Throughput(BTreeContaining{&bt_mis}, probes, want);
  row.avl_c_lat = Latency(AvlContaining{&avl}, probes, want);
  row.avl_l_lat = Latency(AvlLastStart{&avl}, probes, want);
  row.bt_lat = Latency(BTreeContaining{&bt}, probes, want);
  row.bt_mis_lat = Latency(BTreeContaining{&bt_mis}, probes, want);

  // Tear down in another random order (erase by node for the AVL: look the
  // node up first, as Unindex's caller holds it).
  std::shuffle(starts.begin(), starts.end(), rng);
  std::vector<uint32_t> avl_nodes(n);
  for (uint32_t i = 0; i < n; ++i) avl_nodes[i] = avl.FindAtOrBelow(starts[i]);
  t0 = NowNs();
  for (uint32_t i = 0; i < n; ++i) {
    if (!avl.Erase(avl_nodes[i]).ok()) Die("AVL erase failed");
  }
  row.avl_del = (NowNs() - t0) / n;
  t0 = NowNs();
  for (uint32_t i = 0; i < n; ++i) {
    if (!bt.Erase(starts[i]).ok()) Die("B+tree erase failed");
  }
  row.bt_del = (NowNs() - t0) / n;
  if (avl.count() != 0 || bt.count() != 0 || bt.nodes_used() != 0) Die("teardown left entries");
  bt_mis.Clear();
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint32_t> sizes = {100, 1000, 10000, 50000, 100000};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) {
      const unsigned long v = std::strtoul(argv[i], nullptr, 10);
      if (v < 1 || v > kMaxEntries) Die("sizes must be in 1..131072");
      sizes.push_back(static_cast<uint32_t>(v));
    }
  }
  std::mt19937_64 rng(20261202);
  std::printf("sizeof(RangeNode) = %zu, sizeof(RangeBTreeNode) = %zu\n", sizeof(RangeNode),
              sizeof(RangeBTreeNode));
  std::printf(
      "\nFindContaining, ns per lookup (thread CPU time, best of %d rounds of %u random probes)\n\n"
      "| entries | AVL FindContaining | AVL last-start + check | B+tree | B+tree, nodes 8 B off a line |"
      " AVL / B+tree | B+tree depth, nodes |\n"
      "|---:|---:|---:|---:|---:|---:|---:|\n",
      kRounds, kProbesPerRound);
  std::vector<Row> rows;
  for (const uint32_t n : sizes) rows.push_back(RunOne(n, rng));
  for (const Row& r : rows) {
    std::printf("| %u (throughput) | %.1f | %.1f | %.1f | %.1f | %.1fx | %u, %u |\n", r.n,
                r.avl_c_tp, r.avl_l_tp, r.bt_tp, r.bt_mis_tp, r.avl_c_tp / r.bt_tp, r.bt_depth,
                r.bt_nodes);
  }
  for (const Row& r : rows) {
    std::printf("| %u (latency) | %.1f | %.1f | %.1f | %.1f | %.1fx | %u, %u |\n", r.n, r.avl_c_lat,
                r.avl_l_lat, r.bt_lat, r.bt_mis_lat, r.avl_c_lat / r.bt_lat, r.bt_depth, r.bt_nodes);
  }
  std::printf("\nupdates, ns per operation (random order)\n\n"
              "| entries | AVL insert | B+tree insert | AVL erase | B+tree erase |\n"
              "|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    std::printf("| %u | %.1f | %.1f | %.1f | %.1f |\n", r.n, r.avl_ins, r.bt_ins, r.avl_del,
                r.bt_del);
  }
  return 0;
}
