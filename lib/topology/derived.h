// Internal to lib/topology: the readers of upstream's derived topology data
// that Snapshot::Take runs when TakeOptions asks for them (see snapshot.h).
// They work on the snapshot being built and share its file buffer; they
// are not used on their own.
#ifndef HKE_LIB_TOPOLOGY_DERIVED_H_
#define HKE_LIB_TOPOLOGY_DERIVED_H_

#include <cstdint>

#include "lib/core/diag.h"
#include "lib/core/platform.h"
#include "lib/core/status.h"
#include "lib/topology/dir_files.h"
#include "lib/topology/snapshot.h"

namespace hke::topology {

// CPU facts from /proc/cpuinfo and the CPU cache directories (cpu.cc).
class CpuReader {
 public:
  CpuReader(Snapshot& snap, const Platform& platform, const Diag& diag)
      : snap_(snap), s_(snap.s_), platform_(platform), diag_(diag) {}

  // Streams /proc/cpuinfo once: records the apicid of each processor below
  // min(cpu_count, max_cpus) and gives every CPU node (cpu_cores_count > 0)
  // the model name of the first processor whose apicid equals its
  // cpu_core_id_base. A missing or unreadable cpuinfo is a warning (names
  // stay empty), as upstream.
  Status ReadCpuInfo();

  // Appends the caches of CPU node `user` from the CPU cache directories
  // (node must be the last one to have taken pool entries).
  Status ReadCpuCaches(uint32_t user);

 private:
  void EndProcessor(uint32_t proc, const char* model);
  uint32_t ReadUnsigned(const char* path, bool* found, DirFiles* dir = nullptr);
  // Reads an optional CPU file into the buffer: false when it cannot be
  // read. A missing file (ENOENT) is silent, as upstream; any other error
  // is reported as a warning naming the file (the value then reads as 0).
  // With `dir`, a file below that directory is read relative to it
  // (DirFiles); the statuses are the same.
  bool ReadOptional(const char* path, size_t* out_length, DirFiles* dir = nullptr);
  // Lists an optional directory the same way; with `dir` (which names
  // `path`), through it (DirFiles::List); the statuses are the same.
  bool ListOptional(const char* path, hke_dirent_fn fn, void* user, DirFiles* dir = nullptr);
  // Parses the shared_cpu_map text in the buffer (n bytes): ORs the apicid
  // bit of every listed processor below limit_ into `siblings` and puts the
  // lowest listed processor in *first; false when no processor is listed.
  bool ParseCpuMap(size_t n, uint32_t* siblings, uint32_t* first);
  // Reads the cache of `index_dir` (level, type, size, line size,
  // associativity, lines per tag) with the sibling map ParseCpuMap made.
  // `dir` (a directory above index_dir, or null) reads the files relative
  // to it, as ReadOptional's.
  Status AppendCache(uint32_t user, const char* index_dir, uint32_t cpu, const uint32_t* siblings,
                     DirFiles* dir);

  Snapshot& snap_;
  const Snapshot::Storage& s_;
  const Platform& platform_;
  const Diag& diag_;
  uint32_t limit_ = 0;  // processors whose apicid is known
};

// Upstream's indirect io links (indirect_links.cc), added after every
// node's sysfs links were read and only when no node reported p2p links.
//
// Upstream appends each new link to its node's array and later lookups see
// it; to reproduce that with per-node contiguous runs in the shared pool,
// Build runs the pair loop twice: first with the new links kept in the
// pool's free tail (counting them per node), then, after the runs were
// spread apart to make room, placing them in order.
class IndirectLinkBuilder {
 public:
  IndirectLinkBuilder(Snapshot& snap, const Diag& diag) : snap_(snap), s_(snap.s_), diag_(diag) {}

  Status Build();

 private:
  Status Pass();
  Status Add(uint32_t from, uint32_t to, uint32_t type, uint32_t weight);
  const LinkRecord* Direct(uint32_t from, uint32_t to) const;
  int32_t DirectCpu(uint32_t gpu) const;
  bool Indirect(uint32_t n1, uint32_t n2, uint32_t* weight, uint32_t* type) const;
  bool HasPublicFrameBuffer(uint32_t node) const;
  // The i-th link of `node` as upstream's array would hold it, or null.
  const LinkRecord* LinkAt(uint32_t node, uint32_t i) const;

  Snapshot& snap_;
  const Snapshot::Storage& s_;
  const Diag& diag_;
  bool placing_ = false;    // second pass: runs have room, links go in place
  uint32_t tail_begin_ = 0;  // first pass: new links at [tail_begin_, tail_end_)
  uint32_t tail_end_ = 0;
};

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_DERIVED_H_
