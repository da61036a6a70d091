// CallbackBackend: a delegate backend whose work a C caller does (c_api.h's PteHostBackend), so that the
// Python runtime runs delegates the C++ runtime has no backend for (VGF on Vulkan, TOSA on the reference
// model) in their place in the program, between the C++ kernels around them.
#pragma once

#include "runtime/delegate/backend.h"
#include "runtime/python/c_api.h"

namespace pte {
namespace python {

class CallbackBackend final : public Backend {
 public:
  explicit CallbackBackend(const PteHostBackend& callbacks) : callbacks_(callbacks) {}

  Result<void*> init(BackendInitContext& context, Span<const uint8_t> blob,
                     Span<const CompileSpec> compile_specs) override;
  Status execute(void* handle, Span<EValue* const> args) override;

 private:
  PteHostBackend callbacks_;
};

}  // namespace python
}  // namespace pte
