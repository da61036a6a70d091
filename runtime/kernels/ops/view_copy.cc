// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out): the same elements under a new
// shape (one size may be -1, inferred).
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

Status check_view_size(Span<const int64_t> size, const Tensor& self, const Tensor& out) {
  if (size.size() != out.rank) {
    return Status::failure(Error::kKernelFailed, "size has %lu dims, out %s has %lu", as_ulong(size.size()),
                           ShapeText(out).c_str(), as_ulong(out.rank));
  }
  for (uint32_t dim = 0; dim < out.rank; ++dim) {
    if (size[dim] != -1 && size[dim] != out.sizes[dim]) {
      return Status::failure(Error::kKernelFailed, "size %s does not match out %s", ShapeText(size).c_str(),
                             ShapeText(out).c_str());
    }
  }
  if (out.numel != self.numel) {
    return Status::failure(Error::kKernelFailed, "cannot view %s (%lu elements) as %s (%lu elements)",
                           ShapeText(self).c_str(), as_ulong(self.numel), ShapeText(out).c_str(), as_ulong(out.numel));
  }
  return Status();
}

}  // namespace

Status view_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> size, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(check_view_size(size, *self, *out));
  // The planner may place out on top of self.
  if (out->data != self->data) std::memmove(out->data, self->data, self->nbytes);
  return Status();
}

}  // namespace ops
}  // namespace pte
