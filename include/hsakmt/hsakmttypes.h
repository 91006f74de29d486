/*
 * hsakmt-embedded: the types of the public libhsakmt ABI.
 *
 * Source- and layout-compatible with the hsakmttypes.h of current upstream
 * libhsakmt (ROCm rocm-systems, projects/rocr-runtime/libhsakmt): every type,
 * tag, enumerator, macro and struct/union carries the upstream name, value,
 * field order, bit-field width and packing. Code written against upstream
 * compiles unchanged, and structs cross the API with identical bytes.
 *
 * Layout rules that matter to an implementer:
 *  - Everything from HSAKMT_STATUS to the end of this file is declared under
 *    `#pragma pack(4)`: no member is aligned to more than 4 bytes, so a
 *    64-bit field may sit at offset 4 and there is no tail padding to 8.
 *    This also removes the 8-byte alignment that the ARM EABI would give
 *    64-bit members on 32-bit ARM; only pointer-sized members differ
 *    between LP64 and ILP32 targets (see lib/api/layout_checks.cc).
 *  - Most enums end with a `..._SIZE = 0xFFFFFFFF` member that makes them an
 *    unsigned 4-byte type. HSA_QUEUE_PRIORITY mixes negative values with
 *    0xFFFFFFFF, so GCC gives it an 8-byte type in C; the C++ declaration
 *    fixes the underlying type to 64 bits so that both languages agree.
 *  - Enumerators above INT_MAX and 64-bit bit-fields are GNU extensions in
 *    ISO C11; the declarations that use them are marked with __extension__
 *    so that consumers building with -pedantic -Werror are not broken.
 *
 * Threading: these are plain data types; nothing here has state.
 */
#ifndef _HSAKMTTYPES_H_
#define _HSAKMTTYPES_H_

#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* Version of the thunk interface these definitions describe (upstream's). */
#define HSAKMT_VERSION_MAJOR 0
#define HSAKMT_VERSION_MINOR 99

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Placed between the return type and the name of every hsaKmt* function.
 * The library is compiled with hidden visibility; this marks the API entry
 * points as exported. A consumer that links the static library into its own
 * shared object and does not want to re-export them may define HSAKMTAPI
 * (e.g. as empty) before including this header.
 */
#ifndef HSAKMTAPI
#if defined(__GNUC__) || defined(__clang__)
#define HSAKMTAPI __attribute__((visibility("default")))
#else
#define HSAKMTAPI
#endif
#endif

/* Marks a declaration that relies on a GNU extension of ISO C (see top). */
#if defined(__GNUC__) || defined(__clang__)
#define HSAKMT_GNU_EXTENSION_ __extension__
#else
#define HSAKMT_GNU_EXTENSION_
#endif

typedef uint8_t HSAuint8;
typedef int8_t HSAint8;
typedef uint16_t HSAuint16;
typedef int16_t HSAint16;
typedef uint32_t HSAuint32;
typedef int32_t HSAint32;
typedef int64_t HSAint64;
typedef uint64_t HSAuint64;

typedef void* HSA_HANDLE;
typedef HSAuint64 HSA_QUEUEID;

/* Sentinels that never name a real queue, process or node. */
#define INVALID_QUEUEID 0xFFFFFFFFFFFFFFFFULL
#define INVALID_PID 0xFFFFFFFF
#define INVALID_NODEID 0xFFFFFFFF

#pragma pack(push, 4)

/* ------------------------------------------------------------------------
 * Status
 * ------------------------------------------------------------------------ */

/* Result of every hsaKmt* call. 4 bytes. */
typedef enum _HSAKMT_STATUS {
  HSAKMT_STATUS_SUCCESS = 0,
  HSAKMT_STATUS_ERROR = 1,            /* failure with no more specific code */
  HSAKMT_STATUS_DRIVER_MISMATCH = 2,  /* kernel interface version not usable */
  HSAKMT_STATUS_INVALID_PARAMETER = 3,
  HSAKMT_STATUS_INVALID_HANDLE = 4,
  HSAKMT_STATUS_INVALID_NODE_UNIT = 5, /* node id or unit out of range / wrong kind */
  HSAKMT_STATUS_NO_MEMORY = 6,
  HSAKMT_STATUS_BUFFER_TOO_SMALL = 7,
  HSAKMT_STATUS_NOT_IMPLEMENTED = 10, /* entry point exists but does nothing */
  HSAKMT_STATUS_NOT_SUPPORTED = 11,   /* the node, kernel or build lacks it */
  HSAKMT_STATUS_UNAVAILABLE = 12,     /* busy now; may work later */
  HSAKMT_STATUS_OUT_OF_RESOURCES = 13,
  HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED = 20, /* hsaKmtOpenKFD not (or no longer) in effect */
  HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR = 21,
  HSAKMT_STATUS_KERNEL_ALREADY_OPENED = 22,
  HSAKMT_STATUS_HSAMMU_UNAVAILABLE = 23, /* no ATS/PRI (IOMMUv2) translation agent */
  HSAKMT_STATUS_WAIT_FAILURE = 30,
  HSAKMT_STATUS_WAIT_TIMEOUT = 31,
  HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED = 35,
  HSAKMT_STATUS_MEMORY_NOT_REGISTERED = 36,
  HSAKMT_STATUS_MEMORY_ALIGNMENT = 37,
} HSAKMT_STATUS;

/* KFD ioctl interface version reported by hsaKmtGetVersion. */
typedef struct _HsaVersionInfo {
  HSAuint32 KernelInterfaceMajorVersion;
  HSAuint32 KernelInterfaceMinorVersion;
} HsaVersionInfo;

/* ------------------------------------------------------------------------
 * Topology
 *
 * hsaKmtAcquireSystemProperties takes a snapshot of the KFD topology; the
 * node, memory, cache and link queries below read that snapshot until
 * hsaKmtReleaseSystemProperties drops it.
 * ------------------------------------------------------------------------ */

typedef struct _HsaSystemProperties {
  HSAuint32 NumNodes;    /* nodes in the snapshot (CPU and GPU mixed) */
  HSAuint32 PlatformOem; /* CRAT OEM id */
  HSAuint32 PlatformId;  /* CRAT OEM table id */
  HSAuint32 PlatformRev; /* CRAT table revision */
} HsaSystemProperties;

/* Firmware / IP version of a node's engine. */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int uCode : 10;   /* packet processor microcode version */
    unsigned int Major : 6;    /* GFX IP major */
    unsigned int Minor : 8;    /* GFX IP minor */
    unsigned int Stepping : 8; /* GFX IP stepping */
  } ui32;
} HSA_ENGINE_ID;

/* Microcode versions of the other engines. The bit-fields are members of an
 * unnamed struct, i.e. accessed directly on the union. */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int uCodeSDMA : 10; /* SDMA microcode version */
    unsigned int uCodeRes : 10;  /* reserved microcode slot */
    unsigned int Reserved : 12;  /* zero */
  };
} HSA_ENGINE_VERSION;

