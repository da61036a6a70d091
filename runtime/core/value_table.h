// Loads a method's value table: every EValue of the execution plan, with tensors bound to their data
// (program constants, planned memory, or nothing yet for inputs the caller binds).
#pragma once

#include "runtime/core/arena.h"
#include "runtime/core/evalue.h"
#include "runtime/core/planned_memory.h"
#include "runtime/core/program.h"
#include "runtime/core/result.h"

namespace pte {

Result<Span<EValue>> load_value_table(const Program& program, const executorch_flatbuffer::ExecutionPlan& plan,
                                      const PlannedMemory& planned, BumpArena& arena);

}  // namespace pte
