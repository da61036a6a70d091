#include "runtime/core/planned_memory.h"

#include "runtime/core/checked_math.h"
#include "runtime/core/decimal_text.h"
#include "runtime/core/program.h"
#include "runtime/schema/program_generated.h"

namespace pte {

Result<PlannedMemory> PlannedMemory::bind(const executorch_flatbuffer::ExecutionPlan& plan,
                                          Span<const Span<uint8_t>> buffers) {
  const auto* sizes = plan.non_const_buffer_sizes();
  const size_t needed_count = (sizes == nullptr || sizes->size() == 0) ? 0 : sizes->size() - 1;
  if (buffers.size() < needed_count) {
    return Status::failure(Error::kInvalidArgument, "the method plans %lu memory buffers, %lu given",
                           as_ulong(needed_count), as_ulong(buffers.size()));
  }
  for (size_t index = 0; index < needed_count; ++index) {
    // Sizes were range-checked by Program::load.
    const size_t needed = static_cast<size_t>(sizes->Get(index + 1));
    if (buffers[index].size() < needed) {
      return Status::failure(Error::kArenaTooSmall,
                             "planned buffer %lu (memory_id %lu) too small: the method needs %lu bytes, %lu given",
                             as_ulong(index), as_ulong(index + 1), as_ulong(needed), as_ulong(buffers[index].size()));
    }
    if (needed != 0 && reinterpret_cast<uintptr_t>(buffers[index].data()) % kBufferAlignment != 0) {
      return Status::failure(Error::kInvalidArgument, "planned buffer %lu must be %lu-byte aligned",
                             as_ulong(index), as_ulong(kBufferAlignment));
    }
  }
  return PlannedMemory(&plan, buffers);
}

Result<uint8_t*> PlannedMemory::locate(const executorch_flatbuffer::AllocationDetails& allocation,
                                       size_t nbytes) const {
  const auto* sizes = plan_->non_const_buffer_sizes();
  const size_t id = allocation.memory_id();
  if (sizes == nullptr || id == 0 || id >= sizes->size()) {
    return Status::failure(Error::kInvalidProgram, "memory_id %lu is not a planned buffer (ids 1..%lu)",
                           as_ulong(id), as_ulong(sizes && sizes->size() ? sizes->size() - 1 : 0));
  }
  const uint64_t offset =
      (static_cast<uint64_t>(allocation.memory_offset_high()) << 32) | allocation.memory_offset_low();
  const uint64_t buffer_size = static_cast<uint64_t>(sizes->Get(id));
  if (!range_within(offset, nbytes, buffer_size)) {
    return Status::failure(Error::kInvalidProgram,
                           "planned at [%s, +%lu) in memory_id %lu, beyond the buffer's %s bytes",
                           DecimalText(offset).c_str(), as_ulong(nbytes), as_ulong(id), DecimalText(buffer_size).c_str());
  }
  return buffers_[id - 1].data() + offset;
}

}  // namespace pte
