// aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) and
// aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out): self without the named dims
// that have size 1 (others are kept, as PyTorch keeps them); the elements are copied as they are.
#include <cstring>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

Status squeeze(const Tensor& self, Span<const int64_t> dims, Tensor& out) {
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(out, self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(out, "out"));
  bool drop[kMaxRank] = {};
  for (const int64_t dim_arg : dims) {
    // A 0-d tensor takes dim 0 or -1 and stays 0-d.
    if (self.rank == 0) continue;
    PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self.rank, "dim"));
    drop[dim] = self.sizes[dim] == 1;
  }
  int32_t expected[kMaxRank];
  uint32_t rank = 0;
  for (uint32_t d = 0; d < self.rank; ++d) {
    if (!drop[d]) expected[rank++] = self.sizes[d];
  }
  PTE_RETURN_IF_ERROR(expect_shape(out, Span<const int32_t>(expected, rank), "out"));
  if (out.data != self.data) std::memmove(out.data, self.data, self.nbytes);
  return Status();
}

}  // namespace

Status squeeze_copy_dims_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> dims, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  return squeeze(*self, dims, *out);
}

Status squeeze_copy_dim_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim, args.integer(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  return squeeze(*self, Span<const int64_t>(&dim, 1), *out);
}

}  // namespace ops
}  // namespace pte
