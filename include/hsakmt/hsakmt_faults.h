// The faults decorator: an hke_platform that fails chosen calls with a
// chosen errno and forwards every other call to an inner platform.
//
// A rule names an operation (optionally one ioctl request), which calls of
// it fail (the n-th, every one, or the n-th and all later ones, counted
// 1-based over the calls the rule matches) and the errno to return. An
// injected failure does not reach the inner platform and writes no output,
// with one exception: close still closes the inner descriptor, because the
// platform contract says a descriptor is released even when close fails.
//
// Every rule whose operation (and request) matches a call counts that call,
// whether or not an earlier rule already fails it; the first rule in order
// whose condition holds supplies the errno.
//
// Rules can also be written as a spec string (platform/README.md):
//   op:nth:ERRNO[,op:nth:ERRNO...]
//   op    open|close|ioctl|mmap|munmap|madvise|read_file|list_dir|clock_ns|
//         cpu_count|process_id|read_fd|page_size|mem_policy, or ioctl=<request> with
//         <request> a 0x-prefixed hex request code or a request name
//         (AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, or ALLOC_MEMORY_OF_GPU)
//   nth   N (the N-th call, N >= 1), * (every call) or N+ (N-th and later)
//   ERRNO a name (ENOMEM) or a number 1..4095
//
// Memory: the caller owns the hke_faults storage; no heap.
// Threading: platform calls through the decorator are thread-safe if the
// inner platform is; counters are atomic. hke_faults_add_rule may run while
// calls are in flight (a call sees a rule or not); init, clear_rules,
// add_spec and reset_counters must not run concurrently with anything else
// on the same state.
#ifndef HSAKMT_HSAKMT_FAULTS_H_
#define HSAKMT_HSAKMT_FAULTS_H_

#include <stddef.h>
#include <stdint.h>

#include "hsakmt/hsakmt_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

// Operations, in the order of hke_platform_ops (those with fault rules;
// marketing_name, the libdrm handles and the perf counters pass through).
// read_file_at is a read_file: it counts as HKE_FAULTS_OP_READ_FILE, so a
// "read_file" rule fails the same whole-file read whichever of the two
// operations the library used for it. Likewise list_dir_fd is a list_dir:
// it counts as HKE_FAULTS_OP_LIST_DIR, so a "list_dir" rule fails the same
// directory listing whether the library listed it by path or through a
// descriptor.
enum hke_faults_op {
  HKE_FAULTS_OP_OPEN = 0,
  HKE_FAULTS_OP_CLOSE = 1,
  HKE_FAULTS_OP_IOCTL = 2,
  HKE_FAULTS_OP_MMAP = 3,
  HKE_FAULTS_OP_MUNMAP = 4,
  HKE_FAULTS_OP_MADVISE = 5,
  HKE_FAULTS_OP_READ_FILE = 6,
  HKE_FAULTS_OP_LIST_DIR = 7,
  HKE_FAULTS_OP_CLOCK_NS = 8,
  HKE_FAULTS_OP_CPU_COUNT = 9,
  HKE_FAULTS_OP_PROCESS_ID = 10,
  HKE_FAULTS_OP_READ_FD = 11,
  HKE_FAULTS_OP_PAGE_SIZE = 12,
  HKE_FAULTS_OP_MEM_POLICY = 13,
  HKE_FAULTS_OP_COUNT = 14
};

// Which matching calls a rule fails.
enum hke_faults_when {
  HKE_FAULTS_WHEN_NTH = 0,   // only call number `nth`
  HKE_FAULTS_WHEN_EVERY = 1, // every call (`nth` is 0)
  HKE_FAULTS_WHEN_FROM = 2   // call number `nth` and every later one
};

// Largest errno a rule may inject (Linux MAX_ERRNO).
#define HKE_FAULTS_MAX_ERRNO 4095
// Rules one decorator holds, and the most one spec may contain.
#define HKE_FAULTS_MAX_RULES 16u

typedef struct hke_faults_rule {
  uint32_t op;            // hke_faults_op
  uint32_t when;          // hke_faults_when
  uint64_t nth;           // 1-based call number for NTH and FROM; 0 for EVERY
  int32_t error;          // errno returned, 1..HKE_FAULTS_MAX_ERRNO
  uint32_t match_request; // 1: only ioctls with `request` (op must be IOCTL); else 0
  uint32_t request;       // full request code when match_request is 1, else 0
  uint32_t reserved;      // 0
} hke_faults_rule;

// A rule with match_request matches an ioctl whose request equals
// `request`, or whose request the KFD ioctl table resolves to the entry for
// `request` (so a variable-size request such as AMDKFD_IOC_SVM matches
// whatever its size field).

