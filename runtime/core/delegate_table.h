// Initializes a method's delegates: finds each one's backend by id and hands it its blob.
#pragma once

#include "runtime/core/arena.h"
#include "runtime/core/instruction.h"
#include "runtime/core/program.h"
#include "runtime/core/result.h"

namespace pte {

class BackendRegistry;

Result<Span<DelegateInstance>> load_delegates(const Program& program,
                                              const executorch_flatbuffer::ExecutionPlan& plan,
                                              const BackendRegistry& backends, BumpArena& arena);

// Calls destroy on each initialized delegate (those with a backend).
void destroy_delegates(Span<DelegateInstance> delegates);

}  // namespace pte
