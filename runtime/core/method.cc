#include "runtime/core/method.h"

#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/core/delegate_table.h"
#include "runtime/core/planned_memory.h"
#include "runtime/core/value_table.h"
#include "runtime/delegate/backend.h"
#include "runtime/schema/program_generated.h"

namespace pte {
namespace fb = executorch_flatbuffer;
namespace {

Result<Span<const uint32_t>> load_value_indices(const flatbuffers::Vector<int32_t>* serialized, size_t value_count,
                                                const char* what, BumpArena& arena) {
  const size_t count = serialized ? serialized->size() : 0;
  PTE_ASSIGN_OR_RETURN(uint32_t * indices, arena.allocate_array<uint32_t>(count, what));
  for (size_t i = 0; i < count; ++i) {
    const int32_t index = serialized->Get(i);
    if (index < 0 || static_cast<size_t>(index) >= value_count) {
      return Status::failure(Error::kInvalidProgram, "%s %lu refers to value %ld, out of range (%lu values)", what,
                             as_ulong(i), static_cast<long>(index), as_ulong(value_count));
    }
    indices[i] = static_cast<uint32_t>(index);
  }
  return Span<const uint32_t>(indices, count);
}

// ExecuTorch's rule: a Bool, or a Bool tensor whose elements are all true.
Result<bool> condition_holds(const EValue& condition) {
  if (condition.tag == EValueTag::kBool) return condition.payload.bool_value;
  if (condition.tag == EValueTag::kTensor && condition.payload.tensor->scalar_type == ScalarType::kBool) {
    const Tensor& tensor = *condition.payload.tensor;
    if (tensor.data == nullptr) return Status::failure(Error::kInvalidState, "the condition tensor has no data");
    const uint8_t* items = tensor.data_as<const uint8_t>();
    for (size_t i = 0; i < tensor.numel; ++i) {
      if (items[i] == 0) return false;
    }
    return true;
  }
  return Status::failure(Error::kInvalidProgram, "a jump condition must be a Bool or a bool tensor, not %s",
                         evalue_tag_name(condition.tag));
}

}  // namespace

Result<Method> Method::load(const Program& program, const char* name, const MethodMemory& memory,
                            const KernelRegistry& kernels, const BackendRegistry& backends) {
  Method method;
  Status status = [&]() -> Status {
    PTE_ASSIGN_OR_RETURN(const fb::ExecutionPlan* plan, program.find_plan(name));
    method.name_ = plan->name()->c_str();
    PTE_ASSIGN_OR_RETURN(const PlannedMemory planned, PlannedMemory::bind(*plan, memory.planned));
    PTE_ASSIGN_OR_RETURN(method.values_, load_value_table(program, *plan, planned, memory.runtime));
    PTE_ASSIGN_OR_RETURN(method.inputs_,
                         load_value_indices(plan->inputs(), method.values_.size(), "input", memory.runtime));
    PTE_ASSIGN_OR_RETURN(method.outputs_,
                         load_value_indices(plan->outputs(), method.values_.size(), "output", memory.runtime));
    PTE_ASSIGN_OR_RETURN(method.delegates_, load_delegates(program, *plan, backends, memory.runtime));
    PTE_ASSIGN_OR_RETURN(method.chains_,
                         load_chains(*plan, method.values_, method.delegates_, kernels, memory.runtime));
    return Status();
  }();
  if (!status.ok()) return std::move(status).with_context("loading method '%s'", name);
  return method;
}

Method::Method(Method&& other)
    : name_(other.name_),
      values_(other.values_),
      inputs_(other.inputs_),
      outputs_(other.outputs_),
      delegates_(other.delegates_),
      chains_(other.chains_) {
  other.delegates_ = Span<DelegateInstance>();
}

Method::~Method() { destroy_delegates(delegates_); }

Result<const EValue*> Method::input(size_t index) const {
  if (index >= inputs_.size()) {
    return Status::failure(Error::kNotFound, "method '%s' has %lu inputs, no input %lu", name_,
                           as_ulong(inputs_.size()), as_ulong(index));
  }
  return &values_[inputs_[index]];
}

Result<const EValue*> Method::output(size_t index) const {
  if (index >= outputs_.size()) {
    return Status::failure(Error::kNotFound, "method '%s' has %lu outputs, no output %lu", name_,
                           as_ulong(outputs_.size()), as_ulong(index));
  }
  return &values_[outputs_[index]];
}

Result<const Tensor*> Method::input_tensor(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const EValue* value, input(index));
  if (!value->is_tensor()) {
    return Status::failure(Error::kNotSupported, "input %lu is %s, not a tensor", as_ulong(index),
                           evalue_tag_name(value->tag));
  }
  return static_cast<const Tensor*>(value->payload.tensor);
}

Result<const Tensor*> Method::output_tensor(size_t index) const {
  PTE_ASSIGN_OR_RETURN(const EValue* value, output(index));
  if (!value->is_tensor()) {
    return Status::failure(Error::kNotSupported, "output %lu is %s, not a tensor", as_ulong(index),
                           evalue_tag_name(value->tag));
  }
  return static_cast<const Tensor*>(value->payload.tensor);
}

