// A method's instruction chains, decoded once at load: every index checked, every kernel and delegate
// resolved, every argument list turned into EValue pointers. Execution then only follows pointers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/arena.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
}

namespace pte {

class Backend;
class KernelRegistry;

// A delegate of the method after its backend's init.
struct DelegateInstance {
  Backend* backend;
  void* handle;
  const char* id;
};

struct Instruction {
  enum class Kind : uint8_t { kKernel, kDelegate, kMove, kJumpFalse, kFree };
  Kind kind;
  // kKernel: the kernel and its operator's name, for messages.
  KernelFn kernel;
  const char* operator_name;
  const char* operator_overload;
  // kDelegate.
  DelegateInstance* delegate;
  // kKernel and kDelegate.
  Span<EValue* const> args;
  // kMove: from -> to. kJumpFalse: condition value -> destination instruction. kFree: value.
  uint32_t first;
  uint32_t second;
};

struct Chain {
  Span<const Instruction> instructions;
};

Result<Span<const Chain>> load_chains(const executorch_flatbuffer::ExecutionPlan& plan, Span<EValue> values,
                                      Span<DelegateInstance> delegates, const KernelRegistry& kernels,
                                      BumpArena& arena);

}  // namespace pte