/* Node capability bits (KFD topology "capability"), LSB first. */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int HotPluggable : 1;         /* node may disappear at run time */
    unsigned int HSAMMUPresent : 1;        /* ATS/PRI translation agent present */
    unsigned int SharedWithGraphics : 1;   /* GPU also drives the primary display */
    unsigned int QueueSizePowerOfTwo : 1;  /* queue sizes must be powers of two */
    unsigned int QueueSize32bit : 1;       /* queue sizes must be below 4 GiB */
    unsigned int QueueIdleEvent : 1;       /* queue-idle notification exists */
    unsigned int VALimit : 1;              /* GPU VA range narrower than the CPU's */
    unsigned int WatchPointsSupported : 1; /* address watch points exist */
    unsigned int WatchPointsTotalBits : 4; /* log2 of the watch point count */
    unsigned int DoorbellType : 2;         /* 0 pre-1.0, 1 1.0, 2-3 reserved */
    unsigned int AQLQueueDoubleMap : 1;    /* AQL ring must be mapped twice in VA */
    unsigned int DebugTrapSupported : 1;
    unsigned int WaveLaunchTrapOverrideSupported : 1;
    unsigned int WaveLaunchModeSupported : 1;
    unsigned int PreciseMemoryOperationsSupported : 1;
    unsigned int DEPRECATED_SRAM_EDCSupport : 1; /* always reported as 0 */
    unsigned int Mem_EDCSupport : 1;             /* DRAM/HBM ECC active */
    unsigned int RASEventNotify : 1;             /* RAS event notification available */
    unsigned int ASICRevision : 4;
    unsigned int SRAM_EDCSupport : 1; /* on-chip SRAM ECC active */
    unsigned int SVMAPISupported : 1; /* hsaKmtSVMSetAttr/GetAttr usable */
    unsigned int CoherentHostAccess : 1;
    unsigned int DebugSupportedFirmware : 1; /* scheduler firmware can debug */
    unsigned int PreciseALUOperationsSupported : 1;
    unsigned int PerQueueResetSupported : 1;
  } ui32;
} HSA_CAPABILITY;

/* Second capability word (KFD topology "capability2"). */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int PerSDMAQueueResetSupported : 1;
    unsigned int Reserved : 31;
  } ui32;
} HSA_CAPABILITY2;

/* Debugger-relevant properties of a node (KFD topology "debug_prop"). The
 * 64-bit bit-fields are members of an unnamed struct. */
HSAKMT_GNU_EXTENSION_ typedef union {
  HSAuint64 Value;
  struct {
    HSAuint64 WatchAddrMaskLoBit : 4;         /* lowest watch-mask bit honoured */
    HSAuint64 WatchAddrMaskHiBit : 6;         /* highest watch-mask bit honoured */
    HSAuint64 DispatchInfoAlwaysValid : 1;    /* 1: TTMP setup is always on */
    HSAuint64 AddressWatchpointShareKind : 1; /* 1: watch points are per process */
    HSAuint64 Reserved : 52;
  };
} HSA_DEBUG_PROPERTIES;

/* Length of the name arrays in HsaNodeProperties (elements). */
#define HSA_PUBLIC_NAME_SIZE 64

/* One topology node: a CPU socket, a GPU, or an APU holding both kinds of
 * cores. Output of hsaKmtGetNodeProperties. 368 bytes. */
typedef struct _HsaNodeProperties {
  HSAuint32 NumCPUCores;      /* latency (CPU) cores; 0 on a discrete GPU */
  HSAuint32 NumFComputeCores; /* throughput (GPU) SIMDs; 0 on a CPU node */
  HSAuint32 NumNeuralCores;   /* neural (AIE) units; 0 if none */
  HSAuint32 NumMemoryBanks;   /* entries hsaKmtGetNodeMemoryProperties returns */
  HSAuint32 NumCaches;        /* entries hsaKmtGetNodeCacheProperties returns */
  HSAuint32 NumIOLinks;       /* entries hsaKmtGetNodeIoLinkProperties returns */
  HSAuint32 CComputeIdLo;     /* first logical id of the CPU cores */
  HSAuint32 FComputeIdLo;     /* first logical id of the GPU SIMDs */
  HSA_CAPABILITY Capability;
  HSA_CAPABILITY2 Capability2;
  HSAuint32 MaxWavesPerSIMD;   /* ignored when NumFComputeCores is 0 */
  HSAuint32 LDSSizeInKB;       /* local data share per work-group, KiB */
  HSAuint32 GDSSizeInKB;       /* global data share, KiB */
  HSAuint32 WaveFrontSize;     /* lanes per wavefront (64 or 32) */
  HSAuint32 NumShaderBanks;    /* shader engines */
  HSAuint32 NumArrays;         /* SIMD arrays per shader engine */
  HSAuint32 NumCUPerArray;     /* compute units per array */
  HSAuint32 NumSIMDPerCU;      /* SIMDs per compute unit */
  HSAuint32 MaxSlotsScratchCU; /* scratch wave slots per CU; 0 = unlimited */
  HSA_ENGINE_ID EngineId;         /* GFX IP version and microcode */
  HSA_ENGINE_ID OverrideEngineId; /* engine id forced by configuration, or 0 */
  HSAuint16 VendorId;             /* PCI vendor; 0 on CPU nodes */
  HSAuint16 DeviceId;             /* PCI device; 0 on CPU nodes */
  HSAuint32 LocationId;           /* PCI bus/device/function */
  HSAuint64 LocalMemSize;         /* device-local memory, bytes */
  HSAuint32 MaxEngineClockMhzFCompute; /* GPU peak clock, MHz */
  HSAuint32 MaxEngineClockMhzCCompute; /* CPU peak clock, MHz */
  HSAint32 DrmRenderMinor;             /* N of /dev/dri/renderD<N> */
  HSAuint16 MarketingName[HSA_PUBLIC_NAME_SIZE]; /* UTF-16, NUL-terminated */
  HSAuint8 AMDName[HSA_PUBLIC_NAME_SIZE];        /* ASCII, NUL-terminated */
  HSA_ENGINE_VERSION uCodeEngineVersions;
  HSA_DEBUG_PROPERTIES DebugProperties;
  HSAuint64 HiveID;               /* XGMI hive; opaque, 0 when not in a hive */
  HSAuint32 NumSdmaEngines;       /* PCIe-optimised SDMA engines */
  HSAuint32 NumSdmaXgmiEngines;   /* XGMI-optimised SDMA engines */
  HSAuint8 NumSdmaQueuesPerEngine;
  HSAuint8 NumCpQueues;           /* compute queues */
  HSAuint8 NumGws;                /* global wave sync entries */
  HSAuint8 Integrated;            /* 1 for an APU, 0 for a discrete GPU */
  HSAuint32 Domain;               /* PCI domain */
  HSAuint64 UniqueID;             /* stable per-device id, or 0 */
  HSAuint32 VGPRSizePerCU;        /* bytes */
  HSAuint32 SGPRSizePerCU;        /* bytes */
  HSAuint32 NumXcc;               /* accelerator complex dies (partitions) */
  HSAuint32 KFDGpuID;             /* the KFD gpu_id of this node; 0 on CPUs */
  HSAuint32 FamilyID;             /* amdgpu family id */
} HsaNodeProperties;

/* Kind of a memory bank. 4 bytes. */
HSAKMT_GNU_EXTENSION_ typedef enum _HSA_HEAPTYPE {
  HSA_HEAPTYPE_SYSTEM = 0,
  HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC = 1,  /* VRAM the CPU can reach through the BAR */
  HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE = 2, /* VRAM outside the BAR */
  HSA_HEAPTYPE_GPU_GDS = 3,
  HSA_HEAPTYPE_GPU_LDS = 4,
  HSA_HEAPTYPE_GPU_SCRATCH = 5,
  HSA_HEAPTYPE_DEVICE_SVM = 6, /* system memory behind the GPU page tables */
  HSA_HEAPTYPE_MMIO_REMAP = 7, /* remapped registers (e.g. HDP flush) */
  HSA_HEAPTYPE_NUMHEAPTYPES,
  HSA_HEAPTYPE_SIZE = 0xFFFFFFFF
} HSA_HEAPTYPE;

typedef union {
  HSAuint32 MemoryProperty;
  struct {
    unsigned int HotPluggable : 1; /* bank may be removed at run time */
    unsigned int NonVolatile : 1;  /* contents survive power-off */
    unsigned int Reserved : 30;
  } ui32;
} HSA_MEMORYPROPERTY;

