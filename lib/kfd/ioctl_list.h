// The one list of KFD ioctls (/dev/kfd, ioctl type 'K'): upstream's
// 0x01..0x27 and the DKMS-only 0x80..0x85 this project knows.
//
// Every other description of a KFD request is derived from it:
//  - the kIoc* request numbers and the IoctlOf<Args> trait (abi.h),
//  - the name table FindIoctl/RequestName/IoctlTable (ioctl_table.cc),
//  - the simulator's dispatch table (platform/sim/core/dispatch.cc), which
//    takes each request's name, direction, size and first KFD version from
//    here and adds only which handler serves it,
// tests/kfd/ioctl_list_test.cc and tests/sim_core/ioctl_list_test.cc check
// that those agree with the list; abi_crosscheck_test.cc and
// abi_reference_test.cc check the list against the kernel's header and the
// recorded upstream values.
//
// One line per request:
//   X(nr, Name, NAME, dir, Args, size_kind, major, minor)
//     nr         the _IOC nr field
//     Name       suffix of the constant kIoc<Name>
//     NAME       suffix of the kernel's name AMDKFD_IOC_<NAME>
//     dir        kIocNone / kIocWrite / kIocRead / kIocReadWrite (caller's view)
//     Args       the argument structure (abi.h); NoArgs when none (size 0)
//     size_kind  kFixedSize, or kVariableSize when the size field carries the
//                payload length and sizeof(Args) is only the fixed head (SVM)
//     major, minor  the first KFD version that serves the request (the
//                abi.h kMinor* constant where the library tests for it): the
//                simulator answers ENOTTY on a board older than that, as
//                the kernel's dispatch does. 1.0 for the requests every
//                supported kernel has and for the DKMS-only ones that are
//                not tied to a version.
//
// The list is a macro so that it can be expanded in several places; it
// names structures from abi.h, so expand it only after including abi.h
// (abi.h itself expands it at its end). The dir, Args and kind columns are
// names inside hke::kfd; the version column is fully qualified so that code
// outside the namespace (the simulator) can use it as it is. Pure text, no
// state.
#ifndef HKE_LIB_KFD_IOCTL_LIST_H_
#define HKE_LIB_KFD_IOCTL_LIST_H_

