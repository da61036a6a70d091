// The scales upsample_nearest2d and upsample_bilinear2d share, computed as ExecuTorch computes them: the
// scale factor (or out / in when only output_size is given) in double, its inverse in double (or
// (in - 1) / (out - 1) with align_corners), rounded to float.
#pragma once

#include <optional>

#include "runtime/core/result.h"
#include "runtime/core/tensor.h"

namespace pte {
namespace ops {

struct Upsample2dScales {
  float h;
  float w;
};

// Also checks that input and out are N, C, H, W in the default dim order with the same N and C.
Result<Upsample2dScales> upsample2d_scales(const Tensor& input, const Tensor& out,
                                           std::optional<Span<const double>> scale_factors, bool align_corners);

}  // namespace ops
}  // namespace pte
