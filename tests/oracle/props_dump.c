/*
 * Oracle harness: prints every field of the system, node, memory, cache and
 * I/O-link properties in a canonical "key=value" form, one per line.
 *
 * Built from this one source against Debian's libhsakmt 5.2.3
 * (HKE_ORACLE_DEBIAN, Debian's /usr/include/hsakmt.h), against
 * hsakmt-embedded and against upstream's current libhsakmt (its own header,
 * upstream_build.sh). Fields that only the newer upstream header has are
 * printed by the last two alone; tests/oracle/compare.sh knows that list.
 *
 *   props_dump            print everything, exit 0 on success
 * Exit status: 0 ok, 1 an API call failed (its status is printed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HKE_ORACLE_DEBIAN
#include <hsakmt.h>
#else
#include "hsakmt/hsakmt.h"
#endif

static void print_utf16(const char* key, const HSAuint16* s, size_t n) {
  printf("%s=", key);
  for (size_t i = 0; i < n && s[i] != 0; ++i) putchar(s[i] < 128 ? (int)s[i] : '?');
  putchar('\n');
}

static void print_ascii(const char* key, const HSAuint8* s, size_t n) {
  printf("%s=", key);
  for (size_t i = 0; i < n && s[i] != 0; ++i) putchar(s[i] < 128 ? (int)s[i] : '?');
  putchar('\n');
}

#define P32(prefix, obj, field) printf("%s." #field "=%u\n", prefix, (unsigned)(obj).field)
#define P64(prefix, obj, field) \
  printf("%s." #field "=%llu\n", prefix, (unsigned long long)(obj).field)
#define PS32(prefix, obj, field) printf("%s." #field "=%d\n", prefix, (int)(obj).field)

static int dump_node(HSAuint32 n) {
  char p[64];
  HsaNodeProperties np;
  memset(&np, 0, sizeof(np));
  HSAKMT_STATUS s = hsaKmtGetNodeProperties(n, &np);
  snprintf(p, sizeof(p), "node.%u", n);
  if (s != HSAKMT_STATUS_SUCCESS) {
    printf("%s.status=%d\n", p, (int)s);
    return 1;
  }
  P32(p, np, NumCPUCores);
  P32(p, np, NumFComputeCores);
  P32(p, np, NumMemoryBanks);
  P32(p, np, NumCaches);
  P32(p, np, NumIOLinks);
  P32(p, np, CComputeIdLo);
  P32(p, np, FComputeIdLo);
  printf("%s.Capability=0x%08x\n", p, (unsigned)np.Capability.Value);
  P32(p, np, MaxWavesPerSIMD);
  P32(p, np, LDSSizeInKB);
  P32(p, np, GDSSizeInKB);
  P32(p, np, WaveFrontSize);
  P32(p, np, NumShaderBanks);
  P32(p, np, NumArrays);
  P32(p, np, NumCUPerArray);
  P32(p, np, NumSIMDPerCU);
  P32(p, np, MaxSlotsScratchCU);
  printf("%s.EngineId=0x%08x\n", p, (unsigned)np.EngineId.Value);
  P32(p, np, VendorId);
  P32(p, np, DeviceId);
  P32(p, np, LocationId);
  P64(p, np, LocalMemSize);
  P32(p, np, MaxEngineClockMhzFCompute);
  P32(p, np, MaxEngineClockMhzCCompute);
  PS32(p, np, DrmRenderMinor);
  {
    char k[96];
    snprintf(k, sizeof(k), "%s.MarketingName", p);
    print_utf16(k, np.MarketingName, HSA_PUBLIC_NAME_SIZE);
    snprintf(k, sizeof(k), "%s.AMDName", p);
    print_ascii(k, np.AMDName, HSA_PUBLIC_NAME_SIZE);
  }
  printf("%s.uCodeEngineVersions=0x%08x\n", p, (unsigned)np.uCodeEngineVersions.Value);
  printf("%s.DebugProperties=0x%016llx\n", p, (unsigned long long)np.DebugProperties.Value);
  P64(p, np, HiveID);
  P32(p, np, NumSdmaEngines);
  P32(p, np, NumSdmaXgmiEngines);
  P32(p, np, NumSdmaQueuesPerEngine);
  P32(p, np, NumCpQueues);
  P32(p, np, NumGws);
  P32(p, np, Domain);
  P64(p, np, UniqueID);
  P32(p, np, VGPRSizePerCU);
  P32(p, np, SGPRSizePerCU);
#ifndef HKE_ORACLE_DEBIAN
  /* Fields newer than Debian's 5.2.3 header. */
  P32(p, np, NumNeuralCores);
  printf("%s.Capability2=0x%08x\n", p, (unsigned)np.Capability2.Value);
  printf("%s.OverrideEngineId=0x%08x\n", p, (unsigned)np.OverrideEngineId.Value);
  P32(p, np, Integrated);
  P32(p, np, NumXcc);
  P32(p, np, KFDGpuID);
  P32(p, np, FamilyID);
