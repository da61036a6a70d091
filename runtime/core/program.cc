#include "runtime/core/program.h"

#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/core/decimal_text.h"
#include "runtime/core/extended_header.h"
#include "runtime/schema/program_generated.h"

namespace pte {
namespace fb = executorch_flatbuffer;
namespace {

// Root offset (u32) and file identifier: the least a flatbuffer with an identifier can be.
constexpr size_t kFlatbufferPrefix = 8;

Status check_identifier(Span<const uint8_t> data) {
  if (fb::ProgramBufferHasIdentifier(data.data())) return Status();
  char shown[5] = {};
  for (size_t i = 0; i < 4; ++i) {
    const char c = static_cast<char>(data[4 + i]);
    shown[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return Status::failure(Error::kInvalidProgram, "not an ExecuTorch program: file identifier '%s', expected '%s'",
                         shown, fb::ProgramIdentifier());
}

Status check_segments(const fb::Program& program, const ExtendedHeader& header, size_t data_size) {
  const auto* segments = program.segments();
  if (segments == nullptr || segments->size() == 0) return Status();
  // Without an extended header there is no segment area; ExecuTorch still lists an empty constant segment.
  const uint64_t available = !header.present              ? 0
                             : header.segment_data_size != 0 ? header.segment_data_size
                                                            : data_size - header.segment_base_offset;
  for (size_t i = 0; i < segments->size(); ++i) {
    const fb::DataSegment* segment = segments->Get(i);
    const uint64_t offset = segment->offset();
    const uint64_t size = segment->size();
    if (!range_within(offset, size, available)) {
      return Status::failure(Error::kInvalidProgram,
                             "truncated .pte: segment %lu spans bytes [%s, +%s) of a %s-byte segment area%s",
                             as_ulong(i), DecimalText(offset).c_str(), DecimalText(size).c_str(),
                             DecimalText(available).c_str(), header.present ? "" : " (no extended header)");
    }
  }
  return Status();
}

Status check_constant_tables(const fb::Program& program) {
  const bool has_buffers = program.constant_buffer() != nullptr && program.constant_buffer()->size() > 0;
  const auto* constant_segment = program.constant_segment();
  const bool has_segment_offsets = constant_segment != nullptr && constant_segment->offsets() != nullptr &&
                                   constant_segment->offsets()->size() > 0;
  if (has_buffers && has_segment_offsets) {
    return Status::failure(Error::kInvalidProgram,
                           "the program has both inline constant buffers and a constant segment; the format "
                           "allows one");
  }
  if (has_segment_offsets) {
    const size_t segment_count = program.segments() ? program.segments()->size() : 0;
    if (constant_segment->segment_index() >= segment_count) {
      return Status::failure(Error::kInvalidProgram, "constant segment index %lu is out of range (%lu segments)",
                             as_ulong(constant_segment->segment_index()), as_ulong(segment_count));
    }
  }
  return Status();
}

// flatbuffers' verifier checks a vector's length word for 4-byte alignment, not its elements: in a corrupt
// file a vector of 8-byte elements can sit 4 bytes off. Reading its elements through typed pointers (kernels
// read int and double lists in place) is then undefined behaviour, which compilers may turn into accesses
// that need the alignment.
template <typename T>
Status check_elements_aligned(const flatbuffers::Vector<T>* vector, const char* what, size_t index) {
  if (vector == nullptr || reinterpret_cast<uintptr_t>(vector->data()) % sizeof(T) == 0) return Status();
  return Status::failure(Error::kInvalidProgram, "%s %lu: its %lu-byte elements are not %lu-byte aligned (corrupt .pte)",
                         what, as_ulong(index), as_ulong(sizeof(T)), as_ulong(sizeof(T)));
}

Status check_wide_vectors_aligned(const fb::Program& program) {
  const auto* plans = program.execution_plan();
  for (size_t p = 0; p < plans->size(); ++p) {
    const fb::ExecutionPlan* plan = plans->Get(p);
    PTE_RETURN_IF_ERROR(check_elements_aligned(plan->non_const_buffer_sizes(), "planned buffer sizes of method", p));
    const auto* values = plan->values();
    for (size_t i = 0; values != nullptr && i < values->size(); ++i) {
      const fb::EValue* value = values->Get(i);
      if (const fb::IntList* list = value->val_as_IntList()) {
        PTE_RETURN_IF_ERROR(check_elements_aligned(list->items(), "int list value", i));
      }
      if (const fb::DoubleList* list = value->val_as_DoubleList()) {
        PTE_RETURN_IF_ERROR(check_elements_aligned(list->items(), "double list value", i));
      }
    }
  }
  if (program.constant_segment() != nullptr) {
    PTE_RETURN_IF_ERROR(check_elements_aligned(program.constant_segment()->offsets(), "constant segment offsets", 0));
  }
  const auto* mutable_segments = program.mutable_data_segments();
  for (size_t i = 0; mutable_segments != nullptr && i < mutable_segments->size(); ++i) {
    PTE_RETURN_IF_ERROR(check_elements_aligned(mutable_segments->Get(i)->offsets(), "mutable data segment", i));
  }
  return Status();
}

// Sizes come as int64 from the file; a negative one or one beyond this target's address space is corrupt.
Status check_planned_buffer_sizes(const fb::Program& program) {
  for (const fb::ExecutionPlan* plan : *program.execution_plan()) {
    const auto* sizes = plan->non_const_buffer_sizes();
    if (sizes == nullptr) continue;
    for (size_t i = 0; i < sizes->size(); ++i) {
      const int64_t size = sizes->Get(i);
      if (size < 0 || static_cast<uint64_t>(size) > SIZE_MAX) {
        return Status::failure(Error::kInvalidProgram, "method '%s': planned buffer %lu has invalid size %s",
                               plan->name() ? plan->name()->c_str() : "", as_ulong(i), DecimalText(size).c_str());
      }
    }
  }
  return Status();
}

}  // namespace

Result<Program> Program::load(Span<const uint8_t> data) {
  if (data.data() == nullptr || data.size() < kFlatbufferPrefix) {
    return Status::failure(Error::kInvalidProgram, "truncated .pte: %lu bytes cannot hold a flatbuffer header",
                           as_ulong(data.size()));
  }
  if (reinterpret_cast<uintptr_t>(data.data()) % kBufferAlignment != 0) {
    return Status::failure(Error::kInvalidArgument, "the .pte buffer must be %lu-byte aligned (it is at %p)",
                           as_ulong(kBufferAlignment), static_cast<const void*>(data.data()));
  }
  PTE_RETURN_IF_ERROR(check_identifier(data));
  PTE_ASSIGN_OR_RETURN(const ExtendedHeader header, read_extended_header(data));

  flatbuffers::Verifier::Options options;
  options.check_alignment = true;
  flatbuffers::Verifier verifier(data.data(), static_cast<size_t>(header.program_size), options);
  if (!fb::VerifyProgramBuffer(verifier)) {
    return Status::failure(Error::kInvalidProgram,
                           "the program flatbuffer (%s bytes) fails verification: corrupt or truncated .pte",
                           DecimalText(header.program_size).c_str());
  }
  const fb::Program* program = fb::GetProgram(data.data());
  if (program->execution_plan() == nullptr || program->execution_plan()->size() == 0) {
    return Status::failure(Error::kInvalidProgram, "the program has no methods");
  }
  PTE_RETURN_IF_ERROR(check_wide_vectors_aligned(*program));
  PTE_RETURN_IF_ERROR(check_segments(*program, header, data.size()));
  PTE_RETURN_IF_ERROR(check_constant_tables(*program));
  PTE_RETURN_IF_ERROR(check_planned_buffer_sizes(*program));
  return Program(data, program, static_cast<size_t>(header.segment_base_offset));
}

size_t Program::method_count() const { return program_->execution_plan()->size(); }

Result<const char*> Program::method_name(size_t index) const {
  if (index >= method_count()) {
    return Status::failure(Error::kNotFound, "method index %lu out of range (%lu methods)", as_ulong(index),
                           as_ulong(method_count()));
  }
  const auto* name = program_->execution_plan()->Get(index)->name();
  return name ? name->c_str() : "";
}

Result<const fb::ExecutionPlan*> Program::find_plan(const char* name) const {
  for (const fb::ExecutionPlan* plan : *program_->execution_plan()) {
    if (plan->name() != nullptr && std::strcmp(plan->name()->c_str(), name) == 0) return plan;
  }
  return Status::failure(Error::kNotFound, "the program has no method '%s'", name);
}

Result<MethodMeta> Program::method_meta(const char* name) const {
  PTE_ASSIGN_OR_RETURN(const fb::ExecutionPlan* plan, find_plan(name));
  return MethodMeta(plan);
}

Result<Span<const uint8_t>> Program::segment(size_t index) const {
  const auto* segments = program_->segments();
  if (segments == nullptr || index >= segments->size()) {
    return Status::failure(Error::kInvalidProgram, "segment %lu does not exist (%lu segments)", as_ulong(index),
                           as_ulong(segments ? segments->size() : 0));
  }
  // Bounds were checked at load.
  const fb::DataSegment* segment = segments->Get(index);
  return Span<const uint8_t>(data_.data() + segment_base_ + segment->offset(), static_cast<size_t>(segment->size()));
}

Result<const uint8_t*> Program::constant_data(uint32_t data_buffer_idx, size_t nbytes) const {
  const auto* buffers = program_->constant_buffer();
  if (buffers != nullptr && buffers->size() > 0) {
    if (data_buffer_idx >= buffers->size()) {
      return Status::failure(Error::kInvalidProgram, "constant buffer %lu does not exist (%lu buffers)",
                             as_ulong(data_buffer_idx), as_ulong(buffers->size()));
    }
    const auto* storage = buffers->Get(data_buffer_idx)->storage();
    if (storage == nullptr || storage->size() < nbytes) {
      return Status::failure(Error::kInvalidProgram, "constant buffer %lu holds %lu bytes, the tensor needs %lu",
                             as_ulong(data_buffer_idx), as_ulong(storage ? storage->size() : 0), as_ulong(nbytes));
    }
    return storage->data();
  }
  const auto* constant_segment = program_->constant_segment();
  const auto* offsets = constant_segment ? constant_segment->offsets() : nullptr;
  if (offsets == nullptr || data_buffer_idx >= offsets->size()) {
    return Status::failure(Error::kInvalidProgram, "constant %lu does not exist (%lu constants)",
                           as_ulong(data_buffer_idx), as_ulong(offsets ? offsets->size() : 0));
  }
  PTE_ASSIGN_OR_RETURN(const Span<const uint8_t> segment, this->segment(constant_segment->segment_index()));
  const uint64_t offset = offsets->Get(data_buffer_idx);
  if (!range_within(offset, nbytes, segment.size())) {
    return Status::failure(Error::kInvalidProgram,
                           "constant %lu (%lu bytes at offset %s) lies outside the %lu-byte constant segment",
                           as_ulong(data_buffer_idx), as_ulong(nbytes), DecimalText(offset).c_str(),
                           as_ulong(segment.size()));
  }
  return segment.data() + offset;
}

Result<const uint8_t*> Program::mutable_initial_data(uint64_t segments_index, uint32_t data_buffer_idx,
                                                     size_t nbytes) const {
  const auto* tables = program_->mutable_data_segments();
  if (tables == nullptr || segments_index >= tables->size()) {
    return Status::failure(Error::kInvalidProgram, "mutable data segment table %s does not exist",
                           DecimalText(segments_index).c_str());
  }
  const fb::SubsegmentOffsets* table = tables->Get(static_cast<uint32_t>(segments_index));
  const auto* offsets = table->offsets();
  if (offsets == nullptr || data_buffer_idx >= offsets->size()) {
    return Status::failure(Error::kInvalidProgram, "mutable tensor data %lu does not exist",
                           as_ulong(data_buffer_idx));
  }
  PTE_ASSIGN_OR_RETURN(const Span<const uint8_t> segment, this->segment(table->segment_index()));
  const uint64_t offset = offsets->Get(data_buffer_idx);
  if (!range_within(offset, nbytes, segment.size())) {
    return Status::failure(Error::kInvalidProgram, "mutable tensor data %lu lies outside its segment",
                           as_ulong(data_buffer_idx));
  }
  return segment.data() + offset;
}

Result<Span<const uint8_t>> Program::delegate_blob(const fb::BackendDelegateDataReference& ref) const {
  switch (ref.location()) {
    case fb::DataLocation::INLINE: {
      const auto* inline_data = program_->backend_delegate_data();
      if (inline_data == nullptr || ref.index() >= inline_data->size()) {
        return Status::failure(Error::kInvalidProgram, "inline delegate data %lu does not exist",
                               as_ulong(ref.index()));
      }
      const auto* bytes = inline_data->Get(ref.index())->data();
      if (bytes == nullptr) return Span<const uint8_t>();
      return Span<const uint8_t>(bytes->data(), bytes->size());
    }
    case fb::DataLocation::SEGMENT:
      return segment(ref.index());
  }
  return Status::failure(Error::kInvalidProgram, "delegate data location %d is unknown",
                         static_cast<int>(ref.location()));
}

const char* MethodMeta::name() const { return plan_->name() ? plan_->name()->c_str() : ""; }
size_t MethodMeta::input_count() const { return plan_->inputs() ? plan_->inputs()->size() : 0; }
size_t MethodMeta::output_count() const { return plan_->outputs() ? plan_->outputs()->size() : 0; }
size_t MethodMeta::delegate_count() const { return plan_->delegates() ? plan_->delegates()->size() : 0; }

size_t MethodMeta::planned_buffer_count() const {
  const auto* sizes = plan_->non_const_buffer_sizes();
  return (sizes == nullptr || sizes->size() == 0) ? 0 : sizes->size() - 1;
}

size_t MethodMeta::planned_buffer_size(size_t index) const {
  return index < planned_buffer_count() ? static_cast<size_t>(plan_->non_const_buffer_sizes()->Get(index + 1)) : 0;
}

}  // namespace pte
