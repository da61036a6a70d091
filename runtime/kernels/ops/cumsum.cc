// aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype, Tensor(a!) out): running sums along dim in
// out's dtype, each input element cast to it first: out[j] = self[j] + out[j - 1].
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status cumsum_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank == 0 ? 1 : self->rank, "dim"));
  const size_t size = self->rank == 0 ? 1 : static_cast<size_t>(self->sizes[dim]);
  const size_t inner = self->rank == 0 ? 1 : static_cast<size_t>(self->strides[dim]);
  const size_t outer = size * inner == 0 ? 0 : self->numel / (size * inner);
  return switch_dtype<kRealDtypes>(out->scalar_type, "out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    PTE_ASSIGN_OR_RETURN(const LoadFn<T> load, loader<T>(self->scalar_type, "self"));
    T* result = out->data_as<T>();
    for (size_t o = 0; o < outer; ++o) {
      const size_t base = o * size * inner;
      for (size_t i = 0; i < inner; ++i) result[base + i] = load(self->data, base + i);
      for (size_t j = 1; j < size; ++j) {
        for (size_t i = 0; i < inner; ++i) {
          const size_t at = base + j * inner + i;
          result[at] = static_cast<T>(load(self->data, at) + result[at - inner]);
        }
      }
    }
    return Status();
  });
}

}  // namespace ops
}  // namespace pte
