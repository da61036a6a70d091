#include "runtime/delegate/ethosu/ethosu_backend.h"

#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/inner_loops/inner_loops.h"

namespace pte {
namespace ethosu {
namespace {

// Vela aligns its scratch layout to 16 bytes; the NPU reads it through that base pointer.
constexpr size_t kScratchAlignment = 16;

struct Delegate {
  VelaBinStream stream;
  uint8_t* scratch;
};

Result<Tensor*> delegate_tensor(EValue* value, const char* what, size_t index) {
  if (!value->is_tensor()) {
    return Status::failure(Error::kInvalidProgram, "%s %lu is %s, not a tensor", what, as_ulong(index),
                           evalue_tag_name(value->tag));
  }
  Tensor* tensor = value->payload.tensor;
  if (tensor->data == nullptr) {
    return Status::failure(Error::kInvalidState, "%s %lu has no data", what, as_ulong(index));
  }
  return tensor;
}

// The tensor must hold exactly the bytes Vela expects, element for element.
Status check_io_match(const Tensor& tensor, const VelaIo& io, const char* what, size_t index) {
  if (element_size(tensor.scalar_type) != static_cast<size_t>(io.element_size) || tensor.nbytes != io.byte_size()) {
    return Status::failure(Error::kInvalidProgram,
                           "%s %lu is %s %s (%lu bytes) but the NPU expects %lu elements of %ld bytes", what,
                           as_ulong(index), scalar_type_name(tensor.scalar_type), ShapeText(tensor).c_str(),
                           as_ulong(tensor.nbytes), as_ulong(io.element_count()), static_cast<long>(io.element_size));
  }
  if (io.region != static_cast<int32_t>(Region::kScratch)) {
    return Status::failure(Error::kNotSupported, "%s %lu lives in region %ld; only scratch (1) I/O is supported", what,
                           as_ulong(index), static_cast<long>(io.region));
  }
  return Status();
}

}  // namespace

Result<void*> EthosUBackend::init(BackendInitContext& context, Span<const uint8_t> blob,
                                  Span<const CompileSpec> compile_specs) {
  (void)compile_specs;  // Vela already applied them; the stream is self-contained.
  PTE_ASSIGN_OR_RETURN(const VelaBinStream stream, parse_vela_bin_stream(blob));
  PTE_ASSIGN_OR_RETURN(Delegate * delegate, context.arena.allocate_array<Delegate>(1, "Ethos-U delegate"));
  PTE_ASSIGN_OR_RETURN(void* scratch,
                       context.arena.allocate(stream.scratch_size, kScratchAlignment, "Ethos-U scratch"));
  // Cleared, unlike planned memory: not every Vela stream writes each scratch byte before reading it.
  // Measured: llama's U55-128 stream (models/zoo/llama_test.py's known rotary-slice departure) gives
  // other outputs when its scratch starts as 0xA5 instead of 0, so the departing operators read bytes no
  // command wrote. Zeroing keeps such a stream deterministic and equal to the NPU model's other callers.
  std::memset(scratch, 0, stream.scratch_size);
  delegate->stream = stream;
  delegate->scratch = static_cast<uint8_t*>(scratch);
  return static_cast<void*>(delegate);
}

Status EthosUBackend::execute(void* handle, Span<EValue* const> args) {
  const Delegate& delegate = *static_cast<const Delegate*>(handle);
  const VelaBinStream& stream = delegate.stream;
  const size_t input_count = stream.inputs.size();
  const size_t output_count = stream.outputs.size();
  if (args.size() != input_count + output_count) {
    return Status::failure(Error::kInvalidProgram, "the call passes %lu values, the NPU program has %lu inputs and "
                           "%lu outputs", as_ulong(args.size()), as_ulong(input_count), as_ulong(output_count));
  }
  if (driver_ == nullptr) {
    return Status::failure(Error::kNotSupported, "no NPU driver is attached to the Ethos-U backend");
  }
  for (size_t i = 0; i < input_count; ++i) {
    const VelaIo io = stream.inputs.at(i);
    PTE_ASSIGN_OR_RETURN(const Tensor* tensor, delegate_tensor(args[i], "input", i));
    PTE_RETURN_IF_ERROR(check_io_match(*tensor, io, "input", i));
    inner_loops::copy_bytes(delegate.scratch + io.offset, tensor->data, tensor->nbytes);
  }
  NpuRegion regions[kNpuRegionCount] = {};
  regions[static_cast<size_t>(Region::kWeights)] = {reinterpret_cast<uintptr_t>(stream.weights.data()),
                                                    stream.weights.size()};
  regions[static_cast<size_t>(Region::kScratch)] = {reinterpret_cast<uintptr_t>(delegate.scratch),
                                                    stream.scratch_size};
  regions[static_cast<size_t>(Region::kFastScratch)] = {reinterpret_cast<uintptr_t>(fast_scratch_.data()),
                                                        fast_scratch_.size()};
  Status status = driver_->run(stream.command_stream, Span<const NpuRegion>(regions));
  if (!status.ok()) return std::move(status).with_context("NPU");
  for (size_t i = 0; i < output_count; ++i) {
    const VelaIo io = stream.outputs.at(i);
    PTE_ASSIGN_OR_RETURN(Tensor * tensor, delegate_tensor(args[input_count + i], "output", i));
    PTE_RETURN_IF_ERROR(check_io_match(*tensor, io, "output", i));
    if (tensor->is_constant) {
      return Status::failure(Error::kInvalidProgram, "output %lu is a program constant", as_ulong(i));
    }
    inner_loops::copy_bytes(tensor->data, delegate.scratch + io.offset, tensor->nbytes);
  }
  return Status();
}

}  // namespace ethosu
}  // namespace pte
