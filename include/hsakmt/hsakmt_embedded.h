/*
 * hsakmt-embedded extensions: what upstream libhsakmt lacks.
 *
 *  - hke_status_t: a status that keeps the errno (or the API reason) intact.
 *  - hke_context: caller-owned state. No hidden globals; the hsaKmt* API in
 *    hsakmt.h runs on one default context in static storage.
 *  - hke_config: the platform to use, the diagnostics callback and policy
 *    knobs that upstream reads from environment variables.
 *
 * Everything here is plain C so that firmware written in C can use it.
 */
#ifndef HSAKMT_HSAKMT_EMBEDDED_H_
#define HSAKMT_HSAKMT_EMBEDDED_H_

#include <stddef.h>
#include <stdint.h>

#include "hsakmt/hsakmt_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Status: 0 is success. Otherwise the high 32 bits name a domain and the low
 * 32 bits a code in that domain:
 *   HKE_DOMAIN_API   - one of the HKE_STATUS_* reasons below;
 *   HKE_DOMAIN_ERRNO - a Linux errno value returned by the platform or the
 *                      kernel, unchanged.
 */
typedef uint64_t hke_status_t;

#define HKE_DOMAIN_API 1u
#define HKE_DOMAIN_ERRNO 2u

#define HKE_OK ((hke_status_t)0)

/* API reasons. The comment says what the caller may do about each. */
enum hke_api_code {
  /* An argument is invalid; fix the call. */
  HKE_STATUS_INVALID_ARGUMENT = 1,
  /* A value lies outside what the library or the device supports. */
  HKE_STATUS_OUT_OF_RANGE = 2,
  /* The feature is missing on this kernel, device or platform. */
  HKE_STATUS_UNSUPPORTED = 3,
  /* A fixed capacity is full; raise the named capacity or free objects. */
  HKE_STATUS_RESOURCE_EXHAUSTED = 4,
  /* A wait timed out; retrying is fine. */
  HKE_STATUS_DEADLINE_EXCEEDED = 5,
  /* The kernel interface version is not one this library speaks. */
  HKE_STATUS_VERSION_MISMATCH = 6,
  /* The caller's buffer is too small; retry with the size reported. */
  HKE_STATUS_BUFFER_TOO_SMALL = 7,
  /* The context is not in the state the call needs (e.g. not open). */
  HKE_STATUS_FAILED_PRECONDITION = 8,
  /* The function is declared but not implemented yet. */
  HKE_STATUS_NOT_IMPLEMENTED = 9,
  /* An internal invariant failed; a bug. */
  HKE_STATUS_INTERNAL = 10,
  /* The kernel or sysfs answered something malformed or out of range. */
  HKE_STATUS_PROTOCOL = 11,
  /* The process forked since the context was opened; reopen in the child. */
  HKE_STATUS_FORKED_CHILD = 12,
  /* A handle is unknown, stale or forged. */
  HKE_STATUS_INVALID_HANDLE = 13,
  /* The resource is busy or changing; retrying later may succeed. */
  HKE_STATUS_UNAVAILABLE = 14,
  /* An arithmetic result would overflow the type it must fit. */
  HKE_STATUS_OVERFLOW = 15,
  /* The object or range exists already (or overlaps one that does). */
  HKE_STATUS_ALREADY_EXISTS = 16,
  /* No object matches the address, range or id given. */
  HKE_STATUS_NOT_FOUND = 17,
  /* A node id does not exist or is not of the kind the call needs. */
  HKE_STATUS_INVALID_NODE = 18,
};

static inline hke_status_t hke_status_make(uint32_t domain, uint32_t code) {
  return ((hke_status_t)domain << 32) | (hke_status_t)code;
}
static inline uint32_t hke_status_domain(hke_status_t s) { return (uint32_t)(s >> 32); }
static inline uint32_t hke_status_code(hke_status_t s) { return (uint32_t)s; }
static inline int hke_status_is_ok(hke_status_t s) { return s == HKE_OK; }

/* Short static name of a status ("ok", "ENOMEM", "INVALID_ARGUMENT", ...).
 * Never NULL; unknown values give "unknown". */
const char* hke_status_name(hke_status_t status);