// clang-format off
#define HKE_KFD_IOCTL_LIST(X)                                                                                 \
  X(0x01, GetVersion,                   GET_VERSION,                  kIocRead,      GetVersionArgs,             kFixedSize,    1, 0)  \
  X(0x02, CreateQueue,                  CREATE_QUEUE,                 kIocReadWrite, CreateQueueArgs,            kFixedSize,    1, 0)  \
  X(0x03, DestroyQueue,                 DESTROY_QUEUE,                kIocReadWrite, DestroyQueueArgs,           kFixedSize,    1, 0)  \
  X(0x04, SetMemoryPolicy,              SET_MEMORY_POLICY,            kIocWrite,     SetMemoryPolicyArgs,        kFixedSize,    1, 0)  \
  X(0x05, GetClockCounters,             GET_CLOCK_COUNTERS,           kIocReadWrite, GetClockCountersArgs,       kFixedSize,    1, 0)  \
  X(0x06, GetProcessApertures,          GET_PROCESS_APERTURES,        kIocRead,      GetProcessAperturesArgs,    kFixedSize,    1, 0)  \
  X(0x07, UpdateQueue,                  UPDATE_QUEUE,                 kIocWrite,     UpdateQueueArgs,            kFixedSize,    1, 0)  \
  X(0x08, CreateEvent,                  CREATE_EVENT,                 kIocReadWrite, CreateEventArgs,            kFixedSize,    1, 0)  \
  X(0x09, DestroyEvent,                 DESTROY_EVENT,                kIocWrite,     DestroyEventArgs,           kFixedSize,    1, 0)  \
  X(0x0A, SetEvent,                     SET_EVENT,                    kIocWrite,     SetEventArgs,               kFixedSize,    1, 0)  \
  X(0x0B, ResetEvent,                   RESET_EVENT,                  kIocWrite,     ResetEventArgs,             kFixedSize,    1, 0)  \
  X(0x0C, WaitEvents,                   WAIT_EVENTS,                  kIocReadWrite, WaitEventsArgs,             kFixedSize,    1, 0)  \
  X(0x0D, DbgRegisterDeprecated,        DBG_REGISTER_DEPRECATED,      kIocWrite,     DbgRegisterArgs,            kFixedSize,    1, 0)  \
  X(0x0E, DbgUnregisterDeprecated,      DBG_UNREGISTER_DEPRECATED,    kIocWrite,     DbgUnregisterArgs,          kFixedSize,    1, 0)  \
  X(0x0F, DbgAddressWatchDeprecated,    DBG_ADDRESS_WATCH_DEPRECATED, kIocWrite,     DbgAddressWatchArgs,        kFixedSize,    1, 0)  \
  X(0x10, DbgWaveControlDeprecated,     DBG_WAVE_CONTROL_DEPRECATED,  kIocWrite,     DbgWaveControlArgs,         kFixedSize,    1, 0)  \
  X(0x11, SetScratchBackingVa,          SET_SCRATCH_BACKING_VA,       kIocReadWrite, SetScratchBackingVaArgs,    kFixedSize,    1, 0)  \
  X(0x12, GetTileConfig,                GET_TILE_CONFIG,              kIocReadWrite, GetTileConfigArgs,          kFixedSize,    1, 0)  \
  X(0x13, SetTrapHandler,               SET_TRAP_HANDLER,             kIocWrite,     SetTrapHandlerArgs,         kFixedSize,    1, 0)  \
  X(0x14, GetProcessAperturesNew,       GET_PROCESS_APERTURES_NEW,    kIocReadWrite, GetProcessAperturesNewArgs, kFixedSize,    1, 0)  \
  X(0x15, AcquireVm,                    ACQUIRE_VM,                   kIocWrite,     AcquireVmArgs,              kFixedSize,    1, 0)  \
  X(0x16, AllocMemoryOfGpu,             ALLOC_MEMORY_OF_GPU,          kIocReadWrite, AllocMemoryOfGpuArgs,       kFixedSize,    1, 0)  \
  X(0x17, FreeMemoryOfGpu,              FREE_MEMORY_OF_GPU,           kIocWrite,     FreeMemoryOfGpuArgs,        kFixedSize,    1, 0)  \
  X(0x18, MapMemoryToGpu,               MAP_MEMORY_TO_GPU,            kIocReadWrite, MapMemoryToGpuArgs,         kFixedSize,    1, 0)  \
  X(0x19, UnmapMemoryFromGpu,           UNMAP_MEMORY_FROM_GPU,        kIocReadWrite, UnmapMemoryFromGpuArgs,     kFixedSize,    1, 0)  \
  X(0x1A, SetCuMask,                    SET_CU_MASK,                  kIocWrite,     SetCuMaskArgs,              kFixedSize,    1, 0)  \
  X(0x1B, GetQueueWaveState,            GET_QUEUE_WAVE_STATE,         kIocReadWrite, GetQueueWaveStateArgs,      kFixedSize,    1, 0)  \
  X(0x1C, GetDmabufInfo,                GET_DMABUF_INFO,              kIocReadWrite, GetDmabufInfoArgs,          kFixedSize,    1, 0)  \
  X(0x1D, ImportDmabuf,                 IMPORT_DMABUF,                kIocReadWrite, ImportDmabufArgs,           kFixedSize,    1, 0)  \
  X(0x1E, AllocQueueGws,                ALLOC_QUEUE_GWS,              kIocReadWrite, AllocQueueGwsArgs,          kFixedSize,    1, 0)  \
  X(0x1F, SmiEvents,                    SMI_EVENTS,                   kIocReadWrite, SmiEventsArgs,              kFixedSize,    1, ::hke::kfd::kMinorSmiEvents) \
  X(0x20, Svm,                          SVM,                          kIocReadWrite, SvmArgs,                    kVariableSize, 1, ::hke::kfd::kMinorSvm) \
  X(0x21, SetXnackMode,                 SET_XNACK_MODE,               kIocReadWrite, SetXnackModeArgs,           kFixedSize,    1, ::hke::kfd::kMinorSvm) \
  X(0x22, CriuOp,                       CRIU_OP,                      kIocReadWrite, CriuArgs,                   kFixedSize,    1, ::hke::kfd::kMinorCriu) \
  X(0x23, AvailableMemory,              AVAILABLE_MEMORY,             kIocReadWrite, GetAvailableMemoryArgs,     kFixedSize,    1, ::hke::kfd::kMinorAvailableMemory) \
  X(0x24, ExportDmabuf,                 EXPORT_DMABUF,                kIocReadWrite, ExportDmabufArgs,           kFixedSize,    1, ::hke::kfd::kMinorExportDmabuf) \
  X(0x25, RuntimeEnable,                RUNTIME_ENABLE,               kIocReadWrite, RuntimeEnableArgs,          kFixedSize,    1, ::hke::kfd::kMinorDebugger) \
  X(0x26, DbgTrap,                      DBG_TRAP,                     kIocReadWrite, DbgTrapArgs,                kFixedSize,    1, ::hke::kfd::kMinorDebugger) \
  X(0x27, CreateProcess,                CREATE_PROCESS,               kIocNone,      NoArgs,                     kFixedSize,    1, ::hke::kfd::kMinorCreateProcess) \
  X(0x80, IpcImportHandle,              IPC_IMPORT_HANDLE,            kIocReadWrite, IpcImportHandleArgs,        kFixedSize,    1, 0)  \
  X(0x81, IpcExportHandle,              IPC_EXPORT_HANDLE,            kIocReadWrite, IpcExportHandleArgs,        kFixedSize,    1, 0)  \
  X(0x83, CrossMemoryCopy,              CROSS_MEMORY_COPY,            kIocReadWrite, CrossMemoryCopyArgs,        kFixedSize,    1, 0)  \
  X(0x84, RlcSpm,                       RLC_SPM,                      kIocReadWrite, SpmArgs,                    kFixedSize,    1, 0)  \
  X(0x85, PcSample,                     PC_SAMPLE,                    kIocReadWrite, PcSampleArgs,               kFixedSize,    1, ::hke::kfd::kMinorPcSampling)
// clang-format on

#endif  // HKE_LIB_KFD_IOCTL_LIST_H_
