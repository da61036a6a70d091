#include "runtime/kernels/ops/pool2d.h"

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"

namespace pte {
namespace ops {
namespace {

// One value for both dims, or one per dim; `fallback` when empty.
Status read_pair(Span<const int64_t> values, const int64_t* fallback, int64_t (&pair)[2], const char* what) {
  if (values.empty() && fallback != nullptr) {
    pair[0] = fallback[0];
    pair[1] = fallback[1];
  } else if (values.size() == 1) {
    pair[0] = pair[1] = values[0];
  } else if (values.size() == 2) {
    pair[0] = values[0];
    pair[1] = values[1];
  } else {
    return Status::failure(Error::kKernelFailed, "%s %s is not one or two values", what, ShapeText(values).c_str());
  }
  return Status();
}

}  // namespace

Result<Pool2dWindow> make_pool2d_window(const Tensor& self, const Tensor& out, Span<const int64_t> kernel_size,
                                        Span<const int64_t> stride, Span<const int64_t> padding,
                                        Span<const int64_t> dilation) {
  PTE_RETURN_IF_ERROR(expect_scalar_type(self, ScalarType::kFloat, "self"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(out, self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(out, "out"));
  if ((self.rank != 3 && self.rank != 4) || out.rank != self.rank) {
    return Status::failure(Error::kKernelFailed, "self %s and out %s are not both [N,] C, H, W", ShapeText(self).c_str(),
                           ShapeText(out).c_str());
  }
  for (uint32_t d = 0; d + 2 < self.rank; ++d) {
    if (self.sizes[d] != out.sizes[d]) {
      return Status::failure(Error::kKernelFailed, "self %s and out %s differ outside H and W", ShapeText(self).c_str(),
                             ShapeText(out).c_str());
    }
  }
  Pool2dWindow window;
  const int64_t zero[2] = {0, 0};
  const int64_t one[2] = {1, 1};
  PTE_RETURN_IF_ERROR(read_pair(kernel_size, nullptr, window.kernel, "kernel_size"));
  PTE_RETURN_IF_ERROR(read_pair(stride, window.kernel, window.stride, "stride"));
  PTE_RETURN_IF_ERROR(read_pair(padding, zero, window.padding, "padding"));
  PTE_RETURN_IF_ERROR(read_pair(dilation, one, window.dilation, "dilation"));
  for (int d = 0; d < 2; ++d) {
    if (window.kernel[d] <= 0 || window.stride[d] <= 0 || window.dilation[d] <= 0 || window.padding[d] < 0) {
      return Status::failure(Error::kKernelFailed, "kernel %s, stride %s, dilation %s must be positive, padding %s not negative",
                             ShapeText(kernel_size).c_str(), ShapeText(stride).c_str(), ShapeText(dilation).c_str(),
                             ShapeText(padding).c_str());
    }
  }
  return window;
}

}  // namespace ops
}  // namespace pte