/* Diagnostics. The library never prints; it explains failures here. */
enum hke_diag_level {
  HKE_DIAG_ERROR = 0,
  HKE_DIAG_WARNING = 1,
  HKE_DIAG_INFO = 2,
  HKE_DIAG_DEBUG = 3,
};

typedef struct hke_diag_record {
  uint32_t level;       /* hke_diag_level */
  hke_status_t status;  /* the status the failing call returns, or HKE_OK */
  const char* area;     /* static subsystem name: "open", "topology", ... */
  const char* message;  /* formatted text; valid only during the callback */
  const char* path;     /* file involved, or NULL */
  uint32_t line;        /* 1-based line in `path`, or 0 */
} hke_diag_record;

/* Called synchronously from the failing call's thread. Must not call back
 * into the same context. */
typedef void (*hke_diag_fn)(void* user, const hke_diag_record* record);

/* Capacities of this build's context (fixed at compile time by the
 * configuration the library was built with: "default" or "small-board"). */
typedef struct hke_capacities {
  uint32_t max_nodes;              /* topology nodes, CPUs and GPUs */
  uint32_t max_gpus;               /* GPU nodes */
  uint32_t max_mem_banks_per_node; /* memory banks per node */
  uint32_t max_caches_per_node;    /* caches per node */
  uint32_t max_links_per_node;     /* io_links + p2p_links per node */
  uint32_t max_events;             /* event table entries */
  uint32_t max_queues;             /* queue descriptors */
  uint32_t max_va_objects;         /* tracked allocations across apertures */
  uint32_t max_mem_banks_total;    /* memory banks of all nodes together */
  uint32_t max_caches_total;       /* caches of all nodes together */
  uint32_t max_links_total;        /* io_links + p2p_links of all nodes together */
  uint32_t max_secondary_contexts; /* slots of hsaKmtOpenSecondaryKFDCtx */
} hke_capacities;

/* Name of the compile-time configuration ("default" or "small-board"). */
const char* hke_build_configuration(void);
/* Fills *out with this build's capacities. */
void hke_build_capacities(hke_capacities* out);

/*
 * GFX version overrides: upstream's HSA_OVERRIDE_GFX_VERSION (every GPU
 * node) and HSA_OVERRIDE_GFX_VERSION_<n> (user node n; it takes precedence
 * over the all-nodes entry) as configuration. A GPU node that has a GFX
 * version (from gfx_target_version or the device-ID table) reports its
 * override in HsaNodeProperties.OverrideEngineId; EngineId, AMDName and the
 * register-file sizes keep the hardware's version, as current upstream.
 * CPU nodes ignore overrides.
 */
#define HKE_GFX_OVERRIDE_ALL_NODES 0xffffffffu
/* The entry stands for a value that was not "major.minor.stepping" within
 * the limits (its version bytes are 0). Taking a topology snapshot that
 * would apply it fails, as upstream fails on a malformed variable; a node
 * it never applies to (a CPU node, a node that does not exist) is fine. */
#define HKE_GFX_OVERRIDE_MALFORMED 0x1u

#define HKE_GFX_OVERRIDE_MAX_MAJOR 63u  /* EngineId's 6-bit field */

typedef struct hke_gfx_override {
  uint32_t node;     /* user node id, or HKE_GFX_OVERRIDE_ALL_NODES */
  uint8_t major;     /* <= HKE_GFX_OVERRIDE_MAX_MAJOR */
  uint8_t minor;
  uint8_t stepping;
  uint8_t flags;     /* 0 or HKE_GFX_OVERRIDE_MALFORMED */
} hke_gfx_override;

/*
 * Parses upstream's text form, exactly `len` bytes of decimal
 * "major.minor.stepping" (digits and two dots, nothing else: no sign, no
 * blank, no NUL; leading zeros are fine) with major <= 63, minor and
 * stepping <= 255. On success *out = {node, major, minor, stepping, 0}.
 * INVALID_ARGUMENT for a NULL pointer or bad syntax, OUT_OF_RANGE for a
 * number beyond its limit; *out is untouched on failure. Reads no byte
 * past text[len - 1].
 */
hke_status_t hke_gfx_override_parse(const char* text, size_t len, uint32_t node,
                                    hke_gfx_override* out);

