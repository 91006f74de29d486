// Cross-checks lib/kfd/abi.h and drm_abi.h against the system's kernel uapi
// headers: every AMDKFD_IOC_* request the header defines, the size of every
// structure it defines, the offset and size of every field, and the
// constants. The cross sysroots carry the same headers, so this runs on
// every target architecture.
//
// The installed <linux/kfd_ioctl.h> may be older than our ABI (Debian 12
// ships KFD 1.11). Structures that grew since then are checked as a prefix:
// every field the header has must sit at the same offset in ours.
#include <cstddef>
#include <cstdint>
#include <string>

#include <doctest/doctest.h>
#include <linux/kfd_ioctl.h>

#if __has_include(<drm/amdgpu_drm.h>)
#include <drm/amdgpu_drm.h>
#include <drm/drm.h>
#define HKE_HAVE_DRM_HEADERS 1
#elif __has_include(<libdrm/amdgpu_drm.h>)
#include <libdrm/amdgpu_drm.h>
#include <libdrm/drm.h>
#define HKE_HAVE_DRM_HEADERS 1
#else
#define HKE_HAVE_DRM_HEADERS 0
#endif

#include "lib/kfd/abi.h"
#include "lib/kfd/drm_abi.h"
#include "lib/kfd/ioctl_table.h"

namespace k = hke::kfd;

