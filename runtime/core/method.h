// Method: one loaded execution plan of a Program, ready to run. Loading checks every index in the plan,
// resolves kernels and delegate backends and binds tensors to memory; after that nothing is allocated.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/arena.h"
#include "runtime/core/evalue.h"
#include "runtime/core/instruction.h"
#include "runtime/core/program.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {

class KernelRegistry;
class BackendRegistry;

// The memory a method runs in, all of it the caller's.
struct MethodMemory {
  // Value table, tensor descriptors, instruction table and delegate state. Its use after load is the
  // number to size a device's arena with (pte_runner prints it).
  BumpArena& runtime;
  // planned[i] backs memory_id i + 1; sizes from MethodMeta::planned_buffer_size.
  Span<const Span<uint8_t>> planned;
};

class Method {
 public:
  static Result<Method> load(const Program& program, const char* name, const MethodMemory& memory,
                             const KernelRegistry& kernels, const BackendRegistry& backends);

  Method(Method&& other);
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;
  // Gives delegates back what they acquired outside the arena.
  ~Method();

  const char* name() const { return name_; }
  size_t input_count() const { return inputs_.size(); }
  size_t output_count() const { return outputs_.size(); }
  Result<const EValue*> input(size_t index) const;
  Result<const EValue*> output(size_t index) const;
  Result<const Tensor*> input_tensor(size_t index) const;
  Result<const Tensor*> output_tensor(size_t index) const;

  // Copies `bytes` (exactly the tensor's size) into the input's planned memory.
  Status set_input(size_t index, Span<const uint8_t> bytes);
  // Points the input at caller memory instead (required for inputs the plan leaves unplanned).
  Status bind_input(size_t index, Span<uint8_t> memory);

  // Runs every chain once. Outputs stay valid until the next execute.
  Status execute();

 private:
  Method() = default;
  Result<Tensor*> input_for_update(size_t index);
  Status run_chain(const Chain& chain);
  Status run_instruction(const Instruction& instruction, size_t index, size_t* next);

  const char* name_ = "";
  Span<EValue> values_;
  Span<const uint32_t> inputs_;
  Span<const uint32_t> outputs_;
  Span<DelegateInstance> delegates_;
  Span<const Chain> chains_;
};

}  // namespace pte
