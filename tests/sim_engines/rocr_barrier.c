/*
 * rocr_barrier: Debian's unmodified ROCR 5.2.3 and libhsakmt submit AQL
 * packets that the simulator's engines execute (run under
 * libkfdsim-preload.so; the engine thread runs them, nothing steps).
 *
 *   hsa_init; the first GPU agent; hsa_queue_create; two signals: dep = 1,
 *   done = 1. A barrier-AND packet waiting on dep with completion done is
 *   published and the doorbell rung; a blocked wait on done (short timeout)
 *   must still see 1 (the barrier waits); after hsa_signal_store(dep, 0) a
 *   wait on done == 0 must succeed (the engine completed the barrier and
 *   ROCR's interrupt signal woke the waiter). Then 100 more barriers with
 *   no dependency decrement a third signal from 100 to 0. Queue and signals
 *   destroyed, hsa_shut_down.
 *
 * Exit status: 0 when every step succeeded, 1 otherwise.
 */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check(const char* step, hsa_status_t s) {
  printf("%-44s status=0x%x\n", step, (unsigned)s);
  fflush(stdout);
  return s == HSA_STATUS_SUCCESS;
}

static hsa_status_t first_gpu(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS &&
      type == HSA_DEVICE_TYPE_GPU) {
    *(hsa_agent_t*)data = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

/* Publishes a barrier-AND packet: body first, header last (release). */
static void barrier(hsa_queue_t* q, hsa_signal_t dep, hsa_signal_t done) {
  const uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
  hsa_barrier_and_packet_t* p =
      (hsa_barrier_and_packet_t*)q->base_address + (index & (q->size - 1));
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->dep_signal[0] = dep;
  p->completion_signal = done;
  const uint16_t header = HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE |
                          1 << HSA_PACKET_HEADER_BARRIER |
                          HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                          HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE;
  __atomic_store_n(&p->header, header, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)index);
}

int main(void) {
  int ok = 0;
  if (!check("hsa_init", hsa_init())) return 1;
  do {
    hsa_agent_t gpu = {0};
    hsa_iterate_agents(first_gpu, &gpu);
    if (gpu.handle == 0) {
      printf("FAIL: no GPU agent\n");
      break;
    }
    uint64_t freq = 0;
    if (!check("hsa_system_get_info(TIMESTAMP_FREQUENCY)",
               hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq))) {
      break;
    }
    hsa_queue_t* q = NULL;
    if (!check("hsa_queue_create", hsa_queue_create(gpu, 1024, HSA_QUEUE_TYPE_SINGLE, NULL, NULL,
                                                    UINT32_MAX, UINT32_MAX, &q))) {
      break;
    }
    hsa_signal_t dep, done, count;
    if (!check("hsa_signal_create(dep)", hsa_signal_create(1, 0, NULL, &dep)) ||
        !check("hsa_signal_create(done)", hsa_signal_create(1, 0, NULL, &done)) ||
        !check("hsa_signal_create(count)", hsa_signal_create(100, 0, NULL, &count))) {
      break;
    }
    hsa_signal_t none = {0};
    barrier(q, dep, done);
    hsa_signal_value_t v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, freq / 50,
                                                     HSA_WAIT_STATE_BLOCKED);
    printf("%-44s value=%lld (expect 1)\n", "wait(done) while dep == 1", (long long)v);
    if (v != 1) break;
    hsa_signal_store_screlease(dep, 0);
    v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, freq * 30,
                                  HSA_WAIT_STATE_BLOCKED);
    printf("%-44s value=%lld (expect 0)\n", "wait(done) after dep = 0", (long long)v);
    if (v != 0) break;
    for (int i = 0; i < 100; ++i) barrier(q, none, count);
    v = hsa_signal_wait_scacquire(count, HSA_SIGNAL_CONDITION_EQ, 0, freq * 30,
                                  HSA_WAIT_STATE_BLOCKED);
    printf("%-44s value=%lld (expect 0)\n", "wait(count) after 100 barriers", (long long)v);
    if (v != 0) break;
    const uint64_t read = hsa_queue_load_read_index_scacquire(q);
    printf("%-44s %llu (expect 101)\n", "read index", (unsigned long long)read);
    if (read != 101) break;
    if (!check("hsa_signal_destroy", hsa_signal_destroy(dep)) ||
        !check("hsa_signal_destroy", hsa_signal_destroy(done)) ||
        !check("hsa_signal_destroy", hsa_signal_destroy(count)) ||
        !check("hsa_queue_destroy", hsa_queue_destroy(q))) {
      break;
    }
    ok = 1;
  } while (0);
  if (!check("hsa_shut_down", hsa_shut_down())) ok = 0;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
