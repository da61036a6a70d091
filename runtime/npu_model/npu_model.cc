#include "runtime/npu_model/npu_model.h"

#include "runtime/core/arena.h"
#include "runtime/core/decimal_text.h"
#include "runtime/npu_model/driver_payload.h"
#include "runtime/npu_model/memory.h"
#include "runtime/npu_model/operation_context.h"

namespace pte {
namespace npu_model {
namespace {

constexpr size_t kTraceLineCapacity = 512;

size_t chain_bytes(const NpuArchitecture& architecture, Span<uint8_t> work_memory) {
  return architecture.product == NpuProduct::kEthosU85 ? work_memory.size() / 4 : 0;
}

}  // namespace

NpuModel::NpuModel(const NpuArchitecture& architecture, Span<uint8_t> work_memory)
    : architecture_(architecture),
      work_memory_(work_memory.subspan(chain_bytes(architecture, work_memory),
                                       work_memory.size() - chain_bytes(architecture, work_memory))),
      chains_(work_memory.subspan(0, chain_bytes(architecture, work_memory))) {}

Status NpuModel::run(Span<const uint8_t> payload, Span<const ethosu::NpuRegion> regions) {
  PTE_ASSIGN_OR_RETURN(const DriverPayload driver_payload, parse_driver_payload(payload));
  if (driver_payload.product != architecture_.product ||
      driver_payload.macs_per_cycle != architecture_.macs_per_cycle) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "the command stream was compiled for %s with %lu MACs per cycle; this model is an %s: "
                           "compile for the matching target",
                           product_name(driver_payload.product),
                           static_cast<unsigned long>(driver_payload.macs_per_cycle), architecture_.name);
  }
  return run_commands(driver_payload.commands, driver_payload.commands_offset, regions);
}

Status NpuModel::run_commands(Span<const uint8_t> commands, size_t offset, Span<const ethosu::NpuRegion> regions) {
  registers_.reset();
  chains_.reset();
  const NpuMemory memory(regions, Span<uint8_t>(shram_, architecture_.shram_bytes));
  CommandReader reader(commands, offset, *architecture_.commands);
  while (!reader.at_end()) {
    PTE_ASSIGN_OR_RETURN(const Command command, reader.next());
    if (!command.is_operation()) {
      registers_.write(command);
      trace(command);
      continue;
    }
    trace(command);
    const OperationFn run = architecture_.commands->find_operation(command);
    if (run == nullptr) return Status();  // NPU_OP_STOP
    BumpArena scratch(work_memory_);
    const OperationContext context{command, registers_, memory, architecture_, scratch, chains_};
    Status status = run(context);
    if (!status.ok()) return std::move(status).with_context("%s at byte %lu", command.name, as_ulong(command.offset));
  }
  return Status::failure(Error::kInvalidDelegateBlob, "the command stream ends at byte %lu without NPU_OP_STOP",
                         as_ulong(offset + commands.size()));
}

void NpuModel::trace(const Command& command) {
  if (trace_.write == nullptr) return;
  char line[kTraceLineCapacity];
  describe_command(command, registers_, *architecture_.commands, line, sizeof(line));
  trace_.write(trace_.context, line);
}

}  // namespace npu_model
}  // namespace pte
