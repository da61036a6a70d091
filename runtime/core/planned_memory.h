// PlannedMemory: the caller's buffers for a method's memory plan. ExecuTorch's planner gives every
// non-constant tensor a (memory_id, offset); the buffer for memory_id i is the caller's buffer i - 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
struct AllocationDetails;
}  // namespace executorch_flatbuffer

namespace pte {

class PlannedMemory {
 public:
  // Checks that there is a buffer per planned memory id, each large enough (kArenaTooSmall says how
  // many bytes are needed and how many were given) and aligned to kBufferAlignment.
  static Result<PlannedMemory> bind(const executorch_flatbuffer::ExecutionPlan& plan,
                                    Span<const Span<uint8_t>> buffers);

  // The address of an `nbytes` tensor placed by `allocation`; kInvalidProgram when the placement falls
  // outside the buffer size the program itself declares.
  Result<uint8_t*> locate(const executorch_flatbuffer::AllocationDetails& allocation, size_t nbytes) const;

 private:
  PlannedMemory(const executorch_flatbuffer::ExecutionPlan* plan, Span<const Span<uint8_t>> buffers)
      : plan_(plan), buffers_(buffers) {}
  const executorch_flatbuffer::ExecutionPlan* plan_;
  Span<const Span<uint8_t>> buffers_;
};

}  // namespace pte
