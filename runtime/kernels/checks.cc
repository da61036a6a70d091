#include "runtime/kernels/checks.h"

#include "runtime/core/decimal_text.h"

namespace pte {

Status expect_scalar_type(const Tensor& tensor, ScalarType expected, const char* what) {
  if (tensor.scalar_type == expected) return Status();
  return Status::failure(Error::kKernelFailed, "%s is %s, expected %s", what, scalar_type_name(tensor.scalar_type),
                         scalar_type_name(expected));
}

Status expect_same_scalar_type(const Tensor& tensor, const Tensor& reference, const char* what,
                               const char* reference_what) {
  if (tensor.scalar_type == reference.scalar_type) return Status();
  return Status::failure(Error::kKernelFailed, "%s is %s but %s is %s (no type promotion here)", what,
                         scalar_type_name(tensor.scalar_type), reference_what, scalar_type_name(reference.scalar_type));
}

Status expect_shape(const Tensor& tensor, Span<const int32_t> expected, const char* what) {
  bool same = tensor.rank == expected.size();
  for (uint32_t dim = 0; same && dim < tensor.rank; ++dim) same = tensor.sizes[dim] == expected[dim];
  if (same) return Status();
  return Status::failure(Error::kKernelFailed, "%s has shape %s, expected %s", what, ShapeText(tensor).c_str(),
                         ShapeText(expected).c_str());
}

Status expect_same_shape(const Tensor& tensor, const Tensor& reference, const char* what, const char* reference_what) {
  if (tensor.same_shape(reference)) return Status();
  return Status::failure(Error::kKernelFailed, "%s has shape %s but %s has %s", what, ShapeText(tensor).c_str(),
                         reference_what, ShapeText(reference).c_str());
}

Status expect_rank(const Tensor& tensor, uint32_t rank, const char* what) {
  if (tensor.rank == rank) return Status();
  return Status::failure(Error::kKernelFailed, "%s has rank %lu (shape %s), expected rank %lu", what,
                         as_ulong(tensor.rank), ShapeText(tensor).c_str(), as_ulong(rank));
}

Status expect_default_dim_order(const Tensor& tensor, const char* what) {
  if (tensor.has_default_dim_order()) return Status();
  return Status::failure(Error::kNotSupported, "%s has a non-default dim order; this kernel reads contiguous tensors",
                         what);
}

Status expect_same_dim_order(const Tensor& tensor, const Tensor& reference, const char* what,
                             const char* reference_what) {
  bool same = tensor.rank == reference.rank;
  for (uint32_t dim = 0; same && dim < tensor.rank; ++dim) same = tensor.dim_order[dim] == reference.dim_order[dim];
  if (same) return Status();
  return Status::failure(Error::kNotSupported, "%s and %s have different dim orders", what, reference_what);
}

Status expect_float32_default_order(std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* tensor : tensors) {
    if (tensor == nullptr) continue;
    PTE_RETURN_IF_ERROR(expect_scalar_type(*tensor, ScalarType::kFloat, "every tensor"));
    PTE_RETURN_IF_ERROR(expect_default_dim_order(*tensor, "every tensor"));
  }
  return Status();
}

Result<uint32_t> normalize_dim(int64_t dim, uint32_t rank, const char* what) {
  const int64_t signed_rank = static_cast<int64_t>(rank);
  // A rank-0 tensor accepts dim 0 and -1, like PyTorch.
  const int64_t limit = signed_rank == 0 ? 1 : signed_rank;
  if (dim < -limit || dim >= limit) {
    return Status::failure(Error::kKernelFailed, "%s %s is out of range for rank %lu", what, DecimalText(dim).c_str(),
                           as_ulong(rank));
  }
  return static_cast<uint32_t>(dim < 0 ? dim + limit : dim);
}

}  // namespace pte