// Why a spec was rejected.
enum hke_faults_parse_status {
  HKE_FAULTS_PARSE_OK = 0,
  HKE_FAULTS_PARSE_NULL_ARGUMENT = 1,   // spec NULL with len > 0, or rules/count NULL
  HKE_FAULTS_PARSE_BAD_OP = 2,          // unknown or empty operation name
  HKE_FAULTS_PARSE_BAD_REQUEST = 3,     // "=request" on a non-ioctl op, unknown name, bad hex
  HKE_FAULTS_PARSE_BAD_NTH = 4,         // empty, 0, not a number, overflow
  HKE_FAULTS_PARSE_BAD_ERRNO = 5,       // empty, unknown name, 0, above 4095
  HKE_FAULTS_PARSE_EXPECTED_COLON = 6,  // a field ended where ':' must follow
  HKE_FAULTS_PARSE_EXPECTED_COMMA = 7,  // a rule ended where ',' or the end must follow
  HKE_FAULTS_PARSE_TOO_MANY_RULES = 8   // more rules than the capacity given
};

// Parses `len` bytes of `spec` (no NUL needed; bytes past `len` are never
// read; a NUL inside is an invalid byte). An empty spec gives 0 rules. On
// success writes the rules to out_rules[0..*out_count) and returns
// HKE_FAULTS_PARSE_OK; `capacity` is capped at HKE_FAULTS_MAX_RULES. On
// failure writes no rule and no count, and stores in *out_error_offset (if
// not NULL) the byte offset of the field that is wrong: the first byte of a
// bad op, request, nth or errno field; the byte where a missing ':' or ','
// was expected (len at the end of the input); the first byte of the first
// rule beyond the capacity.
uint32_t hke_faults_parse(const char* spec, size_t len, hke_faults_rule* out_rules,
                          size_t capacity, size_t* out_count, size_t* out_error_offset);

// Static name of a parse status ("ok", "bad errno", ...); never NULL.
const char* hke_faults_parse_status_name(uint32_t status);

// Static name of an operation as the spec writes it ("read_file"), or NULL.
const char* hke_faults_op_name(uint32_t op);

// 1 when every field of `rule` is in range (as hke_faults_add_rule requires).
int hke_faults_rule_valid(const hke_faults_rule* rule);

// Writes `count` rules as a canonical spec that hke_faults_parse reads back
// to the same rules, NUL-terminated. Returns 0 and stores the length (no
// NUL) in *out_length; EINVAL for an invalid rule or NULL argument; ERANGE
// when `capacity` is too small. On failure `*out_length` is untouched and
// `buf` holds unspecified bytes.
int hke_faults_format(const hke_faults_rule* rules, size_t count, char* buf, size_t capacity,
                      size_t* out_length);

// Size of the decorator's state.
#define HKE_FAULTS_STATE_SIZE 1024u

// Caller-owned decorator state; opaque. Must stay at the same address and
// outlive every use of the platform returned by hke_faults_platform().
typedef struct hke_faults {
  union {
    uint64_t align_u64;
    void* align_ptr;
    unsigned char bytes[HKE_FAULTS_STATE_SIZE];
  } opaque;
} hke_faults;

// Initialises `faults` to wrap `inner` with no rules and zero counters.
// `inner.ops` must provide open, close, ioctl and read_file; operations it
// leaves NULL are NULL in the decorated table too. Returns 0, or EINVAL
// (NULL faults/ops, missing required operation) leaving `*faults` untouched.
int hke_faults_init(hke_faults* faults, hke_platform inner);

// The decorated platform; valid while `faults` is.
hke_platform hke_faults_platform(hke_faults* faults);

// Appends a rule (its match counter starts at 0). Returns 0, EINVAL for an
// invalid rule, or ENOSPC when HKE_FAULTS_MAX_RULES rules are installed.
int hke_faults_add_rule(hke_faults* faults, const hke_faults_rule* rule);

// Parses `spec` and appends all its rules, or none. Returns the parse
// status; TOO_MANY_RULES when they do not fit beside the installed rules.
// *out_error_offset as for hke_faults_parse.
uint32_t hke_faults_add_spec(hke_faults* faults, const char* spec, size_t len,
                             size_t* out_error_offset);

// Removes every rule; counters are kept.
void hke_faults_clear_rules(hke_faults* faults);

// Number of installed rules.
size_t hke_faults_rule_count(const hke_faults* faults);

// Calls of `op` that reached the decorator since init or the last reset,
// failed or not (0 for an unknown op). A fault sweep counts calls with no
// rules, then fails call k = 1..count in turn.
uint64_t hke_faults_calls(const hke_faults* faults, uint32_t op);

// Calls matched so far by rule `index` (0 for an index past the rules).
uint64_t hke_faults_rule_matches(const hke_faults* faults, size_t index);

// Calls failed by injection so far.
uint64_t hke_faults_injected(const hke_faults* faults);

// Zeroes the per-op, per-rule and injected counters.
void hke_faults_reset_counters(hke_faults* faults);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HSAKMT_HSAKMT_FAULTS_H_