/* One memory bank of a node. Output of hsaKmtGetNodeMemoryProperties. */
typedef struct _HsaMemoryProperties {
  HSA_HEAPTYPE HeapType;
  union {
    HSAuint64 SizeInBytes;
    struct {
      HSAuint32 SizeInBytesLow;
      HSAuint32 SizeInBytesHigh;
    } ui32;
  };
  HSA_MEMORYPROPERTY Flags;
  HSAuint32 Width;              /* bus width, bits */
  HSAuint32 MemoryClockMax;     /* MHz */
  HSAuint64 VirtualBaseAddress; /* process VA of the aperture, or 0 */
} HsaMemoryProperties;

/* Length of the sibling maps (elements). */
#define HSA_CPU_SIBLINGS 256
/* ProcessorId value meaning "every processor of the node". */
#define HSA_PROCESSORID_ALL 0xFFFFFFFF

typedef union {
  HSAuint32 Value;
  struct {
    unsigned int Data : 1;
    unsigned int Instruction : 1;
    unsigned int CPU : 1;
    unsigned int HSACU : 1;
    unsigned int Reserved : 28;
  } ui32;
} HsaCacheType;

/* One cache of a node. Output of hsaKmtGetNodeCacheProperties. Values that
 * the platform does not report are 0. 1056 bytes. */
typedef struct _HaCacheProperties {
  HSAuint32 ProcessorIdLow;     /* first processor the cache serves */
  HSAuint32 CacheLevel;         /* 1, 2, 3, ... */
  HSAuint32 CacheSize;          /* KiB */
  HSAuint32 CacheLineSize;      /* bytes */
  HSAuint32 CacheLinesPerTag;
  HSAuint32 CacheAssociativity; /* ways */
  HSAuint32 CacheLatency;       /* ns */
  HsaCacheType CacheType;
  HSAuint32 SiblingMap[HSA_CPU_SIBLINGS]; /* 1 for each processor sharing it */
} HsaCacheProperties;

/* CPU sibling map (declared for compatibility; no entry point returns it). */
typedef struct _HsaCComputeProperties {
  HSAuint32 SiblingMap[HSA_CPU_SIBLINGS];
} HsaCComputeProperties;

/* Bus kind of an IO link. 4 bytes. */
HSAKMT_GNU_EXTENSION_ typedef enum _HSA_IOLINKTYPE {
  HSA_IOLINKTYPE_UNDEFINED = 0,
  HSA_IOLINKTYPE_HYPERTRANSPORT = 1,
  HSA_IOLINKTYPE_PCIEXPRESS = 2,
  HSA_IOLINKTYPE_AMBA = 3,
  HSA_IOLINKTYPE_MIPI = 4,
  HSA_IOLINK_TYPE_QPI_1_1 = 5,
  HSA_IOLINK_TYPE_RESERVED1 = 6,
  HSA_IOLINK_TYPE_RESERVED2 = 7,
  HSA_IOLINK_TYPE_RAPID_IO = 8,
  HSA_IOLINK_TYPE_INFINIBAND = 9,
  HSA_IOLINK_TYPE_RESERVED3 = 10,
  HSA_IOLINK_TYPE_XGMI = 11,
  HSA_IOLINK_TYPE_XGOP = 12,
  HSA_IOLINK_TYPE_GZ = 13,
  HSA_IOLINK_TYPE_ETHERNET_RDMA = 14,
  HSA_IOLINK_TYPE_RDMA_OTHER = 15,
  HSA_IOLINK_TYPE_OTHER = 16,
  HSA_IOLINKTYPE_NUMIOLINKTYPES,
  HSA_IOLINKTYPE_SIZE = 0xFFFFFFFF
} HSA_IOLINKTYPE;

/* Link flags. The other bits are meaningful only when Override is 1. */
typedef union {
  HSAuint32 LinkProperty;
  struct {
    unsigned int Override : 1;
    unsigned int NonCoherent : 1;     /* no coherent transactions */
    unsigned int NoAtomics32bit : 1;  /* no 32-bit atomics across the link */
    unsigned int NoAtomics64bit : 1;  /* no 64-bit atomics across the link */
    unsigned int NoPeerToPeerDMA : 1; /* no peer-to-peer DMA */
    unsigned int Reserved : 27;
  } ui32;
} HSA_LINKPROPERTY;

/* One link from a node to another. Output of hsaKmtGetNodeIoLinkProperties. */
typedef struct _HsaIoLinkProperties {
  HSA_IOLINKTYPE IoLinkType;
  HSAuint32 VersionMajor;
  HSAuint32 VersionMinor;
  HSAuint32 NodeFrom;         /* user node index of this end */
  HSAuint32 NodeTo;           /* user node index of the far end */
  HSAuint32 Weight;           /* relative distance (NUMA weight) */
  HSAuint32 MinimumLatency;   /* ns */
  HSAuint32 MaximumLatency;   /* ns */
  HSAuint32 MinimumBandwidth; /* MB/s */
  HSAuint32 MaximumBandwidth; /* MB/s */
  HSAuint32 RecTransferSize;  /* bytes per transfer for peak bandwidth */
  HSAuint32 RecSdmaEngIdMask; /* SDMA engines recommended for this link */
  HSA_LINKPROPERTY Flags;
} HsaIoLinkProperties;

/* ------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------ */

/* Allocation flags of hsaKmtAllocMemory and friends, LSB first. 4 bytes,
 * passed by value. */
typedef struct _HsaMemFlags {
  union {
    struct {
      unsigned int NonPaged : 1;     /* pinned (VRAM or locked system memory) */
      unsigned int CachePolicy : 2;  /* HSA_CACHING_TYPE */
      unsigned int ReadOnly : 1;
      unsigned int PageSize : 2;     /* HSA_PAGE_SIZE */
      unsigned int HostAccess : 1;   /* CPU must be able to access it */
      unsigned int NoSubstitute : 1; /* fail rather than fall back to system memory */
      unsigned int GDSMemory : 1;    /* allocate from GDS */
      unsigned int Scratch : 1;      /* reserve the node's scratch aperture */
      unsigned int AtomicAccessFull : 1;    /* all atomics must work on it */
      unsigned int AtomicAccessPartial : 1; /* PCIe atomics (swap, CAS, add) must work */
      unsigned int ExecuteAccess : 1;       /* holds code */
      unsigned int CoarseGrain : 1;         /* coherent only at sync points */
      unsigned int AQLQueueMemory : 1;      /* will hold an AQL ring */
      unsigned int FixedAddress : 1;        /* use *MemoryAddress as the VA or fail */
      unsigned int NoNUMABind : 1;          /* do not bind system memory to a NUMA node */
      unsigned int Uncached : 1;            /* uncached fine-grained memory */
      unsigned int NoAddress : 1;           /* backing only, no VA (handle returned) */
      unsigned int OnlyAddress : 1;         /* VA reservation only, no backing */
      unsigned int ExtendedCoherent : 1;    /* system-scope coherent atomics */
      unsigned int GTTAccess : 1;           /* GTT memory for a GART mapping (MES) */
      unsigned int Contiguous : 1;          /* physically contiguous VRAM */
      unsigned int ExecuteBlit : 1;         /* holds a blit kernel */
      unsigned int Reserved : 8;
    } ui32;
    HSAuint32 Value;
  };
} HsaMemFlags;

/* Mapping flags of hsaKmtMapMemoryToGPUNodes. 4 bytes, passed by value. */
typedef struct _HsaMemMapFlags {
  union {
    struct {
      unsigned int Reserved1 : 1;
      unsigned int CachePolicy : 2; /* HSA_CACHING_TYPE */
      unsigned int ReadOnly : 1;    /* not written while mapped */
      unsigned int PageSize : 2;    /* HSA_PAGE_SIZE hint */
      unsigned int HostAccess : 1;
      unsigned int Migrate : 1;     /* hint: may move to the GPU's local memory */
      unsigned int Probe : 1;       /* hint: a map is coming; no mapping is made */
      unsigned int Reserved : 23;
    } ui32;
    HSAuint32 Value;
  };
} HsaMemMapFlags;

