/* A minimal C consumer of an installed hsakmt-embedded: links statically,
 * opens the KFD through the default context and reports the outcome. Exits
 * 0 when the library answered as it must on this machine: SUCCESS with a
 * real /dev/kfd, KERNEL_IO_CHANNEL_NOT_OPENED without one. */
#include <stdio.h>

#include <hsakmt/hsakmt.h>
#include <hsakmt/hsakmt_embedded.h>

int main(void) {
  HSAKMT_STATUS s = hsaKmtOpenKFD();
  printf("consumer: configuration=%s context_bytes=%lu open=%d\n", hke_build_configuration(),
         (unsigned long)hke_context_storage_size(), (int)s);
  if (s == HSAKMT_STATUS_SUCCESS) {
    HsaVersionInfo v;
    if (hsaKmtGetVersion(&v) != HSAKMT_STATUS_SUCCESS) return 1;
    printf("consumer: kfd %u.%u\n", v.KernelInterfaceMajorVersion, v.KernelInterfaceMinorVersion);
    return hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS ? 0 : 1;
  }
  return s == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED ? 0 : 1;
}
