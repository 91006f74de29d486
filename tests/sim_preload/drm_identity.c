/*
 * drm_identity: what libdrm makes of the simulated render nodes, run under
 * libkfdsim-preload.so. For every /dev/dri/renderD<n> of the board: fstat
 * and stat report a character device 226:<n>; drmGetDevice2 finds its PCI
 * bus info and the render node; amdgpu_device_initialize gives each node a
 * device of its own (libdrm_amdgpu folds descriptors whose primary-node
 * names it cannot tell apart into one device, which is what broke
 * upstream's libhsakmt on multi-GPU boards). Prints one line per node;
 * exit 0 when every check holds, 1 otherwise.
 */
#include <amdgpu.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>

#define MAX_NODES 128

int main(void) {
  int fds[MAX_NODES];
  unsigned minors[MAX_NODES];
  amdgpu_device_handle devs[MAX_NODES];
  char buses[MAX_NODES][32];
  int n = 0, failed = 0;
  DIR* d = opendir("/dev/dri");
  if (d == NULL) {
    printf("FAIL: no /dev/dri\n");
    return 1;
  }
  struct dirent* e;
  while ((e = readdir(d)) != NULL && n < MAX_NODES) {
    if (strncmp(e->d_name, "renderD", 7) != 0) continue;
    char path[300];
    snprintf(path, sizeof(path), "/dev/dri/%s", e->d_name);
    const unsigned minor = (unsigned)atoi(e->d_name + 7);
    struct stat ps, fs;
    const int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0 || stat(path, &ps) != 0 || fstat(fd, &fs) != 0) {
      printf("FAIL: %s: open/stat/fstat\n", path);
      failed = 1;
      continue;
    }
    const int chr = S_ISCHR(ps.st_mode) && S_ISCHR(fs.st_mode);
    const int num = major(fs.st_rdev) == 226 && minor(fs.st_rdev) == minor && fs.st_rdev == ps.st_rdev;
    drmDevicePtr dev = NULL;
    const int got = drmGetDevice2(fd, 0, &dev);
    char bus[32] = "?";
    int render_listed = 0;
    if (got == 0 && dev->bustype == DRM_BUS_PCI) {
      snprintf(bus, sizeof(bus), "%04x:%02x:%02x.%x", dev->businfo.pci->domain, dev->businfo.pci->bus,
               dev->businfo.pci->dev, dev->businfo.pci->func);
      render_listed = (dev->available_nodes & (1 << DRM_NODE_RENDER)) &&
                      strcmp(dev->nodes[DRM_NODE_RENDER], path) == 0;
    }
    if (dev) drmFreeDevice(&dev);
    uint32_t maj = 0, min = 0;
    amdgpu_device_handle h = NULL;
    const int init = amdgpu_device_initialize(fd, &maj, &min, &h);
    printf("%s: chr=%d rdev=%u:%u drmGetDevice2=%d bus=%s render_node=%d amdgpu_init=%d\n", path, chr,
           major(fs.st_rdev), minor(fs.st_rdev), got, bus, render_listed, init);
    if (!chr || !num || got != 0 || !render_listed || init != 0) failed = 1;
    fds[n] = fd;
    minors[n] = minor;
    devs[n] = h;
    strcpy(buses[n], bus);
    n++;
  }
  closedir(d);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (devs[i] == devs[j]) {
        printf("FAIL: renderD%u and renderD%u share one amdgpu device\n", minors[i], minors[j]);
        failed = 1;
      }
      if (strcmp(buses[i], buses[j]) == 0) {
        printf("FAIL: renderD%u and renderD%u report the same bus %s\n", minors[i], minors[j], buses[i]);
        failed = 1;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (devs[i]) amdgpu_device_deinitialize(devs[i]);
    close(fds[i]);
  }
  printf("%d render nodes, %s\n", n, failed || n == 0 ? "FAIL" : "ok");
  return failed || n == 0 ? 1 : 0;
}
