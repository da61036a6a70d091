#include "runtime/kernels/elementwise.h"

namespace pte {

Status expect_elementwise_layout(Span<const Tensor* const> inputs, const Tensor& out) {
  bool all_default = out.has_default_dim_order();
  bool all_alike = true;
  for (const Tensor* in : inputs) {
    all_default = all_default && in->has_default_dim_order();
    bool alike = in->same_shape(out);
    for (uint32_t dim = 0; alike && dim < out.rank; ++dim) alike = in->dim_order[dim] == out.dim_order[dim];
    all_alike = all_alike && alike;
  }
  if (all_default || all_alike) return Status();
  return Status::failure(Error::kNotSupported,
                         "the tensors mix dim orders or broadcast across a non-default dim order (out %s); this "
                         "kernel walks memory in order",
                         ShapeText(out).c_str());
}

Status float_unary_out(const KernelArgs& args, float (*fn)(float)) {
  PTE_RETURN_IF_ERROR(args.expect_count(3));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(1));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, ScalarType::kFloat, "out"));
  if (!in_dtype_set(self->scalar_type, kAllDtypes)) return unsupported_dtype(self->scalar_type, kAllDtypes, "self");
  return map_unary<float>(*self, *out, fn);
}

}  // namespace pte