/* Result of importing a graphics (dma-buf) handle. Metadata is owned by the
 * library and valid until the memory is deregistered. */
typedef struct _HsaGraphicsResourceInfo {
  void* MemoryAddress;            /* VA to pass to hsaKmtMapMemoryToGPU(Nodes) */
  HSAuint64 SizeInBytes;
  const void* Metadata;
  HSAuint32 MetadataSizeInBytes;
  HSAuint32 NodeId;               /* node of the GPU that exported the buffer */
} HsaGraphicsResourceInfo;

HSAKMT_GNU_EXTENSION_ typedef enum _HSA_CACHING_TYPE {
  HSA_CACHING_CACHED = 0,
  HSA_CACHING_NONCACHED = 1,
  HSA_CACHING_WRITECOMBINED = 2,
  HSA_CACHING_RESERVED = 3,
  HSA_CACHING_NUM_CACHING,
  HSA_CACHING_SIZE = 0xFFFFFFFF
} HSA_CACHING_TYPE;

typedef enum _HSA_PAGE_SIZE {
  HSA_PAGE_SIZE_4KB = 0,
  HSA_PAGE_SIZE_64KB = 1,
  HSA_PAGE_SIZE_2MB = 2,
  HSA_PAGE_SIZE_1GB = 3,
} HSA_PAGE_SIZE;

typedef enum _HSA_DEVICE {
  HSA_DEVICE_CPU = 0,
  HSA_DEVICE_GPU = 1,
  MAX_HSA_DEVICE = 2
} HSA_DEVICE;

/* ------------------------------------------------------------------------
 * Queues
 * ------------------------------------------------------------------------ */

/* Queue priority. 8 bytes in C and C++ (see the top of this file); only
 * ever passed by value, never stored in an ABI struct. */
