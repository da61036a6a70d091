/* A C interface to the NPU model for Python (ctypes) and other hosts without C++. */
#ifndef PTE_NPU_MODEL_C_API_H_
#define PTE_NPU_MODEL_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One base-pointer region: the host memory the NPU sees at region i. */
typedef struct {
  uint8_t* data;
  size_t size;
} PteNpuRegion;

typedef void (*PteNpuTraceFn)(void* context, const char* line);

/* Runs Vela's command payload (a bin stream's cmd_data) on the NPU named `npu` ("ethos-u55-128",
 * "ethos-u85-256", ...). `work_bytes` of host memory back the model's operations. `trace` may be NULL.
 * Returns 0 on success; otherwise the runtime's error code, with the message in `error`
 * (NUL-terminated, truncated). */
int pte_npu_model_run(const char* npu, const uint8_t* payload, size_t payload_size,
                      const PteNpuRegion* regions, size_t region_count, size_t work_bytes, PteNpuTraceFn trace,
                      void* trace_context, char* error, size_t error_capacity);

/* Decodes a compressed U55 weight stream into at most `capacity` values. Returns the number of values,
 * or -1 with the message in `error`. (Lets tests check the decoder against Vela's encoder.) */
long pte_npu_decode_weights(const uint8_t* stream, size_t stream_size, int16_t* values, size_t capacity, char* error,
                            size_t error_capacity);

#ifdef __cplusplus
}
#endif

#endif /* PTE_NPU_MODEL_C_API_H_ */
