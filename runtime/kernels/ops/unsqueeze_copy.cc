// aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out): self with a size-1 dim inserted at
// dim; the elements are copied as they are, any dtype.
#include <cstring>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status unsqueeze_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank + 1, "dim"));
  int32_t expected[kMaxRank];
  if (self->rank + 1 > kMaxRank) return Status::failure(Error::kKernelFailed, "unsqueeze would exceed rank 16");
  for (uint32_t d = 0, s = 0; d < self->rank + 1; ++d) expected[d] = d == dim ? 1 : self->sizes[s++];
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, self->rank + 1), "out"));
  if (out->data != self->data) std::memmove(out->data, self->data, self->nbytes);
  return Status();
}

}  // namespace ops
}  // namespace pte