#ifdef __cplusplus
typedef enum _HSA_QUEUE_PRIORITY : HSAint64 {
#else
HSAKMT_GNU_EXTENSION_ typedef enum _HSA_QUEUE_PRIORITY {
#endif
  HSA_QUEUE_PRIORITY_MINIMUM = -3,
  HSA_QUEUE_PRIORITY_LOW = -2,
  HSA_QUEUE_PRIORITY_BELOW_NORMAL = -1,
  HSA_QUEUE_PRIORITY_NORMAL = 0,
  HSA_QUEUE_PRIORITY_ABOVE_NORMAL = 1,
  HSA_QUEUE_PRIORITY_HIGH = 2,
  HSA_QUEUE_PRIORITY_MAXIMUM = 3,
  HSA_QUEUE_PRIORITY_NUM_PRIORITY,
  HSA_QUEUE_PRIORITY_SIZE = 0xFFFFFFFF
} HSA_QUEUE_PRIORITY;

/* Queue kind. 4 bytes. */
HSAKMT_GNU_EXTENSION_ typedef enum _HSA_QUEUE_TYPE {
  HSA_QUEUE_COMPUTE = 1,           /* PM4 compute */
  HSA_QUEUE_SDMA = 2,              /* PCIe-optimised SDMA */
  HSA_QUEUE_MULTIMEDIA_DECODE = 3, /* reserved */
  HSA_QUEUE_MULTIMEDIA_ENCODE = 4, /* reserved */
  HSA_QUEUE_SDMA_XGMI = 5,         /* XGMI-optimised SDMA */
  HSA_QUEUE_SDMA_BY_ENG_ID = 6,    /* SDMA on the engine named by the caller */
  /* Kinds allowed to reference OS graphics resources. */
  HSA_QUEUE_COMPUTE_OS = 11,
  HSA_QUEUE_SDMA_OS = 12,
  HSA_QUEUE_MULTIMEDIA_DECODE_OS = 13,
  HSA_QUEUE_MULTIMEDIA_ENCODE_OS = 14,
  /* AQL packet queues. */
  HSA_QUEUE_COMPUTE_AQL = 21,
  HSA_QUEUE_DMA_AQL = 22,
  HSA_QUEUE_DMA_AQL_XGMI = 23,
  HSA_QUEUE_TYPE_SIZE = 0xFFFFFFFF
} HSA_QUEUE_TYPE;

/*
 * Header at offset 0 of a queue's user context save area (CWSR area). The
 * area is page aligned; after the header comes the user copy of the control
 * stack, then (page aligned) the wave save state, then (64-byte aligned) the
 * debugger's reserved space. The header is rewritten on every context save
 * and is valid for the lifetime of the queue. All offsets are from the start
 * of the area.
 */
typedef struct {
  HSAuint32 ControlStackOffset; /* top (lowest address) of the saved control stack */
  HSAuint32 ControlStackSize;   /* bytes of saved control stack */
  HSAuint32 WaveStateOffset;    /* base of the saved wave state */
  HSAuint32 WaveStateSize;      /* bytes of saved wave state */
  HSAuint32 DebugOffset;        /* debugger area, 64-byte aligned */
  HSAuint32 DebugSize;          /* debugger area bytes, multiple of 64 */
  volatile HSAint64* ErrorReason; /* signal payload receiving the error bitmask */
  HSAuint32 ErrorEventId;       /* event signalled on an exception */
  HSAuint32 Reserved1;
} HsaUserContextSaveAreaHeader;

/* Output of hsaKmtGetQueueInfo. Pointers refer to queue-owned memory. */
typedef struct {
  HSAuint32 QueueDetailError;  /* hardware-specific error state */
  HSAuint32 QueueTypeExtended; /* hardware-specific type, 0 = unknown */
  HSAuint32 NumCUAssigned;     /* bits in *CUMaskInfo (multiple of 32), 0 = unknown */
  HSAuint32* CUMaskInfo;       /* CU assignment bit array, or NULL */
  HSAuint32* UserContextSaveArea;
  HSAuint64 SaveAreaSizeInBytes;
  HSAuint32* ControlStackTop;
  HSAuint64 ControlStackUsedInBytes;
  HsaUserContextSaveAreaHeader* SaveAreaHeader;
  HSAuint64 Reserved2;
} HsaQueueInfo;

/* Output of hsaKmtCreateQueue(Ext): where the caller rings and polls the
 * queue. Each address is available as a 32-bit pointer (PM4), a 64-bit
 * pointer (AQL) or a raw 64-bit value. */
typedef struct _HsaQueueResource {
  HSA_QUEUEID QueueId;
  union {
    HSAuint32* Queue_DoorBell;
    HSAuint64* Queue_DoorBell_aql;
    HSAuint64 QueueDoorBell;
  };
  union {
    HSAuint32* Queue_write_ptr;
    HSAuint64* Queue_write_ptr_aql;
    HSAuint64 QueueWptrValue;
  };
  union {
    HSAuint32* Queue_read_ptr;
    HSAuint64* Queue_read_ptr_aql;
    HSAuint64 QueueRptrValue;
  };
  volatile HSAint64* ErrorReason; /* signal payload receiving exception bits */
} HsaQueueResource;

/* Output of hsaKmtReportQueue (legacy Southern Islands interface). */
typedef struct _HsaQueueReport {
  HSAuint32 VMID;
  void* QueueAddress;
  HSAuint64 QueueSize;
} HsaQueueReport;

/* ------------------------------------------------------------------------
 * Debugging
 * ------------------------------------------------------------------------ */

HSAKMT_GNU_EXTENSION_ typedef enum _HSA_DBG_WAVEOP {
  HSA_DBG_WAVEOP_HALT = 1,
  HSA_DBG_WAVEOP_RESUME = 2,
  HSA_DBG_WAVEOP_KILL = 3,
  HSA_DBG_WAVEOP_DEBUG = 4, /* enter debug mode */
  HSA_DBG_WAVEOP_TRAP = 5,  /* take a trap */
  HSA_DBG_NUM_WAVEOP = 5,
  HSA_DBG_MAX_WAVEOP = 0xFFFFFFFF
} HSA_DBG_WAVEOP;

HSAKMT_GNU_EXTENSION_ typedef enum _HSA_DBG_WAVEMODE {
  HSA_DBG_WAVEMODE_SINGLE = 0,               /* one wave */
  HSA_DBG_WAVEMODE_BROADCAST_PROCESS = 2,    /* every wave of this process */
  HSA_DBG_WAVEMODE_BROADCAST_PROCESS_CU = 3, /* every wave of this process on one CU */
  HSA_DBG_NUM_WAVEMODE = 3,
  HSA_DBG_MAX_WAVEMODE = 0xFFFFFFFF
} HSA_DBG_WAVEMODE;

HSAKMT_GNU_EXTENSION_ typedef enum _HSA_DBG_WAVEMSG_TYPE {
  HSA_DBG_WAVEMSG_AUTO = 0,
  HSA_DBG_WAVEMSG_USER = 1,
  HSA_DBG_WAVEMSG_ERROR = 2,
  HSA_DBG_NUM_WAVEMSG,
  HSA_DBG_MAX_WAVEMSG = 0xFFFFFFFF
} HSA_DBG_WAVEMSG_TYPE;

typedef enum _HSA_DBG_WATCH_MODE {
  HSA_DBG_WATCH_READ = 0,    /* loads */
  HSA_DBG_WATCH_NONREAD = 1, /* stores and atomics */
  HSA_DBG_WATCH_ATOMIC = 2,  /* atomics */
  HSA_DBG_WATCH_ALL = 3,     /* every access */
  HSA_DBG_WATCH_NUM
} HSA_DBG_WATCH_MODE;

typedef enum _HSA_DBG_TRAP_OVERRIDE {
  HSA_DBG_TRAP_OVERRIDE_OR = 0,      /* OR the mask into the current one */
  HSA_DBG_TRAP_OVERRIDE_REPLACE = 1, /* replace the current mask */
  HSA_DBG_TRAP_OVERRIDE_NUM
} HSA_DBG_TRAP_OVERRIDE;

typedef enum _HSA_DBG_TRAP_MASK {
  HSA_DBG_TRAP_MASK_FP_INVALID = 1,
  HSA_DBG_TRAP_MASK_FP_INPUT_DENOMAL = 2,
  HSA_DBG_TRAP_MASK_FP_DIVIDE_BY_ZERO = 4,
  HSA_DBG_TRAP_MASK_FP_OVERFLOW = 8,
  HSA_DBG_TRAP_MASK_FP_UNDERFLOW = 16,
  HSA_DBG_TRAP_MASK_FP_INEXACT = 32,
  HSA_DBG_TRAP_MASK_INT_DIVIDE_BY_ZERO = 64,
  HSA_DBG_TRAP_MASK_DBG_ADDRESS_WATCH = 128,
  HSA_DBG_TRAP_MASK_DBG_MEMORY_VIOLATION = 256
} HSA_DBG_TRAP_MASK;

/* Exception codes of the debugger interface (they equal the kernel's
 * EC_* values). Queue codes, then device codes, then process codes. */
typedef enum _HSA_DBG_TRAP_EXCEPTION_CODE {
  HSA_DBG_EC_NONE = 0,
  HSA_DBG_EC_QUEUE_WAVE_ABORT = 1,
  HSA_DBG_EC_QUEUE_WAVE_TRAP = 2,
  HSA_DBG_EC_QUEUE_WAVE_MATH_ERROR = 3,
  HSA_DBG_EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION = 4,
  HSA_DBG_EC_QUEUE_WAVE_MEMORY_VIOLATION = 5,
  HSA_DBG_EC_QUEUE_WAVE_APERTURE_VIOLATION = 6,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_DIM_INVALID = 16,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID = 17,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_CODE_INVALID = 18,
  HSA_DBG_EC_QUEUE_PACKET_RESERVED = 19,
  HSA_DBG_EC_QUEUE_PACKET_UNSUPPORTED = 20,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID = 21,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID = 22,
  HSA_DBG_EC_QUEUE_PACKET_VENDOR_UNSUPPORTED = 23,
  HSA_DBG_EC_QUEUE_PREEMPTION_ERROR = 30,
  HSA_DBG_EC_QUEUE_NEW = 31,
  HSA_DBG_EC_DEVICE_QUEUE_DELETE = 32,
  HSA_DBG_EC_DEVICE_MEMORY_VIOLATION = 33,
  HSA_DBG_EC_DEVICE_RAS_ERROR = 34,
  HSA_DBG_EC_DEVICE_FATAL_HALT = 35,
  HSA_DBG_EC_DEVICE_NEW = 36,
  HSA_DBG_EC_PROCESS_RUNTIME = 48,
  HSA_DBG_EC_PROCESS_DEVICE_REMOVE = 49,
  HSA_DBG_EC_MAX
} HSA_DBG_TRAP_EXCEPTION_CODE;

/* Bit of an exception code in a 64-bit exception mask (code 1 is bit 0). */
#define HSA_EC_MASK(ecode) (1ULL << (ecode - 1))

typedef enum _HSA_DBG_WAVE_LAUNCH_MODE {
  HSA_DBG_WAVE_LAUNCH_MODE_NORMAL = 0,
  HSA_DBG_WAVE_LAUNCH_MODE_HALT = 1,        /* waves start halted */
  HSA_DBG_WAVE_LAUNCH_MODE_KILL = 2,        /* waves end before their first instruction */
  HSA_DBG_WAVE_LAUNCH_MODE_SINGLE_STEP = 3, /* trap after every instruction when trapping is on */
  HSA_DBG_WAVE_LAUNCH_MODE_DISABLE = 4,     /* no new waves start */
  HSA_DBG_WAVE_LAUNCH_MODE_NUM
} HSA_DBG_WAVE_LAUNCH_MODE;

/* Node control flags of the debugger interface; none are defined. */
typedef enum HSA_DBG_NODE_CONTROL {
  HSA_DBG_NODE_CONTROL_FLAG_MAX = 0x01
} HSA_DBG_NODE_CONTROL;

/* Capability bit returned by hsaKmtGetRuntimeCapabilities. */
#define HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK 0x80000000

/* Wave message payload, hardware generation 2. */
typedef struct _HsaDbgWaveMsgAMDGen2 {
  HSAuint32 Value;
  HSAuint32 Reserved2;
} HsaDbgWaveMsgAMDGen2;

typedef union _HsaDbgWaveMessageAMD {
  HsaDbgWaveMsgAMDGen2 WaveMsgInfoGen2;
} HsaDbgWaveMessageAMD;

typedef struct _HsaDbgWaveMessage {
  void* MemoryVA; /* host-visible data that goes with the message */
  HsaDbgWaveMessageAMD DbgWaveMsg;
} HsaDbgWaveMessage;

/* ------------------------------------------------------------------------
 * Events
 *
 * An event pairs a kernel wait object with optional user memory (the sync
 * variable). GPUs signal events through interrupts; the kernel also raises
 * events for memory faults and hardware exceptions.
 * ------------------------------------------------------------------------ */

/* Event kind. 4 bytes. */
HSAKMT_GNU_EXTENSION_ typedef enum _HSA_EVENTTYPE {
  HSA_EVENTTYPE_SIGNAL = 0,            /* signalled by the GPU or hsaKmtSetEvent */
  HSA_EVENTTYPE_NODECHANGE = 1,        /* node attached or detached */
  HSA_EVENTTYPE_DEVICESTATECHANGE = 2, /* device started or stopped */
  HSA_EVENTTYPE_HW_EXCEPTION = 3,      /* GPU hang, ECC error, reset */
  HSA_EVENTTYPE_SYSTEM_EVENT = 4,
  HSA_EVENTTYPE_DEBUG_EVENT = 5,
  HSA_EVENTTYPE_PROFILE_EVENT = 6,
  HSA_EVENTTYPE_QUEUE_EVENT = 7,       /* queue idle */
  HSA_EVENTTYPE_MEMORY = 8,            /* GPU memory access fault */
  HSA_EVENTTYPE_MAXID,
  HSA_EVENTTYPE_TYPE_SIZE = 0xFFFFFFFF
} HSA_EVENTTYPE;

typedef enum _HSA_DEBUG_EVENT_TYPE {
  HSA_DEBUG_EVENT_TYPE_NONE = 0,
  HSA_DEBUG_EVENT_TYPE_TRAP = 1,
  HSA_DEBUG_EVENT_TYPE_VMFAULT = 2,
  HSA_DEBUG_EVENT_TYPE_TRAP_VMFAULT = 3
} HSA_DEBUG_EVENT_TYPE;

typedef HSAuint32 HSA_EVENTID;

/* User memory attached to an event. */
typedef struct _HsaSyncVar {
  union {
    void* UserData;
    HSAuint64 UserDataPtrValue; /* the same address as a 64-bit value */
  } SyncVar;
  HSAuint64 SyncVarSize;
} HsaSyncVar;

HSAKMT_GNU_EXTENSION_ typedef enum _HSA_EVENTTYPE_NODECHANGE_FLAGS {
  HSA_EVENTTYPE_NODECHANGE_ADD = 0,
  HSA_EVENTTYPE_NODECHANGE_REMOVE = 1,
  HSA_EVENTTYPE_NODECHANGE_SIZE = 0xFFFFFFFF
} HSA_EVENTTYPE_NODECHANGE_FLAGS;

typedef struct _HsaNodeChange {
  HSA_EVENTTYPE_NODECHANGE_FLAGS Flags;
} HsaNodeChange;

HSAKMT_GNU_EXTENSION_ typedef enum _HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS {
  HSA_EVENTTYPE_DEVICESTATUSCHANGE_START = 0,
  HSA_EVENTTYPE_DEVICESTATUSCHANGE_STOP = 1,
  HSA_EVENTTYPE_DEVICESTATUSCHANGE_SIZE = 0xFFFFFFFF
} HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS;

typedef struct _HsaDeviceStateChange {
  HSAuint32 NodeId;
  HSA_DEVICE Device;
  HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS Flags;
} HsaDeviceStateChange;

typedef enum _HSA_EVENTID_MEMORYFLAGS {
  HSA_EVENTID_MEMORY_RECOVERABLE = 0,   /* fixable by changing the mapping */
  HSA_EVENTID_MEMORY_FATAL_PROCESS = 1, /* the process context is lost */
  HSA_EVENTID_MEMORY_FATAL_VM = 2,      /* every GPU VM context is lost */
} HSA_EVENTID_MEMORYFLAGS;

/* Why a GPU memory access failed. 4 bytes. */
typedef struct _HsaAccessAttributeFailure {
  unsigned int NotPresent : 1; /* page absent or privileged */
  unsigned int ReadOnly : 1;   /* write to a read-only page */
  unsigned int NoExecute : 1;  /* execute from a no-execute page */
  unsigned int GpuAccess : 1;  /* page is host-only */
  unsigned int ECC : 1;        /* uncorrectable memory error */
  unsigned int Imprecise : 1;  /* the address is approximate */
  unsigned int ErrorType : 3;  /* 0 none, 1 SRAM ECC, 2 link poison, 3 hang */
  unsigned int Reserved : 23;
} HsaAccessAttributeFailure;

/* Payload of an HSA_EVENTTYPE_MEMORY event. 20 bytes (packed). */
typedef struct _HsaMemoryAccessFault {
  HSAuint32 NodeId;
  HSAuint64 VirtualAddress;
  HsaAccessAttributeFailure Failure;
  HSA_EVENTID_MEMORYFLAGS Flags;
} HsaMemoryAccessFault;

typedef enum _HSA_EVENTID_HW_EXCEPTION_CAUSE {
  HSA_EVENTID_HW_EXCEPTION_GPU_HANG = 0,
  HSA_EVENTID_HW_EXCEPTION_ECC = 1,
} HSA_EVENTID_HW_EXCEPTION_CAUSE;

/* Payload of an HSA_EVENTTYPE_HW_EXCEPTION event. */
typedef struct _HsaHwException {
  HSAuint32 NodeId;
  HSAuint32 ResetType;
  HSAuint32 MemoryLost;
  HSA_EVENTID_HW_EXCEPTION_CAUSE ResetCause;
} HsaHwException;

/* Event state. The HWData fields belong to the library (kernel event id,
 * mailbox address, trigger data); callers must not change them. */
typedef struct _HsaEventData {
  HSA_EVENTTYPE EventType;
  union {
    HsaSyncVar SyncVar;                       /* SIGNAL and most other kinds */
    HsaNodeChange NodeChangeState;            /* NODECHANGE */
    HsaDeviceStateChange DeviceState;         /* DEVICESTATECHANGE */
    HsaMemoryAccessFault MemoryAccessFault;   /* MEMORY */
    HsaHwException HwException;               /* HW_EXCEPTION */
  } EventData;
  HSAuint64 HWData1;
  HSAuint64 HWData2;
  HSAuint32 HWData3;
} HsaEventData;

/* Input of hsaKmtCreateEvent. */
typedef struct _HsaEventDescriptor {
  HSA_EVENTTYPE EventType;
  HSAuint32 NodeId;   /* node whose GPU raises the event */
  HsaSyncVar SyncVar; /* optional user memory (UserData may be NULL) */
} HsaEventDescriptor;

/* An event as handed out by hsaKmtCreateEvent. 48 bytes. */
typedef struct _HsaEvent {
  HSA_EVENTID EventId;
  HsaEventData EventData;
} HsaEvent;

/* Special wait timeouts (milliseconds). */
HSAKMT_GNU_EXTENSION_ typedef enum _HsaEventTimeout {
  HSA_EVENTTIMEOUT_IMMEDIATE = 0,
  HSA_EVENTTIMEOUT_INFINITE = 0xFFFFFFFF
} HsaEventTimeOut;

/* Output of hsaKmtGetClockCounters. */
typedef struct _HsaClockCounters {
  HSAuint64 GPUClockCounter;
  HSAuint64 CPUClockCounter;
  HSAuint64 SystemClockCounter;
  HSAuint64 SystemClockFrequencyHz;
} HsaClockCounters;

/* ------------------------------------------------------------------------
 * Performance counters
 * ------------------------------------------------------------------------ */

#ifndef DEFINE_GUID
typedef struct _HSA_UUID {
  HSAuint32 Data1;
  HSAuint16 Data2;
  HSAuint16 Data3;
  HSAuint8 Data4[8];
} HSA_UUID;

/* Defines a file-local constant UUID. */
#define HSA_DEFINE_UUID(name, dw, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
  static const HSA_UUID name = {dw, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}
#else
#define HSA_UUID GUID
#define HSA_DEFINE_UUID DEFINE_GUID
#endif

/* Identifiers of the GPU blocks that carry counters. */
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_CB, 0x9ba429c6, 0xaf2d, 0x4b38, 0xb3, 0x49, 0x15, 0x72,
                0x71, 0xbe, 0xac, 0x6a);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_CPF, 0x2b0ad2b5, 0x1c43, 0x4f46, 0xa7, 0xbc, 0xe1, 0x19,
                0x41, 0x1e, 0xa6, 0xc9);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_CPG, 0x590ec94d, 0x20f0, 0x448f, 0x8d, 0xff, 0x31, 0x6c,
                0x67, 0x9d, 0xe7, 0xff);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_DB, 0x3d1a47fc, 0x0013, 0x4ed4, 0x83, 0x06, 0x82, 0x2c,
                0xa0, 0xb7, 0xa6, 0xc2);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_GDS, 0xf59276ec, 0x2526, 0x4bf8, 0x8e, 0xc0, 0x11, 0x8f,
                0x77, 0x70, 0x0d, 0xc9);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_GRBM, 0x8f00933c, 0xc33d, 0x4801, 0x97, 0xb7, 0x70, 0x07,
                0xf7, 0x85, 0x73, 0xad);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_GRBMSE, 0x34ebd8d7, 0x7c8b, 0x4d15, 0x88, 0xfa, 0x0e,
                0x4e, 0x4a, 0xf5, 0x9a, 0xc1);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_IA, 0x34276944, 0x4264, 0x4fcd, 0x9d, 0x6e, 0xae, 0x26,
                0x45, 0x82, 0xec, 0x51);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_MC, 0x13900b57, 0x4956, 0x4d98, 0x81, 0xd0, 0x68, 0x52,
                0x19, 0x37, 0xf5, 0x9c);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_PASC, 0xb0e7fb5d, 0x0efc, 0x4744, 0xb5, 0x16, 0x5d, 0x23,
                0xdc, 0x1f, 0xd5, 0x6c);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_PASU, 0x9a152b6a, 0x1fad, 0x45f2, 0xa5, 0xbf, 0xf1, 0x63,
                0x82, 0x6b, 0xd0, 0xcd);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SPI, 0xeda81044, 0xd62c, 0x47eb, 0xaf, 0x89, 0x4f, 0x6f,
                0xbf, 0x3b, 0x38, 0xe0);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SRBM, 0x9f8040e0, 0x6830, 0x4019, 0xac, 0xc8, 0x46, 0x3c,
                0x9e, 0x44, 0x5b, 0x89);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SQ, 0xb5c396b6, 0xd310, 0x47e4, 0x86, 0xfc, 0x5c, 0xc3,
                0x04, 0x3a, 0xf5, 0x08);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SX, 0xbdb8d737, 0x43cc, 0x4162, 0xbe, 0x52, 0x51, 0xcf,
                0xb8, 0x47, 0xbe, 0xaf);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TA, 0xc01ee43d, 0xad92, 0x44b1, 0x8a, 0xb9, 0xbe, 0x5e,
                0x69, 0x6c, 0xee, 0xa7);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCA, 0x333e393f, 0xe147, 0x4f49, 0xa6, 0xd1, 0x60, 0x91,
                0x4c, 0x70, 0x86, 0xb0);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCC, 0x848ce855, 0xd805, 0x4566, 0xa8, 0xab, 0x73, 0xe8,
                0x84, 0xcc, 0x6b, 0xff);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCP, 0xe10a013b, 0x17d4, 0x4bf5, 0xb0, 0x89, 0x42, 0x95,
                0x91, 0x05, 0x9b, 0x60);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCS, 0x4126245c, 0x4d96, 0x4d1a, 0x8a, 0xed, 0xa9, 0x39,
                0xd4, 0xcc, 0x8e, 0xc9);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TD, 0x7d7c0fe4, 0xfe41, 0x4fea, 0x92, 0xc9, 0x45, 0x44,
                0xd7, 0x70, 0x6d, 0xc6);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_VGT, 0x0b6a8cb7, 0x7a01, 0x409f, 0xa2, 0x2c, 0x30, 0x14,
                0x85, 0x4f, 0x13, 0x59);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_WD, 0x0e176789, 0x46ed, 0x4b02, 0x97, 0x2a, 0x91, 0x6d,
                0x2f, 0xac, 0x24, 0x4a);