/*
 * Collects the overrides an environment block sets, with upstream's getenv
 * semantics: `envp` is a NULL-terminated array of "NAME=value" strings (as
 * `environ`; NULL means empty). HSA_OVERRIDE_GFX_VERSION gives the
 * all-nodes entry, HSA_OVERRIDE_GFX_VERSION_<n> (n in canonical decimal, as
 * upstream prints it) the entry of user node n; the first string with a
 * given name wins; a node id beyond this build's max_nodes is ignored with
 * a warning. A malformed value gives an HKE_GFX_OVERRIDE_MALFORMED entry
 * and a warning naming the variable. One pass over `envp`, no allocation.
 * At most max_nodes + 1 entries; fewer than that in `capacity` may give
 * RESOURCE_EXHAUSTED. out[0..*out_count) is written only on success.
 */
hke_status_t hke_gfx_overrides_from_environment(const char* const* envp, hke_gfx_override* out,
                                                uint32_t capacity, uint32_t* out_count,
                                                hke_diag_fn diag, void* diag_user);

/* Context configuration. Zero-initialise, then set what you need. */
typedef struct hke_config {
  uint32_t struct_size;           /* sizeof(hke_config) */
  hke_platform platform;          /* required */
  hke_diag_fn diag;               /* optional */
  void* diag_user;                /* passed to diag */
  /* Root of the KFD topology in the platform's namespace; NULL means
   * "/sys/devices/virtual/kfd/kfd/topology". */
  const char* topology_root;
  /* How often an ioctl failing with EINTR or EAGAIN is retried before the
   * error is returned; 0 means the default (16). */
  uint32_t max_ioctl_retries;
  uint32_t flags;                 /* HKE_CONFIG_* */
  /* GFX version overrides (see hke_gfx_override): at most max_nodes + 1
   * entries, one per node id at most, each node id below max_nodes or
   * HKE_GFX_OVERRIDE_ALL_NODES. Copied at init; the array need not
   * outlive the call. NULL with count 0 means none. */
  const hke_gfx_override* gfx_overrides;
  uint32_t gfx_override_count;
} hke_config;

/* Discovery only: read the topology without opening /dev/kfd. */
#define HKE_CONFIG_DISCOVERY_ONLY 0x1u
/* Memory: reserve the shared SVM range up front and place every
 * allocation with the library's own VA arenas (upstream's
 * HSA_RESERVE_SVM=1) instead of letting the kernel's mmap choose. */
#define HKE_CONFIG_RESERVE_SVM 0x200u
/* Memory: register user memory as userptr BOs even when every GPU supports
 * the SVM API (upstream's HSA_USE_SVM=0). */
#define HKE_CONFIG_LEGACY_USERPTR 0x400u
/* A secondary KFD context (hsakmtctx.h): at open, the new /dev/kfd
 * descriptor becomes a kfd_process of its own (AMDKFD_IOC_CREATE_PROCESS,
 * KFD >= 1.19; older kernels: UNSUPPORTED, nothing stays open), with its
 * own VMs, events, queues and memory. Such a context refuses what the
 * kernel keeps for the primary (user-memory registration, SVM attributes,
 * the debugger) with UNSUPPORTED before any kernel call. */
#define HKE_CONFIG_SECONDARY_PROCESS 0x800u
/* Re-read the whole sysfs topology on every hsaKmtAcquireSystemProperties
 * that takes a snapshot. Without it the context keeps its last parse across
 * Release and Close and reuses it while the KFD's generation_id is
 * unchanged (what depends on the open device is derived again each time). */
#define HKE_CONFIG_REPARSE_TOPOLOGY 0x100u

typedef struct hke_context hke_context;

/* Bytes and alignment a context needs in this build. */
size_t hke_context_storage_size(void);
size_t hke_context_storage_align(void);

/*
 * Initialises a context in caller-provided storage (at least
 * hke_context_storage_size() bytes, aligned to hke_context_storage_align()).
 * Nothing is opened yet. On failure *out_context is left unchanged and the
 * storage holds no state that needs cleaning up.
 */
hke_status_t hke_context_init(void* storage, size_t storage_size, const hke_config* config,
                              hke_context** out_context);