#endif

  int rc = 0;
  if (np.NumMemoryBanks > 0) {
    HSAuint32 count = np.NumMemoryBanks;
    HsaMemoryProperties* mem = (HsaMemoryProperties*)calloc(count, sizeof(*mem));
    s = mem == NULL ? HSAKMT_STATUS_NO_MEMORY : hsaKmtGetNodeMemoryProperties(n, count, mem);
    if (s != HSAKMT_STATUS_SUCCESS) {
      printf("%s.mem.status=%d\n", p, (int)s);
      rc = 1;
    } else {
      for (HSAuint32 i = 0; i < count; ++i) {
        char q[96];
        snprintf(q, sizeof(q), "%s.mem.%u", p, i);
        P32(q, mem[i], HeapType);
        P64(q, mem[i], SizeInBytes);
        printf("%s.Flags=0x%08x\n", q, (unsigned)mem[i].Flags.MemoryProperty);
        P32(q, mem[i], Width);
        P32(q, mem[i], MemoryClockMax);
        printf("%s.VirtualBaseAddress=0x%llx\n", q, (unsigned long long)mem[i].VirtualBaseAddress);
      }
    }
    free(mem);
  }
  if (np.NumCaches > 0) {
    HSAuint32 count = np.NumCaches;
    HsaCacheProperties* caches = (HsaCacheProperties*)calloc(count, sizeof(*caches));
    s = caches == NULL ? HSAKMT_STATUS_NO_MEMORY
                       : hsaKmtGetNodeCacheProperties(n, np.CComputeIdLo, count, caches);
    if (s != HSAKMT_STATUS_SUCCESS) {
      printf("%s.cache.status=%d\n", p, (int)s);
      rc = 1;
    } else {
      for (HSAuint32 i = 0; i < count; ++i) {
        char q[96];
        snprintf(q, sizeof(q), "%s.cache.%u", p, i);
        P32(q, caches[i], ProcessorIdLow);
        P32(q, caches[i], CacheLevel);
        P32(q, caches[i], CacheSize);
        P32(q, caches[i], CacheLineSize);
        P32(q, caches[i], CacheLinesPerTag);
        P32(q, caches[i], CacheAssociativity);
        P32(q, caches[i], CacheLatency);
        printf("%s.CacheType=0x%08x\n", q, (unsigned)caches[i].CacheType.Value);
        printf("%s.SiblingMap=", q);
        int first = 1;
        for (int b = 0; b < HSA_CPU_SIBLINGS; ++b) {
          if (caches[i].SiblingMap[b] != 0) {
            printf("%s%d:%u", first ? "" : ",", b, (unsigned)caches[i].SiblingMap[b]);
            first = 0;
          }
        }
        putchar('\n');
      }
    }
    free(caches);
  }
  if (np.NumIOLinks > 0) {
    HSAuint32 count = np.NumIOLinks;
    HsaIoLinkProperties* links = (HsaIoLinkProperties*)calloc(count, sizeof(*links));
    s = links == NULL ? HSAKMT_STATUS_NO_MEMORY : hsaKmtGetNodeIoLinkProperties(n, count, links);
    if (s != HSAKMT_STATUS_SUCCESS) {
      printf("%s.link.status=%d\n", p, (int)s);
      rc = 1;
    } else {
      for (HSAuint32 i = 0; i < count; ++i) {
        char q[96];
        snprintf(q, sizeof(q), "%s.link.%u", p, i);
        P32(q, links[i], IoLinkType);
        P32(q, links[i], VersionMajor);
        P32(q, links[i], VersionMinor);
        P32(q, links[i], NodeFrom);
        P32(q, links[i], NodeTo);
        P32(q, links[i], Weight);
        P32(q, links[i], MinimumLatency);
        P32(q, links[i], MaximumLatency);
        P32(q, links[i], MinimumBandwidth);
        P32(q, links[i], MaximumBandwidth);
        P32(q, links[i], RecTransferSize);
#ifndef HKE_ORACLE_DEBIAN
        P32(q, links[i], RecSdmaEngIdMask);
#endif
        printf("%s.Flags=0x%08x\n", q, (unsigned)links[i].Flags.LinkProperty);
      }
    }
    free(links);
  }
  return rc;
}

int main(void) {
  HSAKMT_STATUS s = hsaKmtOpenKFD();
  printf("status.open=%d\n", (int)s);
  if (s != HSAKMT_STATUS_SUCCESS) return 1;
  HsaVersionInfo v;
  memset(&v, 0, sizeof(v));
  s = hsaKmtGetVersion(&v);
  printf("status.version=%d\n", (int)s);
  printf("kfd.version=%u.%u\n", (unsigned)v.KernelInterfaceMajorVersion,
         (unsigned)v.KernelInterfaceMinorVersion);
  HsaSystemProperties sp;
  memset(&sp, 0, sizeof(sp));
  s = hsaKmtAcquireSystemProperties(&sp);
  printf("status.acquire=%d\n", (int)s);
  if (s != HSAKMT_STATUS_SUCCESS) return 1;
  printf("system.NumNodes=%u\n", (unsigned)sp.NumNodes);
  printf("system.PlatformOem=%u\n", (unsigned)sp.PlatformOem);
  printf("system.PlatformId=%u\n", (unsigned)sp.PlatformId);
  printf("system.PlatformRev=%u\n", (unsigned)sp.PlatformRev);
  int rc = 0;
  for (HSAuint32 n = 0; n < sp.NumNodes; ++n) rc |= dump_node(n);
  s = hsaKmtReleaseSystemProperties();
  printf("status.release=%d\n", (int)s);
  s = hsaKmtCloseKFD();
  printf("status.close=%d\n", (int)s);
  return rc;
}
