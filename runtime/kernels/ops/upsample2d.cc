#include "runtime/kernels/ops/upsample2d.h"

#include "runtime/kernels/checks.h"

namespace pte {
namespace ops {
namespace {

float kernel_scale(int64_t in_size, int64_t out_size, bool align_corners, double scale) {
  if (align_corners) return out_size > 1 ? static_cast<float>(static_cast<double>(in_size - 1) / (out_size - 1)) : 0.0f;
  return static_cast<float>(1.0 / scale);
}

}  // namespace

Result<Upsample2dScales> upsample2d_scales(const Tensor& input, const Tensor& out,
                                           std::optional<Span<const double>> scale_factors, bool align_corners) {
  PTE_RETURN_IF_ERROR(expect_rank(input, 4, "input"));
  PTE_RETURN_IF_ERROR(expect_rank(out, 4, "out"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(input, "input"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(out, "out"));
  if (input.sizes[0] != out.sizes[0] || input.sizes[1] != out.sizes[1] || input.sizes[2] == 0 || input.sizes[3] == 0) {
    return Status::failure(Error::kKernelFailed, "input %s and out %s differ in N or C (or are empty)",
                           ShapeText(input).c_str(), ShapeText(out).c_str());
  }
  double scale_h = static_cast<double>(out.sizes[2]) / input.sizes[2];
  double scale_w = static_cast<double>(out.sizes[3]) / input.sizes[3];
  if (scale_factors.has_value()) {
    if (scale_factors->size() != 2) return Status::failure(Error::kKernelFailed, "scale_factors is not two values");
    scale_h = (*scale_factors)[0];
    scale_w = (*scale_factors)[1];
  }
  return Upsample2dScales{kernel_scale(input.sizes[2], out.sizes[2], align_corners, scale_h),
                          kernel_scale(input.sizes[3], out.sizes[3], align_corners, scale_w)};
}

}  // namespace ops
}  // namespace pte
