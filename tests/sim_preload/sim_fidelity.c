/*
 * sim_fidelity: kernel behaviour a thunk's consumers rely on, driven
 * through a real thunk under libkfdsim-preload.so. Built twice: against
 * this library (hsakmt, Linux platform) and against Debian's libhsakmt
 * 5.2.3 (HKE_ORACLE_DEBIAN). Every step prints "ok <step>" or
 * "FAIL <step>: <why>"; the exit status is 0 only when every step passed.
 *
 *   sim_fidelity graphics   a BO made with libdrm_amdgpu on the simulated
 *                           render node (amdgpu_bo_alloc, set_metadata,
 *                           cpu_map, export as a dma-buf) imported with
 *                           hsaKmtRegisterGraphicsHandleToNodes: size,
 *                           node, metadata, REGISTERED_GRAPHICS, mapped to
 *                           the GPU; libdrm's re-import and free path.
 *   sim_fidelity svm        hsaKmtSVMSetAttr in two pieces, GetAttr folds
 *                           them as the kernel does; a munmap of the middle
 *                           splits the range (the preload reports it), the
 *                           halves keep their attributes, the hole is
 *                           EFAULT for the kernel, and (this library
 *                           only) a fixed-address allocation in the hole
 *                           succeeds.
 */
#define _GNU_SOURCE
#include <amdgpu.h>
#include <amdgpu_drm.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef HKE_ORACLE_DEBIAN
#include <hsakmt.h>
#else
#include "hsakmt/hsakmt.h"
#endif

static int g_failed;

static void step(int ok, const char* name, const char* why) {
  if (ok) {
    printf("ok %s\n", name);
  } else {
    printf("FAIL %s: %s\n", name, why);
    g_failed = 1;
  }
  fflush(stdout);
}

#define CHECK(cond, name) step((cond) ? 1 : 0, name, #cond)

/* Opens the KFD and finds the first GPU node and its properties; 0 (a
 * failed step printed) when there is none. */
static int open_first_gpu(HSAuint32* node, HsaNodeProperties* props) {
  CHECK(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS, "open KFD");
  HsaSystemProperties sys;
  if (hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS) {
    for (HSAuint32 n = 0; n < sys.NumNodes; ++n) {
      if (hsaKmtGetNodeProperties(n, props) == HSAKMT_STATUS_SUCCESS && props->NumFComputeCores != 0) {
        *node = n;
        return 1;
      }
    }
  }
  step(0, "GPU node", "no GPU node");
  return 0;
}

