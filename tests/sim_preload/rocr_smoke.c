/*
 * rocr_smoke: drives Debian's ROCR 5.2.3 (libhsa-runtime64) through the
 * basic runtime paths on whatever KFD it finds; run under libkfdsim-preload.so
 * it exercises the simulator through an unmodified thunk and runtime.
 *
 * Steps, each printed with its status; the first failure ends the run:
 *   hsa_init; find a CPU and a GPU agent; on the GPU, find a global,
 *   coarse-grained (VRAM) pool that allows runtime allocation, allocate one
 *   granule-rounded buffer from it; hsa_queue_create + hsa_queue_destroy;
 *   hsa_signal_create(7) and a short blocked wait for 0 that nobody
 *   satisfies (must time out and return 7); hsa_signal_store(0) and a wait
 *   for 0 (must return 0); destroy the signal, free the buffer, hsa_shut_down.
 *
 * Exit status: 0 when every step succeeded, 1 otherwise.
 */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check(const char* step, hsa_status_t s) {
  const char* text = NULL;
  if (hsa_status_string(s, &text) != HSA_STATUS_SUCCESS || text == NULL) text = "?";
  printf("%-40s status=0x%x (%s)\n", step, (unsigned)s, s == HSA_STATUS_SUCCESS ? "ok" : text);
  fflush(stdout);
  return s == HSA_STATUS_SUCCESS;
}

struct agents {
  hsa_agent_t cpu;
  hsa_agent_t gpu;
  int cpus;
  int gpus;
};

static hsa_status_t on_agent(hsa_agent_t agent, void* data) {
  struct agents* a = (struct agents*)data;
  hsa_device_type_t type;
  hsa_status_t s = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (s != HSA_STATUS_SUCCESS) return s;
  char name[64];
  memset(name, 0, sizeof(name));
  s = hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name);
  if (s != HSA_STATUS_SUCCESS) return s;
  name[sizeof(name) - 1] = '\0';
  if (type == HSA_DEVICE_TYPE_CPU) {
    if (a->cpus++ == 0) a->cpu = agent;
  } else if (type == HSA_DEVICE_TYPE_GPU) {
    if (a->gpus++ == 0) a->gpu = agent;
  }
  printf("  agent: %s %s\n", type == HSA_DEVICE_TYPE_CPU ? "CPU" : type == HSA_DEVICE_TYPE_GPU ? "GPU" : "other",
         name);
  return HSA_STATUS_SUCCESS;
}

struct pool_search {
  hsa_amd_memory_pool_t pool;
  size_t granule;
  int found;
  int seen;
};

static hsa_status_t on_pool(hsa_amd_memory_pool_t pool, void* data) {
  struct pool_search* p = (struct pool_search*)data;
  p->seen++;
  hsa_amd_segment_t segment;
  hsa_status_t s = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
  if (s != HSA_STATUS_SUCCESS) return s;
  uint32_t flags = 0;
  bool alloc_allowed = false;
  size_t size = 0;
  if (segment == HSA_AMD_SEGMENT_GLOBAL) {
    s = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    if (s != HSA_STATUS_SUCCESS) return s;
    s = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                                     &alloc_allowed);
    if (s != HSA_STATUS_SUCCESS) return s;
    s = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size);
    if (s != HSA_STATUS_SUCCESS) return s;
  }
  printf("  pool: segment=%d global_flags=0x%x alloc_allowed=%d size=%zu\n", (int)segment,
         (unsigned)flags, (int)alloc_allowed, size);
  const int vram = segment == HSA_AMD_SEGMENT_GLOBAL &&
                   (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) != 0 &&
                   (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) == 0 && alloc_allowed &&
                   size > 0;
  if (vram && !p->found) {
    s = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE,
                                     &p->granule);
    if (s != HSA_STATUS_SUCCESS) return s;
    p->pool = pool;
    p->found = 1;
  }
  return HSA_STATUS_SUCCESS;
}