HSAKMT_GNU_EXTENSION_ typedef enum _HSA_PROFILE_TYPE {
  HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE = 0, /* read on demand, kernel only */
  HSA_PROFILE_TYPE_PRIVILEGED_STREAMING = 1, /* hardware streams to memory, kernel only */
  HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE = 2,    /* readable from a user queue */
  HSA_PROFILE_TYPE_NONPRIV_STREAMING = 3,    /* streamed, user-queue accessible */
  HSA_PROFILE_TYPE_NUM,
  HSA_PROFILE_TYPE_SIZE = 0xFFFFFFFF
} HSA_PROFILE_TYPE;

typedef struct _HsaCounterFlags {
  union {
    struct {
      unsigned int Global : 1;     /* not tied to a VMID, wave or CU */
      unsigned int Resettable : 1; /* software can reset it */
      unsigned int ReadOnly : 1;   /* cannot be written (may still be resettable) */
      unsigned int Stream : 1;     /* can stream into a buffer */
      unsigned int Reserved : 28;
    } ui32;
    HSAuint32 Value;
  };
} HsaCounterFlags;

/* One hardware counter. 32 bytes (packed). */
typedef struct _HsaCounter {
  HSA_PROFILE_TYPE Type;
  HSAuint64 CounterId;         /* register offset */
  HSAuint32 CounterSizeInBits; /* significant bits */
  HSAuint64 CounterMask;       /* value mask, when applicable */
  HsaCounterFlags Flags;
  HSAuint32 BlockIndex;        /* index of the owning block */
} HsaCounter;

