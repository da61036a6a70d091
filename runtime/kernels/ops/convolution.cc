// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//     int[] dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out)
// 2D, float32, NCHW. Accumulates over (input channel, kernel row, kernel column) from zero and adds the
// bias last, the order ExecuTorch's portable kernel uses.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

struct Conv2dGeometry {
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  int64_t groups;
};

// PyTorch allows one value for both spatial dims; padding may also be empty (zero).
Result<int64_t> spatial_value(Span<const int64_t> values, size_t dim, int64_t if_empty, const char* what) {
  if (values.size() == 2) return values[dim];
  if (values.size() == 1) return values[0];
  if (values.empty() && if_empty >= 0) return if_empty;
  return Status::failure(Error::kKernelFailed, "%s has %lu values, expected 1 or 2", what, as_ulong(values.size()));
}

Result<Conv2dGeometry> read_geometry(const KernelArgs& args) {
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> stride, args.int_list(3));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> padding, args.int_list(4));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> dilation, args.int_list(5));
  PTE_ASSIGN_OR_RETURN(const bool transposed, args.boolean(6));
  PTE_ASSIGN_OR_RETURN(const int64_t groups, args.integer(8));
  if (transposed) return Status::failure(Error::kNotSupported, "transposed convolution is not supported");
  Conv2dGeometry geometry{};
  for (size_t dim = 0; dim < 2; ++dim) {
    PTE_ASSIGN_OR_RETURN(geometry.stride[dim], spatial_value(stride, dim, -1, "stride"));
    PTE_ASSIGN_OR_RETURN(geometry.padding[dim], spatial_value(padding, dim, 0, "padding"));
    PTE_ASSIGN_OR_RETURN(geometry.dilation[dim], spatial_value(dilation, dim, 1, "dilation"));
    if (geometry.stride[dim] <= 0 || geometry.padding[dim] < 0 || geometry.dilation[dim] <= 0) {
      return Status::failure(Error::kKernelFailed, "stride and dilation must be positive, padding non-negative");
    }
  }
  if (groups <= 0) return Status::failure(Error::kKernelFailed, "groups must be positive");
  geometry.groups = groups;
  return geometry;
}

Status check_shapes(const Tensor& input, const Tensor& weight, const Tensor* bias, const Conv2dGeometry& geometry,
                    const Tensor& out) {
  PTE_RETURN_IF_ERROR(expect_rank(input, 4, "input"));
  PTE_RETURN_IF_ERROR(expect_rank(weight, 4, "weight"));
  const int64_t in_channels = input.sizes[1];
  const int64_t out_channels = weight.sizes[0];
  if (in_channels % geometry.groups != 0 || out_channels % geometry.groups != 0 ||
      weight.sizes[1] != in_channels / geometry.groups) {
    return Status::failure(Error::kKernelFailed, "input %s and weight %s do not fit %s groups",
                           ShapeText(input).c_str(), ShapeText(weight).c_str(), DecimalText(geometry.groups).c_str());
  }
  if (bias != nullptr) {
    const int32_t bias_shape[] = {static_cast<int32_t>(out_channels)};
    PTE_RETURN_IF_ERROR(expect_shape(*bias, bias_shape, "bias"));
    PTE_RETURN_IF_ERROR(expect_scalar_type(*bias, ScalarType::kFloat, "bias"));
  }
  int32_t expected[4] = {input.sizes[0], static_cast<int32_t>(out_channels), 0, 0};
  for (size_t dim = 0; dim < 2; ++dim) {
    const int64_t extent = input.sizes[2 + dim] + 2 * geometry.padding[dim] -
                           geometry.dilation[dim] * (weight.sizes[2 + dim] - 1) - 1;
    if (extent < 0) return Status::failure(Error::kKernelFailed, "the kernel is larger than the padded input");
    expected[2 + dim] = static_cast<int32_t>(extent / geometry.stride[dim] + 1);
  }
  return expect_shape(out, expected, "out");
}

void conv2d(const Tensor& input, const Tensor& weight, const Tensor* bias, const Conv2dGeometry& g, Tensor& out) {
  const float* in = input.data_as<const float>();
  const float* w = weight.data_as<const float>();
  const float* b = bias ? bias->data_as<const float>() : nullptr;
  float* result = out.data_as<float>();
  const int64_t batches = input.sizes[0], in_c = input.sizes[1], in_h = input.sizes[2], in_w = input.sizes[3];
  const int64_t out_c = out.sizes[1], out_h = out.sizes[2], out_w = out.sizes[3];
  const int64_t k_h = weight.sizes[2], k_w = weight.sizes[3];
  const int64_t in_c_per_group = in_c / g.groups, out_c_per_group = out_c / g.groups;

  for (int64_t n = 0; n < batches; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      const int64_t ic_start = (oc / out_c_per_group) * in_c_per_group;
      for (int64_t oy = 0; oy < out_h; ++oy) {
        for (int64_t ox = 0; ox < out_w; ++ox) {
          float accumulator = 0.0f;
          for (int64_t ic = ic_start; ic < ic_start + in_c_per_group; ++ic) {
            for (int64_t ky = 0; ky < k_h; ++ky) {
              const int64_t iy = g.stride[0] * oy + g.dilation[0] * ky - g.padding[0];
              if (iy < 0 || iy >= in_h) continue;
              for (int64_t kx = 0; kx < k_w; ++kx) {
                const int64_t ix = g.stride[1] * ox + g.dilation[1] * kx - g.padding[1];
                if (ix < 0 || ix >= in_w) continue;
                const float in_value = in[((n * in_c + ic) * in_h + iy) * in_w + ix];
                const float w_value = w[((oc * in_c_per_group + (ic - ic_start)) * k_h + ky) * k_w + kx];
                accumulator += in_value * w_value;
              }
            }
          }
          if (b != nullptr) accumulator += b[oc];
          result[((n * out_c + oc) * out_h + oy) * out_w + ox] = accumulator;
        }
      }
    }
  }
}

}  // namespace

Status convolution_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(11));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* weight, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* bias, args.optional_tensor(2));
  PTE_ASSIGN_OR_RETURN(const Conv2dGeometry geometry, read_geometry(args));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(9));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*input, ScalarType::kFloat, "input"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*weight, *input, "weight", "input"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *input, "out", "input"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*input, "input"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*weight, "weight"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(check_shapes(*input, *weight, bias, geometry, *out));
  conv2d(*input, *weight, bias, geometry, *out);
  return Status();
}

}  // namespace ops
}  // namespace pte
