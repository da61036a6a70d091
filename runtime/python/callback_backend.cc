#include "runtime/python/callback_backend.h"

#include <vector>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace python {
namespace {

constexpr size_t kCallbackErrorCapacity = Status::kMessageCapacity;

struct Delegate {
  size_t index;
};

// The callback's code as an Error; anything unknown becomes kDelegateFailed.
Error callback_error(int code) {
  return code > 0 && code <= static_cast<int>(Error::kIoError) ? static_cast<Error>(code) : Error::kDelegateFailed;
}

}  // namespace

Result<void*> CallbackBackend::init(BackendInitContext& context, Span<const uint8_t> blob,
                                    Span<const CompileSpec> compile_specs) {
  (void)compile_specs;
  PTE_ASSIGN_OR_RETURN(Delegate * delegate, context.arena.allocate_array<Delegate>(1, "host delegate"));
  delegate->index = context.delegate_index;
  char error[kCallbackErrorCapacity] = {};
  const int code = callbacks_.init(callbacks_.context, delegate->index, blob.data(), blob.size(), error, sizeof(error));
  if (code != 0) return Status::failure(callback_error(code), "%s", error);
  return static_cast<void*>(delegate);
}

Status CallbackBackend::execute(void* handle, Span<EValue* const> args) {
  const Delegate& delegate = *static_cast<const Delegate*>(handle);
  // Host only (the heap is fine here): one view per argument, all of them tensors.
  std::vector<PteTensorView> views(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]->is_tensor()) {
      return Status::failure(Error::kNotSupported, "argument %lu of delegate %lu (%s) is %s; host delegates take "
                             "tensors", as_ulong(i), as_ulong(delegate.index), callbacks_.id,
                             evalue_tag_name(args[i]->tag));
    }
    const Tensor& tensor = *args[i]->payload.tensor;
    views[i] = PteTensorView{static_cast<int32_t>(tensor.scalar_type), tensor.rank, tensor.sizes, tensor.data,
                             tensor.nbytes};
  }
  char error[kCallbackErrorCapacity] = {};
  const int code =
      callbacks_.execute(callbacks_.context, delegate.index, views.data(), views.size(), error, sizeof(error));
  if (code != 0) return Status::failure(callback_error(code), "%s", error);
  return Status();
}

}  // namespace python
}  // namespace pte
