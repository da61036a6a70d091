// aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *,
// Tensor(a!) out), N, C, H, W of any real dtype. ExecuTorch's source index: min(floor(dst * scale),
// size - 1), scale = 1 / scale_factor (or in / out) computed in double and rounded to float.
#include <cmath>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/upsample2d.h"

namespace pte {
namespace ops {

Status upsample_nearest2d_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<Span<const double>> scale_factors, args.optional_double_list(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_ASSIGN_OR_RETURN(const Upsample2dScales scales, upsample2d_scales(*self, *out, scale_factors, false));
  const int64_t in_h = self->sizes[2];
  const int64_t in_w = self->sizes[3];
  const int64_t out_h = out->sizes[2];
  const int64_t out_w = out->sizes[3];
  const size_t element = element_size(self->scalar_type);
  const uint8_t* in = self->data_as<const uint8_t>();
  uint8_t* result = out->data_as<uint8_t>();
  const size_t planes = static_cast<size_t>(self->sizes[0]) * static_cast<size_t>(self->sizes[1]);
  for (size_t plane = 0; plane < planes; ++plane) {
    for (int64_t y = 0; y < out_h; ++y) {
      int64_t source_y = static_cast<int64_t>(std::floor(static_cast<float>(y) * scales.h));
      source_y = source_y < in_h - 1 ? source_y : in_h - 1;
      for (int64_t x = 0; x < out_w; ++x) {
        int64_t source_x = static_cast<int64_t>(std::floor(static_cast<float>(x) * scales.w));
        source_x = source_x < in_w - 1 ? source_x : in_w - 1;
        const size_t from = (plane * in_h * in_w + source_y * in_w + source_x) * element;
        const size_t to = (plane * out_h * out_w + y * out_w + x) * element;
        for (size_t b = 0; b < element; ++b) result[to + b] = in[from + b];
      }
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
