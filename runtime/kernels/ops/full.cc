// aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out), aten::full_like.out(Tensor self,
// Scalar fill_value, *, MemoryFormat? memory_format, Tensor(a!) out) and aten::scalar_tensor.out(Scalar
// s, *, Tensor(a!) out): every element of out is the value cast to out's dtype (torch.zeros and
// torch.ones come as full).
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

Status fill(const Scalar& value, Tensor& out) {
  return switch_dtype<kAllDtypes>(out.scalar_type, "out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T element = value.to<T>();
    T* result = out.data_as<T>();
    for (size_t i = 0; i < out.numel; ++i) result[i] = element;
    return Status();
  });
}

}  // namespace

Status full_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> size, args.int_list(0));
  PTE_ASSIGN_OR_RETURN(const Scalar value, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  int32_t expected[kMaxRank];
  if (size.size() > kMaxRank) return Status::failure(Error::kKernelFailed, "size %s has too many dims", ShapeText(size).c_str());
  for (size_t d = 0; d < size.size(); ++d) expected[d] = static_cast<int32_t>(size[d]);
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, size.size()), "out"));
  return fill(value, *out);
}

Status full_like_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar value, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  return fill(value, *out);
}

Status scalar_tensor_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(3));
  PTE_ASSIGN_OR_RETURN(const Scalar value, args.scalar(0));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(1));
  PTE_RETURN_IF_ERROR(expect_rank(*out, 0, "out"));
  return fill(value, *out);
}

}  // namespace ops
}  // namespace pte
