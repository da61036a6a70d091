// aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners, float[]?
// scale_factors, *, Tensor(a!) out), float32 N, C, H, W. ExecuTorch's float arithmetic: source
// coordinate scale * (dst + 0.5) - 0.5 clamped at 0 (scale * dst with align_corners), the two
// neighbours and their weights, then (tl * w0 + tr * w1) * h0 + (bl * w0 + br * w1) * h1.
#include <cmath>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/upsample2d.h"

namespace pte {
namespace ops {
namespace {

struct Neighbours {
  int64_t first;
  int64_t second;
  float first_weight;
  float second_weight;
};

Neighbours neighbours(float scale, int64_t out_index, int64_t in_size, int64_t out_size, bool align_corners) {
  if (out_size == in_size) return Neighbours{out_index, out_index, 1.0f, 0.0f};
  float real = align_corners ? scale * static_cast<float>(out_index)
                             : scale * (static_cast<float>(out_index) + 0.5f) - 0.5f;
  if (!align_corners && real < 0.0f) real = 0.0f;
  int64_t first = static_cast<int64_t>(std::floor(real));
  first = first < in_size - 1 ? first : in_size - 1;
  float second_weight = real - static_cast<float>(first);
  second_weight = second_weight > 0.0f ? second_weight : 0.0f;
  second_weight = second_weight < 1.0f ? second_weight : 1.0f;
  return Neighbours{first, first + (first < in_size - 1 ? 1 : 0), 1.0f - second_weight, second_weight};
}

}  // namespace

Status upsample_bilinear2d_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(6));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const bool align_corners, args.boolean(2));
  PTE_ASSIGN_OR_RETURN(const std::optional<Span<const double>> scale_factors, args.optional_double_list(3));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(4));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*self, ScalarType::kFloat, "input"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "input"));
  PTE_ASSIGN_OR_RETURN(const Upsample2dScales scales, upsample2d_scales(*self, *out, scale_factors, align_corners));
  const int64_t in_h = self->sizes[2];
  const int64_t in_w = self->sizes[3];
  const int64_t out_h = out->sizes[2];
  const int64_t out_w = out->sizes[3];
  const size_t planes = static_cast<size_t>(self->sizes[0]) * static_cast<size_t>(self->sizes[1]);
  float* result = out->data_as<float>();
  for (size_t plane = 0; plane < planes; ++plane) {
    const float* in = self->data_as<const float>() + plane * in_h * in_w;
    for (int64_t y = 0; y < out_h; ++y) {
      const Neighbours h = neighbours(scales.h, y, in_h, out_h, align_corners);
      for (int64_t x = 0; x < out_w; ++x) {
        const Neighbours w = neighbours(scales.w, x, in_w, out_w, align_corners);
        const float top = in[h.first * in_w + w.first] * w.first_weight + in[h.first * in_w + w.second] * w.second_weight;
        const float bottom =
            in[h.second * in_w + w.first] * w.first_weight + in[h.second * in_w + w.second] * w.second_weight;
        *result++ = top * h.first_weight + bottom * h.second_weight;
      }
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
