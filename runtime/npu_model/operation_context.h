// What an NPU operation (NPU_OP_CONV, NPU_OP_POOL, ...) runs with: the command that started it, the
// registers as the stream left them, the memory it may touch and scratch memory for its own use.
#pragma once

#include "runtime/core/arena.h"
#include "runtime/npu_model/architecture.h"
#include "runtime/npu_model/chain_buffers.h"
#include "runtime/npu_model/command_reader.h"
#include "runtime/npu_model/memory.h"
#include "runtime/npu_model/register_file.h"

namespace pte {
namespace npu_model {

struct OperationContext {
  const Command& command;
  const RegisterFile& registers;
  const NpuMemory& memory;
  const NpuArchitecture& architecture;
  // Emptied before every operation.
  BumpArena& scratch;
  // The U85's chaining buffers (kept across operations).
  ChainBuffers& chains;
};

}  // namespace npu_model
}  // namespace pte
