// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out): condition ?
// self : other over three-way broadcasting, in promote_types(self, other), which must be out's dtype.
// condition is bool (or any dtype, true where non-zero).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status where_self_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* condition, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  const ScalarType common = promote_types(self->scalar_type, other->scalar_type);
  if (common != out->scalar_type) {
    return Status::failure(Error::kKernelFailed, "self and other promote to %s but out is %s",
                           scalar_type_name(common), scalar_type_name(out->scalar_type));
  }
  const Tensor* inputs[] = {condition, self, other};
  PTE_RETURN_IF_ERROR(check_broadcast_all(inputs, *out));
  PTE_RETURN_IF_ERROR(expect_elementwise_layout(inputs, *out));
  PTE_ASSIGN_OR_RETURN(const LoadFn<bool> load_condition, loader<bool>(condition->scalar_type, "condition"));
  return switch_dtype<kAllDtypes>(common, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    PTE_ASSIGN_OR_RETURN(const LoadFn<T> load_self, loader<T>(self->scalar_type, "self"));
    PTE_ASSIGN_OR_RETURN(const LoadFn<T> load_other, loader<T>(other->scalar_type, "other"));
    T* result = out->data_as<T>();
    for_each_broadcast_n(inputs, *out, [&](size_t i, const size_t(&index)[3]) {
      result[i] = load_condition(condition->data, index[0]) ? load_self(self->data, index[1])
                                                            : load_other(other->data, index[2]);
    });
    return Status();
  });
}

}  // namespace ops
}  // namespace pte