/* One counter block; Counters[] really holds NumCounters entries. */
typedef struct _HsaCounterBlockProperties {
  HSA_UUID BlockId;
  HSAuint32 NumCounters;
  HSAuint32 NumConcurrent; /* counters usable at the same time */
  HsaCounter Counters[1];
} HsaCounterBlockProperties;

/* Counter blocks of a node; Blocks[] really holds NumBlocks entries, each of
 * variable length. Output of hsaKmtPmcGetCounterProperties. */
typedef struct _HsaCounterProperties {
  HSAuint32 NumBlocks;
  HSAuint32 NumConcurrent; /* blocks usable at the same time */
  HsaCounterBlockProperties Blocks[1];
} HsaCounterProperties;

typedef HSAuint64 HSATraceId;

/* Output of hsaKmtPmcRegisterTrace. 20 bytes (packed). */
typedef struct _HsaPmcTraceRoot {
  HSAuint64 TraceBufferMinSizeBytes; /* page aligned */
  HSAuint32 NumberOfPasses;
  HSATraceId TraceId;
} HsaPmcTraceRoot;

/* In/out of hsaKmtGetTileConfig: the caller supplies both arrays and their
 * capacities; the counts come back as the number of entries written. */
typedef struct _HsaGpuTileConfig {
  HSAuint32* TileConfig;
  HSAuint32* MacroTileConfig;
  HSAuint32 NumTileConfigs;
  HSAuint32 NumMacroTileConfigs;
  HSAuint32 GbAddrConfig;
  HSAuint32 NumBanks;
  HSAuint32 NumRanks;
  HSAuint32 Reserved[7]; /* pads the struct to 64 bytes on LP64 */
} HsaGpuTileConfig;

/* ------------------------------------------------------------------------
 * Pointer queries, sharing, SVM
 * ------------------------------------------------------------------------ */

typedef enum _HSA_POINTER_TYPE {
  HSA_POINTER_UNKNOWN = 0,
  HSA_POINTER_ALLOCATED = 1,           /* from hsaKmtAllocMemory (not scratch) */
  HSA_POINTER_REGISTERED_USER = 2,     /* registered user memory */
  HSA_POINTER_REGISTERED_GRAPHICS = 3, /* imported graphics buffer */
  HSA_POINTER_REGISTERED_SHARED = 4,   /* imported IPC buffer */
  HSA_POINTER_RESERVED_ADDR = 5        /* VA reservation without backing */
} HSA_POINTER_TYPE;

/* Output of hsaKmtQueryPointerInfo. The node arrays are owned by the
 * library and valid while the memory stays allocated/registered. */