/* Releases everything the context holds (descriptors, mappings, kernel
 * objects). The storage may then be reused. Safe on a closed context. */
void hke_context_deinit(hke_context* context);

/*
 * Opens the context's KFD connection (what hsaKmtOpenKFD does for the
 * default context): reference counted; HKE_OK for the first open and for
 * later ones (*out_already_open, when not NULL, tells them apart: 0 for the
 * first, 1 after). A context with HKE_CONFIG_SECONDARY_PROCESS becomes its
 * own kfd_process here.
 */
hke_status_t hke_context_open(hke_context* context, int* out_already_open);

/* Drops one reference taken by hke_context_open; the last one destroys the
 * context's queues and events, frees its memory and closes /dev/kfd (as
 * hsaKmtCloseKFD). FAILED_PRECONDITION when it is not open. */
hke_status_t hke_context_close(hke_context* context);

/* The context as the HsaKFDContext* of hsakmtctx.h, so that every
 * hsaKmt*Ctx function runs on a caller-owned context. Valid until
 * hke_context_deinit. NULL for NULL. */
struct _HsaKFDContext* hke_context_kfd_ctx(hke_context* context);

/* The context behind the hsaKmt* API. It lives in static storage and is
 * initialised on first use with hke_default_platform() and
 * hke_default_gfx_overrides(), unless hke_default_context_configure() was
 * called first. */
hke_context* hke_default_context(void);

/* The platform the default context uses when hke_default_context_configure()
 * was not called. libhsakmt.a defines it (returning the Linux table) in an
 * archive member of its own, so a board port that defines this function
 * itself links without the Linux backend. */
hke_platform hke_default_platform(void);

/* The GFX version overrides of the default context when
 * hke_default_context_configure() was not called; called once, when the
 * default context is first initialised (a failure leaves the default
 * context uninitialised). libhsakmt.a defines it in an archive member of
 * its own, reading the process environment with
 * hke_gfx_overrides_from_environment(); a board port may define it itself
 * (e.g. returning no overrides). Writes at most `capacity` entries. */
hke_status_t hke_default_gfx_overrides(hke_gfx_override* out, uint32_t capacity,
                                       uint32_t* out_count);

/* hke_config flags from upstream's environment variables in `envp` (a
 * NULL-terminated "NAME=value" array such as environ): HSA_USE_SVM=0 sets
 * HKE_CONFIG_LEGACY_USERPTR, HSA_RESERVE_SVM=1 sets HKE_CONFIG_RESERVE_SVM.
 * Other variables are ignored. Pure: reads only `envp`. */
uint32_t hke_config_flags_from_environment(const char* const* envp);

/* The flags the default context starts with. The Linux build reads them
 * from this process's environment with hke_config_flags_from_environment;
 * a board port may define it itself (e.g. returning 0). */
uint32_t hke_default_config_flags(void);

/* Sets the configuration of the default context. Must be called before
 * hsaKmtOpenKFD; fails with FAILED_PRECONDITION while it is open. The
 * environment is not consulted then: the configuration's gfx_overrides are
 * the only ones. */
hke_status_t hke_default_context_configure(const hke_config* config);

/* What a context's memory subsystem holds now. */
typedef struct hke_memory_stats {
  uint32_t struct_size;          /* sizeof(hke_memory_stats), set by the caller */
  uint32_t live_objects;         /* allocations, registrations, MMIO pages */
  uint32_t object_capacity;      /* hke_capacities.max_va_objects */
  uint32_t range_nodes_used;     /* address-index and VA-arena nodes in use */
  uint32_t range_nodes_capacity;
  uint32_t reserved;
  uint64_t handle_aperture_free; /* free bytes of the handle-only aperture */
} hke_memory_stats;

/* Fills *out (struct_size must be sizeof(hke_memory_stats)). Thread-safe. */
hke_status_t hke_memory_stats_get(hke_context* context, hke_memory_stats* out);

/* Checks every invariant of the context's memory indexes and VA arenas
 * (ordering, balance, counts, coalescing, object <-> index agreement);
 * HKE_OK or HKE_STATUS_INTERNAL with a diagnostic naming the broken rule.
 * O(n); for tests, debugging and fuzzing. */
