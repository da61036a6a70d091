/* The .pte runtime as a C library for Python (ctypes, arm/host_runtime/binding.py) and other hosts without C++:
 * load a program, set inputs, execute, read outputs. Ethos-U delegates run on the functional NPU model
 * (runtime/npu_model) of the configuration their command stream names; delegates the C++ runtime has no
 * backend for (VGF, TOSA) run through callbacks the caller registers by delegate id.
 * Every call that can fail returns 0 or the runtime's error code (runtime/core/error.h) with the message
 * in `error` (NUL-terminated, truncated to `error_capacity`). */
#ifndef PTE_RUNTIME_PYTHON_C_API_H_
#define PTE_RUNTIME_PYTHON_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PteHostProgram PteHostProgram;

/* A tensor of the program: ExecuTorch's ScalarType code, shape, and its memory (owned by the program;
 * valid until the next execute or free). */
typedef struct {
  int32_t scalar_type;
  uint32_t rank;
  const int32_t* sizes;
  void* data;
  size_t nbytes;
} PteTensorView;

/* A delegate backend the caller implements. `init` sees each delegate's blob once, at load; `execute`
 * gets the DelegateCall's tensors (inputs, then outputs, whose memory it fills). Return 0, or an error
 * code with a message written to `error`. */
typedef int (*PteDelegateInitFn)(void* context, size_t delegate_index, const uint8_t* blob, size_t blob_size,
                                 char* error, size_t error_capacity);
typedef int (*PteDelegateExecuteFn)(void* context, size_t delegate_index, const PteTensorView* args,
                                    size_t arg_count, char* error, size_t error_capacity);

typedef struct {
  const char* id; /* the delegate id in the .pte, e.g. "VgfBackend" */
  PteDelegateInitFn init;
  PteDelegateExecuteFn execute;
  void* context;
} PteHostBackend;

typedef struct {
  const char* method;         /* NULL: "forward" */
  const char* npu;            /* "model" (NULL), "driver" or "none": where Ethos-U delegates run */
  size_t runtime_arena_bytes; /* 0: 64 MiB */
  size_t npu_work_bytes;      /* 0: 64 MiB */
  const PteHostBackend* backends;
  size_t backend_count;
} PteLoadOptions;

/* Loads `size` bytes of .pte (copied). `options` may be NULL. On success *program is set. */
int pte_host_program_load(const uint8_t* pte, size_t size, const PteLoadOptions* options, PteHostProgram** program,
                          char* error, size_t error_capacity);
void pte_host_program_free(PteHostProgram* program);

size_t pte_host_program_input_count(const PteHostProgram* program);
size_t pte_host_program_output_count(const PteHostProgram* program);
/* Describes input or output `index` (a tensor; other values are an error). */
int pte_host_program_input(const PteHostProgram* program, size_t index, PteTensorView* view, char* error,
                           size_t error_capacity);
int pte_host_program_output(const PteHostProgram* program, size_t index, PteTensorView* view, char* error,
                            size_t error_capacity);
/* Copies exactly the input's byte count into it. */
int pte_host_program_set_input(PteHostProgram* program, size_t index, const void* data, size_t nbytes, char* error,
                               size_t error_capacity);
int pte_host_program_execute(PteHostProgram* program, char* error, size_t error_capacity);
/* The NPU configuration Ethos-U delegates last ran on ("Ethos-U55-128"), or NULL when none ran. */
const char* pte_host_program_npu(const PteHostProgram* program);
/* Bytes of the runtime arena the method's load used. */
size_t pte_host_program_arena_used(const PteHostProgram* program);

#ifdef __cplusplus
}
#endif

#endif /* PTE_RUNTIME_PYTHON_C_API_H_ */
