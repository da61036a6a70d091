// The reference kernels under the operator names ExecuTorch programs use.
#pragma once

#include "runtime/core/span.h"
#include "runtime/core/status.h"
#include "runtime/kernels/kernel.h"
#include "runtime/kernels/registry.h"

namespace pte {

Span<const Kernel> reference_kernels();

// Adds every reference kernel to `registry`.
Status register_reference_kernels(KernelRegistry& registry);

}  // namespace pte
