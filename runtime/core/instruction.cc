#include "runtime/core/instruction.h"

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/registry.h"
#include "runtime/schema/program_generated.h"

namespace pte {
namespace fb = executorch_flatbuffer;
namespace {

struct Operator {
  KernelFn kernel;
  const char* name;
  const char* overload;
};

// Resolves every operator the plan lists; a missing kernel fails the load, naming the first one missing
// and how many are.
Result<Span<const Operator>> resolve_operators(const fb::ExecutionPlan& plan, const KernelRegistry& kernels,
                                               BumpArena& arena) {
  const auto* serialized = plan.operators();
  const size_t count = serialized ? serialized->size() : 0;
  PTE_ASSIGN_OR_RETURN(Operator * operators, arena.allocate_array<Operator>(count, "operator table"));
  size_t missing = 0;
  const Operator* first_missing = nullptr;
  for (size_t i = 0; i < count; ++i) {
    const fb::Operator* op = serialized->Get(i);
    if (op->name() == nullptr) {
      return Status::failure(Error::kInvalidProgram, "operator %lu has no name", as_ulong(i));
    }
    Operator& resolved = operators[i];
    resolved.name = op->name()->c_str();
    resolved.overload = op->overload() ? op->overload()->c_str() : "";
    resolved.kernel = kernels.find(resolved.name, resolved.overload);
    if (resolved.kernel == nullptr && missing++ == 0) first_missing = &resolved;
  }
  if (missing != 0) {
    return Status::failure(Error::kOperatorMissing, "operator '%s%s%s' has no registered kernel (%lu of %lu missing)",
                           first_missing->name, first_missing->overload[0] ? "." : "", first_missing->overload,
                           as_ulong(missing), as_ulong(count));
  }
  return Span<const Operator>(operators, count);
}

Status check_value_index(int64_t index, size_t value_count, const char* what) {
  if (index >= 0 && static_cast<uint64_t>(index) < value_count) return Status();
  return Status::failure(Error::kInvalidProgram, "%s refers to value %s, out of range (%lu values)", what,
                         DecimalText(index).c_str(), as_ulong(value_count));
}

Result<Span<EValue* const>> load_args(const flatbuffers::Vector<int32_t>* indices, Span<EValue> values,
                                      BumpArena& arena) {
  const size_t count = indices ? indices->size() : 0;
  PTE_ASSIGN_OR_RETURN(EValue * *args, arena.allocate_array<EValue*>(count, "instruction arguments"));
  for (size_t i = 0; i < count; ++i) {
    PTE_RETURN_IF_ERROR(check_value_index(indices->Get(i), values.size(), "an argument"));
    args[i] = &values[static_cast<size_t>(indices->Get(i))];
  }
  return Span<EValue* const>(args, count);
}

struct DecodeContext {
  Span<EValue> values;
  Span<DelegateInstance> delegates;
  Span<const Operator> operators;
  size_t chain_length;
  BumpArena& arena;
};

Status decode_kernel_call(const fb::KernelCall& call, const DecodeContext& context, Instruction& instruction) {
  if (call.op_index() < 0 || static_cast<size_t>(call.op_index()) >= context.operators.size()) {
    return Status::failure(Error::kInvalidProgram, "operator index %ld out of range (%lu operators)",
                           static_cast<long>(call.op_index()), as_ulong(context.operators.size()));
  }
  const Operator& op = context.operators[static_cast<size_t>(call.op_index())];
  instruction.kind = Instruction::Kind::kKernel;
  instruction.kernel = op.kernel;
  instruction.operator_name = op.name;
  instruction.operator_overload = op.overload;
  PTE_ASSIGN_OR_RETURN(instruction.args, load_args(call.args(), context.values, context.arena));
  return Status();
}

Status decode_delegate_call(const fb::DelegateCall& call, const DecodeContext& context, Instruction& instruction) {
  if (call.delegate_index() < 0 || static_cast<size_t>(call.delegate_index()) >= context.delegates.size()) {
    return Status::failure(Error::kInvalidProgram, "delegate index %ld out of range (%lu delegates)",
                           static_cast<long>(call.delegate_index()), as_ulong(context.delegates.size()));
  }
  instruction.kind = Instruction::Kind::kDelegate;
  instruction.delegate = &context.delegates[static_cast<size_t>(call.delegate_index())];
  PTE_ASSIGN_OR_RETURN(instruction.args, load_args(call.args(), context.values, context.arena));
  return Status();
}

Status decode_move_call(const fb::MoveCall& call, const DecodeContext& context, Instruction& instruction) {
  PTE_RETURN_IF_ERROR(check_value_index(call.move_from(), context.values.size(), "move source"));
  PTE_RETURN_IF_ERROR(check_value_index(call.move_to(), context.values.size(), "move destination"));
  instruction.kind = Instruction::Kind::kMove;
  instruction.first = static_cast<uint32_t>(call.move_from());
  instruction.second = static_cast<uint32_t>(call.move_to());
  return Status();
}

Status decode_jump_false_call(const fb::JumpFalseCall& call, const DecodeContext& context,
                              Instruction& instruction) {
  PTE_RETURN_IF_ERROR(check_value_index(call.cond_value_index(), context.values.size(), "jump condition"));
  // Jumping to one past the last instruction ends the chain.
  if (call.destination_instruction() < 0 ||
      static_cast<size_t>(call.destination_instruction()) > context.chain_length) {
    return Status::failure(Error::kInvalidProgram, "jump destination %ld out of range (%lu instructions)",
                           static_cast<long>(call.destination_instruction()), as_ulong(context.chain_length));
  }
  instruction.kind = Instruction::Kind::kJumpFalse;
  instruction.first = static_cast<uint32_t>(call.cond_value_index());
  instruction.second = static_cast<uint32_t>(call.destination_instruction());
  return Status();
}

Status decode_free_call(const fb::FreeCall& call, const DecodeContext& context, Instruction& instruction) {
  PTE_RETURN_IF_ERROR(check_value_index(call.value_index(), context.values.size(), "free"));
  instruction.kind = Instruction::Kind::kFree;
  instruction.first = static_cast<uint32_t>(call.value_index());
  return Status();
}

Status decode_instruction(const fb::Instruction& serialized, const DecodeContext& context, Instruction& instruction) {
  if (serialized.instr_args() == nullptr) {
    return Status::failure(Error::kInvalidProgram, "instruction of type %s has no arguments",
                           fb::EnumNameInstructionArguments(serialized.instr_args_type()));
  }
  switch (serialized.instr_args_type()) {
    case fb::InstructionArguments::KernelCall:
      return decode_kernel_call(*serialized.instr_args_as_KernelCall(), context, instruction);
    case fb::InstructionArguments::DelegateCall:
      return decode_delegate_call(*serialized.instr_args_as_DelegateCall(), context, instruction);
    case fb::InstructionArguments::MoveCall:
      return decode_move_call(*serialized.instr_args_as_MoveCall(), context, instruction);
    case fb::InstructionArguments::JumpFalseCall:
      return decode_jump_false_call(*serialized.instr_args_as_JumpFalseCall(), context, instruction);
    case fb::InstructionArguments::FreeCall:
      return decode_free_call(*serialized.instr_args_as_FreeCall(), context, instruction);
    case fb::InstructionArguments::NONE:
      break;
  }
  return Status::failure(Error::kInvalidProgram, "unknown instruction type %d",
                         static_cast<int>(serialized.instr_args_type()));
}

}  // namespace

Result<Span<const Chain>> load_chains(const fb::ExecutionPlan& plan, Span<EValue> values,
                                      Span<DelegateInstance> delegates, const KernelRegistry& kernels,
                                      BumpArena& arena) {
  PTE_ASSIGN_OR_RETURN(const Span<const Operator> operators, resolve_operators(plan, kernels, arena));
  const auto* serialized_chains = plan.chains();
  const size_t chain_count = serialized_chains ? serialized_chains->size() : 0;
  PTE_ASSIGN_OR_RETURN(Chain * chains, arena.allocate_array<Chain>(chain_count, "chain table"));
  for (size_t c = 0; c < chain_count; ++c) {
    const auto* serialized = serialized_chains->Get(c)->instructions();
    const size_t length = serialized ? serialized->size() : 0;
    PTE_ASSIGN_OR_RETURN(Instruction * instructions, arena.allocate_array<Instruction>(length, "instruction table"));
    const DecodeContext context{values, delegates, operators, length, arena};
    for (size_t i = 0; i < length; ++i) {
      Status status = decode_instruction(*serialized->Get(i), context, instructions[i]);
      if (!status.ok()) return std::move(status).with_context("chain %lu instruction %lu", as_ulong(c), as_ulong(i));
    }
    chains[c].instructions = Span<const Instruction>(instructions, length);
  }
  return Span<const Chain>(chains, chain_count);
}

}  // namespace pte
