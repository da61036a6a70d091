// Argument checks shared by the reference kernels; each failure says what was expected and what came.
#pragma once

#include <initializer_list>

#include "runtime/core/result.h"
#include "runtime/core/tensor.h"

namespace pte {

// `what` names the argument ("self", "out", ...).
Status expect_scalar_type(const Tensor& tensor, ScalarType expected, const char* what);
Status expect_same_scalar_type(const Tensor& tensor, const Tensor& reference, const char* what,
                               const char* reference_what);
Status expect_shape(const Tensor& tensor, Span<const int32_t> expected, const char* what);
Status expect_same_shape(const Tensor& tensor, const Tensor& reference, const char* what, const char* reference_what);
Status expect_rank(const Tensor& tensor, uint32_t rank, const char* what);
// The reference kernels index memory as contiguous in the default (0, 1, ..., n-1) dim order.
Status expect_default_dim_order(const Tensor& tensor, const char* what);
// The float32 kernels' check (matrix products, norms): every tensor that is not null (an absent optional)
// is float32 in the default dim order.
Status expect_float32_default_order(std::initializer_list<const Tensor*> tensors);
// Elementwise kernels walk memory in order, which is right for any layout both tensors share.
Status expect_same_dim_order(const Tensor& tensor, const Tensor& reference, const char* what,
                             const char* reference_what);
// A dim argument in [-rank, rank) made non-negative.
Result<uint32_t> normalize_dim(int64_t dim, uint32_t rank, const char* what);

}  // namespace pte
