/*
 * A C consumer of the public headers. Built as strict C11 (-Wall -Wextra
 * -Werror -pedantic) by tests/api/CMakeLists.txt into the c_header_test
 * library: if hsakmt.h or hsakmtctx.h stops being valid C, the build
 * fails. Both include spellings consumers use are exercised.
 *
 * It also records, as the C compiler sees them, the address of every API
 * function (hsakmt.h, and the Ctx functions of hsakmtctx.h this branch
 * defines) and every layout value of abi_lists.h; api_table_test.cc
 * compares them with what the C++ compiler sees.
 */
#include "hsakmt/hsakmt.h"
#include <hsakmt/hsakmt.h>
#include "hsakmt/hsakmtctx.h"
#include <hsakmt/hsakmtctx.h>

#include <stddef.h>

#include "abi_lists.h"

/* The ABI facts a C consumer relies on, checked at compile time. */
_Static_assert(sizeof(HSA_QUEUE_PRIORITY) == 8, "HSA_QUEUE_PRIORITY is 8 bytes in C");
_Static_assert(sizeof(HSAKMT_STATUS) == 4, "HSAKMT_STATUS is 4 bytes");
_Static_assert(sizeof(HSA_QUEUE_TYPE) == 4, "HSA_QUEUE_TYPE is 4 bytes");
_Static_assert(sizeof(HSA_EVENTTYPE) == 4, "HSA_EVENTTYPE is 4 bytes");
_Static_assert(sizeof(HSA_HEAPTYPE) == 4, "HSA_HEAPTYPE is 4 bytes");
_Static_assert(sizeof(HsaNodeProperties) == 368, "HsaNodeProperties");
_Static_assert(sizeof(HsaCacheProperties) == 1056, "HsaCacheProperties");
_Static_assert(sizeof(HsaMemoryProperties) == 32, "HsaMemoryProperties");
_Static_assert(sizeof(HsaIoLinkProperties) == 52, "HsaIoLinkProperties");
_Static_assert(sizeof(HsaMemFlags) == 4 && sizeof(HsaMemMapFlags) == 4, "flag words");
_Static_assert(sizeof(HsaEvent) == 48, "HsaEvent");
_Static_assert(sizeof(HsaEventDescriptor) == 24, "HsaEventDescriptor");
_Static_assert(sizeof(HsaPcSamplingInfo) == 40, "HsaPcSamplingInfo");
_Static_assert(offsetof(HsaMemoryProperties, SizeInBytes) == 4, "packed to 4");
_Static_assert(offsetof(HsaQueueResource, Queue_DoorBell) == 8, "doorbell at 8");
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(HsaQueueResource) == 40, "HsaQueueResource (LP64)");
_Static_assert(offsetof(HsaQueueResource, ErrorReason) == 32, "ErrorReason (LP64)");
_Static_assert(sizeof(HsaPointerInfo) == 68, "HsaPointerInfo (LP64)");
#else
_Static_assert(sizeof(HsaQueueResource) == 36, "HsaQueueResource (ILP32)");
_Static_assert(offsetof(HsaQueueResource, ErrorReason) == 32, "ErrorReason (ILP32)");
_Static_assert(sizeof(HsaPointerInfo) == 52, "HsaPointerInfo (ILP32)");
#endif

#define HKE_C_SIZE(T) {"sizeof(" #T ")", sizeof(T)},
#define HKE_C_OFFSET(T, m) {"offsetof(" #T ", " #m ")", offsetof(T, m)},

const hke_abi_value hke_c_layout[] = {HKE_ABI_LAYOUT(HKE_C_SIZE, HKE_C_OFFSET)};
const size_t hke_c_layout_count = sizeof(hke_c_layout) / sizeof(hke_c_layout[0]);

#define HKE_C_FUNCTION(name) {#name, (hke_api_fn)&name},

const hke_api_entry hke_c_api[] = {HKE_API_FUNCTIONS(HKE_C_FUNCTION)};
const size_t hke_c_api_count = sizeof(hke_c_api) / sizeof(hke_c_api[0]);

const hke_api_entry hke_c_ctx_api[] = {HKE_CTX_FUNCTIONS(HKE_C_FUNCTION)};
const size_t hke_c_ctx_api_count = sizeof(hke_c_ctx_api) / sizeof(hke_c_ctx_api[0]);