typedef struct _HsaPointerInfo {
  HSA_POINTER_TYPE Type;
  HSAuint32 Node;       /* node whose memory backs it */
  HsaMemFlags MemFlags; /* flags it was allocated with */
  void* CPUAddress;
  HSAuint64 GPUAddress;
  HSAuint64 SizeInBytes;
  HSAuint32 NRegisteredNodes;
  HSAuint32 NMappedNodes;
  const HSAuint32* RegisteredNodes;
  const HSAuint32* MappedNodes;
  void* UserData; /* set by hsaKmtSetMemoryUserData */
} HsaPointerInfo;

/* Opaque IPC handle produced by hsaKmtShareMemory. */
typedef HSAuint32 HsaSharedMemoryHandle[8];

typedef struct _HsaMemoryRange {
  void* MemoryAddress;
  HSAuint64 SizeInBytes;
} HsaMemoryRange;

/* Flag bits of HSA_SVM_ATTR_SET_FLAGS / HSA_SVM_ATTR_CLR_FLAGS. */
typedef enum _HSA_SVM_FLAGS {
  HSA_SVM_FLAG_HOST_ACCESS = 0x00000001,       /* host access is guaranteed */
  HSA_SVM_FLAG_COHERENT = 0x00000002,          /* fine-grained coherence across devices */
  HSA_SVM_FLAG_HIVE_LOCAL = 0x00000004,        /* any GPU of the hive may be preferred */
  HSA_SVM_FLAG_GPU_RO = 0x00000008,            /* GPUs only read (replication allowed) */
  HSA_SVM_FLAG_GPU_EXEC = 0x00000010,          /* GPUs may execute from it */
  HSA_SVM_FLAG_GPU_READ_MOSTLY = 0x00000020,   /* GPUs mostly read; writes fault */
  HSA_SVM_FLAG_GPU_ALWAYS_MAPPED = 0x00000040, /* keep GPU mappings valid (no XNACK) */
  HSA_SVM_FLAG_EXT_COHERENT = 0x00000080,      /* coherent device-scope atomics */
} HSA_SVM_FLAGS;

/* Attribute kinds of hsaKmtSVMSetAttr/GetAttr. Location values are node ids,
 * 0 for system memory and INVALID_NODEID for "no preference". */
typedef enum _HSA_SVM_ATTR_TYPE {
  HSA_SVM_ATTR_PREFERRED_LOC,
  HSA_SVM_ATTR_PREFETCH_LOC, /* setting it migrates now */
  HSA_SVM_ATTR_ACCESS,
  HSA_SVM_ATTR_ACCESS_IN_PLACE,
  HSA_SVM_ATTR_NO_ACCESS,
  HSA_SVM_ATTR_SET_FLAGS,   /* HSA_SVM_FLAGS bits to set */
  HSA_SVM_ATTR_CLR_FLAGS,   /* HSA_SVM_FLAGS bits to clear */
  HSA_SVM_ATTR_GRANULARITY  /* log2 of the migration granule in pages */
} HSA_SVM_ATTR_TYPE;

typedef struct _HSA_SVM_ATTRIBUTE {
  HSAuint32 type;  /* HSA_SVM_ATTR_TYPE */
  HSAuint32 value;
} HSA_SVM_ATTRIBUTE;

/* SMI event numbers (bit index + 1 in the mask written to the SMI fd). */
typedef enum _HSA_SMI_EVENT {
  HSA_SMI_EVENT_NONE = 0,
  HSA_SMI_EVENT_VMFAULT = 1,
  HSA_SMI_EVENT_THERMAL_THROTTLE = 2,
  HSA_SMI_EVENT_GPU_PRE_RESET = 3,
  HSA_SMI_EVENT_GPU_POST_RESET = 4,
  HSA_SMI_EVENT_MIGRATE_START = 5,
  HSA_SMI_EVENT_MIGRATE_END = 6,
  HSA_SMI_EVENT_PAGE_FAULT_START = 7,
  HSA_SMI_EVENT_PAGE_FAULT_END = 8,
  HSA_SMI_EVENT_QUEUE_EVICTION = 9,
  HSA_SMI_EVENT_QUEUE_RESTORE = 10,
  HSA_SMI_EVENT_UNMAP_FROM_GPU = 11,
  HSA_SMI_EVENT_INDEX_MAX = 12,
  /* Flag: receive events of every process (needs privilege). */
  HSA_SMI_EVENT_ALL_PROCESS = 64
} HSA_EVENT_TYPE;

typedef enum _HSA_MIGRATE_TRIGGERS {
  HSA_MIGRATE_TRIGGER_PREFETCH,
  HSA_MIGRATE_TRIGGER_PAGEFAULT_GPU,
  HSA_MIGRATE_TRIGGER_PAGEFAULT_CPU,
  HSA_MIGRATE_TRIGGER_TTM_EVICTION
} HSA_MIGRATE_TRIGGERS;

typedef enum _HSA_QUEUE_EVICTION_TRIGGERS {
  HSA_QUEUE_EVICTION_TRIGGER_SVM,
  HSA_QUEUE_EVICTION_TRIGGER_USERPTR,
  HSA_QUEUE_EVICTION_TRIGGER_TTM,
  HSA_QUEUE_EVICTION_TRIGGER_SUSPEND,
  HSA_QUEUE_EVICTION_CRIU_CHECKPOINT,
  HSA_QUEUE_EVICTION_CRIU_RESTORE
} HSA_QUEUE_EVICTION_TRIGGERS;

typedef enum _HSA_SVM_UNMAP_TRIGGERS {
  HSA_SVM_UNMAP_TRIGGER_MMU_NOTIFY,
  HSA_SVM_UNMAP_TRIGGER_MMU_NOTIFY_MIGRATE,
  HSA_SVM_UNMAP_TRIGGER_UNMAP_FROM_CPU
} HSA_SVM_UNMAP_TRIGGERS;

/* Mask bit of SMI event number i, and the size of one SMI message line. */
#define HSA_SMI_EVENT_MASK_FROM_INDEX(i) (1ULL << ((i) - 1))
#define HSA_SMI_EVENT_MSG_SIZE 96

/* The libdrm amdgpu_device_handle of a node's render device. */
typedef void* HsaAMDGPUDeviceHandle;

/* ------------------------------------------------------------------------
 * PC sampling
 * ------------------------------------------------------------------------ */

typedef HSAuint32 HsaPcSamplingTraceId;

typedef enum _HSA_PC_SAMPLING_METHOD_KIND {
  HSA_PC_SAMPLING_METHOD_KIND_HOSTTRAP_V1 = 1,
  HSA_PC_SAMPLING_METHOD_KIND_STOCHASTIC_V1,
} HSA_PC_SAMPLING_METHOD_KIND;

typedef enum _HSA_PC_SAMPLING_UNITS {
  HSA_PC_SAMPLING_UNIT_INTERVAL_MICROSECONDS,
  HSA_PC_SAMPLING_UNIT_INTERVAL_CYCLES,
  HSA_PC_SAMPLING_UNIT_INTERVAL_INSTRUCTIONS,
} HSA_PC_SAMPLING_UNIT_INTERVAL;

/* One sampling configuration; byte-identical to the kernel's
 * struct kfd_pc_sample_info (40 bytes). */
typedef struct _HsaPcSamplingInfo {
  HSAuint64 value;     /* interval, in `units` */
  HSAuint64 value_min;
  HSAuint64 value_max;
  HSAuint64 flags;
  HSA_PC_SAMPLING_METHOD_KIND method;
  HSA_PC_SAMPLING_UNIT_INTERVAL units;
} HsaPcSamplingInfo;

/* Options of hsaKmtRegisterGraphicsHandleToNodesExt. 4 bytes, by value. */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int requiresVAddr : 1; /* give the import a GPU virtual address */
  } ui32;
} HSA_REGISTER_MEM_FLAGS;

#pragma pack(pop)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* _HSAKMTTYPES_H_ */