int main(void) {
  if (!check("hsa_init", hsa_init())) return 1;
  int ok = 0;
  void* buffer = NULL;
  hsa_signal_t signal = {0};
  int have_signal = 0;

  do {
    struct agents a;
    memset(&a, 0, sizeof(a));
    if (!check("hsa_iterate_agents", hsa_iterate_agents(on_agent, &a))) break;
    printf("%-40s cpus=%d gpus=%d\n", "agents found", a.cpus, a.gpus);
    if (a.cpus < 1 || a.gpus < 1) {
      printf("FAIL: need at least one CPU and one GPU agent\n");
      break;
    }

    struct pool_search p;
    memset(&p, 0, sizeof(p));
    if (!check("hsa_amd_agent_iterate_memory_pools(gpu)",
               hsa_amd_agent_iterate_memory_pools(a.gpu, on_pool, &p))) {
      break;
    }
    if (!p.found) {
      printf("FAIL: none of the GPU's %d pools is a coarse-grained global pool\n", p.seen);
      break;
    }
    size_t size = p.granule > 0 ? p.granule : 4096;
    if (size < (1u << 20)) size = ((1u << 20) + size - 1) / size * size;
    if (!check("hsa_amd_memory_pool_allocate(vram)",
               hsa_amd_memory_pool_allocate(p.pool, size, 0, &buffer))) {
      break;
    }
    printf("%-40s ptr=%p size=%zu\n", "vram buffer", buffer, size);
    if (buffer == NULL) {
      printf("FAIL: allocation succeeded with a NULL pointer\n");
      break;
    }

    uint32_t queue_min = 0;
    if (!check("hsa_agent_get_info(QUEUE_MIN_SIZE)",
               hsa_agent_get_info(a.gpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &queue_min))) {
      break;
    }
    uint32_t queue_size = queue_min > 1024 ? queue_min : 1024;
    hsa_queue_t* queue = NULL;
    if (!check("hsa_queue_create(gpu)",
               hsa_queue_create(a.gpu, queue_size, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX,
                                UINT32_MAX, &queue))) {
      break;
    }
    printf("%-40s size=%u doorbell=0x%llx\n", "queue", queue->size,
           (unsigned long long)queue->doorbell_signal.handle);
    if (queue->size != queue_size || queue->base_address == NULL) {
      printf("FAIL: queue size %u (asked %u) base %p\n", queue->size, queue_size,
             queue->base_address);
      hsa_queue_destroy(queue);
      break;
    }
    if (!check("hsa_queue_destroy", hsa_queue_destroy(queue))) break;

    uint64_t freq = 0;
    if (!check("hsa_system_get_info(TIMESTAMP_FREQUENCY)",
               hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq))) {
      break;
    }
    if (freq == 0) {
      printf("FAIL: timestamp frequency 0\n");
      break;
    }
    if (!check("hsa_signal_create(7)", hsa_signal_create(7, 0, NULL, &signal))) break;
    have_signal = 1;
    /* Nobody signals: the blocked wait ends by its timeout (20 ms of
     * timestamp ticks) and returns the unchanged value. */
    hsa_signal_value_t v = hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 0,
                                                     freq / 50, HSA_WAIT_STATE_BLOCKED);
    printf("%-40s value=%lld (expect 7)\n", "hsa_signal_wait_scacquire(==0, timeout)",
           (long long)v);
    if (v != 7) break;
    hsa_signal_store_screlease(signal, 0);
    /* The condition already holds; the hint (10 s) is only an upper bound. */
    v = hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 0, freq * 10,
                                  HSA_WAIT_STATE_BLOCKED);
    printf("%-40s value=%lld (expect 0)\n", "hsa_signal_wait_scacquire(==0, stored)",
           (long long)v);
    if (v != 0) break;
    ok = 1;
  } while (0);

  if (have_signal && !check("hsa_signal_destroy", hsa_signal_destroy(signal))) ok = 0;
  if (buffer != NULL && !check("hsa_amd_memory_pool_free", hsa_amd_memory_pool_free(buffer))) ok = 0;
  if (!check("hsa_shut_down", hsa_shut_down())) ok = 0;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
