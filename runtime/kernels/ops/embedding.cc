// aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx, bool scale_grad_by_freq, bool
// sparse, *, Tensor(a!) out): out[..., :] = weight[indices[...], :], indices int64 or int32 of any shape.
// Any weight dtype. padding_idx and the gradient flags only matter for training.
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status embedding_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(7));
  PTE_ASSIGN_OR_RETURN(const Tensor* weight, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* indices, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(5));
  PTE_RETURN_IF_ERROR(expect_rank(*weight, 2, "weight"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *weight, "out", "weight"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*weight, "weight"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*indices, "indices"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(expect_index_dtype(indices->scalar_type, "indices"));
  int32_t expected[kMaxRank];
  if (indices->rank + 1 > kMaxRank) return Status::failure(Error::kKernelFailed, "indices have too many dims");
  for (uint32_t d = 0; d < indices->rank; ++d) expected[d] = indices->sizes[d];
  expected[indices->rank] = weight->sizes[1];
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, indices->rank + 1), "out"));
  PTE_ASSIGN_OR_RETURN(const LoadFn<int64_t> load_index, loader<int64_t>(indices->scalar_type, "indices"));
  const size_t row_bytes = static_cast<size_t>(weight->sizes[1]) * element_size(weight->scalar_type);
  for (size_t i = 0; i < indices->numel; ++i) {
    const int64_t row = load_index(indices->data, i);
    if (row < 0 || row >= weight->sizes[0]) {
      return Status::failure(Error::kKernelFailed, "index %s is out of range for weight %s", DecimalText(row).c_str(),
                             ShapeText(*weight).c_str());
    }
    std::memcpy(out->data_as<uint8_t>() + i * row_bytes, weight->data_as<const uint8_t>() + row * row_bytes, row_bytes);
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