static int graphics(void) {
  HSAuint32 node = 0;
  HsaNodeProperties props;
  if (!open_first_gpu(&node, &props)) return 1;
  char path[64];
  snprintf(path, sizeof(path), "/dev/dri/renderD%u", props.DrmRenderMinor);
  const int fd = open(path, O_RDWR | O_CLOEXEC);
  CHECK(fd >= 0, "open the render node");
  uint32_t major = 0, minor = 0;
  amdgpu_device_handle dev = NULL;
  CHECK(amdgpu_device_initialize(fd, &major, &minor, &dev) == 0, "amdgpu_device_initialize");
  if (dev == NULL) return 1;

  const uint64_t size = 1u << 20;
  struct amdgpu_bo_alloc_request req;
  memset(&req, 0, sizeof(req));
  req.alloc_size = size;
  req.phys_alignment = 4096;
  req.preferred_heap = AMDGPU_GEM_DOMAIN_VRAM;
  req.flags = AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED;
  amdgpu_bo_handle bo = NULL;
  CHECK(amdgpu_bo_alloc(dev, &req, &bo) == 0, "amdgpu_bo_alloc (GEM_CREATE)");
  if (bo == NULL) return 1;

  static const char meta[] = "sim-fidelity surface descriptor";
  struct amdgpu_bo_metadata md;
  memset(&md, 0, sizeof(md));
  md.flags = 1;
  md.tiling_info = 0x40;
  md.size_metadata = sizeof(meta);
  memcpy(md.umd_metadata, meta, sizeof(meta));
  CHECK(amdgpu_bo_set_metadata(bo, &md) == 0, "amdgpu_bo_set_metadata (GEM_METADATA)");
  struct amdgpu_bo_info bi;
  memset(&bi, 0, sizeof(bi));
  CHECK(amdgpu_bo_query_info(bo, &bi) == 0 && bi.alloc_size == size &&
            bi.preferred_heap == AMDGPU_GEM_DOMAIN_VRAM && bi.metadata.size_metadata == sizeof(meta) &&
            bi.metadata.tiling_info == 0x40,
        "amdgpu_bo_query_info (GEM_METADATA, GEM_OP)");

  void* cpu = NULL;
  CHECK(amdgpu_bo_cpu_map(bo, &cpu) == 0 && cpu != NULL, "amdgpu_bo_cpu_map (GEM_MMAP + mmap)");
  if (cpu == NULL) return 1;
  memset(cpu, 0x3d, size);

  uint32_t dmabuf = 0;
  CHECK(amdgpu_bo_export(bo, amdgpu_bo_handle_type_dma_buf_fd, &dmabuf) == 0,
        "amdgpu_bo_export (PRIME_HANDLE_TO_FD)");
  /* libdrm's own import of that dma-buf finds the same BO. */
  struct amdgpu_bo_import_result imported;
  memset(&imported, 0, sizeof(imported));
  CHECK(amdgpu_bo_import(dev, amdgpu_bo_handle_type_dma_buf_fd, dmabuf, &imported) == 0 &&
            imported.buf_handle == bo && imported.alloc_size == size,
        "amdgpu_bo_import (PRIME_FD_TO_HANDLE, dma-buf size)");
  if (imported.buf_handle != NULL) amdgpu_bo_free(imported.buf_handle);

  HsaGraphicsResourceInfo info;
  memset(&info, 0, sizeof(info));
  HSAuint32 nodes[1] = {node};
  CHECK(hsaKmtRegisterGraphicsHandleToNodes(dmabuf, &info, 1, nodes) == HSAKMT_STATUS_SUCCESS,
        "hsaKmtRegisterGraphicsHandleToNodes");
  CHECK(info.SizeInBytes == size, "import size");
#ifndef HKE_ORACLE_DEBIAN
  CHECK(info.NodeId == node, "import node");  /* (5.2.3's struct has no NodeId) */
#endif
  CHECK(info.MetadataSizeInBytes == sizeof(meta) && info.Metadata != NULL &&
            memcmp(info.Metadata, meta, sizeof(meta)) == 0,
        "import metadata");
  HsaPointerInfo pi;
  memset(&pi, 0, sizeof(pi));
  CHECK(hsaKmtQueryPointerInfo(info.MemoryAddress, &pi) == HSAKMT_STATUS_SUCCESS &&
            pi.Type == HSA_POINTER_REGISTERED_GRAPHICS,
        "QueryPointerInfo REGISTERED_GRAPHICS");
  HSAuint64 alt = 0;
  CHECK(hsaKmtMapMemoryToGPU(info.MemoryAddress, info.SizeInBytes, &alt) == HSAKMT_STATUS_SUCCESS,
        "hsaKmtMapMemoryToGPU of the import");
  CHECK(hsaKmtUnmapMemoryToGPU(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS, "unmap the import");
  CHECK(hsaKmtDeregisterMemory(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS, "deregister the import");

  /* libdrm's free path: CPU unmap, GEM_CLOSE (it asserts on failures). */
  CHECK(amdgpu_bo_cpu_unmap(bo) == 0, "amdgpu_bo_cpu_unmap");
  CHECK(amdgpu_bo_free(bo) == 0, "amdgpu_bo_free (GEM_CLOSE)");
  close((int)dmabuf);
  CHECK(amdgpu_device_deinitialize(dev) == 0, "amdgpu_device_deinitialize");
  close(fd);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS, "close KFD");
  return g_failed;
}

static int svm(void) {
  HSAuint32 node = 0;
  HsaNodeProperties props;
  if (!open_first_gpu(&node, &props)) return 1;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t n = 16;
  char* p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED, "host memory");
  HSA_SVM_ATTRIBUTE a[4];
  a[0].type = HSA_SVM_ATTR_PREFERRED_LOC;
  a[0].value = node;
  a[1].type = HSA_SVM_ATTR_SET_FLAGS;
  a[1].value = HSA_SVM_FLAG_GPU_EXEC;
  CHECK(hsaKmtSVMSetAttr(p, 8 * page, 2, a) == HSAKMT_STATUS_SUCCESS, "SVMSetAttr first half");
  a[0].type = HSA_SVM_ATTR_PREFERRED_LOC;
  a[0].value = node;
  a[1].type = HSA_SVM_ATTR_GRANULARITY;
  a[1].value = 3;
  CHECK(hsaKmtSVMSetAttr(p + 8 * page, 8 * page, 2, a) == HSAKMT_STATUS_SUCCESS,
        "SVMSetAttr second half");
  HSA_SVM_ATTRIBUTE g[4];
  g[0].type = HSA_SVM_ATTR_PREFERRED_LOC;
  g[1].type = HSA_SVM_ATTR_SET_FLAGS;
  g[2].type = HSA_SVM_ATTR_CLR_FLAGS;
  g[3].type = HSA_SVM_ATTR_GRANULARITY;
  for (int i = 0; i < 4; ++i) g[i].value = 0;
  CHECK(hsaKmtSVMGetAttr(p, n * page, 4, g) == HSAKMT_STATUS_SUCCESS, "SVMGetAttr over both");
  const HSAuint32 base = HSA_SVM_FLAG_HOST_ACCESS | HSA_SVM_FLAG_COHERENT;
  CHECK(g[0].value == node, "preferred location folds to the common node");
  CHECK(g[1].value == base, "SET_FLAGS folds to the flags set everywhere");
  CHECK(g[2].value == (HSAuint32) ~(base | HSA_SVM_FLAG_GPU_EXEC), "CLR_FLAGS is ~(flags set anywhere)");
  CHECK(g[3].value == 3, "granularity folds to the minimum");

  /* The host unmaps pages 4..11: both ranges lose their middle. */
  CHECK(munmap(p + 4 * page, 8 * page) == 0, "munmap the middle");
  g[1].type = HSA_SVM_ATTR_SET_FLAGS;
  g[1].value = 0;
  CHECK(hsaKmtSVMGetAttr(p, 4 * page, 1, &g[1]) == HSAKMT_STATUS_SUCCESS &&
            g[1].value == (base | HSA_SVM_FLAG_GPU_EXEC),
        "the head keeps its attributes");
  g[3].type = HSA_SVM_ATTR_GRANULARITY;
  g[3].value = 0;
  CHECK(hsaKmtSVMGetAttr(p + 12 * page, 4 * page, 1, &g[3]) == HSAKMT_STATUS_SUCCESS && g[3].value == 3,
        "the tail keeps its attributes");
  g[3].type = HSA_SVM_ATTR_GRANULARITY;
  CHECK(hsaKmtSVMGetAttr(p + 4 * page, 8 * page, 1, &g[3]) != HSAKMT_STATUS_SUCCESS,
        "the hole is not host memory any more");
#ifndef HKE_ORACLE_DEBIAN
  /* A fixed-address allocation where the range was (the ALLOC would be
   * EADDRINUSE over a stale range). Debian's 5.2.3 AllocMemory has no
   * FixedAddress path: it refuses before any ioctl, so only ours runs it. */
  HsaMemFlags f;
  f.Value = 0;
  f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  f.ui32.FixedAddress = 1;
  void* fixed = p + 4 * page;
  const HSAKMT_STATUS s = hsaKmtAllocMemory(node, 8 * page, f, &fixed);
  CHECK(s == HSAKMT_STATUS_SUCCESS && fixed == (void*)(p + 4 * page),
        "AllocMemory(FixedAddress) in the unmapped hole");
  if (s == HSAKMT_STATUS_SUCCESS) CHECK(hsaKmtFreeMemory(fixed, 8 * page) == HSAKMT_STATUS_SUCCESS, "free it");
#endif
  munmap(p, 4 * page);
  munmap(p + 12 * page, 4 * page);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS, "close KFD");
  return g_failed;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "graphics") == 0) return graphics();
  if (argc == 2 && strcmp(argv[1], "svm") == 0) return svm();
  fprintf(stderr, "usage: %s graphics|svm\n", argv[0]);
  return 2;
}