hke_status_t hke_memory_check(hke_context* context);

/*
 * SMI event records: the lines read from the descriptor hsaKmtOpenSMI
 * returns (after writing a 64-bit mask of HSA_SMI_EVENT_MASK_FROM_INDEX
 * bits to it). Each record is one text line of at most
 * HKE_SMI_RECORD_MAX bytes including its '\n': the event number in hex, a
 * blank, the event's fields. The field layout per event is the KFD's
 * (include/uapi/linux/kfd_ioctl.h, KFD_EVENT_FMT_*), including the
 * variants kernels have printed over time (a GPU reset with or without a
 * cause, a migration end with or without an error code, a queue restore
 * with or without a flag character). Addresses and sizes are in pages;
 * node ids are gpu_ids (0: system memory).
 */
#define HKE_SMI_RECORD_MAX 96

/* Which members of hke_smi_record a record carried. */
enum {
  HKE_SMI_HAS_TIMESTAMP = 1u << 0,  /* timestamp_ns and pid */
  HKE_SMI_HAS_ADDRESS = 1u << 1,    /* address and size (page faults: size 0) */
  HKE_SMI_HAS_NODE = 1u << 2,       /* node */
  HKE_SMI_HAS_MIGRATION = 1u << 3,  /* from_node, to_node (and prefetch/preferred on start) */
  HKE_SMI_HAS_TRIGGER = 1u << 4,    /* trigger */
  HKE_SMI_HAS_ERROR = 1u << 5,      /* error_code */
  HKE_SMI_HAS_FLAG = 1u << 6,       /* flag */
  HKE_SMI_HAS_TEXT = 1u << 7,       /* text */
  HKE_SMI_HAS_THROTTLE = 1u << 8,   /* throttle_bitmask, throttle_counter */
  HKE_SMI_HAS_RESET = 1u << 9       /* reset_seq */
};

typedef struct hke_smi_record {
  uint32_t event;            /* HSA_SMI_EVENT_* / KFD_SMI_EVENT_* number (1-based) */
  uint32_t present;          /* HKE_SMI_HAS_* bits */
  uint64_t timestamp_ns;     /* boot-time ns (profiler events) */
  uint32_t pid;              /* process the event belongs to */
  uint32_t node;             /* gpu_id: page fault, eviction, restore, unmap */
  uint64_t address;          /* first page */
  uint64_t size;             /* pages */
  uint32_t from_node;        /* migration source gpu_id (0: system memory) */
  uint32_t to_node;          /* migration destination */
  uint32_t prefetch_node;    /* migration start: prefetch location */
  uint32_t preferred_node;   /* migration start: preferred location */
  int32_t trigger;           /* migration, eviction or unmap trigger number */
  int32_t error_code;        /* migration end on newer kernels (0: success) */
  char flag;                 /* page fault 'R'/'W' (start), 'M'/'U' (end); restore 'R'/'0' */
  char reserved[3];
  uint32_t reset_seq;        /* GPU pre/post reset sequence number */
  uint64_t throttle_bitmask; /* thermal throttle */
  uint64_t throttle_counter;
  /* VM fault: the task name; GPU reset: the cause; an event this parser
   * does not know: its fields as sent. NUL-terminated (a text field with a
   * NUL byte fails the record). */
  char text[HKE_SMI_RECORD_MAX];
} hke_smi_record;

/*
 * Parses the first record of data[0..len). On success *out is the record
 * and *consumed its length including the '\n' (the next record starts
 * there). UNAVAILABLE: no '\n' yet within fewer than HKE_SMI_RECORD_MAX
 * bytes (read more and call again). PROTOCOL: the line is not a record
 * (too long, bad event number, fields that do not match the event's
 * layout, numbers out of range); skip past its '\n' to resynchronise.
 * INVALID_ARGUMENT: a NULL pointer. *out and *consumed are written only
 * on success. Reads no byte past data[len - 1]; no allocation; pure.
 */
hke_status_t hke_smi_record_parse(const char* data, size_t len, hke_smi_record* out,
                                  size_t* consumed);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HSAKMT_HSAKMT_EMBEDDED_H_ */
