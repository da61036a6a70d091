// Program: a validated view of a .pte held in caller memory. Nothing is copied: constants and delegate
// blobs are used in place, so the bytes must outlive the Program and every Method loaded from it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace executorch_flatbuffer {
struct Program;
struct ExecutionPlan;
struct BackendDelegateDataReference;
}  // namespace executorch_flatbuffer

namespace pte {

// The .pte buffer and every planned buffer must be aligned to this: ExecuTorch aligns tensor data to 16
// bytes inside them, and kernels read elements through typed pointers.
constexpr size_t kBufferAlignment = 16;

// What a method needs before it is loaded: the sizes of its planned-memory buffers and its I/O count.
class MethodMeta {
 public:
  const char* name() const;
  size_t input_count() const;
  size_t output_count() const;
  // Planned buffer i holds the tensors with memory_id i + 1 (ExecuTorch reserves id 0).
  size_t planned_buffer_count() const;
  size_t planned_buffer_size(size_t index) const;
  size_t delegate_count() const;

 private:
  friend class Program;
  explicit MethodMeta(const executorch_flatbuffer::ExecutionPlan* plan) : plan_(plan) {}
  const executorch_flatbuffer::ExecutionPlan* plan_;
};

class Program {
 public:
  // Checks the flatbuffer (verifier), the extended header and that every segment lies inside `data`.
  // `data` must be kBufferAlignment-aligned.
  static Result<Program> load(Span<const uint8_t> data);

  size_t method_count() const;
  Result<const char*> method_name(size_t index) const;
  Result<MethodMeta> method_meta(const char* name) const;

  // Used by Method::load.
  const executorch_flatbuffer::Program& flatbuffer() const { return *program_; }
  Result<const executorch_flatbuffer::ExecutionPlan*> find_plan(const char* name) const;
  Result<Span<const uint8_t>> segment(size_t index) const;
  // The data of a constant tensor (Tensor.data_buffer_idx > 0, no allocation_info), `nbytes` long.
  Result<const uint8_t*> constant_data(uint32_t data_buffer_idx, size_t nbytes) const;
  // The initial value of a planned tensor that has one (data_buffer_idx > 0 and allocation_info).
  Result<const uint8_t*> mutable_initial_data(uint64_t segments_index, uint32_t data_buffer_idx,
                                              size_t nbytes) const;
  Result<Span<const uint8_t>> delegate_blob(const executorch_flatbuffer::BackendDelegateDataReference& ref) const;

 private:
  Program(Span<const uint8_t> data, const executorch_flatbuffer::Program* program, size_t segment_base)
      : data_(data), program_(program), segment_base_(segment_base) {}

  Span<const uint8_t> data_;
  const executorch_flatbuffer::Program* program_;
  // Where segment offsets count from (the extended header's segment_base_offset).
  size_t segment_base_;
};

}  // namespace pte