Result<Tensor*> Method::input_for_update(size_t index) {
  PTE_ASSIGN_OR_RETURN(const Tensor* tensor, input_tensor(index));
  return const_cast<Tensor*>(tensor);
}

Status Method::set_input(size_t index, Span<const uint8_t> bytes) {
  PTE_ASSIGN_OR_RETURN(Tensor * tensor, input_for_update(index));
  if (bytes.size() != tensor->nbytes) {
    return Status::failure(Error::kInvalidArgument, "input %lu is %s %s (%lu bytes), got %lu bytes", as_ulong(index),
                           scalar_type_name(tensor->scalar_type), ShapeText(*tensor).c_str(),
                           as_ulong(tensor->nbytes), as_ulong(bytes.size()));
  }
  if (tensor->data == nullptr) {
    return Status::failure(Error::kInvalidState, "input %lu has no planned memory: give it memory with bind_input",
                           as_ulong(index));
  }
  // An empty tensor's bytes may be a null span, which memcpy must not be given.
  if (!bytes.empty()) std::memcpy(tensor->data, bytes.data(), bytes.size());
  return Status();
}

Status Method::bind_input(size_t index, Span<uint8_t> memory) {
  PTE_ASSIGN_OR_RETURN(Tensor * tensor, input_for_update(index));
  if (memory.size() < tensor->nbytes) {
    return Status::failure(Error::kInvalidArgument, "input %lu needs %lu bytes, %lu given", as_ulong(index),
                           as_ulong(tensor->nbytes), as_ulong(memory.size()));
  }
  if (reinterpret_cast<uintptr_t>(memory.data()) % element_size(tensor->scalar_type) != 0) {
    return Status::failure(Error::kInvalidArgument, "input %lu memory must be aligned to its %lu-byte elements",
                           as_ulong(index), as_ulong(element_size(tensor->scalar_type)));
  }
  tensor->data = memory.data();
  tensor->is_constant = false;
  return Status();
}

Status Method::execute() {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const EValue& value = values_[inputs_[i]];
    if (value.is_tensor() && value.payload.tensor->data == nullptr && value.payload.tensor->nbytes != 0) {
      return Status::failure(Error::kInvalidState, "method '%s': input %lu has no data; bind it with bind_input",
                             name_, as_ulong(i));
    }
  }
  for (size_t c = 0; c < chains_.size(); ++c) {
    Status status = run_chain(chains_[c]);
    if (!status.ok()) return std::move(status).with_context("method '%s' chain %lu", name_, as_ulong(c));
  }
  return Status();
}

// Programs jump backwards only to loop over a bounded map; one still jumping after this many instructions
// is corrupt, and would otherwise hang the device. No real program comes near it.
constexpr uint32_t kMaxInstructionsPerChainRun = 1u << 20;

Status Method::run_chain(const Chain& chain) {
  size_t index = 0;
  for (uint32_t executed = 0; index < chain.instructions.size(); ++executed) {
    if (executed == kMaxInstructionsPerChainRun) {
      return Status::failure(Error::kInvalidProgram,
                             "instruction %lu: %lu instructions run without reaching the chain's end; a jump "
                             "loops forever (corrupt program)",
                             as_ulong(index), static_cast<unsigned long>(executed));
    }
    size_t next = index + 1;
    PTE_RETURN_IF_ERROR(run_instruction(chain.instructions[index], index, &next));
    index = next;
  }
  return Status();
}

Status Method::run_instruction(const Instruction& instruction, size_t index, size_t* next) {
  switch (instruction.kind) {
    case Instruction::Kind::kKernel: {
      Status status = instruction.kernel(KernelArgs(instruction.args));
      if (status.ok()) return status;
      return std::move(status).with_context("instruction %lu (%s%s%s)", as_ulong(index), instruction.operator_name,
                                            instruction.operator_overload[0] ? "." : "",
                                            instruction.operator_overload);
    }
    case Instruction::Kind::kDelegate: {
      DelegateInstance& delegate = *instruction.delegate;
      Status status = delegate.backend->execute(delegate.handle, instruction.args);
      if (status.ok()) return status;
      return std::move(status).with_context("instruction %lu (delegate %s)", as_ulong(index), delegate.id);
    }
    case Instruction::Kind::kMove:
      // Like ExecuTorch: the destination now refers to the same value (a tensor is shared, not copied).
      values_[instruction.second] = values_[instruction.first];
      return Status();
    case Instruction::Kind::kJumpFalse: {
      Result<bool> holds = condition_holds(values_[instruction.first]);
      if (!holds.ok()) return holds.status().with_context("instruction %lu (jump)", as_ulong(index));
      if (!holds.value()) *next = instruction.second;
      return Status();
    }
    case Instruction::Kind::kFree: {
      EValue& value = values_[instruction.first];
      if (!value.is_tensor()) {
        return Status::failure(Error::kInvalidProgram, "instruction %lu frees value %lu, which is %s, not a tensor",
                               as_ulong(index), as_ulong(instruction.first), evalue_tag_name(value.tag));
      }
      value.payload.tensor->data = nullptr;
      return Status();
    }
  }
  return Status::failure(Error::kInvalidProgram, "instruction %lu has an unknown kind", as_ulong(index));
}

}  // namespace pte