// Field `of` of our O against field `tf` of the header's T.
#define HKE_FIELD2(of, tf)                                                   \
  do {                                                                       \
    INFO("field " #of);                                                      \
    CHECK(offsetof(O, of) == offsetof(T, tf));                               \
    CHECK(sizeof(static_cast<O*>(nullptr)->of) ==                            \
          sizeof(static_cast<T*>(nullptr)->tf));                             \
  } while (0)
#define HKE_FIELD(f) HKE_FIELD2(f, f)
#define HKE_SAME_SIZE() CHECK(sizeof(O) == sizeof(T))

TEST_CASE("every AMDKFD_IOC request in the system header equals ours") {
  CHECK(k::kIocGetVersion == AMDKFD_IOC_GET_VERSION);
#if KFD_IOCTL_MINOR_VERSION >= 17
  CHECK(k::kIocCreateQueue == AMDKFD_IOC_CREATE_QUEUE);
#else
  // Same dir/type/nr; the size grew from 88 to 96 in 1.17.
  CHECK(k::IocWithSize(AMDKFD_IOC_CREATE_QUEUE, sizeof(k::CreateQueueArgs)) ==
        k::kIocCreateQueue);
  CHECK(k::IocSize(AMDKFD_IOC_CREATE_QUEUE) == k::kCreateQueueArgsSizeV11);
#endif
  CHECK(k::kIocDestroyQueue == AMDKFD_IOC_DESTROY_QUEUE);
  CHECK(k::kIocSetMemoryPolicy == AMDKFD_IOC_SET_MEMORY_POLICY);
  CHECK(k::kIocGetClockCounters == AMDKFD_IOC_GET_CLOCK_COUNTERS);
  CHECK(k::kIocGetProcessApertures == AMDKFD_IOC_GET_PROCESS_APERTURES);
  CHECK(k::kIocUpdateQueue == AMDKFD_IOC_UPDATE_QUEUE);
  CHECK(k::kIocCreateEvent == AMDKFD_IOC_CREATE_EVENT);
  CHECK(k::kIocDestroyEvent == AMDKFD_IOC_DESTROY_EVENT);
  CHECK(k::kIocSetEvent == AMDKFD_IOC_SET_EVENT);
  CHECK(k::kIocResetEvent == AMDKFD_IOC_RESET_EVENT);
  CHECK(k::kIocWaitEvents == AMDKFD_IOC_WAIT_EVENTS);
#ifdef AMDKFD_IOC_DBG_REGISTER_DEPRECATED
  CHECK(k::kIocDbgRegisterDeprecated == AMDKFD_IOC_DBG_REGISTER_DEPRECATED);
  CHECK(k::kIocDbgUnregisterDeprecated == AMDKFD_IOC_DBG_UNREGISTER_DEPRECATED);
  CHECK(k::kIocDbgAddressWatchDeprecated == AMDKFD_IOC_DBG_ADDRESS_WATCH_DEPRECATED);
  CHECK(k::kIocDbgWaveControlDeprecated == AMDKFD_IOC_DBG_WAVE_CONTROL_DEPRECATED);
#else
  CHECK(k::kIocDbgRegisterDeprecated == AMDKFD_IOC_DBG_REGISTER);
  CHECK(k::kIocDbgUnregisterDeprecated == AMDKFD_IOC_DBG_UNREGISTER);
  CHECK(k::kIocDbgAddressWatchDeprecated == AMDKFD_IOC_DBG_ADDRESS_WATCH);
  CHECK(k::kIocDbgWaveControlDeprecated == AMDKFD_IOC_DBG_WAVE_CONTROL);
#endif
  CHECK(k::kIocSetScratchBackingVa == AMDKFD_IOC_SET_SCRATCH_BACKING_VA);
  CHECK(k::kIocGetTileConfig == AMDKFD_IOC_GET_TILE_CONFIG);
  CHECK(k::kIocSetTrapHandler == AMDKFD_IOC_SET_TRAP_HANDLER);
  CHECK(k::kIocGetProcessAperturesNew == AMDKFD_IOC_GET_PROCESS_APERTURES_NEW);
  CHECK(k::kIocAcquireVm == AMDKFD_IOC_ACQUIRE_VM);
  CHECK(k::kIocAllocMemoryOfGpu == AMDKFD_IOC_ALLOC_MEMORY_OF_GPU);
  CHECK(k::kIocFreeMemoryOfGpu == AMDKFD_IOC_FREE_MEMORY_OF_GPU);
  CHECK(k::kIocMapMemoryToGpu == AMDKFD_IOC_MAP_MEMORY_TO_GPU);
  CHECK(k::kIocUnmapMemoryFromGpu == AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU);
  CHECK(k::kIocSetCuMask == AMDKFD_IOC_SET_CU_MASK);
  CHECK(k::kIocGetQueueWaveState == AMDKFD_IOC_GET_QUEUE_WAVE_STATE);
  CHECK(k::kIocGetDmabufInfo == AMDKFD_IOC_GET_DMABUF_INFO);
  CHECK(k::kIocImportDmabuf == AMDKFD_IOC_IMPORT_DMABUF);
  CHECK(k::kIocAllocQueueGws == AMDKFD_IOC_ALLOC_QUEUE_GWS);
  CHECK(k::kIocSmiEvents == AMDKFD_IOC_SMI_EVENTS);
  CHECK(k::kIocSvm == AMDKFD_IOC_SVM);
  CHECK(k::kIocSetXnackMode == AMDKFD_IOC_SET_XNACK_MODE);
  CHECK(k::kIocCriuOp == AMDKFD_IOC_CRIU_OP);
  CHECK(k::kIocAvailableMemory == AMDKFD_IOC_AVAILABLE_MEMORY);
#ifdef AMDKFD_IOC_EXPORT_DMABUF
  CHECK(k::kIocExportDmabuf == AMDKFD_IOC_EXPORT_DMABUF);
#endif
#ifdef AMDKFD_IOC_RUNTIME_ENABLE
  CHECK(k::kIocRuntimeEnable == AMDKFD_IOC_RUNTIME_ENABLE);
  CHECK(k::kIocDbgTrap == AMDKFD_IOC_DBG_TRAP);
#endif
#ifdef AMDKFD_IOC_CREATE_PROCESS
  CHECK(k::kIocCreateProcess == AMDKFD_IOC_CREATE_PROCESS);
#endif
  CHECK(k::kKfdCommandStart == AMDKFD_COMMAND_START);
  // Our end covers everything up to 1.19; an older header ends earlier.
  CHECK(k::kKfdCommandEnd >= AMDKFD_COMMAND_END);
  CHECK(KFD_IOCTL_MAJOR_VERSION == k::kKfdMajorVersion);
  CHECK(KFD_IOCTL_MINOR_VERSION <= k::kKfdNewestKnownMinor);
}

TEST_CASE("every system-header request is in the ioctl table under its name") {
  struct Named {
    uint32_t request;
    const char* name;
  };
  const Named named[] = {
      {AMDKFD_IOC_GET_VERSION, "AMDKFD_IOC_GET_VERSION"},
      {AMDKFD_IOC_DESTROY_QUEUE, "AMDKFD_IOC_DESTROY_QUEUE"},
      {AMDKFD_IOC_SET_MEMORY_POLICY, "AMDKFD_IOC_SET_MEMORY_POLICY"},
      {AMDKFD_IOC_GET_CLOCK_COUNTERS, "AMDKFD_IOC_GET_CLOCK_COUNTERS"},
      {AMDKFD_IOC_GET_PROCESS_APERTURES, "AMDKFD_IOC_GET_PROCESS_APERTURES"},
      {AMDKFD_IOC_UPDATE_QUEUE, "AMDKFD_IOC_UPDATE_QUEUE"},
      {AMDKFD_IOC_CREATE_EVENT, "AMDKFD_IOC_CREATE_EVENT"},
      {AMDKFD_IOC_DESTROY_EVENT, "AMDKFD_IOC_DESTROY_EVENT"},
      {AMDKFD_IOC_SET_EVENT, "AMDKFD_IOC_SET_EVENT"},
      {AMDKFD_IOC_RESET_EVENT, "AMDKFD_IOC_RESET_EVENT"},
      {AMDKFD_IOC_WAIT_EVENTS, "AMDKFD_IOC_WAIT_EVENTS"},
      {AMDKFD_IOC_SET_SCRATCH_BACKING_VA, "AMDKFD_IOC_SET_SCRATCH_BACKING_VA"},
      {AMDKFD_IOC_GET_TILE_CONFIG, "AMDKFD_IOC_GET_TILE_CONFIG"},
      {AMDKFD_IOC_SET_TRAP_HANDLER, "AMDKFD_IOC_SET_TRAP_HANDLER"},
      {AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW"},
      {AMDKFD_IOC_ACQUIRE_VM, "AMDKFD_IOC_ACQUIRE_VM"},
      {AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU"},
      {AMDKFD_IOC_FREE_MEMORY_OF_GPU, "AMDKFD_IOC_FREE_MEMORY_OF_GPU"},
      {AMDKFD_IOC_MAP_MEMORY_TO_GPU, "AMDKFD_IOC_MAP_MEMORY_TO_GPU"},
      {AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU"},
      {AMDKFD_IOC_SET_CU_MASK, "AMDKFD_IOC_SET_CU_MASK"},
      {AMDKFD_IOC_GET_QUEUE_WAVE_STATE, "AMDKFD_IOC_GET_QUEUE_WAVE_STATE"},
      {AMDKFD_IOC_GET_DMABUF_INFO, "AMDKFD_IOC_GET_DMABUF_INFO"},
      {AMDKFD_IOC_IMPORT_DMABUF, "AMDKFD_IOC_IMPORT_DMABUF"},
      {AMDKFD_IOC_ALLOC_QUEUE_GWS, "AMDKFD_IOC_ALLOC_QUEUE_GWS"},
      {AMDKFD_IOC_SMI_EVENTS, "AMDKFD_IOC_SMI_EVENTS"},
      {AMDKFD_IOC_SVM, "AMDKFD_IOC_SVM"},
      {AMDKFD_IOC_SET_XNACK_MODE, "AMDKFD_IOC_SET_XNACK_MODE"},
      {AMDKFD_IOC_CRIU_OP, "AMDKFD_IOC_CRIU_OP"},
      {AMDKFD_IOC_AVAILABLE_MEMORY, "AMDKFD_IOC_AVAILABLE_MEMORY"},
  };
  for (const Named& n : named) {
    INFO(n.name);
    const k::IoctlInfo* info = k::FindIoctl(n.request);
    REQUIRE(info != nullptr);
    CHECK(std::string(info->name) == n.name);
    CHECK(info->nr == k::IocNr(n.request));
    CHECK(info->size == k::IocSize(n.request));
    CHECK(info->dir == k::IocDir(n.request));
  }
}

TEST_CASE("the portable _IOC helpers agree with the system's _IOC macros") {
  CHECK(k::IocEncode(k::kIocNone, 'K', 0x27, 0) == _IO('K', 0x27));
  CHECK(k::IocEncode(k::kIocRead, 'K', 1, 8) == _IOR('K', 1, uint64_t));
  CHECK(k::IocEncode(k::kIocWrite, 'K', 4, 32) == _IOW('K', 4, k::SetMemoryPolicyArgs));
  CHECK(k::IocEncode(k::kIocReadWrite, 'K', 2, 96) == _IOWR('K', 2, k::CreateQueueArgs));
  CHECK(k::kIocDirShift == _IOC_DIRSHIFT);
  CHECK(k::kIocSizeShift == _IOC_SIZESHIFT);
  CHECK(k::kIocTypeShift == _IOC_TYPESHIFT);
  CHECK(k::kIocNrShift == _IOC_NRSHIFT);
  CHECK(k::kIocSizeBits == _IOC_SIZEBITS);
  CHECK(k::kIocRead == _IOC_READ);
  CHECK(k::kIocWrite == _IOC_WRITE);
  CHECK(k::IocDir(AMDKFD_IOC_SVM) == _IOC_DIR(AMDKFD_IOC_SVM));
  CHECK(k::IocType(AMDKFD_IOC_SVM) == _IOC_TYPE(AMDKFD_IOC_SVM));
  CHECK(k::IocNr(AMDKFD_IOC_SVM) == _IOC_NR(AMDKFD_IOC_SVM));
  CHECK(k::IocSize(AMDKFD_IOC_SVM) == _IOC_SIZE(AMDKFD_IOC_SVM));
}

TEST_CASE("queue argument structures match the system header field by field") {
  {
    using O = k::GetVersionArgs;
    using T = kfd_ioctl_get_version_args;
    HKE_SAME_SIZE();
    HKE_FIELD(major_version);
    HKE_FIELD(minor_version);
  }
  {
    using O = k::CreateQueueArgs;
    using T = kfd_ioctl_create_queue_args;
#if KFD_IOCTL_MINOR_VERSION >= 17
    HKE_SAME_SIZE();
    HKE_FIELD(sdma_engine_id);
    HKE_FIELD(pad);
#else
    CHECK(sizeof(T) == k::kCreateQueueArgsSizeV11);
    CHECK(sizeof(O) > sizeof(T));
    CHECK(offsetof(O, sdma_engine_id) == sizeof(T));
#endif
    HKE_FIELD(ring_base_address);
    HKE_FIELD(write_pointer_address);
    HKE_FIELD(read_pointer_address);
    HKE_FIELD(doorbell_offset);
    HKE_FIELD(ring_size);
    HKE_FIELD(gpu_id);
    HKE_FIELD(queue_type);
    HKE_FIELD(queue_percentage);
    HKE_FIELD(queue_priority);
    HKE_FIELD(queue_id);
    HKE_FIELD(eop_buffer_address);
    HKE_FIELD(eop_buffer_size);
    HKE_FIELD(ctx_save_restore_address);
    HKE_FIELD(ctx_save_restore_size);
    HKE_FIELD(ctl_stack_size);
  }
  {
    using O = k::DestroyQueueArgs;
    using T = kfd_ioctl_destroy_queue_args;
    HKE_SAME_SIZE();
    HKE_FIELD(queue_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::UpdateQueueArgs;
    using T = kfd_ioctl_update_queue_args;
    HKE_SAME_SIZE();
    HKE_FIELD(ring_base_address);
    HKE_FIELD(queue_id);
    HKE_FIELD(ring_size);
    HKE_FIELD(queue_percentage);
    HKE_FIELD(queue_priority);
  }
  {
    using O = k::SetCuMaskArgs;
    using T = kfd_ioctl_set_cu_mask_args;
    HKE_SAME_SIZE();
    HKE_FIELD(queue_id);
    HKE_FIELD(num_cu_mask);
    HKE_FIELD(cu_mask_ptr);
  }
  {
    using O = k::GetQueueWaveStateArgs;
    using T = kfd_ioctl_get_queue_wave_state_args;
    HKE_SAME_SIZE();
    HKE_FIELD(ctl_stack_address);
    HKE_FIELD(ctl_stack_used_size);
    HKE_FIELD(save_area_used_size);
    HKE_FIELD(queue_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::AllocQueueGwsArgs;
    using T = kfd_ioctl_alloc_queue_gws_args;
    HKE_SAME_SIZE();
    HKE_FIELD(queue_id);
    HKE_FIELD(num_gws);
    HKE_FIELD(first_gws);
    HKE_FIELD(pad);
  }
}

TEST_CASE("memory and aperture structures match the system header field by field") {
  {
    using O = k::GetAvailableMemoryArgs;
    using T = kfd_ioctl_get_available_memory_args;
    HKE_SAME_SIZE();
    HKE_FIELD(available);
    HKE_FIELD(gpu_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::SetMemoryPolicyArgs;
    using T = kfd_ioctl_set_memory_policy_args;
    HKE_SAME_SIZE();
    HKE_FIELD(alternate_aperture_base);
    HKE_FIELD(alternate_aperture_size);
    HKE_FIELD(gpu_id);
    HKE_FIELD(default_policy);
    HKE_FIELD(alternate_policy);
#if KFD_IOCTL_MINOR_VERSION >= 18
    HKE_FIELD(misc_process_flag);
#else
    HKE_FIELD2(misc_process_flag, pad);  // renamed in 1.18
#endif
  }
  {
    using O = k::GetClockCountersArgs;
    using T = kfd_ioctl_get_clock_counters_args;
    HKE_SAME_SIZE();
    HKE_FIELD(gpu_clock_counter);
    HKE_FIELD(cpu_clock_counter);
    HKE_FIELD(system_clock_counter);
    HKE_FIELD(system_clock_freq);
    HKE_FIELD(gpu_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::ProcessDeviceApertures;
    using T = kfd_process_device_apertures;
    HKE_SAME_SIZE();
    HKE_FIELD(lds_base);
    HKE_FIELD(lds_limit);
    HKE_FIELD(scratch_base);
    HKE_FIELD(scratch_limit);
    HKE_FIELD(gpuvm_base);
    HKE_FIELD(gpuvm_limit);
    HKE_FIELD(gpu_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::GetProcessAperturesArgs;
    using T = kfd_ioctl_get_process_apertures_args;
    HKE_SAME_SIZE();
    HKE_FIELD(process_apertures);
    HKE_FIELD(num_of_nodes);
    HKE_FIELD(pad);
    CHECK(k::kOldAperturesMaxGpus == NUM_OF_SUPPORTED_GPUS);
  }
  {
    using O = k::GetProcessAperturesNewArgs;
    using T = kfd_ioctl_get_process_apertures_new_args;
    HKE_SAME_SIZE();
    HKE_FIELD(kfd_process_device_apertures_ptr);
    HKE_FIELD(num_of_nodes);
    HKE_FIELD(pad);
  }
  {
    using O = k::SetScratchBackingVaArgs;
    using T = kfd_ioctl_set_scratch_backing_va_args;
    HKE_SAME_SIZE();
    HKE_FIELD(va_addr);
    HKE_FIELD(gpu_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::GetTileConfigArgs;
    using T = kfd_ioctl_get_tile_config_args;
    HKE_SAME_SIZE();
    HKE_FIELD(tile_config_ptr);
    HKE_FIELD(macro_tile_config_ptr);
    HKE_FIELD(num_tile_configs);
    HKE_FIELD(num_macro_tile_configs);
    HKE_FIELD(gpu_id);
    HKE_FIELD(gb_addr_config);
    HKE_FIELD(num_banks);
    HKE_FIELD(num_ranks);
  }
  {
    using O = k::SetTrapHandlerArgs;
    using T = kfd_ioctl_set_trap_handler_args;
    HKE_SAME_SIZE();
    HKE_FIELD(tba_addr);
    HKE_FIELD(tma_addr);
    HKE_FIELD(gpu_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::AcquireVmArgs;
    using T = kfd_ioctl_acquire_vm_args;
    HKE_SAME_SIZE();
    HKE_FIELD(drm_fd);
    HKE_FIELD(gpu_id);
  }
  {
    using O = k::AllocMemoryOfGpuArgs;
    using T = kfd_ioctl_alloc_memory_of_gpu_args;
    HKE_SAME_SIZE();
    HKE_FIELD(va_addr);
    HKE_FIELD(size);
    HKE_FIELD(handle);
    HKE_FIELD(mmap_offset);
    HKE_FIELD(gpu_id);
    HKE_FIELD(flags);
  }
  {
    using O = k::FreeMemoryOfGpuArgs;
    using T = kfd_ioctl_free_memory_of_gpu_args;
    HKE_SAME_SIZE();
    HKE_FIELD(handle);
  }
  {
    using O = k::MapMemoryToGpuArgs;
    using T = kfd_ioctl_map_memory_to_gpu_args;
    HKE_SAME_SIZE();
    HKE_FIELD(handle);
    HKE_FIELD(device_ids_array_ptr);
    HKE_FIELD(n_devices);
    HKE_FIELD(n_success);
  }
  {
    using O = k::UnmapMemoryFromGpuArgs;
    using T = kfd_ioctl_unmap_memory_from_gpu_args;
    HKE_SAME_SIZE();
    HKE_FIELD(handle);
    HKE_FIELD(device_ids_array_ptr);
    HKE_FIELD(n_devices);
    HKE_FIELD(n_success);
  }
  {
    using O = k::GetDmabufInfoArgs;
    using T = kfd_ioctl_get_dmabuf_info_args;
    HKE_SAME_SIZE();
    HKE_FIELD(size);
    HKE_FIELD(metadata_ptr);
    HKE_FIELD(metadata_size);
    HKE_FIELD(gpu_id);
    HKE_FIELD(flags);
    HKE_FIELD(dmabuf_fd);
  }
  {
    using O = k::ImportDmabufArgs;
    using T = kfd_ioctl_import_dmabuf_args;
    HKE_SAME_SIZE();
    HKE_FIELD(va_addr);
    HKE_FIELD(handle);
    HKE_FIELD(gpu_id);
    HKE_FIELD(dmabuf_fd);
  }
#ifdef AMDKFD_IOC_EXPORT_DMABUF
  {
    using O = k::ExportDmabufArgs;
    using T = kfd_ioctl_export_dmabuf_args;
    HKE_SAME_SIZE();
    HKE_FIELD(handle);
    HKE_FIELD(flags);
    HKE_FIELD(dmabuf_fd);
  }
#endif
}

TEST_CASE("event and debugger structures match the system header field by field") {
  {
    using O = k::DbgRegisterArgs;
    using T = kfd_ioctl_dbg_register_args;
    HKE_SAME_SIZE();
    HKE_FIELD(gpu_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::DbgUnregisterArgs;
    using T = kfd_ioctl_dbg_unregister_args;
    HKE_SAME_SIZE();
    HKE_FIELD(gpu_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::DbgAddressWatchArgs;
    using T = kfd_ioctl_dbg_address_watch_args;
    HKE_SAME_SIZE();
    HKE_FIELD(content_ptr);
    HKE_FIELD(gpu_id);
    HKE_FIELD(buf_size_in_bytes);
  }
  {
    using O = k::DbgWaveControlArgs;
    using T = kfd_ioctl_dbg_wave_control_args;
    HKE_SAME_SIZE();
    HKE_FIELD(content_ptr);
    HKE_FIELD(gpu_id);
    HKE_FIELD(buf_size_in_bytes);
  }
  {
    using O = k::CreateEventArgs;
    using T = kfd_ioctl_create_event_args;
    HKE_SAME_SIZE();
    HKE_FIELD(event_page_offset);
    HKE_FIELD(event_trigger_data);
    HKE_FIELD(event_type);
    HKE_FIELD(auto_reset);
    HKE_FIELD(node_id);
    HKE_FIELD(event_id);
    HKE_FIELD(event_slot_index);
  }
  {
    using O = k::DestroyEventArgs;
    using T = kfd_ioctl_destroy_event_args;
    HKE_SAME_SIZE();
    HKE_FIELD(event_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::SetEventArgs;
    using T = kfd_ioctl_set_event_args;
    HKE_SAME_SIZE();
    HKE_FIELD(event_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::ResetEventArgs;
    using T = kfd_ioctl_reset_event_args;
    HKE_SAME_SIZE();
    HKE_FIELD(event_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::MemoryExceptionFailure;
    using T = kfd_memory_exception_failure;
    HKE_SAME_SIZE();
    HKE_FIELD(NotPresent);
    HKE_FIELD(ReadOnly);
    HKE_FIELD(NoExecute);
    HKE_FIELD(imprecise);
  }
  {
    using O = k::HsaMemoryExceptionData;
    using T = kfd_hsa_memory_exception_data;
    HKE_SAME_SIZE();
    HKE_FIELD(failure);
    HKE_FIELD(va);
    HKE_FIELD(gpu_id);
    HKE_FIELD(ErrorType);
  }
  {
    using O = k::HsaHwExceptionData;
    using T = kfd_hsa_hw_exception_data;
    HKE_SAME_SIZE();
    HKE_FIELD(reset_type);
    HKE_FIELD(reset_cause);
    HKE_FIELD(memory_lost);
    HKE_FIELD(gpu_id);
  }
  {
    using O = k::EventData;
    using T = kfd_event_data;
    HKE_SAME_SIZE();
    HKE_FIELD(memory_exception_data);
    HKE_FIELD(hw_exception_data);
#if KFD_IOCTL_MINOR_VERSION >= 14
    HKE_FIELD(signal_event_data);
    HKE_FIELD(signal_event_data.last_event_age);
    CHECK(sizeof(k::HsaSignalEventData) == sizeof(kfd_hsa_signal_event_data));
#else
    CHECK(offsetof(O, signal_event_data) == 0);  // added in 1.14, inside the union
#endif
    HKE_FIELD(kfd_event_data_ext);
    HKE_FIELD(event_id);
    HKE_FIELD(pad);
  }
  {
    using O = k::WaitEventsArgs;
    using T = kfd_ioctl_wait_events_args;
    HKE_SAME_SIZE();
    HKE_FIELD(events_ptr);
    HKE_FIELD(num_events);
    HKE_FIELD(wait_for_all);
    HKE_FIELD(timeout);
    HKE_FIELD(wait_result);
  }
  {
    using O = k::SmiEventsArgs;
    using T = kfd_ioctl_smi_events_args;
    HKE_SAME_SIZE();
    HKE_FIELD(gpuid);
    HKE_FIELD(anon_fd);
  }
}

TEST_CASE("SVM, XNACK and CRIU structures match the system header field by field") {
  {
    using O = k::SvmAttribute;
    using T = kfd_ioctl_svm_attribute;
    HKE_SAME_SIZE();
    HKE_FIELD(type);
    HKE_FIELD(value);
  }
  {
    using O = k::SvmArgs;
    using T = kfd_ioctl_svm_args;
    HKE_SAME_SIZE();  // the header's flexible array adds no size
    HKE_FIELD(start_addr);
    HKE_FIELD(size);
    HKE_FIELD(op);
    HKE_FIELD(nattr);
    CHECK(offsetof(T, attrs) == sizeof(O));
  }
  {
    using O = k::SetXnackModeArgs;
    using T = kfd_ioctl_set_xnack_mode_args;
    HKE_SAME_SIZE();
    HKE_FIELD(xnack_enabled);
  }
  {
    using O = k::CriuArgs;
    using T = kfd_ioctl_criu_args;
    HKE_SAME_SIZE();
    HKE_FIELD(devices);
    HKE_FIELD(bos);
    HKE_FIELD(priv_data);
    HKE_FIELD(priv_data_size);
    HKE_FIELD(num_devices);
    HKE_FIELD(num_bos);
    HKE_FIELD(num_objects);
    HKE_FIELD(pid);
    HKE_FIELD(op);
  }
  {
    using O = k::CriuDeviceBucket;
    using T = kfd_criu_device_bucket;
    HKE_SAME_SIZE();
    HKE_FIELD(user_gpu_id);
    HKE_FIELD(actual_gpu_id);
    HKE_FIELD(drm_fd);
    HKE_FIELD(pad);
  }
  {
    using O = k::CriuBoBucket;
    using T = kfd_criu_bo_bucket;
    HKE_SAME_SIZE();
    HKE_FIELD(addr);
    HKE_FIELD(size);
    HKE_FIELD(offset);
    HKE_FIELD(restored_offset);
    HKE_FIELD(gpu_id);
    HKE_FIELD(alloc_flags);
    HKE_FIELD(dmabuf_fd);
    HKE_FIELD(pad);
  }
}

TEST_CASE("debugger structures match the system header when it has them (KFD 1.13+)") {
#if KFD_IOCTL_MINOR_VERSION >= 13
  CHECK(k::kIocRuntimeEnable == AMDKFD_IOC_RUNTIME_ENABLE);
  {
    using O = k::RuntimeInfo;
    using T = kfd_runtime_info;
    HKE_SAME_SIZE();
    HKE_FIELD(r_debug);
    HKE_FIELD(runtime_state);
    HKE_FIELD(ttmp_setup);
  }
  {
    using O = k::RuntimeEnableArgs;
    using T = kfd_ioctl_runtime_enable_args;
    HKE_SAME_SIZE();
    HKE_FIELD(r_debug);
    HKE_FIELD(mode_mask);
    HKE_FIELD(capabilities_mask);
  }
  {
    using O = k::ContextSaveAreaHeader;
    using T = kfd_context_save_area_header;
    HKE_SAME_SIZE();
    HKE_FIELD(wave_state);
    HKE_FIELD(wave_state.control_stack_offset);
    HKE_FIELD(wave_state.control_stack_size);
    HKE_FIELD(wave_state.wave_state_offset);
    HKE_FIELD(wave_state.wave_state_size);
    HKE_FIELD(debug_offset);
    HKE_FIELD(debug_size);
    HKE_FIELD(err_payload_addr);
    HKE_FIELD(err_event_id);
    HKE_FIELD(reserved1);
  }
  {
    using O = k::QueueSnapshotEntry;
    using T = kfd_queue_snapshot_entry;
    HKE_SAME_SIZE();
    HKE_FIELD(exception_status);
    HKE_FIELD(ring_base_address);
    HKE_FIELD(write_pointer_address);
    HKE_FIELD(read_pointer_address);
    HKE_FIELD(ctx_save_restore_address);
    HKE_FIELD(queue_id);
    HKE_FIELD(gpu_id);
    HKE_FIELD(ring_size);
    HKE_FIELD(queue_type);
    HKE_FIELD(ctx_save_restore_area_size);
    HKE_FIELD(reserved);
  }
  {
    using O = k::DbgDeviceInfoEntry;
    using T = kfd_dbg_device_info_entry;
    HKE_SAME_SIZE();
    HKE_FIELD(exception_status);
    HKE_FIELD(lds_base);
    HKE_FIELD(lds_limit);
    HKE_FIELD(scratch_base);
    HKE_FIELD(scratch_limit);
    HKE_FIELD(gpuvm_base);
    HKE_FIELD(gpuvm_limit);
    HKE_FIELD(gpu_id);
    HKE_FIELD(location_id);
    HKE_FIELD(vendor_id);
    HKE_FIELD(device_id);
    HKE_FIELD(revision_id);
    HKE_FIELD(subsystem_vendor_id);
    HKE_FIELD(subsystem_device_id);
    HKE_FIELD(fw_version);
    HKE_FIELD(gfx_target_version);
    HKE_FIELD(simd_count);
    HKE_FIELD(max_waves_per_simd);
    HKE_FIELD(array_count);
    HKE_FIELD(simd_arrays_per_engine);
    HKE_FIELD(num_xcc);
    HKE_FIELD(capability);
    HKE_FIELD(debug_prop);
  }
  {
    using O = k::DbgTrapArgs;
    using T = kfd_ioctl_dbg_trap_args;
    HKE_SAME_SIZE();
    HKE_FIELD(pid);
    HKE_FIELD(op);
    HKE_FIELD(enable.exception_mask);
    HKE_FIELD(enable.rinfo_ptr);
    HKE_FIELD(enable.rinfo_size);
    HKE_FIELD(enable.dbg_fd);
    HKE_FIELD(send_runtime_event.exception_mask);
    HKE_FIELD(send_runtime_event.gpu_id);
    HKE_FIELD(send_runtime_event.queue_id);
    HKE_FIELD(set_exceptions_enabled.exception_mask);
    HKE_FIELD(launch_override.override_mode);
    HKE_FIELD(launch_override.enable_mask);
    HKE_FIELD(launch_override.support_request_mask);
    HKE_FIELD(launch_override.pad);
    HKE_FIELD(launch_mode.launch_mode);
    HKE_FIELD(launch_mode.pad);
    HKE_FIELD(suspend_queues.exception_mask);
    HKE_FIELD(suspend_queues.queue_array_ptr);
    HKE_FIELD(suspend_queues.num_queues);
    HKE_FIELD(suspend_queues.grace_period);
    HKE_FIELD(resume_queues.queue_array_ptr);
    HKE_FIELD(resume_queues.num_queues);
    HKE_FIELD(resume_queues.pad);
    HKE_FIELD(set_node_address_watch.address);
    HKE_FIELD(set_node_address_watch.mode);
    HKE_FIELD(set_node_address_watch.mask);
    HKE_FIELD(set_node_address_watch.gpu_id);
    HKE_FIELD(set_node_address_watch.id);
    HKE_FIELD(clear_node_address_watch.gpu_id);
    HKE_FIELD(clear_node_address_watch.id);
    HKE_FIELD(set_flags.flags);
    HKE_FIELD(set_flags.pad);
    HKE_FIELD(query_debug_event.exception_mask);
    HKE_FIELD(query_debug_event.gpu_id);
    HKE_FIELD(query_debug_event.queue_id);
    HKE_FIELD(query_exception_info.info_ptr);
    HKE_FIELD(query_exception_info.info_size);
    HKE_FIELD(query_exception_info.source_id);
    HKE_FIELD(query_exception_info.exception_code);
    HKE_FIELD(query_exception_info.clear_exception);
    HKE_FIELD(queue_snapshot.exception_mask);
    HKE_FIELD(queue_snapshot.snapshot_buf_ptr);
    HKE_FIELD(queue_snapshot.num_queues);
    HKE_FIELD(queue_snapshot.entry_size);
    HKE_FIELD(device_snapshot.exception_mask);
    HKE_FIELD(device_snapshot.snapshot_buf_ptr);
    HKE_FIELD(device_snapshot.num_devices);
    HKE_FIELD(device_snapshot.entry_size);
  }
  CHECK(k::kDbgTrapEnable == KFD_IOC_DBG_TRAP_ENABLE);
  CHECK(k::kDbgTrapGetDeviceSnapshot == KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT);
  CHECK(k::kEcMaskQueue == KFD_EC_MASK_QUEUE);
  CHECK(k::kEcMaskDevice == KFD_EC_MASK_DEVICE);
  CHECK(k::kEcMaskProcess == KFD_EC_MASK_PROCESS);
  CHECK(k::kRuntimeEnableCapsSupportsCoreDump ==
        static_cast<uint32_t>(KFD_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK));
#else
  // The installed header predates the debugger ABI; abi_reference_test
  // checks these request numbers and sizes against the recorded values.
  CHECK(KFD_IOCTL_MINOR_VERSION < 13);
  CHECK(sizeof(k::DbgTrapArgs) == 32);
  CHECK(sizeof(k::RuntimeEnableArgs) == 16);
#endif
}

TEST_CASE("KFD constants and flag bits equal the system header's") {
  CHECK(k::kQueueTypeCompute == KFD_IOC_QUEUE_TYPE_COMPUTE);
  CHECK(k::kQueueTypeSdma == KFD_IOC_QUEUE_TYPE_SDMA);
  CHECK(k::kQueueTypeComputeAql == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
  CHECK(k::kQueueTypeSdmaXgmi == KFD_IOC_QUEUE_TYPE_SDMA_XGMI);
#ifdef KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID
  CHECK(k::kQueueTypeSdmaByEngId == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID);
#endif
  CHECK(k::kMaxQueuePercentage == KFD_MAX_QUEUE_PERCENTAGE);
  CHECK(k::kMaxQueuePriority == KFD_MAX_QUEUE_PRIORITY);
#ifdef KFD_MIN_QUEUE_RING_SIZE
  CHECK(k::kMinQueueRingSize == KFD_MIN_QUEUE_RING_SIZE);
#endif
  CHECK(k::kCachePolicyCoherent == KFD_IOC_CACHE_POLICY_COHERENT);
  CHECK(k::kCachePolicyNonCoherent == KFD_IOC_CACHE_POLICY_NONCOHERENT);
  CHECK(k::kDeprecatedMaxWatchPoints == MAX_ALLOWED_NUM_POINTS);
  CHECK(k::kDeprecatedMaxAddressWatchBuffer == MAX_ALLOWED_AW_BUFF_SIZE);
  CHECK(k::kDeprecatedMaxWaveControlBuffer == MAX_ALLOWED_WAC_BUFF_SIZE);
  CHECK(k::kInvalidFd == KFD_INVALID_FD);

  CHECK(k::kEventSignal == KFD_IOC_EVENT_SIGNAL);
  CHECK(k::kEventNodeChange == KFD_IOC_EVENT_NODECHANGE);
  CHECK(k::kEventDeviceStateChange == KFD_IOC_EVENT_DEVICESTATECHANGE);
  CHECK(k::kEventHwException == KFD_IOC_EVENT_HW_EXCEPTION);
  CHECK(k::kEventSystemEvent == KFD_IOC_EVENT_SYSTEM_EVENT);
  CHECK(k::kEventDebugEvent == KFD_IOC_EVENT_DEBUG_EVENT);
  CHECK(k::kEventProfileEvent == KFD_IOC_EVENT_PROFILE_EVENT);
  CHECK(k::kEventQueueEvent == KFD_IOC_EVENT_QUEUE_EVENT);
  CHECK(k::kEventMemory == KFD_IOC_EVENT_MEMORY);
  CHECK(k::kWaitResultComplete == KFD_IOC_WAIT_RESULT_COMPLETE);
  CHECK(k::kWaitResultTimeout == KFD_IOC_WAIT_RESULT_TIMEOUT);
  CHECK(k::kWaitResultFail == KFD_IOC_WAIT_RESULT_FAIL);
  CHECK(k::kSignalEventLimit == KFD_SIGNAL_EVENT_LIMIT);
  CHECK(k::kHwExceptionWholeGpuReset == KFD_HW_EXCEPTION_WHOLE_GPU_RESET);
  CHECK(k::kHwExceptionPerEngineReset == KFD_HW_EXCEPTION_PER_ENGINE_RESET);
  CHECK(k::kHwExceptionGpuHang == KFD_HW_EXCEPTION_GPU_HANG);
  CHECK(k::kHwExceptionEcc == KFD_HW_EXCEPTION_ECC);
  CHECK(k::kMemErrNoRas == KFD_MEM_ERR_NO_RAS);
  CHECK(k::kMemErrSramEcc == KFD_MEM_ERR_SRAM_ECC);
  CHECK(k::kMemErrPoisonConsumed == KFD_MEM_ERR_POISON_CONSUMED);
  CHECK(k::kMemErrGpuHang == KFD_MEM_ERR_GPU_HANG);

  CHECK(k::kAllocMemVram == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_VRAM));
  CHECK(k::kAllocMemGtt == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_GTT));
  CHECK(k::kAllocMemUserptr == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_USERPTR));
  CHECK(k::kAllocMemDoorbell == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL));
  CHECK(k::kAllocMemMmioRemap == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP));
  CHECK(k::kAllocMemWritable == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE));
  CHECK(k::kAllocMemExecutable == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE));
  CHECK(k::kAllocMemPublic == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC));
  CHECK(k::kAllocMemNoSubstitute ==
        static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE));
  CHECK(k::kAllocMemAqlQueueMem ==
        static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM));
  CHECK(k::kAllocMemCoherent == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_COHERENT));
  CHECK(k::kAllocMemUncached == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
#ifdef KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT
  CHECK(k::kAllocMemExtCoherent ==
        static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT));
#endif
#ifdef KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS
  CHECK(k::kAllocMemContiguous == static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS));
#endif
#ifdef KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS_BEST_EFFORT
  CHECK(k::kAllocMemContiguous ==
        static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS_BEST_EFFORT));
#endif
#ifdef KFD_PROC_FLAG_MFMA_HIGH_PRECISION
  CHECK(k::kProcFlagMfmaHighPrecision == KFD_PROC_FLAG_MFMA_HIGH_PRECISION);
#endif

  CHECK(k::kSmiEventNone == KFD_SMI_EVENT_NONE);
  CHECK(k::kSmiEventVmFault == KFD_SMI_EVENT_VMFAULT);
  CHECK(k::kSmiEventThermalThrottle == KFD_SMI_EVENT_THERMAL_THROTTLE);
  CHECK(k::kSmiEventGpuPreReset == KFD_SMI_EVENT_GPU_PRE_RESET);
  CHECK(k::kSmiEventGpuPostReset == KFD_SMI_EVENT_GPU_POST_RESET);
  CHECK(k::kSmiEventMigrateStart == KFD_SMI_EVENT_MIGRATE_START);
  CHECK(k::kSmiEventMigrateEnd == KFD_SMI_EVENT_MIGRATE_END);
  CHECK(k::kSmiEventPageFaultStart == KFD_SMI_EVENT_PAGE_FAULT_START);
  CHECK(k::kSmiEventPageFaultEnd == KFD_SMI_EVENT_PAGE_FAULT_END);
  CHECK(k::kSmiEventQueueEviction == KFD_SMI_EVENT_QUEUE_EVICTION);
  CHECK(k::kSmiEventQueueRestore == KFD_SMI_EVENT_QUEUE_RESTORE);
  CHECK(k::kSmiEventUnmapFromGpu == KFD_SMI_EVENT_UNMAP_FROM_GPU);
  CHECK(k::kSmiEventAllProcess == KFD_SMI_EVENT_ALL_PROCESS);
  CHECK(k::kSmiEventMsgSize == KFD_SMI_EVENT_MSG_SIZE);
  CHECK(k::SmiEventMask(k::kSmiEventVmFault) == KFD_SMI_EVENT_MASK_FROM_INDEX(1));
  CHECK(k::SmiEventMask(k::kSmiEventAllProcess) == KFD_SMI_EVENT_MASK_FROM_INDEX(64));
  CHECK(k::kMigrateTriggerPrefetch == KFD_MIGRATE_TRIGGER_PREFETCH);
  CHECK(k::kMigrateTriggerPagefaultGpu == KFD_MIGRATE_TRIGGER_PAGEFAULT_GPU);
  CHECK(k::kMigrateTriggerPagefaultCpu == KFD_MIGRATE_TRIGGER_PAGEFAULT_CPU);
  CHECK(k::kMigrateTriggerTtmEviction == KFD_MIGRATE_TRIGGER_TTM_EVICTION);
  CHECK(k::kQueueEvictionTriggerSvm == KFD_QUEUE_EVICTION_TRIGGER_SVM);
  CHECK(k::kQueueEvictionTriggerUserptr == KFD_QUEUE_EVICTION_TRIGGER_USERPTR);
  CHECK(k::kQueueEvictionTriggerTtm == KFD_QUEUE_EVICTION_TRIGGER_TTM);
  CHECK(k::kQueueEvictionTriggerSuspend == KFD_QUEUE_EVICTION_TRIGGER_SUSPEND);
  CHECK(k::kQueueEvictionCriuCheckpoint == KFD_QUEUE_EVICTION_CRIU_CHECKPOINT);
  CHECK(k::kQueueEvictionCriuRestore == KFD_QUEUE_EVICTION_CRIU_RESTORE);
  CHECK(k::kSvmUnmapTriggerMmuNotify == KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY);
  CHECK(k::kSvmUnmapTriggerMmuNotifyMigrate == KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY_MIGRATE);
  CHECK(k::kSvmUnmapTriggerUnmapFromCpu == KFD_SVM_UNMAP_TRIGGER_UNMAP_FROM_CPU);

  CHECK(k::kCriuOpProcessInfo == KFD_CRIU_OP_PROCESS_INFO);
  CHECK(k::kCriuOpCheckpoint == KFD_CRIU_OP_CHECKPOINT);
  CHECK(k::kCriuOpUnpause == KFD_CRIU_OP_UNPAUSE);
  CHECK(k::kCriuOpRestore == KFD_CRIU_OP_RESTORE);
  CHECK(k::kCriuOpResume == KFD_CRIU_OP_RESUME);
  CHECK(k::kMmioRemapHdpMemFlushCntl == KFD_MMIO_REMAP_HDP_MEM_FLUSH_CNTL);
  CHECK(k::kMmioRemapHdpRegFlushCntl == KFD_MMIO_REMAP_HDP_REG_FLUSH_CNTL);

  CHECK(k::kSvmFlagHostAccess == KFD_IOCTL_SVM_FLAG_HOST_ACCESS);
  CHECK(k::kSvmFlagCoherent == KFD_IOCTL_SVM_FLAG_COHERENT);
  CHECK(k::kSvmFlagHiveLocal == KFD_IOCTL_SVM_FLAG_HIVE_LOCAL);
  CHECK(k::kSvmFlagGpuRo == KFD_IOCTL_SVM_FLAG_GPU_RO);
  CHECK(k::kSvmFlagGpuExec == KFD_IOCTL_SVM_FLAG_GPU_EXEC);
  CHECK(k::kSvmFlagGpuReadMostly == KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
  CHECK(k::kSvmFlagGpuAlwaysMapped == KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED);
#ifdef KFD_IOCTL_SVM_FLAG_EXT_COHERENT
  CHECK(k::kSvmFlagExtCoherent == KFD_IOCTL_SVM_FLAG_EXT_COHERENT);
#endif
  CHECK(k::kSvmOpSetAttr == KFD_IOCTL_SVM_OP_SET_ATTR);
  CHECK(k::kSvmOpGetAttr == KFD_IOCTL_SVM_OP_GET_ATTR);
  CHECK(k::kSvmLocationSysmem == KFD_IOCTL_SVM_LOCATION_SYSMEM);
  CHECK(k::kSvmLocationUndefined == static_cast<uint32_t>(KFD_IOCTL_SVM_LOCATION_UNDEFINED));
  CHECK(k::kSvmAttrPreferredLoc == KFD_IOCTL_SVM_ATTR_PREFERRED_LOC);
  CHECK(k::kSvmAttrPrefetchLoc == KFD_IOCTL_SVM_ATTR_PREFETCH_LOC);
  CHECK(k::kSvmAttrAccess == KFD_IOCTL_SVM_ATTR_ACCESS);
  CHECK(k::kSvmAttrAccessInPlace == KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE);
  CHECK(k::kSvmAttrNoAccess == KFD_IOCTL_SVM_ATTR_NO_ACCESS);
  CHECK(k::kSvmAttrSetFlags == KFD_IOCTL_SVM_ATTR_SET_FLAGS);
  CHECK(k::kSvmAttrClrFlags == KFD_IOCTL_SVM_ATTR_CLR_FLAGS);
  CHECK(k::kSvmAttrGranularity == KFD_IOCTL_SVM_ATTR_GRANULARITY);
}

TEST_CASE("DRM requests and structures match the libdrm or kernel DRM headers") {
#if HKE_HAVE_DRM_HEADERS
  namespace d = hke::kfd::drm;
  CHECK(d::kIocVersion == DRM_IOCTL_VERSION);
  CHECK(d::kIocGetUnique == DRM_IOCTL_GET_UNIQUE);
  CHECK(d::kIocGetClient == DRM_IOCTL_GET_CLIENT);
  CHECK(d::kIocAmdgpuInfo == DRM_IOCTL_AMDGPU_INFO);
  CHECK(d::kDrmCommandBase == DRM_COMMAND_BASE);
  CHECK(d::kDrmAmdgpuInfoNr == DRM_AMDGPU_INFO);
  CHECK(d::kAmdgpuInfoAccelWorking == AMDGPU_INFO_ACCEL_WORKING);
  CHECK(d::kAmdgpuInfoReadMmrReg == AMDGPU_INFO_READ_MMR_REG);
  CHECK(d::kAmdgpuInfoDevInfo == AMDGPU_INFO_DEV_INFO);
  CHECK(d::kAmdgpuIdsFlagsFusion == AMDGPU_IDS_FLAGS_FUSION);
  CHECK(d::kAmdgpuIdsFlagsPreemption == AMDGPU_IDS_FLAGS_PREEMPTION);
  CHECK(d::kAmdgpuIdsFlagsTmz == AMDGPU_IDS_FLAGS_TMZ);
  {
    using O = d::Version;
    using T = drm_version;
    HKE_SAME_SIZE();
    HKE_FIELD(version_major);
    HKE_FIELD(version_minor);
    HKE_FIELD(version_patchlevel);
    HKE_FIELD(name_len);
    HKE_FIELD(name);
    HKE_FIELD(date_len);
    HKE_FIELD(date);
    HKE_FIELD(desc_len);
    HKE_FIELD(desc);
  }
  {
    using O = d::Client;
    using T = drm_client;
    HKE_SAME_SIZE();
    HKE_FIELD(idx);
    HKE_FIELD(auth);
    HKE_FIELD(pid);
    HKE_FIELD(uid);
    HKE_FIELD(magic);
    HKE_FIELD(iocs);
  }
  {
    using O = d::AmdgpuQueryFw;
    using T = drm_amdgpu_query_fw;
    HKE_SAME_SIZE();
    HKE_FIELD(fw_type);
    HKE_FIELD(ip_instance);
    HKE_FIELD(index);
    HKE_FIELD(_pad);
  }
  {
    using O = d::AmdgpuInfo;
    using T = drm_amdgpu_info;
    HKE_SAME_SIZE();
    HKE_FIELD(return_pointer);
    HKE_FIELD(return_size);
    HKE_FIELD(query);
    HKE_FIELD(mode_crtc);
    HKE_FIELD(mode_crtc.id);
    HKE_FIELD(mode_crtc._pad);
    HKE_FIELD(query_hw_ip);
    HKE_FIELD(query_hw_ip.type);
    HKE_FIELD(query_hw_ip.ip_instance);
    HKE_FIELD(read_mmr_reg);
    HKE_FIELD(read_mmr_reg.dword_offset);
    HKE_FIELD(read_mmr_reg.count);
    HKE_FIELD(read_mmr_reg.instance);
    HKE_FIELD(read_mmr_reg.flags);
    HKE_FIELD(query_fw);
    HKE_FIELD(vbios_info);
    HKE_FIELD(vbios_info.type);
    HKE_FIELD(vbios_info.offset);
    HKE_FIELD(sensor_info);
    HKE_FIELD(sensor_info.type);
    HKE_FIELD(video_cap);
    HKE_FIELD(video_cap.type);
  }
  {
    using O = d::AmdgpuInfoDevice;
    using T = drm_amdgpu_info_device;
    // Newer headers append fields; ours is the 6.1-era prefix.
    CHECK(sizeof(O) <= sizeof(T));
    HKE_FIELD(device_id);
    HKE_FIELD(chip_rev);
    HKE_FIELD(external_rev);
    HKE_FIELD(pci_rev);
    HKE_FIELD(family);
    HKE_FIELD(num_shader_engines);
    HKE_FIELD(num_shader_arrays_per_engine);
    HKE_FIELD(gpu_counter_freq);
    HKE_FIELD(max_engine_clock);
    HKE_FIELD(max_memory_clock);
    HKE_FIELD(cu_active_number);
    HKE_FIELD(cu_ao_mask);
    HKE_FIELD(cu_bitmap);
    HKE_FIELD(enabled_rb_pipes_mask);
    HKE_FIELD(num_rb_pipes);
    HKE_FIELD(num_hw_gfx_contexts);
    HKE_FIELD(_pad);
    HKE_FIELD(ids_flags);
    HKE_FIELD(virtual_address_offset);
    HKE_FIELD(virtual_address_max);
    HKE_FIELD(virtual_address_alignment);
    HKE_FIELD(pte_fragment_size);
    HKE_FIELD(gart_page_size);
    HKE_FIELD(ce_ram_size);
    HKE_FIELD(vram_type);
    HKE_FIELD(vram_bit_width);
    HKE_FIELD(vce_harvest_config);
    HKE_FIELD(gc_double_offchip_lds_buf);
    HKE_FIELD(prim_buf_gpu_addr);
    HKE_FIELD(pos_buf_gpu_addr);
    HKE_FIELD(cntl_sb_buf_gpu_addr);
    HKE_FIELD(param_buf_gpu_addr);
    HKE_FIELD(prim_buf_size);
    HKE_FIELD(pos_buf_size);
    HKE_FIELD(cntl_sb_buf_size);
    HKE_FIELD(param_buf_size);
    HKE_FIELD(wave_front_size);
    HKE_FIELD(num_shader_visible_vgprs);
    HKE_FIELD(num_cu_per_sh);
    HKE_FIELD(num_tcc_blocks);
    HKE_FIELD(gs_vgt_table_depth);
    HKE_FIELD(gs_prim_buffer_depth);
    HKE_FIELD(max_gs_waves_per_vgt);
    HKE_FIELD(_pad1);
    HKE_FIELD(cu_ao_bitmap);
    HKE_FIELD(high_va_offset);
    HKE_FIELD(high_va_max);
    HKE_FIELD(pa_sc_tile_steering_override);
    HKE_FIELD(tcc_disabled_mask);
  }
#else
  FAIL_CHECK("neither <drm/amdgpu_drm.h> nor <libdrm/amdgpu_drm.h> is available; install "
             "libdrm-dev (or the kernel uapi headers) to cross-check the DRM ABI");
#endif
}

TEST_CASE("the ioctl table names DRM requests and rejects unknown ones") {
  CHECK(std::string(k::RequestName(hke::kfd::drm::kIocVersion)) == "DRM_IOCTL_VERSION");
  CHECK(std::string(k::RequestName(hke::kfd::drm::kIocGetUnique)) == "DRM_IOCTL_GET_UNIQUE");
  CHECK(std::string(k::RequestName(hke::kfd::drm::kIocGetClient)) == "DRM_IOCTL_GET_CLIENT");
  CHECK(std::string(k::RequestName(hke::kfd::drm::kIocAmdgpuInfo)) == "DRM_IOCTL_AMDGPU_INFO");
  CHECK(k::RequestName(0) == nullptr);
  CHECK(k::RequestName(_IOWR('K', 0x7F, uint64_t)) == nullptr);
  // Same nr with another direction or size is not the same request.
  CHECK(k::FindIoctl(k::IocWithSize(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 32)) == nullptr);
  CHECK(k::FindIoctl(_IOR('K', 0x16, k::AllocMemoryOfGpuArgs)) == nullptr);
}
